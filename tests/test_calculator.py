"""The Calculator policy end to end through the real openai SDK: seed 003's call counts and arguments."""

import json
import math
import operator

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from agent_core import mock
from agent_core.mock.calculator import Calculator, ParseError, parse, render


def tool(name, first="a", second="b"):
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": f"{name.capitalize()} two numbers.",
            "parameters": {
                "type": "object",
                "properties": {first: {"type": "number"}, second: {"type": "number"}},
                "required": [first, second],
            },
        },
    }


TOOLS = {name: tool(name) for name in ("add", "subtract", "multiply", "divide")}
ALL_TOOLS = tuple(TOOLS.values())
PYTHON = {
    "add": operator.add,
    "subtract": operator.sub,
    "multiply": operator.mul,
    "divide": operator.truediv,
}
SYMBOLS = {"+": "add", "-": "subtract", "*": "multiply", "/": "divide"}


def python_tool(name, arguments):
    """the tools the test offers: Python's operator on the JSON arguments, errors as text"""
    a, b = arguments.values()
    try:
        return str(PYTHON[name](a, b))
    except ZeroDivisionError:
        return "ERROR: division by zero"


def run(message, tools=ALL_TOOLS, execute=python_tool, **create_args):
    """a tiny agent loop: ask, run every tool call, append, repeat until the model answers in text"""
    client = mock.client(Calculator())
    messages = [{"role": "user", "content": message}]
    tools = list(tools)
    if tools:
        create_args["tools"] = tools
    turns = []  # the tool calls of each model call that asked for tools: [(name, arguments), ...]
    for _ in range(20):
        response = client.chat.completions.create(model="mock-model", messages=messages, **create_args)
        reply = response.choices[0].message
        if not reply.tool_calls:
            return reply.content, turns, len(client.trace)
        turns.append([(c.function.name, json.loads(c.function.arguments)) for c in reply.tool_calls])
        messages.append(
            {
                "role": "assistant",
                "content": reply.content,
                "tool_calls": [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.function.name, "arguments": c.function.arguments},
                    }
                    for c in reply.tool_calls
                ],
            }
        )
        for c in reply.tool_calls:
            result = execute(c.function.name, json.loads(c.function.arguments))
            messages.append({"role": "tool", "tool_call_id": c.id, "content": result})
    raise AssertionError("the calculator never answered in text")


# --- seed 003 --------------------------------------------------------------------------------


def test_dependent_step_waits_for_its_operand_three_calls():
    answer, turns, model_calls = run("5 + 8/12", [TOOLS["add"], TOOLS["divide"]])
    assert model_calls == 3
    assert turns == [[("divide", {"a": 8, "b": 12})], [("add", {"a": 5, "b": 0.6666666666666666})]]
    assert answer == "5 + 8/12 = 5.666666666666667"


def test_arguments_on_the_wire_are_json_numbers_and_ints_stay_ints():
    client = mock.client(Calculator())
    response = client.chat.completions.create(
        model="mock-model",
        messages=[{"role": "user", "content": "5 + 8/12"}],
        tools=[TOOLS["add"], TOOLS["divide"]],
    )
    assert response.choices[0].message.tool_calls[0].function.arguments == '{"a": 8, "b": 12}'
    assert client.trace[0].response["choices"][0]["finish_reason"] == "tool_calls"


@pytest.mark.parametrize("message", ["4+2 and 7+8", "Suma 4+2 y suma 7+8"])
def test_independent_steps_are_asked_in_parallel_two_calls(message):
    answer, turns, model_calls = run(message, [TOOLS["add"]])
    assert model_calls == 2
    assert turns == [[("add", {"a": 4, "b": 2}), ("add", {"a": 7, "b": 8})]]
    assert answer == "4 + 2 = 6\n7 + 8 = 15"


@pytest.mark.parametrize(
    ("offered", "expected_turns"),
    [
        ("add", [[("add", {"a": 5, "b": 0.6666666666666666})]]),
        ("divide", [[("divide", {"a": 8, "b": 12})]]),
    ],
)
def test_a_step_without_a_tool_is_done_in_its_head(offered, expected_turns):
    answer, turns, model_calls = run("5 + 8/12", [TOOLS[offered]])
    assert model_calls == 2
    assert turns == expected_turns
    assert answer == "5 + 8/12 = 5.666666666666667"


def test_without_tools_it_answers_in_one_call():
    answer, turns, model_calls = run("5 + 8/12", [])
    assert (model_calls, turns, answer) == (1, [], "5 + 8/12 = 5.666666666666667")


def test_tool_choice_none_means_everything_in_its_head():
    answer, turns, model_calls = run("(1 + 2) * 3", tool_choice="none")
    assert (model_calls, answer) == (1, "(1 + 2)*3 = 9")


def test_both_sides_are_asked_together_then_the_step_that_needs_them():
    answer, turns, _ = run("(1 + 2) * (3 + 4) - 10/4")
    assert turns == [
        [("add", {"a": 1, "b": 2}), ("add", {"a": 3, "b": 4}), ("divide", {"a": 10, "b": 4})],
        [("multiply", {"a": 3, "b": 7})],
        [("subtract", {"a": 21, "b": 2.5})],
    ]
    assert answer == "(1 + 2)*(3 + 4) - 10/4 = 18.5"


# --- reading the message ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "answer"),
    [
        ("What is (3 + 4) * 2?", "(3 + 4)*2 = 14"),
        ("2 + 3 * 4", "2 + 3*4 = 14"),
        ("10 - 4 - 3", "10 - 4 - 3 = 3"),
        ("10 - (4 - 3)", "10 - (4 - 3) = 9"),
        ("2 * -3", "2*-3 = -6"),
        ("-(2 + 3) * 2", "-(2 + 3)*2 = -10"),
        ("5 - -3", "5 - -3 = 8"),
        ("1.5 + .25", "1.5 + 0.25 = 1.75"),
        ("7 divided by 2", "7/2 = 3.5"),
        ("calculate 6 times 7 minus 2", "6*7 - 2 = 40"),
        ("What is 2 plus 2?", "2 + 2 = 4"),
        ("Calcula 8 dividido entre 4 más 1", "8/4 + 1 = 3"),
        ("5 menos 3 por 2", "5 - 3*2 = -1"),
        ("9 entre 3", "9/3 = 3"),
        ("Calcula 4+2 por favor", "4 + 2 = 6"),
        ("add 4 and 2", "4 + 2 = 6"),
        ("suma 1, 2 y 3", "1 + 2 + 3 = 6"),
        ("8/4", "8/4 = 2"),
        ("0.1 + 0.2", "0.1 + 0.2 = 0.30000000000000004"),
        ("4+2, 3*3 and 1-1", "4 + 2 = 6\n3*3 = 9\n1 - 1 = 0"),
    ],
)
def test_reads_symbols_and_english_or_spanish_words(message, answer):
    assert run(message)[0] == answer


def test_parse_builds_one_tree_per_result_and_skips_bare_numbers():
    assert [render(tree) for tree in parse("I am 30. What is 4+2 and 7+8?")] == ["4 + 2", "7 + 8"]
    assert [render(tree) for tree in parse("4+2? -3+3")] == ["4 + 2", "-3 + 3"]
    with pytest.raises(ParseError, match=r"expected '\)'"):
        parse("(3 + 4")
    with pytest.raises(ParseError, match=r"expected a number or '\(' but found the end"):
        parse("4 *")


@pytest.mark.parametrize("message", ["Hello!", "What is 5?", ""])
def test_without_arithmetic_it_says_what_it_can_do(message):
    answer, turns, model_calls = run(message)
    assert (turns, model_calls) == ([], 1)
    assert "calculator" in answer and "add, subtract, multiply and divide" in answer


def test_unreadable_arithmetic_is_explained_in_text():
    answer, _, model_calls = run("(3 + 4 * 2")
    assert model_calls == 1
    assert "could not read" in answer and "expected ')'" in answer


# --- tools: names, errors, division by zero --------------------------------------------------


def test_operands_use_the_first_two_parameters_of_the_offered_tool():
    _, turns, _ = run("4 + 2", [tool("add", "x", "y")])
    assert turns == [[("add", {"x": 4, "y": 2})]]
    one_parameter = tool("add")
    del one_parameter["function"]["parameters"]["properties"]["b"]
    one_parameter["function"]["parameters"]["required"] = ["a"]
    assert run("4 + 2", [one_parameter]) == ("4 + 2 = 6", [], 1)  # cannot take two operands


def test_a_failed_call_is_asked_once_more():
    failures = []

    def flaky(name, arguments):
        if not failures:
            failures.append(name)
            return "ERROR: the calculator service is busy"
        return python_tool(name, arguments)

    answer, turns, model_calls = run("4 + 2", execute=flaky)
    assert turns == [[("add", {"a": 4, "b": 2})], [("add", {"a": 4, "b": 2})]]
    assert (model_calls, answer) == (3, "4 + 2 = 6")


@pytest.mark.parametrize("bad_result", ["ERROR: boom", "banana", "NaN", ""])
def test_a_call_that_fails_twice_is_reported_in_text(bad_result):
    answer, turns, model_calls = run(
        "4 + 2 and 3*3",
        execute=lambda name, args: bad_result if name == "add" else python_tool(name, args),
    )
    assert model_calls == 3
    assert turns[1] == [("add", {"a": 4, "b": 2})]
    assert answer == f"4 + 2: could not compute it, add(4, 2) answered {bad_result!r}\n3*3 = 9"


def test_division_by_zero_is_reported_by_the_tool():
    answer, turns, model_calls = run("8/0", [TOOLS["divide"]])
    assert turns == [[("divide", {"a": 8, "b": 0})]] * 2
    assert model_calls == 3
    assert answer == "8/0: could not compute it, divide(8, 0) answered 'ERROR: division by zero'"


def test_division_by_zero_in_its_head_is_undefined():
    answer, turns, model_calls = run("1 + 8/0", [TOOLS["add"]])
    assert (turns, model_calls) == ([], 1)
    assert answer == "1 + 8/0: undefined, it divides by zero"


def test_a_json_result_holding_one_number_is_read():
    def json_tool(name, arguments):
        return json.dumps({"result": PYTHON[name](*arguments.values())})

    answer, turns, model_calls = run("(1 + 2) * 2", execute=json_tool)
    assert (model_calls, turns[1], answer) == (3, [("multiply", {"a": 3, "b": 2})], "(1 + 2)*2 = 6")


# --- the conversation is the only state ------------------------------------------------------


def test_same_request_same_reply_and_only_the_latest_question_counts():
    policy = Calculator()
    first = {
        "model": "m",
        "messages": [{"role": "user", "content": "4+2"}],
        "tools": [TOOLS["add"]],
    }
    assert policy(first) == policy(first) == mock.calls(mock.call("add", a=4, b=2))
    later = {
        **first,
        "messages": [
            *first["messages"],
            {"role": "assistant", "content": "4 + 2 = 6"},
            {"role": "user", "content": "7 * 8"},
        ],
    }
    assert policy(later) == mock.text("7*8 = 56")  # multiply is not offered
    assert policy(first) == mock.calls(mock.call("add", a=4, b=2))


# --- any expression, any tools: right value, calls = dependency depth + 1 --------------------

numbers = st.one_of(st.integers(-20, 20), st.sampled_from([0.5, 2.25, -1.5, 0.1]))
trees = st.recursive(numbers, lambda inner: st.tuples(st.sampled_from("+-*/"), inner, inner), max_leaves=8)
operations = trees.filter(lambda tree: isinstance(tree, tuple))


def as_text(tree):
    if not isinstance(tree, tuple):
        return repr(tree)
    symbol, left, right = tree
    return f"({as_text(left)} {symbol} {as_text(right)})"


def value(tree):
    if not isinstance(tree, tuple):
        return tree
    symbol, left, right = tree
    return PYTHON[SYMBOLS[symbol]](value(left), value(right))


def depth(tree, offered):
    """how many rounds of tool calls the tree needs when only `offered` tools exist"""
    if not isinstance(tree, tuple):
        return 0
    symbol, left, right = tree
    return max(depth(left, offered), depth(right, offered)) + (SYMBOLS[symbol] in offered)


@settings(
    max_examples=100,
    deadline=None,
    derandomize=True,  # the same examples on every run and machine
    database=None,
    suppress_health_check=[HealthCheck.filter_too_much],
)
@given(
    expressions=st.lists(operations, min_size=1, max_size=3),
    offered=st.sets(st.sampled_from(sorted(TOOLS))),
)
def test_any_expression_gets_the_right_value_in_depth_plus_one_calls(expressions, offered):
    try:
        expected = [value(tree) for tree in expressions]
    except ZeroDivisionError:
        assume(False)
    message = "What is " + " and ".join(as_text(tree) for tree in expressions) + "?"
    answer, _, model_calls = run(message, [TOOLS[name] for name in sorted(offered)])
    assert model_calls == max(depth(tree, offered) for tree in expressions) + 1
    results = [float(line.rsplit(" = ", 1)[1]) for line in answer.splitlines()]
    assert len(results) == len(expected)
    assert all(math.isclose(got, want, rel_tol=1e-12) for got, want in zip(results, expected, strict=True))


def test_the_calculator_reads_calls_and_results_written_out_as_text():
    """smolagents keeps its memory as text: "Calling tools:\n[...]" and "Observation:\n..." messages"""
    written = (
        "Calling tools:\n[{'id': 'call_1', 'type': 'function', "
        "'function': {'name': 'add', 'arguments': {'a': 3, 'b': 4}}}]"
    )
    request = {
        "model": "m",
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "New task:\n(3+4)*2"}]},
            {"role": "assistant", "content": [{"type": "text", "text": written}]},
            {"role": "user", "content": [{"type": "text", "text": "Observation:\n7"}]},
        ],
        "tools": [TOOLS["add"], TOOLS["multiply"]],
    }
    reply = mock.Calculator()(request)
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [("multiply", {"a": 7, "b": 2})]
