"""Every exercise of lessons 00-06 that judges text the learner writes judges it by meaning in English or
Spanish: a right answer written in Spanish passes, a wrong one is refused. Exercise 1.3 is in English by
its own text (its model matches the words of English requests): a Spanish description is told so."""

import inspect
import json

import pytest
from test_checks_lesson05 import JOB_TOOLS, AskFirst

from agent_core.checks.lesson01 import check_cancel_description
from agent_core.checks.lesson03 import check_honest_tool, check_safe_dispatch
from agent_core.checks.lesson05 import check_apply_for, check_tests_pass
from agent_core.coding.tiny_project import TinyProject
from agent_core.loop import run_agent

# --- 1.3: English by the exercise's words ---------------------------------------------------------


def test_check_1_3_tells_a_spanish_description_to_be_english_like_the_requests(capsys):
    def cancel_order(order_id: str) -> str:
        """Cancela un pedido por su id, si aún no se ha enviado."""
        return "ok"

    assert not check_cancel_description(cancel_order)
    assert "the description is in Spanish" in capsys.readouterr().out


# --- 3.1: the error texts ------------------------------------------------------------------------

_TIPOS = {int: "un entero", float: "un número", str: "una cadena", bool: "un booleano", list: "una lista"}


def _fits(value, annotation):
    if annotation is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if annotation is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if annotation in (str, bool, list, dict):
        return isinstance(value, annotation)
    return True


def despacho_seguro(functions, call, *, missing="falta {name!r}", wrong="{name!r} debería ser {tipo}"):
    """a right answer, its errors in Spanish"""
    name = call["function"]["name"]

    def answer(content):
        return {"role": "tool", "tool_call_id": call["id"], "content": content}

    if name not in functions:
        return answer(
            f"ERROR: no existe ninguna herramienta {name!r}. Las herramientas son: {', '.join(functions)}."
        )
    function = functions[name]
    try:
        arguments = json.loads(call["function"]["arguments"])
    except json.JSONDecodeError as error:
        return answer(f"ERROR: los argumentos de {name} no son JSON válido ({error}).")
    if not isinstance(arguments, dict):
        return answer(f"ERROR: los argumentos de {name} deben ser un objeto JSON, no {arguments!r}.")
    parameters = inspect.signature(function).parameters
    problems = [f"{key!r} no es un parámetro" for key in arguments if key not in parameters]
    for parameter in parameters.values():
        if parameter.name not in arguments:
            if parameter.default is inspect.Parameter.empty:
                problems.append(missing.format(name=parameter.name))
        elif not _fits(arguments[parameter.name], parameter.annotation):
            tipo = _TIPOS.get(parameter.annotation, str(parameter.annotation))
            problems.append(wrong.format(name=parameter.name, tipo=tipo))
    if problems:
        return answer(f"ERROR: argumentos incorrectos para {name}: {'; '.join(problems)}.")
    try:
        result = function(**arguments)
    except (Exception, SystemExit) as error:
        return answer(f"ERROR: {name} lanzó {type(error).__name__}: {error}")
    return answer(result if isinstance(result, str) else json.dumps(result))


def test_check_3_1_passes_a_dispatcher_whose_errors_are_in_spanish(capsys):
    assert check_safe_dispatch(despacho_seguro)


@pytest.mark.parametrize(
    ("options", "problem"),
    [
        ({"missing": "{name!r} no está"}, "the error should name the argument that is missing, 'b'"),
        ({"wrong": "{name!r} no vale"}, "the error should name the argument 'b' and the type it should be"),
    ],
)
def test_check_3_1_refuses_spanish_errors_that_do_not_say_what_is_wrong(options, problem, capsys):
    assert not check_safe_dispatch(lambda functions, call: despacho_seguro(functions, call, **options))
    assert problem in capsys.readouterr().out


# --- 3.2: the refusals ---------------------------------------------------------------------------


def reservar(lunes: str, grupo: str):
    def book_table(day: str, people: int) -> str:
        """Reserva una mesa en el restaurante para un día de la semana y un número de personas."""
        if day.strip().lower() == "monday":
            raise ValueError(lunes)
        if people > 8:
            raise ValueError(grupo.format(people=people))
        return f"Mesa reservada el {day} para {people} personas."

    return book_table


def test_check_3_2_passes_refusals_written_in_spanish(capsys):
    right = reservar(
        "El restaurante cierra los lunes: elige otro día, por ejemplo el martes.",
        "Una mesa admite como máximo 8 personas (pediste {people}): divide el grupo en varias mesas.",
    )
    assert check_honest_tool(right)


@pytest.mark.parametrize(
    ("lunes", "grupo", "problem"),
    [
        ("El restaurante está cerrado los lunes.", "Como máximo 8 personas.", "suggest another day"),
        ("Cerrado los lunes: elige otro día.", "Son demasiadas personas.", "give the limit, 8"),
        ("No abrimos ese día: elige otro.", "Como máximo 8 personas.", "the problem is Monday"),
    ],
)
def test_check_3_2_refuses_spanish_refusals_that_miss_a_rule(lunes, grupo, problem, capsys):
    assert not check_honest_tool(reservar(lunes, grupo))
    assert problem in capsys.readouterr().out


# --- 5.3: the system prompt -----------------------------------------------------------------------


def agente(system):
    def apply_for(client, offer, decide):
        guard = AskFirst(decide, ["send_application"])
        return run_agent(client, offer, JOB_TOOLS, system=system, max_turns=6, guardrails=[guard])

    return apply_for


@pytest.mark.parametrize(
    "system",
    [
        "Ayudas a una persona a solicitar empleos: compara la oferta con su currículum y solicita solo si "
        "cumple todos los requisitos imprescindibles.",
        "Eres un asistente de empleo. Presenta la candidatura únicamente cuando el perfil encaje con lo que "
        "pide la oferta.",
        "You help a person apply for jobs; apply only when the currículum meets every must-have.",
    ],
)
def test_check_5_3_passes_a_system_prompt_saying_when_it_applies_in_spanish(system, capsys):
    assert check_apply_for(agente(system), JOB_TOOLS)


def test_check_5_3_refuses_a_spanish_system_prompt_that_never_says_when_it_applies(capsys):
    assert not check_apply_for(
        agente("Eres un asistente que ayuda a una persona a buscar trabajo y enviar cartas."), JOB_TOOLS
    )
    assert "does not say when the agent applies" in capsys.readouterr().out


# --- 5.4: the report ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def project():
    return TinyProject()


def vigilante(project, said):
    def tests_pass():
        report = project.run_tests()
        edited = [path for path in project.changed() if path.startswith("test_")]
        if edited:
            return False, said.format(files=", ".join(edited)) + f"\n{report}"
        return report.startswith("exit code: 0"), report

    return tests_pass


def test_check_5_4_passes_a_report_written_in_spanish(project, capsys):
    said = "Se han cambiado las pruebas ({files}): déjalas como estaban y arregla el código."
    assert check_tests_pass(vigilante(project, said), project)


def test_check_5_4_refuses_a_spanish_report_that_does_not_name_the_test_file(project, capsys):
    said = "Las pruebas no valen: déjalas como estaban."
    assert not check_tests_pass(vigilante(project, said), project)
    assert "the report does not say that test_discount.py was changed" in capsys.readouterr().out


# --- 4.1: the honest message at max_turns ---------------------------------------------------------


def bucle(at_the_cap):
    from agent_core.calls import assistant_message, tool_calls_of

    def my_run(client, task, registry, max_turns=10):
        messages = [{"role": "user", "content": task}]
        for _ in range(max_turns):
            response = client.chat.completions.create(
                model="mock-model", messages=messages, tools=registry.definitions
            )
            message = assistant_message(response)
            messages.append(message)
            calls = tool_calls_of(message)
            if not calls:
                return message["content"], messages, "answered"
            messages += [registry.dispatch(call) for call in calls]
        last = messages[-1]["content"]
        return at_the_cap.format(last=last), messages, "max_turns"

    return my_run


def test_check_4_1_passes_an_honest_message_written_in_spanish(capsys):
    from agent_core.checks.lesson04 import check_my_run

    assert check_my_run(bucle("Me detuve sin respuesta final; el último resultado fue {last}."))


def test_check_4_1_refuses_a_spanish_message_that_passes_a_result_off_as_the_answer(capsys):
    from agent_core.checks.lesson04 import check_my_run

    assert not check_my_run(bucle("La respuesta es {last}."))
    assert "presents a tool's result as the answer" in capsys.readouterr().out
