"""The fake planners and delegators of lesson 12: each decides from the request alone."""

import pytest

from agent_core import mock
from agent_core.mock.planners import EXPLORE_TASK, USERS_TASK, Delegator, Explorer, Planner

STEPS = [("first", mock.call("add", a=1, b=2)), ("second", mock.call("add", a=3, b=4))]


def ask(policy, messages, tools):
    client = mock.client(policy)
    tool_list = [
        {"type": "function", "function": {"name": n, "parameters": {"type": "object"}}} for n in tools
    ]
    reply = client.chat.completions.create(model="mock-model", messages=messages, tools=tool_list)
    return reply.choices[0].message


def answered(messages, *pairs):
    """the messages plus an assistant turn of calls and their results"""
    calls = [
        {
            "id": f"c{len(messages)}_{i}",
            "type": "function",
            "function": {"name": name, "arguments": arguments},
        }
        for i, (name, arguments, _) in enumerate(pairs)
    ]
    results = [
        {"role": "tool", "tool_call_id": c["id"], "content": r}
        for c, (_, _, r) in zip(calls, pairs, strict=True)
    ]
    return [*messages, {"role": "assistant", "content": None, "tool_calls": calls}, *results]


def test_the_planner_adds_every_item_in_one_reply_then_starts_the_first():
    task = [{"role": "user", "content": "go"}]
    first = ask(Planner(STEPS), task, ["update_plan", "add"])
    assert [c.function.arguments for c in first.tool_calls] == [
        '{"action": "add", "item": "first"}',
        '{"action": "add", "item": "second"}',
    ]
    history = answered(
        task,
        ("update_plan", '{"action": "add", "item": "first"}', "[ ] first"),
        ("update_plan", '{"action": "add", "item": "second"}', "[ ] first\n[ ] second"),
    )
    second = ask(Planner(STEPS), history, ["update_plan", "add"])
    assert second.tool_calls[0].function.arguments == '{"action": "start", "item": "first"}'


def test_a_forgetful_planner_catches_up_only_after_a_user_message():
    task = [{"role": "user", "content": "go"}]
    history = answered(
        task,
        ("update_plan", '{"action": "add", "item": "first"}', "[ ] first"),
        ("update_plan", '{"action": "add", "item": "second"}', "[ ] first\n[ ] second"),
    )
    history = answered(
        history, ("update_plan", '{"action": "start", "item": "first"}', "[>] first\n[ ] second")
    )
    history = answered(history, ("add", '{"a": 1, "b": 2}', "3"))
    assert (
        ask(Planner(STEPS, forgets=True), history, ["update_plan", "add"]).tool_calls[0].function.name
        == "add"
    )
    nudged = [*history, {"role": "user", "content": "Reminder: update your plan"}]
    catch_up = ask(Planner(STEPS, forgets=True), nudged, ["update_plan", "add"]).tool_calls
    assert [c.function.arguments for c in catch_up] == [
        '{"action": "done", "item": "first"}',
        '{"action": "start", "item": "second"}',
    ]


def test_the_delegator_hands_the_task_on_once_or_twice_and_plays_the_explorer_too():
    task = [{"role": "user", "content": USERS_TASK}]
    once = ask(Delegator(), task, ["delegate"]).tool_calls
    twice = ask(Delegator(twice=True), task, ["delegate"]).tool_calls
    assert len(once) == 1 and len(twice) == 2 and EXPLORE_TASK in once[0].function.arguments
    child = [{"role": "user", "content": EXPLORE_TASK}]
    assert ask(Delegator(), child, ["list_dir", "read_file"]).tool_calls[0].function.name == "list_dir"
    assert ask(Delegator(), task, ["list_dir", "read_file"]).tool_calls[0].function.name == "list_dir"


def test_the_delegator_answers_honestly_when_its_explorer_failed():
    history = answered(
        [{"role": "user", "content": USERS_TASK}], ("delegate", '{"task": "x"}', "ERROR: it stopped")
    )
    assert ask(Delegator(), history, ["delegate"]).content.endswith("It said: ERROR: it stopped")


def test_explorer_behaviours_recurse_fail_and_refuse_without_its_tools():
    child = [{"role": "user", "content": EXPLORE_TASK}]
    assert (
        ask(Explorer("recurses"), child, ["delegate", "list_dir", "read_file"]).tool_calls[0].function.name
        == "delegate"
    )
    assert ask(Explorer(), child, ["read_file"]).content.startswith("I need list_dir and read_file")
    listed = answered(child, ("list_dir", '{"path": "."}', "1 files under ./\napp/roles.py  (1 bytes)"))
    later = answered(
        listed, ("read_file", '{"path": "app/roles.py"}', "app/roles.py (lines 1-1 of 1)\n   1 | x")
    )
    with pytest.raises(Exception, match="Error code: 500"):
        ask(Explorer("fails"), later, ["list_dir", "read_file"])
    with pytest.raises(ValueError, match="behaviour must be one of"):
        Explorer("sulks")
