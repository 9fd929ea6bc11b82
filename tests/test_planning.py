"""The plan tool and its reminder; delegate: a fresh child agent, its tools, its budget, its depth, its
tokens."""

import json
from pathlib import Path

import pytest

from agent_core import mock
from agent_core.coding.agent import fresh_workspace
from agent_core.context import token_ledger
from agent_core.dispatch import ToolRegistry
from agent_core.guardrails import Approval, Decision, Permissions
from agent_core.loop import run_agent
from agent_core.mock.planners import EXPLORE_TASK, USERS_TASK, Delegator, Planner
from agent_core.planning import (
    EXPLORER_SYSTEM,
    Delegate,
    Plan,
    PlanReminder,
    plan_update,
    show_plan,
    turn_labels,
    turns_of,
    whole_trace,
)

ROOT = Path(__file__).resolve().parent.parent
STEPS = [
    ("list the files", mock.call("list_dir", path=".")),
    ("read the list of roles", mock.call("read_file", path="app/roles.py")),
]


@pytest.fixture
def users(tmp_path):
    return fresh_workspace("users_api", tmp_path)


def test_plan_items_are_added_started_and_done_one_in_progress_at_a_time():
    items = []
    assert plan_update(items, "add", "read") == "[ ] read"
    plan_update(items, "add", "fix")
    assert plan_update(items, "start", "read") == "[>] read\n[ ] fix"
    assert plan_update(items, "start", "fix").startswith("ERROR: 'read' is in progress")
    assert plan_update(items, "done", "read") == "[x] read\n[ ] fix"
    assert items == [{"text": "read", "status": "done"}, {"text": "fix", "status": "pending"}]


@pytest.mark.parametrize(
    ("action", "text", "says"),
    [
        ("add", "read", "already in the plan"),
        ("add", "  ", "needs some text"),
        ("start", "write", "no item 'write'"),
        ("done", "read", "start it before"),
        ("remove", "read", "unknown action 'remove'"),
    ],
)
def test_an_impossible_update_is_refused_with_a_reason_and_changes_nothing(action, text, says):
    items = [{"text": "read", "status": "pending"}]
    answer = plan_update(items, action, text)
    assert answer.startswith("ERROR: ") and says in answer
    assert items == [{"text": "read", "status": "pending"}]


def test_a_refusal_reaches_the_model_as_an_error_observation():
    plan = Plan()
    run = run_agent(
        mock.client(mock.Script(mock.call("update_plan", action="done", item="x"), "ok")), "go", [plan.tool]
    )
    assert run.observations[0].is_error and "no item 'x'" in run.observations[0].content
    assert show_plan([]) == "The plan is empty." == str(plan)


def test_a_planner_keeps_its_plan_and_the_reminder_stays_quiet(users):
    plan = Plan()
    reminder = PlanReminder(plan)
    run = run_agent(
        mock.client(Planner(STEPS)),
        "Explore.",
        [plan.tool, *users.tools("list_dir", "read_file")],
        guardrails=[reminder],
    )
    assert run.stop_reason == "answered" and reminder.reminders == 0
    assert [item["status"] for item in plan.items] == ["done", "done"]
    assert run.answer.splitlines()[1].startswith("read the list of roles: app/roles.py (lines 1-17")


def test_a_stale_plan_is_shown_back_and_an_answer_with_open_items_is_turned_back_once(users):
    plan = Plan()
    reminder = PlanReminder(plan, stale_after=2)
    tools = [plan.tool, *users.tools("list_dir", "read_file")]
    run = run_agent(mock.client(Planner(STEPS, forgets=True)), "Explore.", tools, guardrails=[reminder])
    nudges = [m["content"] for m in run.messages[1:] if m["role"] == "user"]
    assert reminder.reminders == 1 and nudges[0].startswith("Reminder: your plan has not changed in 2 turns")
    assert "[>] list the files" in nudges[0]
    assert run.stop_reason == "answered" and not plan.open_items

    forgetful = Plan()
    unreminded = run_agent(
        mock.client(Planner(STEPS, forgets=True)),
        "Explore.",
        [forgetful.tool, *users.tools("list_dir", "read_file")],
        guardrails=[PlanReminder(forgetful, stale_after=9)],
    )
    feedback = [m["content"] for m in unreminded.messages[1:] if m["role"] == "user"]
    assert len(feedback) == 1 and feedback[0].startswith("Your plan still has open items")
    assert unreminded.stop_reason == "answered" and not forgetful.open_items
    with pytest.raises(ValueError, match="stale_after must be at least 1"):
        PlanReminder(plan, stale_after=0)


def test_a_plan_reminder_reused_for_a_second_run_counts_that_runs_reminders_and_turns_back_again(users):
    tools = users.tools("list_dir", "read_file")
    plan = Plan()
    reminder = PlanReminder(plan, stale_after=2)
    first = run_agent(
        mock.client(Planner(STEPS, forgets=True)), "Explore.", [plan.tool, *tools], guardrails=[reminder]
    )
    assert reminder.reminders == 1 and first.stop_reason == "answered"
    plan.items.clear()
    second = run_agent(
        mock.client(Planner(STEPS, forgets=True)), "Explore.", [plan.tool, *tools], guardrails=[reminder]
    )
    assert reminder.reminders == 1 and second.messages == first.messages
    stale = PlanReminder(Plan(), stale_after=9)
    for _ in range(2):  # each run's answer with open items is turned back once
        stale.plan.items.clear()
        run = run_agent(
            mock.client(Planner(STEPS, forgets=True)),
            "Explore.",
            [stale.plan.tool, *tools],
            guardrails=[stale],
        )
        feedback = [m["content"] for m in run.messages[1:] if m["role"] == "user"]
        assert len(feedback) == 1 and feedback[0].startswith("Your plan still has open items")


def test_a_child_starts_fresh_with_only_its_tools_and_the_parent_reads_its_two_lines(users):
    client = mock.client(Delegator())
    explorer = Delegate(client, users.tools("list_dir", "read_file"))
    run = run_agent(client, USERS_TASK, [explorer.tool])
    child = explorer.children[0]
    first = child.turns[0].request
    assert [m["role"] for m in first["messages"]] == ["system", "user"]
    assert first["messages"] == [
        {"role": "system", "content": EXPLORER_SYSTEM},
        {"role": "user", "content": EXPLORE_TASK},
    ]
    assert sorted(t["function"]["name"] for t in first["tools"]) == ["list_dir", "read_file"]
    assert len(run.answer.splitlines()) == 2 and run.answer == child.run.answer
    assert "ROLES lists only admin, viewer" in run.answer


def test_a_childs_tokens_reach_the_parents_ledger(users):
    client = mock.client(Delegator())
    explorer = Delegate(client, users.tools("list_dir", "read_file"))
    run = run_agent(client, USERS_TASK, [explorer.tool])
    labels = turn_labels(run, explorer)
    assert labels == ["parent", *["explorer 1"] * 7, "parent"]
    child_input = token_ledger(explorer.children[0].turns).total_input
    parent_input = token_ledger(turns_of(run, "parent", explorer)).total_input
    assert child_input > 5 * parent_input > 0
    assert token_ledger(whole_trace(run, explorer)).total_input == parent_input + child_input
    assert token_ledger(run).total_input == parent_input  # the run's trace holds its own calls
    assert len(client.trace) == len(whole_trace(run, explorer)) == 9
    wire = [turn.sent for turn in client.trace]  # the order the calls crossed the wire
    assert [turn.sent for turn in whole_trace(run, explorer)] == wire


def test_delegating_keeps_the_parents_context_small(users):
    client = mock.client(Delegator())
    explorer = Delegate(client, users.tools("list_dir", "read_file"))
    delegated = run_agent(client, USERS_TASK, [explorer.tool])
    alone = run_agent(mock.client(Delegator()), USERS_TASK, users.tools("list_dir", "read_file"))
    assert alone.answer == delegated.answer
    own = token_ledger(turns_of(delegated, "parent", explorer))
    assert token_ledger(alone).final_history > 5 * own.final_history


def test_a_child_cannot_use_a_tool_it_was_not_given(users):
    client = mock.client(Delegator("overreaches"))
    explorer = Delegate(client, users.tools("list_dir", "read_file"))
    run_agent(client, USERS_TASK, [explorer.tool])
    refused = [o for o in explorer.children[0].run.observations if o.name == "write_file"]
    assert refused[0].error_type == "unknown_tool"
    assert users.diff() == ""


def test_a_child_inherits_the_parents_permissions_and_approval(users):
    asked = []

    def no(call):
        asked.append(call["function"]["name"])
        return Decision(False, "read only today")

    client = mock.client(Delegator("overreaches"))
    explorer = Delegate(
        client,
        users.tools("list_dir", "read_file", "write_file"),
        guardrails=[Approval(no, tool_names=["write_file"])],
    )
    run_agent(client, USERS_TASK, [explorer.tool])
    assert asked == ["write_file"] and users.diff() == ""

    client = mock.client(Delegator("overreaches"))
    explorer = Delegate(
        client, users.tools("list_dir", "read_file", "write_file"), guardrails=[Permissions(read_only=True)]
    )
    run_agent(client, USERS_TASK, [explorer.tool])
    assert explorer.children[0].run.observations[-1].error_type == "refused" and users.diff() == ""


def test_a_looping_child_is_stopped_by_its_own_cap_and_the_parent_reads_why(users):
    client = mock.client(Delegator("loops"))
    explorer = Delegate(client, users.tools("list_dir", "read_file"), max_turns=4)
    run = run_agent(client, USERS_TASK, [explorer.tool])
    child = explorer.children[0]
    assert child.run.model_calls == 4 and len(child.turns) == 4
    assert child.observation.startswith(
        "ERROR: the explorer stopped without an answer (stop_reason 'max_turns', after 4"
    )
    assert run.observations[0].is_error and run.stop_reason == "answered"


def test_a_failing_child_gives_the_parent_a_clear_error_not_a_crash(users):
    client = mock.client(Delegator("fails"))
    explorer = Delegate(client, users.tools("list_dir", "read_file"))
    run = run_agent(client, USERS_TASK, [explorer.tool])
    assert explorer.children[0].run is None and [t.status for t in explorer.children[0].turns] == [
        200,
        200,
        500,
    ]
    assert run.observations[0].content.startswith(
        "ERROR: the explorer failed before it could answer: InternalServerError: Error code: 500"
    )
    assert "\n" not in run.observations[0].content and run.stop_reason == "answered"


def test_depth_is_bounded_when_a_child_is_given_the_delegate_tool(users):
    for max_depth, runs in ((1, 1), (2, 2), (3, 3)):
        client = mock.client(Delegator("recurses"))
        explorer = Delegate(client, users.tools("list_dir", "read_file"), max_depth=max_depth, max_turns=12)
        explorer.tools.append(explorer.tool)
        run = run_agent(client, USERS_TASK, [explorer.tool])
        assert [child.depth for child in explorer.children] == list(range(1, runs + 1))
        deepest = explorer.children[-1].run
        assert deepest.observations[0].content.startswith("ERROR: a subagent may not hand its task on again")
        assert run.stop_reason == "answered" and explorer.depth == 0
    labels = turn_labels(run, explorer)
    assert labels[:3] == ["parent", "explorer 1", "explorer 2"] and labels[-1] == "parent"


def test_two_delegations_in_one_reply_run_two_fresh_children(users):
    client = mock.client(Delegator(twice=True))
    explorer = Delegate(client, ToolRegistry(users.tools("list_dir", "read_file")))
    run = run_agent(client, USERS_TASK, [explorer.tool])
    first, second = explorer.children
    assert len(second.turns[0].messages) == 2 and first.observation == second.observation
    assert turn_labels(run, explorer) == ["parent", *["explorer 1"] * 7, *["explorer 2"] * 7, "parent"]


def test_a_child_shows_as_one_short_line(users):
    client = mock.client(Delegator("fails"))
    explorer = Delegate(client, users.tools("list_dir", "read_file"))
    run_agent(client, USERS_TASK, [explorer.tool])
    assert repr(explorer.children) == "[Child('explorer 1', depth=1, 3 model calls, failed)]"


def test_the_lesson_shows_the_agents_sdks_own_definitions_of_an_agent_as_tool_and_a_handoff():
    agents = pytest.importorskip("agents")
    from agents.models.chatcmpl_converter import Converter

    lesson = json.loads((ROOT / "lessons" / "12_planning_and_subagents.ipynb").read_text(encoding="utf-8"))
    shown = next(
        "".join(c["source"]) for c in lesson["cells"] if "transfer_to_explorer" in "".join(c["source"])
    )
    block = shown.split("```json\n", 1)[1].split("```", 1)[0]
    explorer = agents.Agent(name="explorer", instructions=EXPLORER_SYSTEM)
    as_tool = explorer.as_tool(
        tool_name="explorer", tool_description="Explore the project; answer in two lines."
    )
    assert [json.loads(line) for line in block.splitlines()] == [
        Converter.tool_to_openai(as_tool),
        Converter.convert_handoff_tool(agents.handoff(explorer)),
    ]
