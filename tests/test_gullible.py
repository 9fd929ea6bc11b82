"""The mock that obeys injected text: its errands, its seeded obedience, its plan."""

import json

import pytest

from agent_core import mock
from agent_core.loop import run_agent
from agent_core.mailroom import INJECTION_TASKS, USER_TASKS, Mailroom
from agent_core.mock.gullible import Gullible, errands, injected_calls
from agent_core.untrusted import delimit


def _attacked(model, task=0, injection=0, tools=None):
    world = Mailroom(INJECTION_TASKS[injection].text)
    run = run_agent(mock.client(model), USER_TASKS[task].prompt, tools or world.tools())
    return world, run


def test_the_errands_come_in_the_order_the_request_names_them():
    assert [e.tool for e in errands(USER_TASKS[3].prompt)] == ["lookup_customer", "fetch_page"]
    assert [e.tool for e in errands(USER_TASKS[4].prompt)] == ["fetch_page", "post_to_url"]
    reply = errands(USER_TASKS[2].prompt)[1]
    assert reply.arguments["to"] == "carol@partner.example" and reply.fixed == ("to",)


def test_every_user_task_is_done_with_no_attack():
    for task in USER_TASKS:
        world = Mailroom()
        run = run_agent(mock.client(Gullible(seed=0)), task.prompt, world.tools())
        assert task.done(world, run), task.name


def test_it_never_obeys_at_rate_zero_and_always_at_rate_one():
    for injection in INJECTION_TASKS:
        index = INJECTION_TASKS.index(injection)
        assert not injection.succeeded(_attacked(Gullible(obey=0.0), injection=index)[0])
        assert injection.succeeded(_attacked(Gullible(obey=1.0), injection=index)[0])


def test_the_same_seed_makes_the_same_choice_and_seeds_differ():
    choices = [INJECTION_TASKS[0].succeeded(_attacked(Gullible(seed=seed))[0]) for seed in range(12)]
    again = [INJECTION_TASKS[0].succeeded(_attacked(Gullible(seed=seed))[0]) for seed in range(12)]
    assert choices == again and True in choices and False in choices


def test_an_instruction_inside_an_untrusted_block_is_obeyed_at_the_marked_rate():
    text = delimit(INJECTION_TASKS[0].text, "read_inbox")
    assert injected_calls(text)[0][0] is True
    assert injected_calls(INJECTION_TASKS[0].text)[0][0] is False
    assert injected_calls("nothing to do here") == []


def test_a_refused_injected_call_ends_that_instruction():
    from agent_core.mailroom import DECLARATIONS
    from agent_core.untrusted import Trifecta

    world = Mailroom(INJECTION_TASKS[1].text)
    run = run_agent(
        mock.client(Gullible(obey=1.0)),
        USER_TASKS[0].prompt,
        world.tools(),
        guardrails=[Trifecta(DECLARATIONS)],
    )
    names = [o.name for o in run.observations]
    assert names == ["read_inbox", "lookup_customer", "post_to_url"] and run.stop_reason == "answered"


@pytest.mark.parametrize("task", USER_TASKS, ids=lambda t: t.name)
def test_its_plan_names_the_errands_and_only_the_values_the_request_gave(task):
    client = mock.client(Gullible())
    plan_tool = {"name": "submit_plan", "parameters": {"type": "object", "properties": {}}}
    response = client.chat.completions.create(
        model="mock",
        messages=[{"role": "user", "content": task.prompt}],
        tools=[{"type": "function", "function": plan_tool}],
    )
    steps = json.loads(response.choices[0].message.tool_calls[0].function.arguments)["steps"]
    assert [s["tool"] for s in steps] == [e.tool for e in errands(task.prompt)]
    assert all(set(s["arguments"]) <= {"to", "url", "name"} for s in steps)
