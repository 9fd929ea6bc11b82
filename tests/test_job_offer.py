"""The job-offer agent's mock model chains its tools in the order the results call for."""

import json

from agent_core import mock
from agent_core.guardrails import Approval, Decision
from agent_core.loop import run_agent
from agent_core.mock.job_offer import JobApplicant
from agent_core.schema import tool

OFFER = "Title: Data engineer\nContact: jobs@acme.example\nMust: Python, GCP or AWS"


def job_tools(cv, outbox):
    @tool
    def analyse_offer(text: str) -> str:
        """List an offer's requirements."""
        lines = dict(line.partition(": ")[::2] for line in text.splitlines())
        if "Must" not in lines:
            raise ValueError("the offer has no 'Must:' line")
        must = [m.strip().lower() for m in lines["Must"].split(",")]
        return json.dumps({"title": lines["Title"], "contact": lines["Contact"], "must": must})

    @tool
    def match_cv(requirements: dict) -> str:
        """Compare the requirements with the CV."""
        must = requirements["must"]
        shown = [r for r in must if any(o.strip() in cv for o in r.split(" or "))]
        return json.dumps({"shown": shown, "missing": [r for r in must if r not in shown]})

    @tool
    def draft_application(requirements: dict, fit: dict) -> str:
        """Write the application email."""
        return json.dumps(
            {"subject": f"Application: {requirements['title']}", "body": ", ".join(fit.get("shown", []))}
        )

    @tool
    def send_application(to: str, subject: str, body: str) -> str:
        """Send the application email."""
        outbox.append((to, subject, body))
        return f"Sent to {to}."

    return {f.__name__: f for f in (analyse_offer, match_cv, draft_application, send_application)}


def names(run):
    return [o.name for o in run.observations]


def test_a_good_fit_is_analysed_matched_drafted_and_sent_each_step_using_the_last_result():
    outbox = []
    run = run_agent(mock.client(JobApplicant()), OFFER, job_tools({"python", "aws"}, outbox).values())
    assert names(run) == ["analyse_offer", "match_cv", "draft_application", "send_application"]
    assert run.model_calls == 5 and run.stop_reason == "answered"
    calls = [c for m in run.messages for c in m.get("tool_calls") or []]
    assert json.loads(calls[0]["function"]["arguments"]) == {"text": OFFER}
    assert json.loads(calls[1]["function"]["arguments"])["requirements"] == json.loads(
        run.observations[0].content
    )
    assert outbox == [("jobs@acme.example", "Application: Data engineer", "python, gcp or aws")]
    assert "Sent to jobs@acme.example." in run.answer


def test_a_missing_must_have_ends_the_run_without_a_draft():
    outbox = []
    run = run_agent(mock.client(JobApplicant()), OFFER, job_tools({"python"}, outbox).values())
    assert names(run) == ["analyse_offer", "match_cv"]
    assert "gcp or aws" in run.answer and outbox == []


def test_a_refused_send_is_reported_and_nothing_goes_out():
    outbox = []
    deny = Approval(lambda call: Decision(False, "a person sends it"), tool_names=["send_application"])
    run = run_agent(
        mock.client(JobApplicant()), OFFER, job_tools({"python", "aws"}, outbox).values(), guardrails=[deny]
    )
    assert outbox == [] and run.stop_reason == "answered" and run.model_calls == 5
    assert run.answer.startswith("I did not send it") and "a person sends it" in run.answer


def test_a_tool_that_is_not_offered_is_skipped():
    tools = job_tools({"python", "aws"}, [])
    run = run_agent(mock.client(JobApplicant()), OFFER, [tools["analyse_offer"], tools["draft_application"]])
    assert names(run) == ["analyse_offer", "draft_application"]
    assert run.answer.startswith("The draft is ready for you to review")


def test_an_error_is_reported_in_text_and_not_retried():
    run = run_agent(mock.client(JobApplicant()), "We need someone great.", job_tools(set(), []).values())
    assert names(run) == ["analyse_offer"] and run.model_calls == 2
    assert "analyse_offer failed" in run.answer and "no 'Must:' line" in run.answer
