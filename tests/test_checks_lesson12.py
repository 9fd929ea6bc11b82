"""Lesson 12's exercise checks: right answers written differently pass, tempting wrong ones are caught."""

from pathlib import Path

import pytest
from hash_seeds import under_two_hash_seeds

from agent_core.checks.lesson12 import DELEGATE_SCENARIOS, PLAN_SCENARIOS, check_delegate, check_plan_update
from agent_core.dispatch import ToolRegistry, failure
from agent_core.loop import run_agent
from agent_core.planning import Delegate, plan_update, show_plan

# --- 12.1: plan_update -------------------------------------------------------------------------


def plan_by_status_table(items, action, text):
    """right, written differently: a table of what each action needs, one refusal line"""
    needs = {"start": "pending", "done": "in_progress"}
    statuses = {item["text"]: item["status"] for item in items}
    if action == "add":
        if not text.strip() or text in statuses:
            return failure("cannot add that item")
        items.append({"status": "pending", "text": text})  # another key order: the same dict
        return show_plan(items)
    if action not in needs or statuses.get(text) != needs[action]:
        return failure(f"cannot {action} {text!r} now")
    if action == "start" and "in_progress" in statuses.values():
        return failure("finish the item in progress first")
    for item in items:
        if item["text"] == text:
            item["status"] = {"start": "in_progress", "done": "done"}[action]
    return show_plan(items)


def plan_by_copy(items, action, text):
    """right, written differently: change a copy, then put it back only when the change is allowed"""
    new = [dict(item) for item in items]
    answer = plan_update(new, action, text)
    if not answer.startswith("ERROR"):
        items[:] = new
    return answer


def variant(**changes):
    """plan_update with one rule changed, the way a learner might get it wrong"""

    def attempt(items, action, text):
        found = next((i for i in items if i["text"] == text), None)
        busy = any(i["status"] == "in_progress" for i in items)
        if action == "add":
            if changes.get("strip") and not text:
                return failure("empty")
            if not changes.get("strip") and not text.strip():
                return failure("empty")
            if found and not changes.get("duplicates"):
                return failure("duplicate")
            if changes.get("casefold") and any(i["text"].lower() == text.lower() for i in items):
                return failure("duplicate")
            items.append({"text": text, "status": "pending"})
            return show_plan(items)
        if action not in ("start", "done") and not changes.get("any_action"):
            return failure("unknown")
        if found is None:
            return failure("missing")
        if action == "start":
            if busy and not changes.get("many_in_progress"):
                return failure("busy")
            if found["status"] == "done" and not changes.get("restart"):
                return failure("done")
            found["status"] = "in_progress"
        elif action == "done" or changes.get("any_action"):
            if found["status"] == "done" and not changes.get("done_again"):
                return failure("already done")
            if found["status"] == "pending" and not changes.get("done_from_pending"):
                return failure("start first")
            found["status"] = "done"
        return show_plan(items) if not changes.get("says_ok") else "ok"

    return attempt


def stub(items, action, text):
    return show_plan(items)


def started_means_any_non_pending(items, action, text):
    """'another item in progress' tested as 'another item not pending': a done item blocks the next"""
    if action == "start" and any(i["status"] != "pending" and i["text"] != text for i in items):
        return failure("another item is started")
    return plan_update(items, action, text)


def duplicates_among_open_items_only(items, action, text):
    """a done item's text may be added again"""
    if action == "add" and text.strip() and all(i["text"] != text or i["status"] == "done" for i in items):
        items.append({"text": text, "status": "pending"})
        return show_plan(items)
    return plan_update(items, action, text)


def blank_means_spaces(items, action, text):
    """only spaces count as blank: a tab or a newline is an item"""
    if action == "add" and not text.strip(" ") and text:
        return failure("empty")
    if action == "add" and text.strip(" ") and not text.strip() and all(i["text"] != text for i in items):
        items.append({"text": text, "status": "pending"})
        return show_plan(items)
    return plan_update(items, action, text)


def at_most_four_items(items, action, text):
    """a limit the exercise never asked for"""
    if action == "add" and len(items) >= 4:
        return failure("the plan is full")
    return plan_update(items, action, text)


_busy = {}


def busy_item_in_a_global(items, action, text):
    """the item in progress remembered outside the plan, forgotten when a new plan starts: two plans
    kept at once share it"""
    if action == "add" and not items:
        _busy.clear()
    found = next((i for i in items if i["text"] == text), None)
    if action == "start":
        if found is None or found["status"] != "pending" or _busy.get("text") is not None:
            return failure("cannot start")
        found["status"], _busy["text"] = "in_progress", text
        return show_plan(items)
    if action == "done":
        if found is None or _busy.get("text") != text:
            return failure("not in progress")
        found["status"], _busy["text"] = "done", None
        return show_plan(items)
    return plan_update(items, action, text)


_started = {"text": None}


def started_text_in_a_global(items, action, text):
    """the text of the item last started kept outside the plan: with two plans, plan 1 forgets its own"""
    found = next((i for i in items if i["text"] == text), None)
    busy = next((i for i in items if i["text"] == _started["text"] and i["status"] == "in_progress"), None)
    if action == "start" and found is not None and found["status"] == "pending":
        if busy is not None:
            return failure(f"{busy['text']!r} is in progress; finish it first")
        found["status"], _started["text"] = "in_progress", text
        return show_plan(items)
    if action == "start":
        return failure("cannot start")
    return plan_update(items, action, text)


def forgets_to_change_in_place(items, action, text):
    return plan_update([dict(item) for item in items], action, text)


@pytest.mark.parametrize("right", [plan_update, plan_by_status_table, plan_by_copy])
def test_check_plan_update_passes_right_answers_written_differently(right, capsys):
    result = check_plan_update(right)
    assert result and result.scenarios == PLAN_SCENARIOS
    assert "✓ Exercise 12.1" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("wrong", "says"),
    [
        (variant(many_in_progress=True), "should be refused"),  # several items in progress at once
        (variant(done_from_pending=True), "should be refused"),  # done without start
        (variant(duplicates=True), "should be refused"),  # the same item added twice
        (variant(restart=True), "should be refused"),  # a done item started again
        (variant(strip=True), "should be refused"),  # a blank item accepted
        (variant(casefold=True), "is allowed, but yours refused it"),  # "Fix the bug" is not "fix the bug"
        (variant(any_action=True), "should be refused"),  # an unknown action treated as done
        (variant(says_ok=True), "return show_plan(items)"),  # the model never sees the plan
        (forgets_to_change_in_place, "the items should be"),
        (stub, "the items should be"),
        (started_means_any_non_pending, "done 'read the code', start 'fix the bug'"),
        (variant(done_again=True), "done 'read the code', done 'read the code'"),
        (duplicates_among_open_items_only, "done 'read the code', add 'read the code'"),
        (blank_means_spaces, "add '\\t': at step 1"),
        (at_most_four_items, "the change is allowed, but yours refused it: 'ERROR: the plan is full'"),
        (
            lambda items, action, text: str(plan_update(items, action, text)),
            "the change is impossible and should be refused: it returned the plain str",
        ),
        (busy_item_in_a_global, "on plan 2"),
        (
            started_text_in_a_global,
            "start 'run the tests': at step 6 (start 'run the tests') the change is impossible and should be "
            "refused with failure(\"...\"); yours returned '[>] read the code\\n[>] run the tests' (the "
            "item in progress is this plan's: find it in `items`",
        ),
    ],
)
def test_check_plan_update_catches_tempting_wrong_answers(wrong, says, capsys):
    result = check_plan_update(wrong)
    out = capsys.readouterr().out
    assert not result and says in out, out


def test_check_plan_update_names_the_smallest_failing_steps(capsys):
    check_plan_update(variant(many_in_progress=True))
    line = capsys.readouterr().out.splitlines()[1]
    assert line.startswith(
        "  - from an empty plan: add 'read the code', add 'fix the bug', start 'read the code', "
        "start 'fix the bug': at step 4 (start 'fix the bug') the change is impossible"
    )


# --- 12.2: delegate ------------------------------------------------------------------------------


def make_delegate(client, tools, *, system, max_turns, guardrails=(), max_depth=1):
    """the solution, as the lesson's stub asks for it"""
    running = 0

    def delegate(task: str) -> str:
        """Hand a sub-task to a helper agent that starts fresh; returns its final answer.

        Args:
            task: the sub-task, complete in itself.
        """
        nonlocal running
        if running >= max_depth:
            return failure(f"no deeper than max_depth={max_depth}; do it yourself.")
        running += 1
        try:
            child = run_agent(
                client, task, ToolRegistry(tools), system=system, max_turns=max_turns, guardrails=guardrails
            )
        except Exception as error:
            return failure(f"the helper failed: {error}")
        finally:
            running -= 1
        if child.stop_reason != "answered":
            return failure(f"the helper stopped ({child.stop_reason}) without an answer.")
        return child.answer

    return delegate


def make_delegate_with_the_library(client, tools, **options):
    """right, written differently: the library's Delegate"""
    return Delegate(client, tools, **options).tool


class DepthCounter:
    """right, written differently: the depth kept on an object, the child run in a helper"""

    def __init__(self):
        self.depth = 0


def make_delegate_with_an_object(client, tools, *, system, max_turns, guardrails=(), max_depth=1):
    counter = DepthCounter()

    def run_child(task):
        counter.depth += 1
        try:
            return run_agent(
                client,
                [{"role": "user", "content": task}],
                list(tools),
                system=system,
                max_turns=max_turns,
                guardrails=list(guardrails),
            )
        finally:
            counter.depth -= 1

    def delegate(task: str) -> str:
        """Give a sub-task to a fresh helper agent and return what it answers.

        Args:
            task: everything the helper needs to know.
        """
        if counter.depth == max_depth:
            return failure("too deep")
        try:
            child = run_child(task)
        except Exception as error:
            return failure(type(error).__name__)
        return child.answer if child.stop_reason == "answered" else failure(f"stopped, {child.stop_reason}")

    return delegate


def changed(**wrongs):
    """the solution with one mistake"""

    def factory(client, tools, *, system, max_turns, guardrails=(), max_depth=1):
        running = 0

        def delegate(task: str) -> str:
            """Hand a sub-task to a helper agent.

            Args:
                task: the sub-task.
            """
            nonlocal running
            too_deep = running > max_depth if wrongs.get("depth_off_by_one") else running >= max_depth
            if too_deep and not wrongs.get("no_depth"):
                return "Too deep: do it yourself." if wrongs.get("refusal_unmarked") else failure("too deep")
            running += 1
            try:
                child = run_agent(
                    wrongs.get("client", lambda c: c)(client),
                    wrongs.get("task", lambda t: t)(task),
                    registry(tools),
                    system=system,
                    max_turns=wrongs.get("turns", lambda n: n)(wrongs.get("max_turns", max_turns)),
                    guardrails=() if wrongs.get("no_guards") else list(guardrails)[: wrongs.get("guards")],
                )
            except Exception as error:
                if wrongs.get("no_catch"):
                    raise
                return failure("no answer.") if wrongs.get("failure_unsaid") else failure(f"{error}")
            finally:
                released = not (wrongs.get("never_decrements") or wrongs.get("released_on_success_only"))
                running -= 1 if released else 0
            running -= 1 if wrongs.get("released_on_success_only") else 0
            if wrongs.get("always_max_turns") and child.stop_reason != "answered":
                return failure("the helper hit max_turns.")
            if wrongs.get("only_max_turns_fails") and child.stop_reason not in ("answered", "max_turns"):
                return child.answer
            if child.stop_reason != "answered" and not wrongs.get("passes_the_stop_text"):
                refusal = failure(f"stopped ({child.stop_reason})")
                return str(refusal) if wrongs.get("plain_str") else refusal
            return child.answer

        built = []

        def registry(tools):
            if wrongs.get("registry_once"):  # built at the first call and kept
                built[:] = built or [ToolRegistry(tools)]
                return built[0]
            return ToolRegistry(wrongs.get("tools", lambda t: t)(tools))

        return delegate

    return factory


def shares_the_parents_messages():
    """a child that continues one conversation for every sub-task, instead of starting fresh"""
    history = []

    def factory(client, tools, *, system, max_turns, guardrails=(), max_depth=1):
        def delegate(task: str) -> str:
            """Hand a sub-task to a helper agent.

            Args:
                task: the sub-task.
            """
            history.append({"role": "user", "content": task})
            child = run_agent(
                client,
                list(history),
                ToolRegistry(tools),
                system=system,
                max_turns=max_turns,
                guardrails=guardrails,
            )
            history[:] = [m for m in child.messages if m["role"] != "system"]
            return child.answer if child.stop_reason == "answered" else failure(f"{child.stop_reason}")

        return delegate

    return factory


def one_count_for_every_delegate():
    """the children counted in one place for every delegate made: another delegate's child counts too"""
    running = []

    def factory(client, tools, *, system, max_turns, guardrails=(), max_depth=1):
        def delegate(task: str) -> str:
            """Hand a sub-task to a helper agent.

            Args:
                task: the sub-task.
            """
            if len(running) >= max_depth:
                return failure("too deep")
            running.append(task)
            try:
                child = run_agent(
                    client,
                    task,
                    ToolRegistry(tools),
                    system=system,
                    max_turns=max_turns,
                    guardrails=guardrails,
                )
            except Exception as error:
                return failure(f"the helper failed: {error}")
            finally:
                running.pop()
            return child.answer if child.stop_reason == "answered" else failure(f"{child.stop_reason}")

        return delegate

    return factory


def keeps_history_between_delegations(client, tools, *, system, max_turns, guardrails=(), max_depth=1):
    """each delegation continues the previous child's conversation (its depth counted right)"""
    running = 0
    history = []

    def delegate(task: str) -> str:
        """Hand a sub-task to a helper agent.

        Args:
            task: the sub-task.
        """
        nonlocal running
        if running >= max_depth:
            return failure("too deep")
        running += 1
        history.append({"role": "user", "content": task})
        try:
            child = run_agent(
                client,
                list(history),
                ToolRegistry(tools),
                system=system,
                max_turns=max_turns,
                guardrails=guardrails,
            )
            history[:] = [m for m in child.messages if m["role"] != "system"]
        except Exception as error:
            return failure(f"the helper failed: {error}")
        finally:
            running -= 1
        return child.answer if child.stop_reason == "answered" else failure(f"stopped ({child.stop_reason})")

    return delegate


HELPER_FAILED = failure("el ayudante falló.")


def in_spanish(failed=HELPER_FAILED):
    """the solution, its refusals and failures in Spanish"""

    def factory(client, tools, *, system, max_turns, guardrails=(), max_depth=1):
        running = 0

        def delegate(task: str) -> str:
            """Pasa una subtarea a un agente ayudante.

            Args:
                task: la subtarea, completa en sí misma.
            """
            nonlocal running
            if running >= max_depth:
                return failure(f"ya hay {running} ayudantes en marcha (max_depth={max_depth}); hazlo tú.")
            running += 1
            try:
                child = run_agent(
                    client,
                    task,
                    ToolRegistry(tools),
                    system=system,
                    max_turns=max_turns,
                    guardrails=guardrails,
                )
            except Exception:
                return failed
            finally:
                running -= 1
            if child.stop_reason != "answered":
                return failure(f"el ayudante se detuvo sin responder ({child.stop_reason}).")
            return child.answer

        return delegate

    return factory


def with_a_new_client(client):
    from agent_core import mock  # a fresh mock: its calls are not recorded with the parent's

    return mock.client(lambda request: "I looked: hello")


@pytest.mark.parametrize(
    "right", [make_delegate, make_delegate_with_the_library, make_delegate_with_an_object, in_spanish()]
)
def test_check_delegate_passes_right_answers_written_differently(right, capsys):
    result = check_delegate(right)
    assert result and result.scenarios == DELEGATE_SCENARIOS, capsys.readouterr().out
    assert "✓ Exercise 12.2" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("wrong", "says"),
    [
        (changed(no_depth=True), "children ran 4 deep"),  # a child may delegate without bound
        (  # > where >= belongs: one level too many
            changed(depth_off_by_one=True),
            "children ran 2 deep (the parent's child is 1 deep, its own child 2); with max_depth=1 they "
            "should run 1 deep: refuse a delegate call when max_depth children of this delegate are running, "
            "and not before",
        ),
        (
            changed(turns=lambda n: n + 1),
            "made 2 model calls in all; the reference's made 1, at the same depth: each child has its own "
            "max_turns (1)",
        ),
        (changed(turns=lambda n: max(n - 1, 1)), "at the same depth: each child has its own max_turns"),
        (  # a delegation after a child has ended is refused
            changed(never_decrements=True),
            "called by hand after the parent's run with no child running, started no child; it "
            "returned 'ERROR: too deep'. A child that has ended, even by raising, no longer counts",
        ),
        (
            changed(released_on_success_only=True),
            "called by hand after the parent's run with no child running, started no child; it "
            "returned 'ERROR: too deep'. A child that has ended, even by raising, no longer counts",
        ),
        (
            changed(no_catch=True),
            "delegate('Subtask 9: look at notes.txt.') called by hand let InternalServerError out: the "
            "child's model call failed (the server answered HTTP 500), run_agent raised, and your "
            "delegate did not catch it",
        ),
        (changed(no_guards=True), "notes.txt was changed"),  # the child ignores the parent's guards
        (
            changed(max_turns=10),
            "at the same depth: each child has its own max_turns",
        ),  # the child's budget is not the one asked for
        (changed(passes_the_stop_text=True), 'return failure("...") saying why'),
        (changed(tools=lambda tools: tools[:1]), "it should be offered exactly"),
        (changed(client=with_a_new_client), "no child's model call reached the client"),
        (
            shares_the_parents_messages(),
            "an earlier delegation's conversation was sent again. Each child starts fresh",
        ),
        (
            keeps_history_between_delegations,
            "a child's request held 2 user messages ['Subtask 1: look at notes.txt.', 'Subtask 9: look at "
            "notes.txt.']: an earlier delegation's conversation was sent again",
        ),
        (
            one_count_for_every_delegate(),
            "given read_file and another delegate (a second make_delegate), whose children are given this "
            "one; max_turns=1, max_depth=1: children ran 1 deep (the parent's child is 1 deep, its own child "
            "2); with max_depth=1 they should run 2 deep: refuse a delegate call when max_depth children of "
            "this delegate are running, and not before. Only this delegate's own children count",
        ),
        (
            in_spanish(failed=failure("no hay respuesta.")),
            "the parent read 'ERROR: no hay respuesta.', which does not say that the helper failed",
        ),
        (
            changed(plain_str=True),
            "for delegate call 1 the child did not answer, and delegate it returned the plain str 'ERROR: "
            'stopped (max_turns)\': return failure("...") (from agent_core.dispatch) instead',
        ),
        (changed(refusal_unmarked=True), 'it should be refused with failure("...") (a failed call'),
        (changed(only_max_turns_fails=True), 'return failure("...") saying why'),
        (changed(always_max_turns=True), "stopped with stop_reason 'max_tool_calls'"),
        (changed(failure_unsaid=True), "which does not say that the helper failed"),
        (changed(guards=1), "notes.txt was changed"),  # only the first of the parent's guardrails
        (changed(registry_once=True), "it should be offered exactly ['read_file', 'write_file']"),
    ],
)
def test_check_delegate_catches_tempting_wrong_answers(wrong, says, capsys):
    result = check_delegate(wrong)
    out = capsys.readouterr().out
    assert not result and says in out, out


def test_check_delegate_refuses_a_factory_that_does_not_return_the_tool(capsys):
    assert not check_delegate(lambda client, tools, **options: None)
    assert "named delegate" in capsys.readouterr().out


def test_the_checks_run_the_same_scenarios_every_time(capsys):
    first = check_plan_update(variant(many_in_progress=True)).problems
    assert first == check_plan_update(variant(many_in_progress=True)).problems
    again = check_delegate(changed(no_depth=True)).problems
    assert again == check_delegate(changed(no_depth=True)).problems


def test_the_lesson_12_checks_give_the_same_verdicts_under_another_hash_seed():
    """each check on a wrong answer: the same words whatever the order of a set"""
    outputs = under_two_hash_seeds(
        "test_checks_lesson12",
        "c.check_plan_update(t.variant(many_in_progress=True)); c.check_delegate(t.changed(no_depth=True))",
    )
    assert len(outputs) == 1 and outputs.pop().count("✗ Exercise 12.") == 2


@pytest.mark.parametrize("folder", ["lessons", "solutions"])
def test_the_scenario_counts_the_lesson_states_are_the_checks(folder):
    """a figure the prose states comes from the code: the lesson says how many scenarios each check runs"""
    import nbformat

    from agent_core.checks.lesson12 import DELEGATE_FIXED, PLAN_FIXED

    path = Path(__file__).parent.parent / folder / "12_planning_and_subagents.ipynb"
    prose = " ".join(c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "markdown")
    assert f"on {PLAN_SCENARIOS} lists of steps" in prose
    assert f"{len(PLAN_FIXED)} readable ones, then {PLAN_SCENARIOS - len(PLAN_FIXED)} generated ones" in prose
    assert f"The check runs {DELEGATE_SCENARIOS} cases" in prose
    assert len(DELEGATE_FIXED) < DELEGATE_SCENARIOS
