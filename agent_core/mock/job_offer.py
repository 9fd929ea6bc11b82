"""The job-offer agent's mock model: three tools chained in the order the results call for (lesson 05)."""

from __future__ import annotations

import json
from typing import Any

from .policy import Policy, ReplyLike, call, offered_tools, tool_results

__all__ = ["JobApplicant"]


class JobApplicant(Policy):
    """applies to the job offer in the latest user message, one tool call per turn

    Each turn it looks at what the results so far say and picks the next step:
    analyse_offer(text) -> match_cv(requirements) -> draft_application(requirements, fit) ->
    send_application(to, subject, body). A fit with a missing must-have ends the run with advice
    not to apply (no draft); a step whose tool is not offered is skipped; an error result is
    reported in text, not retried; after send_application it reports what came back, so a refused
    send leaves the draft for a person.
    """

    def reply(self, request: dict[str, Any]) -> ReplyLike:
        offered = offered_tools(request)
        done = _results_by_tool(request)
        for name, result in done.items():
            if result.startswith("ERROR") and name != "send_application":
                return f"I stopped: {name} failed, so I cannot go on. It said: {result}"
        requirements = _json(done.get("analyse_offer"))
        fit = _json(done.get("match_cv"))
        draft = _json(done.get("draft_application"))
        if "analyse_offer" not in done and "analyse_offer" in offered:
            return call("analyse_offer", text=_offer_text(request))
        if "match_cv" not in done and "match_cv" in offered:
            return call("match_cv", requirements=requirements or {})
        if fit and fit.get("missing"):
            missing = ", ".join(map(str, fit["missing"]))
            return (
                f"I would not apply: the offer requires {missing}, and the CV does not show it. No draft "
                "written."
            )
        if "draft_application" not in done and "draft_application" in offered:
            return call("draft_application", requirements=requirements or {}, fit=fit or {})
        if "send_application" not in done and "send_application" in offered and draft:
            to = str((requirements or {}).get("contact", ""))
            return call(
                "send_application",
                to=to,
                subject=str(draft.get("subject", "")),
                body=str(draft.get("body", "")),
            )
        if "send_application" in done:
            if done["send_application"].startswith("ERROR"):
                return (
                    "I did not send it; the draft is ready for you to review. I was told: "
                    f"{done['send_application']}"
                )
            return f"I asked to send the application; the answer was: {done['send_application']}"
        if draft:
            return f"The draft is ready for you to review: {draft.get('subject', '')!s}"
        return "I could not prepare an application with the tools I have."


def _offer_text(request: dict[str, Any]) -> str:
    messages = request.get("messages", [])
    users = [m for m in messages if m.get("role") == "user" and isinstance(m.get("content"), str)]
    return users[-1]["content"] if users else ""


def _results_by_tool(request: dict[str, Any]) -> dict[str, str]:
    """tool name -> its latest result text, for the calls made since the latest user message"""
    messages = request.get("messages", [])
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    names = {
        c["id"]: c["function"]["name"] for m in messages[last_user + 1 :] for c in m.get("tool_calls") or []
    }
    results = tool_results(request)
    return {names[i]: results[i] for i in names if i in results}


def _json(text: str | None) -> dict[str, Any] | None:
    if text is None:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
