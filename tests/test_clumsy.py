"""The Clumsy policy through the real openai SDK: one mistake, then a fix read from the observation."""

import json

import pytest
from calculator_tools import add

from agent_core import mock
from agent_core.calls import assistant_message, tool_calls_of, tool_message
from agent_core.dispatch import ToolRegistry
from agent_core.mock.clumsy import Clumsy


def run(policy, answer_call, task="What is 4 + 2?", max_calls=5):
    """a small hand loop; answer_call(call) -> the tool message's content"""
    client = mock.client(policy)
    tools = ToolRegistry([add]).definitions
    messages = [{"role": "user", "content": task}]
    for _ in range(max_calls):
        response = client.chat.completions.create(model="mock-model", messages=messages, tools=tools)
        messages.append(assistant_message(response))
        calls = tool_calls_of(response)
        if not calls:
            break
        messages += [tool_message(call, answer_call(call)) for call in calls]
    return client.trace, messages


def asked(trace):
    """(name, arguments string) of the first tool call of every turn that asked for one"""
    return [
        (
            turn.reply["tool_calls"][0]["function"]["name"],
            turn.reply["tool_calls"][0]["function"]["arguments"],
        )
        for turn in trace
        if turn.reply.get("tool_calls")
    ]


def registry_answer(call):
    return ToolRegistry([add]).dispatch(call)["content"]


@pytest.mark.parametrize(
    ("mistake", "first_try"),
    [
        ("unknown_tool", ("sum", '{"a": 4, "b": 2}')),
        ("invalid_json", ("add", '{"a": 4, "b": 2')),
        ("wrong_type", ("add", '{"a": "four", "b": 2}')),
        ("missing_argument", ("add", '{"a": 4}')),
    ],
)
def test_each_mistake_is_fixed_from_the_registry_observation(mistake, first_try):
    policy = Clumsy(mock.call("add", a=4, b=2), mistake, wrong_name="sum", answer="4 + 2 = {result}")
    trace, messages = run(policy, registry_answer)
    assert asked(trace) == [first_try, ("add", '{"a": 4, "b": 2}')]
    assert messages[2]["content"].startswith("ERROR: ")
    assert messages[-1] == {"role": "assistant", "content": "4 + 2 = 6"}
    assert len(trace) == 3


def test_an_error_that_does_not_name_the_tool_ends_in_text():
    policy = Clumsy(mock.call("add", a=4, b=2), "unknown_tool", wrong_name="sum")
    trace, messages = run(policy, lambda call: "Error: 'sum'")
    assert asked(trace) == [("sum", '{"a": 4, "b": 2}')]
    assert messages[-1]["content"] == (
        "I could not do it: my call to 'sum' failed with this error: Error: 'sum'"
    )


def test_the_argument_must_be_named_in_quotes_for_a_type_fix():
    policy = Clumsy(mock.call("add", a=4, b=2), "wrong_type")
    _, messages = run(policy, lambda call: "error: expected a number, got a string")
    assert messages[-1]["content"].startswith("I could not do it: my call to 'add' failed")


def test_a_result_not_marked_as_an_error_is_believed():
    policy = Clumsy(mock.call("add", a=4, b=2), "unknown_tool", wrong_name="sum")
    trace, messages = run(policy, lambda call: "'sum'")
    assert len(trace) == 2
    assert messages[-1]["content"] == "The result is 'sum'."


def test_a_correct_call_that_fails_too_ends_in_text():
    answers = iter(["ERROR: not valid JSON", "ERROR: the tool 'add' raised OverflowError: too big"])

    def always_failing(call):
        return next(answers)

    policy = Clumsy(mock.call("add", a=4, b=2), "invalid_json")
    trace, messages = run(policy, always_failing)
    assert len(trace) == 3
    assert messages[-1]["content"] == (
        "I could not do it: my call to 'add' failed with this error: "
        "ERROR: the tool 'add' raised OverflowError: too big"
    )


def test_a_new_user_message_starts_over_with_the_mistake():
    policy = Clumsy(mock.call("add", a=4, b=2), "missing_argument")
    _, messages = run(policy, registry_answer)
    messages.append({"role": "user", "content": "And again?"})
    client = mock.client(policy)
    client.chat.completions.create(
        model="mock-model", messages=messages, tools=ToolRegistry([add]).definitions
    )
    assert json.loads(client.trace[0].reply["tool_calls"][0]["function"]["arguments"]) == {"a": 4}


def test_numbers_beyond_twelve_become_strings():
    policy = Clumsy(mock.call("add", a=40, b=2), "wrong_type")
    assert policy.wrong_call == mock.call("add", a="40", b=2)
    assert Clumsy(mock.call("add", a=2.5, b=1), "wrong_type").wrong_call.arguments["a"] == "2.5"


@pytest.mark.parametrize(
    ("arguments", "options", "message"),
    [
        ({"a": 1}, {"mistake": "typo"}, "unknown mistake 'typo'"),
        ({"a": 1}, {"mistake": "unknown_tool"}, "needs wrong_name"),
        ({"city": "Oslo"}, {"mistake": "wrong_type"}, "needs a number argument"),
        ({}, {"mistake": "missing_argument"}, "at least one argument"),
        ('{"a": 1}', {"mistake": "invalid_json"}, "as a dict"),
    ],
)
def test_impossible_mistakes_are_refused(arguments, options, message):
    with pytest.raises(ValueError, match=message):
        Clumsy(mock.call("add", arguments), **options)
