"""Human in the loop (agent_core.approval): a denial goes back to the model, a pause resumes, a
terminal decider reads its answer."""

import pytest
from calculator_tools import assert_untouched, calculator_run
from email_tools import EMAIL, OUTBOX, draft_email, emailer, send_email

from agent_core import mock
from agent_core.approval import Approval, Decision, TerminalApproval, resume
from agent_core.guardrails import Limits, describe_call
from agent_core.loop import run_agent
from agent_core.widgets import ApprovalPanel


def mail_run(decide, **options):
    OUTBOX.clear()
    client = mock.client(emailer())
    approval = Approval(decide, **options)
    return (
        client,
        approval,
        run_agent(client, "apply", [draft_email, send_email], guardrails=[approval]),
    )


def test_a_denial_goes_back_to_the_model_and_the_loop_goes_on():
    asked = []

    def decide(call):
        asked.append(describe_call(call))
        return Decision(False, "a person sends applications")

    _, _, run = mail_run(decide, tool_names=["send_email"])
    assert asked == [
        'send_email(to="jobs@acme.example", subject="Application")'
    ]  # the draft was not asked about
    assert OUTBOX == [] and run.stop_reason == "answered"
    assert run.observations[1].content == (
        "ERROR: a person denied this call: a person sends applications. Do not try it again; tell "
        "the user what you would have done instead."
    )
    assert "send_email: ERROR: a person denied this call" in run.answer


def test_a_decider_that_raises_fails_closed_and_the_run_goes_on():
    def decide(call):
        raise ConnectionError("the approval service is down")

    _, _, run = mail_run(decide, tool_names=["send_email"])
    assert OUTBOX == [] and run.stop_reason == "answered"
    assert run.observations[1].is_error
    assert "could not be asked (ConnectionError: the approval service is down)" in run.observations[1].content


def test_an_approval_lets_the_call_run_and_a_bool_is_a_decision():
    _, _, run = mail_run(lambda call: True)  # every tool is risky: both were asked
    assert OUTBOX == ["jobs@acme.example"] and not any(o.is_error for o in run.observations)
    _, _, run = mail_run(lambda call: call["function"]["name"] != "send_email")
    assert OUTBOX == [] and run.observations[1].content.startswith(
        "ERROR: a person denied this call: no reason given"
    )


def test_the_terminal_decider_reads_the_answer_from_input():
    shown = []
    for typed, expected in [
        ("y", Decision(True)),
        (" Yes ", Decision(True)),
        ("", Decision(False, "the user said no")),
        ("wait until Monday", Decision(False, "wait until Monday")),
    ]:
        decide = TerminalApproval(
            input=lambda prompt, typed=typed: shown.append(prompt) or typed, print=shown.append
        )
        assert (
            decide({"id": "c", "function": {"name": "send_email", "arguments": '{"to": "a@b.c"}'}})
            == expected
        )
    assert shown[:2] == [
        'The agent wants to run: send_email(to="a@b.c")',
        "Approve? [y/N, or type why not] ",
    ]


def test_the_terminal_decider_denies_when_nobody_can_answer():
    def closed(prompt):
        raise EOFError

    _, _, run = mail_run(TerminalApproval(input=closed, print=lambda *a: None), tool_names=["send_email"])
    assert OUTBOX == [] and "nobody was there to approve it" in run.observations[1].content


def test_the_panel_pauses_the_run_and_a_click_on_approve_resumes_it():
    panel = ApprovalPanel()
    assert panel.approve_button.disabled  # nothing to decide yet
    client, approval, run = mail_run(panel, tool_names=["send_email"])
    assert run.stop_reason == "needs_approval" and OUTBOX == []
    assert run.answer.startswith('Paused: send_email(to="jobs@acme.example", subject="Application") needs')
    assert panel.pending is approval.pending and not panel.approve_button.disabled
    assert repr(panel).startswith("ApprovalPanel: The agent wants to run send_email(")
    mock.check_request({"model": "m", "messages": run.messages})  # the paused history is valid

    panel.approve_button.click()
    panel.deny_button.click()  # too late: the first click decided
    assert panel.decisions[run.messages[-1]["tool_call_id"]] == Decision(True)
    assert panel.approve_button.disabled and "approved. resume() the run to go on" in repr(panel)

    resumed = resume(client, run, guardrails=[approval])
    assert resumed.stop_reason == "answered" and OUTBOX == ["jobs@acme.example"]
    assert resumed.model_calls == 1 and resumed.tool_calls_made == 1  # only the paused call ran now
    assert [m["role"] for m in resumed.messages] == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "assistant",
    ]
    assert resumed.task == "apply"


def test_a_click_on_deny_sends_the_typed_reason_to_the_model():
    panel = ApprovalPanel()
    client, approval, run = mail_run(panel, tool_names=["send_email"])
    panel.reason_text.value = "I will send it myself"
    panel.deny_button.click()
    resumed = resume(client, run, guardrails=[approval])
    assert OUTBOX == [] and resumed.stop_reason == "answered"
    assert "a person denied this call: I will send it myself." in resumed.observations[0].content


def test_the_panel_shows_deterministic_text_and_html():
    panel = ApprovalPanel()
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "send_email", "arguments": '{"to": "<a@b.c>"}'},
    }
    assert panel(call) is None
    bundle = panel._repr_mimebundle_()
    assert (
        bundle["text/plain"]
        == 'ApprovalPanel: The agent wants to run send_email(to="<a@b.c>"). Approve or deny?'
    )
    assert "&lt;a@b.c&gt;" in bundle["text/html"] and "<a@b.c>" not in bundle["text/html"]
    panel.approve()
    assert panel(call) == Decision(True)


def test_a_pause_between_parallel_calls_resumes_without_running_the_first_again():
    panel = ApprovalPanel()
    OUTBOX.clear()
    policy = mock.Script([mock.call("draft_email", **EMAIL), mock.call("send_email", **EMAIL)], "done")
    client = mock.client(policy)
    guards = [Approval(panel, tool_names=["send_email"]), Limits(max_tool_calls=5)]
    run = run_agent(client, "apply", [draft_email, send_email], guardrails=guards)
    assert run.stop_reason == "needs_approval" and run.tool_calls_made == 2
    assert run.messages[2]["content"] == "draft saved for jobs@acme.example"
    panel.approve()
    resumed = resume(client, run, guardrails=guards)
    assert resumed.answer == "done" and OUTBOX == ["jobs@acme.example"]
    assert [o.name for o in resumed.observations] == ["send_email"]
    assert len(client.trace) == 2 and len(resumed.trace) == 1


def test_only_a_paused_run_can_be_resumed():
    run = calculator_run([])
    with pytest.raises(ValueError, match="only a run that stopped with 'needs_approval'"):
        resume(mock.client(), run)


def test_approval_does_not_fire_on_a_well_behaved_run():
    assert_untouched(calculator_run([Approval(lambda call: pytest.fail("asked"), tool_names=["send_email"])]))


def test_a_paused_run_records_the_calls_it_did_not_run():
    panel = ApprovalPanel()
    _, _, run = mail_run(panel, tool_names=["send_email"])
    assert run.stop_reason == "needs_approval"
    assert [call["function"]["name"] for call in run.paused_calls] == ["send_email"]
    answered = {m["tool_call_id"]: m["content"] for m in run.messages if m["role"] == "tool"}
    assert answered[run.paused_calls[0]["id"]].startswith("ERROR: not run: Paused")
