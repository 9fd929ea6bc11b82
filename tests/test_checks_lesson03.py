"""Lesson 03's exercise checks: they pass the solutions and say what is wrong with the stubs."""

import json

from agent_core.checks.lesson03 import check_honest_tool, check_safe_dispatch


def safe_dispatch(functions, call):
    name = call["function"]["name"]

    def answer(content):
        return {"role": "tool", "tool_call_id": call["id"], "content": content}

    if name not in functions:
        return answer(
            f"ERROR: there is no tool named {name!r}. The available tools are: {', '.join(functions)}."
        )
    try:
        arguments = json.loads(call["function"]["arguments"])
    except json.JSONDecodeError as error:
        return answer(f"ERROR: the arguments for {name!r} are not valid JSON: {error}.")
    try:
        result = functions[name](**arguments)
    except Exception as error:
        return answer(f"ERROR: the tool {name!r} raised {type(error).__name__}: {error}.")
    return answer(result if isinstance(result, str) else json.dumps(result))


def tiny_dispatch(functions, call):
    try:
        function = functions[call["function"]["name"]]
        content = json.dumps(function(**json.loads(call["function"]["arguments"])))
    except Exception as error:
        content = f"Error: {error}"
    return {"role": "tool", "tool_call_id": call["id"], "content": content}


def test_check_safe_dispatch_passes_the_solution(capsys):
    assert check_safe_dispatch(safe_dispatch)
    assert "✓ Exercise 3.1" in capsys.readouterr().out


def test_check_safe_dispatch_explains_each_weakness_of_the_tiny_dispatcher(capsys):
    assert not check_safe_dispatch(tiny_dispatch)
    out = capsys.readouterr().out
    assert "a string result goes back as it is, not as JSON" in out
    assert "name every tool that exists (add, divide, get_weather, get_forecast)" in out
    assert "say the arguments are not valid JSON" in out
    assert 'divide({"a": 1, "b": 0}): the content should start with \'ERROR: \'' in out
    assert "add({\"a\": 4}): the content should start with 'ERROR: '" in out


def test_check_safe_dispatch_names_what_an_error_leaves_out(capsys):
    def no_type_name(functions, call):
        message = safe_dispatch(functions, call)
        message["content"] = message["content"].replace("ZeroDivisionError", "an error")
        return message

    assert not check_safe_dispatch(no_type_name)
    assert "'ZeroDivisionError' missing from" in capsys.readouterr().out


def test_check_safe_dispatch_reports_exceptions_shapes_and_ids(capsys):
    def raising(functions, call):
        return {
            "role": "tool",
            "tool_call_id": call["id"],
            "content": json.dumps(functions[call["function"]["name"]](0, 1)),
        }

    def wrong_shape(functions, call):
        return "6"

    def wrong_id(functions, call):
        return {**safe_dispatch(functions, call), "tool_call_id": "call_0"}

    assert not check_safe_dispatch(raising)
    assert not check_safe_dispatch(wrong_shape)
    assert not check_safe_dispatch(wrong_id)
    out = capsys.readouterr().out
    assert "safe_dispatch raised KeyError: 'sum'; return an error observation instead" in out
    assert "return a tool message {'role': 'tool', ...}, not '6'" in out
    assert "tool_call_id should be the call's id 'call_1'" in out


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
    assert "a booking on 'Monday' was accepted" in out
    assert "12 people were booked" in out


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
    assert "a booking on 'Monday' was accepted" in out
    assert "should give the limit, 8" in out


def test_check_honest_tool_accepts_an_error_text_instead_of_an_exception(capsys):
    def returns_errors(day: str, people: int) -> str:
        """Book a table."""
        if day.lower() == "monday" or people > 8:
            return f"ERROR: closed on Mondays, and at most 8 people ({day}, {people})"
        return "booked"

    assert check_honest_tool(returns_errors)


def test_check_honest_tool_wants_type_hints(capsys):
    def no_hints(day, people):
        """Book a table."""

    def text_people(day: str, people: str) -> str:
        """Book a table."""

    assert not check_honest_tool(no_hints)
    assert not check_honest_tool(text_people)
    out = capsys.readouterr().out
    assert (
        "the registry cannot take book_table: parameter 'day' of no_hints() has no type hint" in out
    )
    assert "give `people` the type hint int, so its schema says 'integer'" in out
