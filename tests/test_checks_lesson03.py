"""Lesson 03's exercise checks: they pass the solutions and name what is wrong in tempting wrong answers."""

import inspect
import json
import types
import typing

import pytest
from hash_seeds import under_two_hash_seeds

from agent_core.checks.lesson03 import check_honest_tool, check_safe_dispatch
from agent_core.dispatch import ToolRegistry


def fits(value, annotation):
    """does a JSON value suit a parameter's type hint? (JSON true is not a number)"""
    if annotation is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if annotation is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if annotation in (str, bool, list, dict):
        return isinstance(value, annotation)
    return True


def safe_dispatch(functions, call, *, fits=fits, catch=(Exception, SystemExit)):
    """the solution of Exercise 3.1, as in solutions/03_dispatcher.ipynb"""
    name = call["function"]["name"]

    def answer(content):
        return {"role": "tool", "tool_call_id": call["id"], "content": content}

    if name not in functions:
        return answer(f"ERROR: there is no tool named {name!r}. The tools are: {', '.join(functions)}.")
    function = functions[name]
    try:
        arguments = json.loads(call["function"]["arguments"])
    except json.JSONDecodeError as error:
        return answer(f"ERROR: the arguments for {name} are not valid JSON ({error}).")
    if not isinstance(arguments, dict):
        return answer(f"ERROR: the arguments for {name} must be a JSON object, not {arguments!r}.")
    parameters = inspect.signature(function).parameters
    wrong = [f"{key!r} is not a parameter" for key in arguments if key not in parameters]
    for parameter in parameters.values():
        if parameter.name not in arguments:
            if parameter.default is inspect.Parameter.empty:
                wrong.append(f"{parameter.name!r} is missing")
        elif not fits(arguments[parameter.name], parameter.annotation):
            expected = getattr(parameter.annotation, "__name__", parameter.annotation)
            wrong.append(f"{parameter.name!r} should be {expected}, not {arguments[parameter.name]!r}")
    if wrong:
        return answer(f"ERROR: wrong arguments for {name}: {'; '.join(wrong)}.")
    try:
        result = function(**arguments)
    except catch as error:  # a tool may end with SystemExit, as argparse does
        return answer(f"ERROR: {name} raised {type(error).__name__}: {error}")
    return answer(result if isinstance(result, str) else json.dumps(result))


def no_validation(functions, call):
    """catches each stage apart, but never checks the arguments against the type hints"""
    name = call["function"]["name"]

    def answer(content):
        return {"role": "tool", "tool_call_id": call["id"], "content": content}

    if name not in functions:
        return answer(f"ERROR: there is no tool named {name!r}. The tools are: {', '.join(functions)}.")
    try:
        arguments = json.loads(call["function"]["arguments"])
    except json.JSONDecodeError as error:
        return answer(f"ERROR: the arguments for {name} are not valid JSON: {error}.")
    try:
        result = functions[name](**arguments)
    except Exception as error:
        return answer(f"ERROR: {name} raised {type(error).__name__}: {error}.")
    return answer(result if isinstance(result, str) else json.dumps(result))


def tiny_dispatch(functions, call):
    try:
        function = functions[call["function"]["name"]]
        content = json.dumps(function(**json.loads(call["function"]["arguments"])))
    except Exception as error:
        content = f"Error: {error}"
    return {"role": "tool", "tool_call_id": call["id"], "content": content}


def catch_all(functions, call):
    """one message for every failure, stuffed with everything any failure might need"""
    try:
        function = functions[call["function"]["name"]]
        arguments = json.loads(call["function"]["arguments"])
        for key, value in arguments.items():
            if not fits(value, inspect.signature(function).parameters[key].annotation):
                raise TypeError(
                    f"{key!r} should be {inspect.signature(function).parameters[key].annotation.__name__}"
                )
        result = function(**arguments)
        content = result if isinstance(result, str) else json.dumps(result)
    except Exception as error:
        content = (
            f"ERROR: {type(error).__name__}: {error}. The tool may be unknown (the tools are "
            f"{', '.join(functions)}), the arguments may not be valid JSON, or one may be missing."
        )
    return {"role": "tool", "tool_call_id": call["id"], "content": content}


def bool_is_an_int(functions, call):
    return safe_dispatch(functions, call, fits=lambda value, annotation: isinstance(value, annotation))


def float_means_float(functions, call):
    def strict(value, annotation):
        return isinstance(value, float) if annotation is float else fits(value, annotation)

    return safe_dispatch(functions, call, fits=strict)


def lesson_tools_listed(functions, call):
    message = safe_dispatch(functions, call)
    if "no tool named" in message["content"]:
        message["content"] = "ERROR: no such tool. The tools are: add, divide, get_weather, get_forecast."
    return message


def json_for_everything(functions, call):
    message = safe_dispatch(functions, call)
    if not message["content"].startswith("ERROR: "):
        message["content"] = json.dumps(
            json.loads(message["content"]) if message["content"][:1] in "[{0123456789" else message["content"]
        )
    return message


def no_type_name(functions, call):
    message = safe_dispatch(functions, call)
    message["content"] = message["content"].replace("ZeroDivisionError", "an error")
    return message


def raising(functions, call):
    result = functions[call["function"]["name"]](**json.loads(call["function"]["arguments"]))
    return {"role": "tool", "tool_call_id": call["id"], "content": json.dumps(result)}


def wrong_shape(functions, call):
    return "6"


def wrong_id(functions, call):
    return {**safe_dispatch(functions, call), "tool_call_id": "call_0"}


def test_check_safe_dispatch_passes_the_solution(capsys):
    assert check_safe_dispatch(safe_dispatch)
    assert "✓ Exercise 3.1" in capsys.readouterr().out


def test_check_safe_dispatch_passes_the_library_s_dispatcher(capsys):
    result = check_safe_dispatch(lambda functions, call: ToolRegistry(functions.values()).dispatch(call))
    assert result and result.scenarios == 139


def dispatch_by_type_table(functions, call):
    """a right answer written differently: a table of accepted Python types, signature.bind for what is
    missing"""
    accepted = {int: (int,), float: (int, float), str: (str,), list: (list,)}
    name, raw = call["function"]["name"], call["function"]["arguments"]
    reply = {"tool_call_id": call["id"], "role": "tool"}
    if name not in functions:
        return {**reply, "content": f"ERROR: unknown tool {name}; available: {sorted(functions)}"}
    try:
        arguments = json.loads(raw)
        assert isinstance(arguments, dict)
    except (ValueError, AssertionError):
        return {**reply, "content": f"ERROR: arguments must be a JSON object, got {raw!r}"}
    signature = inspect.signature(functions[name])
    try:
        signature.bind(**arguments)
    except TypeError as error:
        return {**reply, "content": f"ERROR: {error} (missing or unexpected argument)"}
    for key, value in arguments.items():
        hint = signature.parameters[key].annotation
        if type(value) not in accepted.get(hint, (type(value),)):
            return {**reply, "content": f"ERROR: argument {key} must be of type {hint.__name__}"}
    try:
        result = functions[name](**arguments)
    except BaseException as error:  # SystemExit too
        return {**reply, "content": f"ERROR: {type(error).__name__}: {error}"}
    return {**reply, "content": result if type(result) is str else json.dumps(result, ensure_ascii=False)}


def dispatch_naming_the_type_of_what_is_missing(functions, call):
    """right, written differently: a missing argument named with its type ("was not given"), no word
    'missing'"""
    name = call["function"]["name"]
    function = functions.get(name)
    if function is not None and not isinstance(function, type):
        try:
            arguments = json.loads(call["function"]["arguments"])
        except ValueError:
            arguments = None
        if isinstance(arguments, dict):
            for parameter in inspect.signature(function).parameters.values():
                if parameter.name not in arguments and parameter.default is inspect.Parameter.empty:
                    kind = {int: "integer", float: "number", str: "string"}[parameter.annotation]
                    content = f"ERROR: required argument {parameter.name} ({kind}) was not given."
                    return {"role": "tool", "tool_call_id": call["id"], "content": content}
    return safe_dispatch(functions, call)


@pytest.mark.parametrize("right", [dispatch_by_type_table, dispatch_naming_the_type_of_what_is_missing])
def test_check_safe_dispatch_passes_a_right_answer_written_differently(right, capsys):
    assert check_safe_dispatch(right)


def test_check_safe_dispatch_gives_the_same_verdict_every_time(capsys):
    check_safe_dispatch(true_is_a_float)
    first = capsys.readouterr().out
    check_safe_dispatch(true_is_a_float)
    assert capsys.readouterr().out == first


def true_is_a_float(functions, call):
    """the most tempting type test: a bool passes as a number for float parameters"""

    def loose(value, annotation):
        return isinstance(value, (int, float)) if annotation is float else fits(value, annotation)

    return safe_dispatch(functions, call, fits=loose)


def str_of_the_result(functions, call):
    """sends str(result): Python's repr of a list, not JSON"""
    message = safe_dispatch(functions, call)
    name = call["function"]["name"]
    if not message["content"].startswith("ERROR: ") and name == "get_forecast":
        message["content"] = str(functions[name](**json.loads(call["function"]["arguments"])))
    return message


def refuses_only_strings_for_numbers(functions, call):
    """the lesson's "4" + "2" case guarded, and nothing else: null, lists and objects get through"""

    def strings_only(value, annotation):
        if annotation in (int, float):
            return not isinstance(value, (str, bool))
        return fits(value, annotation)

    return safe_dispatch(functions, call, fits=strings_only)


def null_never_fits(functions, call):
    """a hint that is a union, `int | None`, checked by its first member only: JSON null is refused"""

    def first_member(value, annotation):
        options = typing.get_args(annotation) if isinstance(annotation, types.UnionType) else (annotation,)
        if options[0] is int:
            return isinstance(value, int) and not isinstance(value, bool)
        return fits(value, annotation)

    return safe_dispatch(functions, call, fits=first_member)


def catches_what_it_expects(functions, call):
    """catches only the exceptions it thought of: the KeyError of a lookup escapes"""
    return safe_dispatch(functions, call, catch=(ValueError, TypeError, ZeroDivisionError, SystemExit))


def lets_system_exit_through(functions, call):
    """`except Exception` around the tool: a tool that ends with SystemExit (as argparse does) escapes"""
    return safe_dispatch(functions, call, catch=Exception)


@pytest.mark.parametrize(
    ("wrong", "explanations"),
    [
        (
            catches_what_it_expects,
            ['the call lookup({"key": "weight"}): safe_dispatch raised KeyError', "it must never raise"],
        ),
        (
            lets_system_exit_through,
            [
                "safe_dispatch raised SystemExit: 2 (SystemExit is not an Exception: `except Exception` lets "
                "it through"
            ],
        ),
        (
            true_is_a_float,
            [
                'the call divide({"a": 0, "b": false}): the tool ran with arguments its type hints forbid '
                "(JSON true and false are not numbers"
            ],
        ),
        (
            no_validation,
            [
                'add({"a": 4, "b": "2"}): the tool ran with arguments its type hints forbid',
                "refuse the call with an error that should name "
                "the argument 'b' and the type it should be (int)",
            ],
        ),
        (tiny_dispatch, ["a string result goes back as it is, not as JSON"]),
        (catch_all, ["which talks about JSON though the JSON was fine"]),
        (bool_is_an_int, ["a whole number is a fine value for a float parameter"]),
        (float_means_float, ["a whole number is a fine value for a float parameter"]),
        (lesson_tools_listed, ["'sum' missing from 'ERROR: no such tool."]),
        (json_for_everything, ["a string result goes back as it is, not as JSON: send 'light rain, 18°C'"]),
        (no_type_name, ["'ZeroDivisionError' missing from"]),
        (raising, ["a string result goes back as it is, not as JSON"]),
        (wrong_shape, ["return a tool message (a dict whose 'role' is 'tool'), not '6'"]),
        (wrong_id, ["tool_call_id should be the call's id 'call_1'"]),
        (str_of_the_result, ["a result that is not a string goes back as JSON"]),
        (refuses_only_strings_for_numbers, ["the tool ran with arguments its type hints forbid"]),
        (
            null_never_fits,
            [
                'the call days_of_rain({"city": "Oslo", "days": null}): JSON null fits the type hint of '
                "'days' (int | None): a hint that says `| None` takes null, so run the tool"
            ],
        ),
    ],
    ids=lambda value: getattr(value, "__name__", ""),
)
def test_check_safe_dispatch_rejects_each_wrong_answer_naming_its_fault(capsys, wrong, explanations):
    assert not check_safe_dispatch(wrong)
    out = capsys.readouterr().out
    for explanation in explanations:
        assert explanation in out


def test_the_same_message_for_two_kinds_of_failure_is_named(capsys):
    def same_words(functions, call):
        message = safe_dispatch(functions, call)
        if message["content"].startswith("ERROR: ") and "no tool named" not in message["content"]:
            message["content"] = "ERROR: that call did not work."
        return message

    assert not check_safe_dispatch(same_words)
    assert "the error should say the arguments are not valid JSON" in capsys.readouterr().out


def book_table(day: str, people: int) -> str:
    """Book a table at the restaurant, for a day of the week and a number of people."""
    if day.strip().lower() == "monday":
        raise ValueError("the restaurant is closed on Mondays; choose another day of the week")
    if people > 8:
        raise ValueError(f"a table seats at most 8 people, not {people}; book several tables")
    return f"Booked a table for {people} on {day}."


def test_check_honest_tool_passes_the_solution(capsys):
    assert check_honest_tool(book_table)
    assert "✓ Exercise 3.2" in capsys.readouterr().out


def test_check_honest_tool_explains_the_stub(capsys):
    def trusting(day: str, people: int) -> str:
        """Book a table."""
        return f"Booked a table for {people} on {day}."

    assert not check_honest_tool(trusting)
    out = capsys.readouterr().out
    assert "a table for 1 on 'Monday': it was accepted" in out


def test_check_honest_tool_wants_every_spelling_of_monday_and_the_limit(capsys):
    def lowercase_only(day: str, people: int) -> str:
        """Book a table."""
        if day == "monday":
            raise ValueError("closed on monday")
        if people > 8:
            raise ValueError("too many people")
        return "booked"

    assert not check_honest_tool(lowercase_only)
    out = capsys.readouterr().out
    assert "a table for 1 on 'Monday': it was accepted ('booked')" in out


def test_check_honest_tool_accepts_rules_written_differently(capsys):
    def by_weekday_number(day: str, people: int) -> str:
        """Book a table: closed on the first day of the week, at most 8 people."""
        if ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"].index(
            day.lower()
        ) == 0:
            raise ValueError("Closed on Monday. Pick any other day.")
        if not people <= 8:
            raise ValueError("Tables hold 8 people at most; split the group.")
        return "ok"

    result = check_honest_tool(by_weekday_number)
    assert result and result.scenarios == 68


def _booking(limit_test):
    def book_table(day: str, people: int) -> str:
        """Book a table."""
        if day.lower() == "monday":
            raise ValueError("closed on Mondays; choose another day")
        if limit_test(day, people):
            raise ValueError(f"a table seats at most 8 people, not {people}")
        return f"Booked a table for {people} on {day}."

    return book_table


def one_message_for_both(day: str, people: int) -> str:
    """Book a table."""
    if day.lower() == "monday" or people > 8:
        raise ValueError("closed on Mondays (choose another day), and at most 8 people")
    return f"Booked a table for {people} on {day}."


def returns_an_error_text(day: str, people: int) -> str:
    """the registry would show the model the same text, but the lesson's tool raises ValueError"""
    if day.lower() == "monday":
        return "ERROR: closed on Mondays; choose another day"
    if people > 8:
        return f"ERROR: at most 8 people per table, not {people}"
    return f"Booked a table for {people} on {day}."


def raises_a_plain_exception(day: str, people: int) -> str:
    """Book a table."""
    if day.lower() == "monday":
        raise Exception("We are closed on Mondays: choose another day.")
    if people > 8:
        raise ValueError("A table seats at most 8 people: book several tables for a larger group.")
    return f"Booked a table for {people} on {day}."


def confirms_nothing(day: str, people: int) -> str:
    """the rules right, but a booking that works returns None: the model reads null"""
    if day.lower() == "monday":
        raise ValueError("closed on Mondays; choose another day")
    if people > 8:
        raise ValueError("at most 8 people per table; book several tables")


def says_why_not_what(day: str, people: int) -> str:
    """Book a table."""
    if day.lower() == "monday":
        raise ValueError("Closed on Mondays: choose another day.")
    if people > 8:
        raise ValueError("More than 8 people.")
    return f"Booked a table for {people} on {day}."


def closed_without_a_way_out(day: str, people: int) -> str:
    """Book a table."""
    if day.lower() == "monday":
        raise ValueError("We are closed on Mondays.")
    if people > 8:
        raise ValueError("A table seats at most 8 people.")
    return f"Booked a table for {people} on {day}."


@pytest.mark.parametrize(
    ("wrong", "message"),
    [
        (
            raises_a_plain_exception,
            "a table for 1 on 'Monday': it raised Exception: a call whose values break a rule of the tool is "
            "a ValueError",
        ),
        (
            returns_an_error_text,
            "a table for 1 on 'Monday': book_table returned 'ERROR: closed on Mondays; choose another day' "
            "instead of raising: a call that breaks a rule raises ValueError(...)",
        ),
        (
            says_why_not_what,
            "a table for 9 on 'Friday': the error says what is wrong, but not what would work",
        ),
        (
            closed_without_a_way_out,
            "a table for 1 on 'Monday': the error says why, but not what would work: suggest another day",
        ),
        (_booking(lambda day, people: people >= 8), "a table for 8 on 'Tuesday': it should be booked"),
        (_booking(lambda day, people: people > 9), "a table for 9 on 'Friday': it was accepted"),
        (one_message_for_both, "a table for 9 on 'Friday': the error talks about Monday"),
        (
            _booking(lambda day, people: people > 8 or day != "Friday"),
            "a table for 1 on 'Tuesday': it should be booked",
        ),
        (
            _booking(lambda day, people: people > 8 and day != "Sunday"),
            "a table for 9 on 'Sunday': it was accepted",
        ),
        (
            _booking(lambda day, people: people > 8 and day.istitle()),
            "a table for 9 on 'wednesday': it was accepted",
        ),
        (
            confirms_nothing,
            "a table for 1 on 'Friday': book_table returned None, so the model reads 'null': return a "
            "confirmation text",
        ),
    ],
)
def test_check_honest_tool_rejects_a_wrong_limit_or_a_shared_message(wrong, message, capsys):
    assert not check_honest_tool(wrong)
    assert message in capsys.readouterr().out


def test_a_dispatcher_that_requires_every_parameter_is_named(capsys):
    """the most tempting slip of all: a parameter with a default counted as required"""

    def every_parameter_required(functions, call):
        message = safe_dispatch(functions, call)
        if (
            call["function"]["arguments"] == '{"city": "Paris"}'
            and call["function"]["name"] == "get_forecast"
        ):
            message["content"] = "ERROR: wrong arguments for get_forecast: 'days' is missing."
        return message

    assert not check_safe_dispatch(every_parameter_required)
    out = capsys.readouterr().out
    assert 'get_forecast({"city": "Paris"}): days has a default (3), so leaving it out is fine' in out
    assert out.count("  - ") == 1


def test_a_dispatcher_that_raises_on_arguments_that_are_not_an_object_is_named(capsys):
    def trusts_the_object(functions, call):
        if call["function"]["arguments"] == "null":
            return {"role": "tool", "tool_call_id": call["id"], "content": str("a" in json.loads("null"))}
        return safe_dispatch(functions, call)

    assert not check_safe_dispatch(trusts_the_object)
    out = capsys.readouterr().out
    assert (
        "the call add(null): the arguments null are JSON, but not an object of named arguments, and "
        "safe_dispatch raised TypeError on them: check that json.loads gave a dict, and answer an error "
        "saying the arguments must be a JSON object" in out
    )
    assert out.count("  - ") == 1


def test_check_honest_tool_wants_type_hints(capsys):
    def no_hints(day, people):
        """Book a table."""

    def text_people(day: str, people: str) -> str:
        """Book a table."""

    assert not check_honest_tool(no_hints)
    assert not check_honest_tool(text_people)
    out = capsys.readouterr().out
    assert "the registry cannot take book_table: parameter 'day' of no_hints() has no type hint" in out
    assert "give `people` the type hint int, so its schema says 'integer'" in out


def test_a_missing_argument_left_to_python_s_type_error_is_named(capsys):
    def lets_python_find_it(functions, call):
        message = safe_dispatch(functions, call)
        if "'b' is missing" in message["content"]:
            message["content"] = (
                "ERROR: add raised TypeError: add() missing 1 required positional argument: 'b'"
            )
        return message

    assert not check_safe_dispatch(lets_python_find_it)
    assert (
        "a missing argument is the model's mistake, not an exception in the tool" in capsys.readouterr().out
    )


class Refused(Exception):
    """one failed stage: its text is what the model reads"""


def dispatch_through_exceptions(functions, call):
    """right, written differently: every stage raises Refused, one except turns it into the message;
    types checked by a table of allowed Python types, errors worded in its own way"""
    allowed = {int: (int,), float: (int, float), str: (str,), bool: (bool,), list: (list,), dict: (dict,)}
    name = call["function"]["name"]
    try:
        if name not in functions:
            raise Refused(f"unknown tool {name!r}; choose one of: {', '.join(sorted(functions))}")
        try:
            arguments = json.loads(call["function"]["arguments"])
        except ValueError as error:
            raise Refused(f"the arguments are not valid JSON: {error}") from error
        if type(arguments) is not dict:
            raise Refused("the arguments must be a JSON object of named arguments")
        signature = inspect.signature(functions[name])
        for key in arguments:
            if key not in signature.parameters:
                raise Refused(f"{key!r} is not a parameter of {name}")
        for parameter in signature.parameters.values():
            if parameter.name not in arguments:
                if parameter.default is parameter.empty:
                    raise Refused(f"the argument {parameter.name!r} is missing")
                continue
            value = arguments[parameter.name]
            kinds = allowed.get(parameter.annotation, (object,))
            if type(value) not in kinds and kinds != (object,):
                raise Refused(f"{parameter.name!r} must be of type {parameter.annotation.__name__}")
        try:
            result = functions[name](**arguments)
        except (Exception, SystemExit) as error:
            raise Refused(f"{name} failed with {type(error).__name__}: {error}") from error
    except Refused as refusal:
        return {"tool_call_id": call["id"], "content": f"ERROR: {refusal}", "role": "tool"}
    content = result if type(result) is str else json.dumps(result, ensure_ascii=False)
    return {"tool_call_id": call["id"], "content": content, "role": "tool"}


def test_check_safe_dispatch_passes_another_right_answer_written_differently(capsys):
    result = check_safe_dispatch(dispatch_through_exceptions)
    assert result and result.scenarios == 139, capsys.readouterr().out


def test_check_honest_tool_gives_the_same_verdict_every_time(capsys):
    wrong = _booking(lambda day, people: people > 8 and day.istitle())
    first, second = check_honest_tool(wrong), check_honest_tool(wrong)
    out = capsys.readouterr().out.split("✗")
    assert first.scenarios == second.scenarios == 68 and out[1] == out[2]


def test_the_lesson_03_checks_give_the_same_verdicts_under_another_hash_seed():
    """each check on a wrong answer: the same words whatever the order of a set"""
    outputs = under_two_hash_seeds(
        "test_checks_lesson03",
        "c.check_safe_dispatch(t.true_is_a_float); c.check_honest_tool(t.one_message_for_both)",
    )
    assert len(outputs) == 1 and outputs.pop().count("✗ Exercise 3.") == 2


def test_a_missing_argument_left_unnamed_is_told_the_type_in_words(capsys):
    def unnamed_missing(functions, call):
        message = safe_dispatch(functions, call)
        if "missing" in message["content"]:
            return {**message, "content": "ERROR: a required argument is missing."}
        return message

    assert not check_safe_dispatch(unnamed_missing)
    out = capsys.readouterr().out
    assert "the error should name the argument that is missing, 'b', and say so or give its type (int)" in out
    assert "|" not in out
