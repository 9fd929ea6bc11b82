"""The misbehaving mock models do what they are for, and the tiny project's tools and tests work."""

import pytest
from calculator_tools import add

from agent_core import mock
from agent_core.coding.tiny_project import DISCOUNT_TASK, TinyProject
from agent_core.loop import Guardrail, run_agent
from agent_core.mock.misbehaving import (
    ClaimsDone,
    Reckless,
    Repeater,
    Runaway,
    changes_the_test,
    discount_versions,
    skips_the_tests,
)


def refuse_everything(a: float, b: float) -> str:
    """Always says no."""
    return "ERROR: not today"


def calls_made(run):
    return [
        (c["function"]["name"], c["function"]["arguments"])
        for m in run.messages
        for c in m.get("tool_calls") or []
    ]


def test_runaway_never_answers_and_never_repeats_itself():
    run = run_agent(mock.client(Runaway()), "count", [add], max_turns=4)
    assert run.stop_reason == "max_turns"
    assert calls_made(run) == [("add", f'{{"a": {n}, "b": 1}}') for n in range(4)]


def test_runaway_that_heeds_errors_stops_at_the_first_one():
    policy = Runaway("refuse_everything", heeds_errors=True)
    run = run_agent(mock.client(policy), "count", [refuse_everything])
    assert run.answer == "I stopped, because my last call was refused: ERROR: not today"
    assert run.model_calls == 2


def test_repeater_asks_for_the_same_call_every_turn():
    run = run_agent(mock.client(Repeater(mock.call("add", a=1, b=2))), "1+2", [add], max_turns=3)
    assert calls_made(run) == [("add", '{"a": 1, "b": 2}')] * 3


def test_repeater_that_heeds_errors_answers_with_its_last_good_result():
    script_then_refusal = [{"role": "user", "content": "1+2"}]
    policy = Repeater(mock.call("add", a=1, b=2), heeds_errors=True)
    request = {"messages": script_then_refusal}
    assert policy(request).tool_calls[0].name == "add"
    request["messages"] = [
        *script_then_refusal,
        {"role": "assistant", "content": None, "tool_calls": [_call("c1")]},
        {"role": "tool", "tool_call_id": "c1", "content": "3"},
        {"role": "assistant", "content": None, "tool_calls": [_call("c2")]},
        {"role": "tool", "tool_call_id": "c2", "content": "ERROR: stop repeating"},
    ]
    assert policy(request).content == "The result is 3."
    request["messages"] = [request["messages"][0], *request["messages"][3:]]
    assert policy(request).content == "I could not get a result."


def _call(call_id):
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": "add", "arguments": '{"a": 1, "b": 2}'},
    }


def test_reckless_carries_out_every_step_then_reports_each_result():
    policy = Reckless(mock.call("add", a=1, b=2), mock.call("refuse_everything", a=1, b=1))
    run = run_agent(mock.client(policy), "go", [add, refuse_everything])
    assert (
        run.answer
        == "Done. Here is what each step returned:\n- add: 3\n- refuse_everything: ERROR: not today"
    )
    with pytest.raises(ValueError, match="at least one step"):
        Reckless()


class RejectEveryAnswer(Guardrail):
    def check_answer(self, run, answer):
        return "Not accepted."


def test_claims_done_works_then_claims_and_does_the_rest_only_when_rejected():
    policy = ClaimsDone(
        [mock.call("add", a=1, b=2)],
        "Done.",
        after_rejection=[mock.call("add", a=2, b=2), "Really done."],
    )
    run = run_agent(mock.client(policy), "task", [add], max_turns=6, guardrails=[RejectEveryAnswer()])
    replies = [
        m.get("content") or m["tool_calls"][0]["function"]["arguments"]
        for m in run.messages
        if m["role"] == "assistant"
    ]
    # rejected twice, it just claims again
    assert replies == [
        '{"a": 1, "b": 2}',
        "Done.",
        '{"a": 2, "b": 2}',
        "Really done.",
        "Done.",
        "Done.",
    ]


def test_skips_the_tests_claims_a_wrong_fix():
    project = TinyProject()
    run = run_agent(mock.client(skips_the_tests()), DISCOUNT_TASK, project.tools)
    assert run.answer == "Fixed: members now get their discount from 100 euros."
    assert [name for name, _ in calls_made(run)] == ["read_file", "write_file"]
    assert "test_small_orders_pay_the_full_price FAILED" in project.run_tests()


def test_changes_the_test_turns_the_tests_green_by_editing_them():
    project = TinyProject()
    run = run_agent(mock.client(changes_the_test()), DISCOUNT_TASK, project.tools)
    assert run.answer.startswith("The test expected the wrong value")
    assert project.changed() == ["test_discount.py"]
    assert project.run_tests().startswith("exit code: 0")


def test_each_discount_version_differs_from_the_shipped_file():
    versions = discount_versions()
    assert len({versions["code"], versions["wrong_fix"], versions["right_fix"]}) == 3
    assert versions["edited_test"] != versions["test"]
    assert "total >= DISCOUNT_FROM" in versions["right_fix"]
