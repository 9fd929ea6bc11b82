"""Guardrails: each one fires on the misbehaving model it is for, and stays quiet on a good run."""

import time

import pytest
from calculator_tools import add, assert_untouched, calculator_run, divide
from email_tools import EMAIL, WRITING_TOOLS, draft_email, emailer, send_email

from agent_core import mock
from agent_core.coding.tiny_project import DISCOUNT_TASK, TinyProject
from agent_core.dispatch import ToolRegistry
from agent_core.guardrails import (
    AnswerCheck,
    Approval,
    Decision,
    Limits,
    LoopDetector,
    Permissions,
    VerifyBeforeDone,
)
from agent_core.loop import run_agent
from agent_core.mock.misbehaving import (
    ClaimsDone,
    Reckless,
    Repeater,
    Runaway,
    skips_the_tests,
)

# --- Limits -------------------------------------------------------------------------------------


def test_max_tool_calls_stops_a_runaway_with_an_honest_answer():
    run = run_agent(mock.client(Runaway()), "count", [add], guardrails=[Limits(max_tool_calls=3)])
    assert run.stop_reason == "max_tool_calls"
    assert run.answer.startswith("I stopped after 3 tool calls (max_tool_calls=3) without finishing")
    assert [o.content for o in run.observations] == ["1", "2", "3"]
    assert run.messages[-1]["content"] == "ERROR: not run: " + run.answer  # the 4th call, answered
    mock.check_request({"model": "m", "messages": run.messages})


def test_max_turns_in_limits_stops_before_the_next_model_call():
    run = run_agent(mock.client(Runaway()), "count", [add], guardrails=[Limits(max_turns=2)])
    assert run.stop_reason == "max_turns" and run.model_calls == 2 and len(run.trace) == 2
    assert "2 model calls (max_turns=2)" in run.answer


def test_token_budget_stops_a_runaway_and_counts_what_the_trace_counts():
    limits = Limits(max_tokens=500)
    run = run_agent(mock.client(Runaway()), "count", [add], guardrails=[limits])
    assert run.stop_reason == "max_tokens"
    total = run.trace.total_usage()["total_tokens"]
    assert limits.tokens_used == total >= 500
    assert total - run.trace[-1].usage["total_tokens"] < 500  # the call that crossed the line was the last
    assert f"using {total:,} tokens in {run.model_calls} model calls" in run.answer


def test_token_budget_counts_calls_whose_output_was_refused_or_rejected():
    limits = Limits(max_tokens=100_000)
    policy = ClaimsDone([mock.call("send_email", **EMAIL)], "Sent it.")
    guards = [
        limits,
        Permissions(deny=["send_email"]),
        VerifyBeforeDone(lambda: (False, "nothing was sent"), max_rejections=2),
    ]
    run = run_agent(mock.client(policy), "send it", [send_email], guardrails=guards)
    assert run.stop_reason == "not_verified" and run.model_calls == 4  # call, claim, claim, claim
    assert run.observations[0].error_type == "refused"
    assert limits.tokens_used == run.trace.total_usage()["total_tokens"]


def test_wall_time_limit_stops_a_slow_run():
    def slow_add(a: float, b: float) -> float:
        """Add two numbers, slowly."""
        time.sleep(0.05)
        return a + b

    run = run_agent(
        mock.client(Runaway("slow_add")), "count", [slow_add], guardrails=[Limits(max_seconds=0.03)]
    )
    assert run.stop_reason == "max_seconds"
    assert "running for more than 0.03 seconds (max_seconds=0.03)" in run.answer
    assert run.tool_calls_made <= 2


def test_the_dispatchers_per_tool_timeout_composes_with_limits():
    def hang(a: float, b: float) -> float:
        """Never comes back in time."""
        time.sleep(0.3)
        return a

    registry = ToolRegistry([add])
    registry.add(hang, timeout=0.02)
    run = run_agent(mock.client(Runaway("hang")), "count", registry, guardrails=[Limits(max_tool_calls=2)])
    assert [o.error_type for o in run.observations] == ["timeout", "timeout"]
    assert "did not finish within 0.02 seconds" in run.observations[0].content
    assert run.stop_reason == "max_tool_calls"


def test_limits_start_from_zero_on_each_run():
    limits = Limits(max_tokens=10_000)
    calculator_run([limits])
    run = calculator_run([limits])
    assert limits.tokens_used == run.trace.total_usage()["total_tokens"]


def test_limits_do_not_fire_on_a_well_behaved_run():
    assert_untouched(
        calculator_run([Limits(max_turns=3, max_tool_calls=2, max_seconds=30, max_tokens=5_000)])
    )


# --- LoopDetector -------------------------------------------------------------------------------


def test_a_repeated_call_gets_feedback_then_a_stop():
    run = run_agent(
        mock.client(Repeater(mock.call("add", a=1, b=2))), "1+2", [add], guardrails=[LoopDetector()]
    )
    assert run.stop_reason == "repeated_call"
    assert [o.content for o in run.observations[:2]] == ["3", "3"]
    feedback = run.observations[2]
    assert feedback.error_type == "refused"
    assert (
        "already called add with exactly these arguments twice, and the result will not change"
        in feedback.content
    )
    assert "add(a=1, b=2), 4 times" in run.answer
    assert run.model_calls == 4


def test_a_model_that_heeds_the_feedback_goes_on_to_answer():
    policy = Repeater(mock.call("add", a=1, b=2), heeds_errors=True)
    run = run_agent(mock.client(policy), "1+2", [add], guardrails=[LoopDetector(max_repeats=1)])
    assert run.stop_reason == "answered" and run.answer == "The result is 3."
    assert [o.is_error for o in run.observations] == [False, True]


def test_the_same_arguments_in_another_order_are_the_same_call():
    script = mock.Script(mock.call("add", '{"a": 1, "b": 2}'), mock.call("add", '{ "b":2,"a":1 }'), "3")
    run = run_agent(mock.client(script), "1+2", [add], guardrails=[LoopDetector(max_repeats=1)])
    assert run.observations[1].error_type == "refused"


def test_new_arguments_every_time_are_not_a_repeat():
    run = run_agent(
        mock.client(Runaway()),
        "count",
        [add],
        max_turns=6,
        guardrails=[LoopDetector(max_repeats=1)],
    )
    assert run.stop_reason == "max_turns" and not any(o.is_error for o in run.observations)


def test_loop_detector_does_not_fire_on_a_well_behaved_run():
    assert_untouched(calculator_run([LoopDetector(max_repeats=1)]))


def test_loop_detector_refuses_a_useless_limit():
    with pytest.raises(ValueError, match="at least 1"):
        LoopDetector(max_repeats=0)


# --- Permissions --------------------------------------------------------------------------------


def project_run(permissions, *steps):
    project = TinyProject()
    run = run_agent(mock.client(Reckless(*steps)), "tidy up", project.tools, guardrails=[permissions])
    return project, run


def test_a_denied_tool_is_refused_and_the_run_goes_on():
    project, run = project_run(
        Permissions(deny=["delete_file"]),
        mock.call("delete_file", path="README.md"),
        mock.call("read_file", path="README.md"),
    )
    assert run.stop_reason == "answered" and "README.md" in project.files
    assert run.observations[0].content == (
        "ERROR: the tool 'delete_file' is not allowed in this "
        "run. Do the task without it, or say that you cannot."
    )
    assert run.observations[1].content.startswith("# discount")


def test_only_allowed_tools_run():
    _, run = project_run(
        Permissions(allow={"read_file", "run_tests"}),
        mock.call("write_file", path="a.txt", content="x"),
    )
    assert run.observations[0].content.endswith("the allowed tools are: read_file, run_tests.")


def test_read_only_refuses_the_writing_tools_it_is_told_of():
    project, run = project_run(
        Permissions(read_only=True),
        mock.call("read_file", path="discount.py"),
        mock.call("write_file", path="discount.py", content=""),
    )
    assert not run.observations[0].is_error and project.changed() == []
    assert "this run is read-only and 'write_file' changes things" in run.observations[1].content
    mail = run_agent(
        mock.client(emailer()),
        "apply",
        [draft_email, send_email],
        guardrails=[Permissions(read_only=True, writing_tools=WRITING_TOOLS)],
    )
    assert [o.is_error for o in mail.observations] == [False, True]
    unsaid = run_agent(
        mock.client(emailer()), "apply", [draft_email, send_email], guardrails=[Permissions(read_only=True)]
    )
    assert not any(o.is_error for o in unsaid.observations)  # a writing tool nobody named runs


@pytest.mark.parametrize(
    "path, pattern",
    [
        ("test_discount.py", "test_*.py"),
        ("./tests/../test_discount.py", "test_*.py"),
        ("tests/unit/test_x.py", "tests/*"),
    ],
)
def test_protected_paths_cannot_be_written(path, pattern):
    project, run = project_run(
        Permissions(protected=["tests/*", "test_*.py"]),
        mock.call("write_file", path=path, content=""),
    )
    assert run.observations[0].content.startswith(
        f"ERROR: {path.replace('./tests/../', '')!r} is protected (it matches {pattern!r})"
    )
    assert project.changed() == []


def test_protected_paths_can_still_be_read_and_other_paths_written():
    project, run = project_run(
        Permissions(protected=["test_*.py"]),
        mock.call("read_file", path="test_discount.py"),
        mock.call("delete_file", path="README.md"),
        mock.call("write_file", path="notes/test_plan.md", content="x"),
    )
    assert not any(o.is_error for o in run.observations)
    assert project.changed() == ["README.md", "notes/test_plan.md"]


def test_permissions_do_not_fire_on_a_well_behaved_run():
    assert_untouched(calculator_run([Permissions(allow={"add", "divide"}, read_only=True, protected=["*"])]))


# --- verify before done -------------------------------------------------------------------------


def test_a_claim_that_fails_the_check_goes_back_and_the_loop_goes_on():
    project = TinyProject()

    def tests_pass():
        report = project.run_tests()
        return report.startswith("exit code: 0"), report

    verify = VerifyBeforeDone(tests_pass)
    run = run_agent(mock.client(skips_the_tests()), DISCOUNT_TASK, project.tools, guardrails=[verify])
    assert run.stop_reason == "answered" and verify.rejections == 1
    feedback = run.messages[6]
    assert feedback["role"] == "user"
    assert feedback["content"].startswith("Your answer was not accepted: the check failed")
    assert "test_small_orders_pay_the_full_price FAILED" in feedback["content"]
    assert tests_pass()[0] and project.changed() == ["discount.py"]


def test_rejections_are_capped_and_the_stop_is_honest():
    policy = ClaimsDone([], "Done!")  # keeps saying it
    verify = VerifyBeforeDone(lambda: (False, "2 tests fail"), max_rejections=2)
    run = run_agent(mock.client(policy), "task", [], guardrails=[verify])
    assert run.stop_reason == "not_verified" and run.model_calls == 3
    assert run.answer.startswith("I stopped: my answer was rejected twice and the check still fails")
    assert run.answer.endswith("The last report:\n2 tests fail")


def test_an_answer_check_reads_the_answer():
    seen = []

    def says_the_result(answer):
        seen.append(answer)
        return "5.666666666666667" in answer, "the answer should give the exact result"

    assert_untouched(calculator_run([AnswerCheck(says_the_result)]))
    assert seen == ["5 + 8/12 = 5.666666666666667"]


def test_an_answer_check_rejects_a_wrong_answer_then_stops():
    check = AnswerCheck(lambda answer: ("5.666" in answer, "the result should be 5.666..."), max_rejections=1)
    run = run_agent(
        mock.client(ClaimsDone([], "5 + 8/12 = 13/12")), "5 + 8/12", [add, divide], guardrails=[check]
    )
    assert run.stop_reason == "rejected" and run.model_calls == 2 and check.rejections == 1
    assert run.messages[-2]["content"].startswith("Your answer was not accepted: the check failed")
    assert run.answer.endswith("The last report:\nthe result should be 5.666...")


def test_an_answer_check_keeps_what_it_caught_and_needs_a_check_or_problems():
    check = AnswerCheck(lambda answer: ("5.666" in answer, "the result should be 5.666..."), max_rejections=1)
    run_agent(mock.client(ClaimsDone([], "5 + 8/12 = 13/12")), "5 + 8/12", [add, divide], guardrails=[check])
    assert check.caught == ["the result should be 5.666..."] * 2  # the rejected answer, then the stop
    with pytest.raises(TypeError, match=r"needs check\(answer\) -> \(ok, report\), or a subclass"):
        AnswerCheck()


def test_verify_does_not_fire_on_a_well_behaved_run():
    assert_untouched(calculator_run([VerifyBeforeDone(lambda: (True, "all good"), max_rejections=0)]))


# --- together -----------------------------------------------------------------------------------


def every_guard():
    return [
        Limits(max_turns=10, max_tool_calls=5, max_seconds=30, max_tokens=5_000),
        LoopDetector(max_repeats=1),
        Permissions(deny=["send_email"], protected=["test_*.py"]),
        Approval(lambda call: Decision(False, "no"), tool_names=["send_email"]),
        AnswerCheck(lambda answer: ("5.666" in answer, "wrong result")),
    ]


def test_all_guards_together_leave_a_well_behaved_run_alone():
    assert_untouched(calculator_run(every_guard()))


@pytest.mark.parametrize(
    "policy, stop_reason",
    [
        (Runaway(), "max_tool_calls"),
        (Repeater(mock.call("add", a=1, b=2)), "repeated_call"),
        (ClaimsDone([], "5 + 8/12 = 13/12"), "rejected"),
    ],
)
def test_all_guards_together_each_catches_its_case(policy, stop_reason):
    run = run_agent(mock.client(policy), "5 + 8/12", [add, divide], guardrails=every_guard(), max_turns=20)
    assert run.stop_reason == stop_reason


def never_decided(call):
    return None  # nobody has clicked yet: the run pauses


def always_red():
    return False, "2 tests fail"


def says_5_666(answer):
    return "5.666" in answer, "the result should be 5.666..."


STATEFUL_GUARDS = {  # each guard, and a first run that leaves it with figures of its own
    "Limits": (lambda: Limits(max_tokens=800), Runaway),
    "LoopDetector": (LoopDetector, lambda: Repeater(mock.call("add", a=1, b=2))),
    "VerifyBeforeDone": (
        lambda: VerifyBeforeDone(always_red, max_rejections=2),
        lambda: ClaimsDone([], "Done!"),
    ),
    "AnswerCheck": (
        lambda: AnswerCheck(says_5_666, max_rejections=2),
        lambda: ClaimsDone([], "5 + 8/12 = 13/12"),
    ),
    "Approval": (lambda: Approval(never_decided, tool_names=["add"]), Runaway),
}


@pytest.mark.parametrize("name", STATEFUL_GUARDS)
def test_a_guard_reused_for_a_second_run_reports_that_runs_own_figures(name):
    make_guard, first_policy = STATEFUL_GUARDS[name]

    def second_run(guard):
        policy = ClaimsDone([mock.call("divide", a=8, b=12)], "8/12 = 0.667")  # says it again if rejected
        return run_agent(mock.client(policy), "8/12", [add, divide], guardrails=[guard], max_turns=5)

    reused, fresh = make_guard(), make_guard()
    first = run_agent(
        mock.client(first_policy()), "5 + 8/12", [add, divide], guardrails=[reused], max_turns=5
    )
    assert first.stop_reason != "answered"  # the first run left the guard with figures to reset
    again, alone = second_run(reused), second_run(fresh)
    assert (again.stop_reason, again.model_calls) == (alone.stop_reason, alone.model_calls)
    assert vars(reused) == vars(fresh)  # every field: what the second run alone would report
