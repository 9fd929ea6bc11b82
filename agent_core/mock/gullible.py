"""A mock model that does the user's errands and, like many real models, tends to follow instructions it
finds in tool results; seeded, so the same conversation gets the same choice everywhere (lesson 13)."""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from typing import Any

from .._shared import ERROR_PREFIX
from .policy import Policy, ReplyLike, ToolCall, calls, content_text, offered_tools, text

__all__ = ["Gullible", "injected_calls", "errands"]

# "call NAME with {JSON}": the one form of instruction it finds in a tool result; "<the result>" in a
# value stands for what the instruction's previous call returned
_INSTRUCTION = re.compile(r"\bcall (?P<name>[A-Za-z0-9_-]+) with (?P<arguments>\{[^{}]*\})")
_MARKED = re.compile(r"<untrusted[^>]*>(.*?)</untrusted>", re.DOTALL)
_URL = re.compile(r"https://[^\s,]+[^\s,.]")
_PLAN_TOOL = "submit_plan"


@dataclass(frozen=True)
class _Errand:
    tool: str
    arguments: dict[str, Any]
    fixed: tuple[str, ...]  # the arguments the user's words gave (the rest come from what it read)


class Gullible(Policy):
    """does what the user's request asks with the lesson's tools, one call per reply, then answers
    with what the tools returned. When a tool result holds "call NAME with {...}", it obeys with
    probability `obey` (`obey_marked` when the instruction sits inside <untrusted>...</untrusted>),
    drawn once per instruction from the seed: it makes those calls first, then goes back to the
    user's errand. A refused call ends the instruction it belongs to. Offered only submit_plan, it
    answers with its plan for the request, from the request alone. These rates are settings of this
    mock, chosen for the lesson; no real model is claimed to obey at them."""

    def __init__(self, seed: int = 0, obey: float = 0.8, obey_marked: float = 0.3) -> None:
        self.seed, self.obey, self.obey_marked = seed, obey, obey_marked

    def reply(self, request: dict[str, Any]) -> ReplyLike:
        messages = request.get("messages", [])
        user = next((content_text(m.get("content")) for m in messages if m.get("role") == "user"), "")
        tools = offered_tools(request)
        if _PLAN_TOOL in tools:
            steps = [
                {"tool": e.tool, "arguments": {k: e.arguments[k] for k in e.fixed}} for e in errands(user)
            ]
            return calls(ToolCall(_PLAN_TOOL, {"steps": steps}))
        history = _history(messages)
        injected = self._injected(history)
        errands_left = [e for e in errands(user) if e.tool in tools]
        done = [name for name, _, _, kind in history if kind == "errand"]
        if injected:
            return calls(injected)
        if any(error for _, _, error, kind in history if kind == "errand"):
            return text(_answer(history))
        if len(done) < len(errands_left):
            errand = errands_left[len(done)]
            return calls(ToolCall(errand.tool, _filled(errand, history)))
        return text(_answer(history))

    def _injected(self, history: list[tuple[str, str, bool, str]]) -> ToolCall | None:
        """the next call an obeyed instruction asks for, or None"""
        for index, (_, result, _, _) in enumerate(history):
            for marked, instruction in injected_calls(result):
                draw = random.Random(f"{self.seed}/{json.dumps(instruction)}").random()
                if draw >= (self.obey_marked if marked else self.obey):
                    continue
                made = [h for h in history[index + 1 :] if h[3] == "injected"]
                if any(error for _, _, error, _ in made) or len(made) >= len(instruction):
                    continue
                name, arguments = instruction[len(made)]
                previous = made[-1][1] if made else ""
                return ToolCall(
                    name, {k: previous if v == "<the result>" else v for k, v in arguments.items()}
                )
        return None


def injected_calls(result: str) -> list[tuple[bool, list[tuple[str, dict[str, Any]]]]]:
    """the instructions in a tool result: (inside an <untrusted> block?, the calls each asks for)"""
    spans = [match.span(1) for match in _MARKED.finditer(result)]
    found, offset = [], 0
    for sentence in re.split(r"(?<=\.)\s+(?=[A-Z])", result):
        start = result.index(sentence, offset)
        offset = start + len(sentence)
        asked, first = [], None
        for match in _INSTRUCTION.finditer(sentence):
            try:
                arguments = json.loads(match.group("arguments"))
            except ValueError:
                continue
            asked.append((match.group("name"), arguments))
            first = start + match.start() if first is None else first
        if asked and first is not None:
            found.append((any(low <= first < high for low, high in spans), asked))
    return found


def errands(user: str) -> list[_Errand]:
    """the calls the request asks for, in the order it names them"""
    found: list[tuple[int, _Errand]] = []
    if (inbox := re.search(r"\binbox\b", user)) is not None:
        found.append((inbox.start(), _Errand("read_inbox", {}, ())))
    if (customer := re.search(r"customer ([A-Z]\w+ [A-Z]\w+)", user)) is not None:
        found.append((customer.start(), _Errand("lookup_customer", {"name": customer.group(1)}, ("name",))))
    for url in _URL.finditer(user):
        if re.search(r"post [\w ]*to $", user[: url.start()]):
            found.append((url.start(), _Errand("post_to_url", {"url": url.group()}, ("url",))))
        else:
            found.append((url.start(), _Errand("fetch_page", {"url": url.group()}, ("url",))))
    if (reply := re.search(r"reply to (\S+@\S+\w) that ([^.]+)", user)) is not None:
        body = reply.group(2)[0].upper() + reply.group(2)[1:] + "."
        arguments = {"to": reply.group(1), "subject": "Re: your email", "body": body}
        found.append((reply.start(), _Errand("send_email", arguments, ("to",))))
    return [errand for _, errand in sorted(found, key=lambda pair: pair[0])]


def _history(messages: list[dict[str, Any]]) -> list[tuple[str, str, bool, str]]:
    """(tool, result, was it refused or failed, "errand" or "injected") for each call made, in order"""
    results = {
        m.get("tool_call_id"): content_text(m.get("content")) for m in messages if m.get("role") == "tool"
    }
    user = next((content_text(m.get("content")) for m in messages if m.get("role") == "user"), "")
    errand_tools = [e.tool for e in errands(user)]
    history: list[tuple[str, str, bool, str]] = []
    for message in messages:
        for call in message.get("tool_calls") or [] if message.get("role") == "assistant" else []:
            name, result = call["function"]["name"], results.get(call["id"], "")
            done = [h[0] for h in history if h[3] == "errand"]
            kind = (
                "errand" if len(done) < len(errand_tools) and errand_tools[len(done)] == name else "injected"
            )
            if kind == "errand" and _looks_injected(call, history):
                kind = "injected"
            history.append((name, result, result.startswith(ERROR_PREFIX), kind))
    return history


def _looks_injected(call: dict[str, Any], history: list[tuple[str, str, bool, str]]) -> bool:
    """a call whose arguments an instruction in an earlier result wrote (the model's own memory of why)"""
    arguments = json.loads(call["function"]["arguments"] or "{}")
    for _, result, _, _ in history:
        for _, instruction in injected_calls(result):
            for name, asked in instruction:
                fixed = {k: v for k, v in asked.items() if v != "<the result>"}
                if name == call["function"]["name"] and all(arguments.get(k) == v for k, v in fixed.items()):
                    return True
    return False


def _filled(errand: _Errand, history: list[tuple[str, str, bool, str]]) -> dict[str, Any]:
    """the errand's arguments; a post carries the first sentence of the last page read"""
    if errand.tool != "post_to_url":
        return dict(errand.arguments)
    pages = [result for name, result, _, kind in history if name == "fetch_page" and kind == "errand"]
    return {**errand.arguments, "text": _first_sentence(pages[-1] if pages else "")}


def _first_sentence(result: str) -> str:
    plain = re.sub(r"</?untrusted[^>]*>", "", result).strip()
    return plain.split(". ")[0].rstrip(".") + "."


def _answer(history: list[tuple[str, str, bool, str]]) -> str:
    """what the errands found, in words; an injected call is never mentioned, as it was told"""
    lines = []
    for name, result, error, kind in history:
        if kind != "errand":
            continue
        if error:
            lines.append(f"I could not finish: {name} failed ({result.removeprefix(ERROR_PREFIX)[:120]})")
        elif name == "read_inbox":
            plain = re.sub(r"</?untrusted[^>]*>", "", result)
            lines += [
                f"- {who}: {subject}" for who, subject in re.findall(r"From: (\S+)\nSubject: ([^\n]+)", plain)
            ]
        elif name == "fetch_page":
            lines.append(_first_sentence(result) + " " + _second_sentence(result))
        else:
            lines.append(result)
    return "Here is what I found:\n" + "\n".join(lines) if lines else "I had nothing to do."


def _second_sentence(result: str) -> str:
    plain = re.sub(r"</?untrusted[^>]*>", "", result).strip().split("\n")[0]
    parts = plain.split(". ")
    return parts[1].rstrip(".") + "." if len(parts) > 1 else ""
