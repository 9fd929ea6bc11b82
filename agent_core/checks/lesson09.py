"""Checks for lesson 09's exercises: a conversation in Anthropic's format by hand, the agent loop on the
Messages API."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping
from typing import Any

import anthropic
import httpx2

from .. import mock
from .._i18n import _
from ..formats import ERROR_PREFIX, to_anthropic
from ..replay import first_difference
from . import Verdict, verdict
from ._scenarios import Dimension, judge_scenarios, scenarios, smaller_lists

__all__ = [
    "LOOP_SPACE",
    "CONVERSATION_SPACE",
    "check_anthropic",
    "conversation_scenarios",
    "CONVERSATION_SHAPES",
    "check_anthropic_loop",
    "loop_scenarios",
    "LOOP_SHAPES",
    "CONVERSATION",
    "TOOLS",
    "FUNCTIONS",
]


# --- Exercise 9.1 ---------------------------------------------------------------------------

_ZERO_DIVISION = (
    f"{ERROR_PREFIX}the tool 'divide' raised ZeroDivisionError: division by zero. Check the arguments "
    "and call it again, or try another approach."
)

CONVERSATION: list[dict[str, Any]] = [
    {"role": "system", "content": "You are a careful assistant. Use the tools for arithmetic."},
    {"role": "user", "content": "What are 8/12 and 1/0?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_a",
                "type": "function",
                "function": {"name": "divide", "arguments": '{"a": 8, "b": 12}'},
            },
            {
                "id": "call_b",
                "type": "function",
                "function": {"name": "divide", "arguments": '{"a": 1, "b": 0}'},
            },
        ],
    },
    {"role": "tool", "tool_call_id": "call_a", "content": "0.6666666666666666"},
    {"role": "tool", "tool_call_id": "call_b", "content": _ZERO_DIVISION},
    {"role": "user", "content": "If one of them failed, say why in one sentence."},
]


def conversation_scenarios() -> list[dict[str, Any]]:
    """check 9.1's fixed case, message by message: an answer, not code, so nothing is generated"""
    return [dict(message) for message in CONVERSATION]


def _is_result(message: dict[str, Any]) -> bool:
    return bool(message["role"] == "tool")


# the shapes lesson 09 names for a conversation in Anthropic's format, each in CONVERSATION
CONVERSATION_SHAPES: dict[str, Callable[[dict[str, Any]], bool]] = {
    "a system prompt (a top-level field in Anthropic's format)": lambda m: m["role"] == "system",
    "the person's question": lambda m: m["role"] == "user" and "?" in m["content"],
    "two calls at once, no text, arguments as JSON strings": lambda m: len(m.get("tool_calls") or []) == 2,
    "a tool result that worked": lambda m: _is_result(m) and not m["content"].startswith(ERROR_PREFIX),
    "a tool result that failed (is_error)": lambda m: _is_result(m) and m["content"].startswith(ERROR_PREFIX),
    "the person's note after the results, in the same turn": lambda m: (
        m["role"] == "user" and "failed" in m["content"]
    ),
}


# what exercise 9.1's words say varies, each form in the conversation (tests/test_input_space.py)
CONVERSATION_SPACE: dict[str, Dimension[dict[str, Any]]] = {
    "the results": Dimension(
        'the failed one with `"is_error": True`',
        {
            "a result that worked": CONVERSATION_SHAPES["a tool result that worked"],
            "a result that failed": CONVERSATION_SHAPES["a tool result that failed (is_error)"],
        },
    ),
    "that user message": Dimension(
        "in that user message, the results come first and the text after them",
        {
            "a result": _is_result,
            "the person's note": CONVERSATION_SHAPES["the person's note after the results, in the same turn"],
        },
    ),
    "the system prompt": Dimension(
        "the system prompt goes in the top-level `system` field",
        {
            "the system prompt": CONVERSATION_SHAPES[
                "a system prompt (a top-level field in Anthropic's format)"
            ],
            "a message": lambda m: m["role"] != "system",
        },
    ),
}


def check_anthropic(request: Any) -> Verdict:
    """Exercise 9.1: CONVERSATION written by hand as an Anthropic request body {system, messages} (an answer,
    not code: no scenarios)"""
    try:
        problems = _anthropic_problems(request)
    except Exception as error:  # a shape the rules below did not foresee: say so, never crash
        problems = [
            _(
                "the check could not read your request ({error}); compare its shape with the example above",
                error=f"{type(error).__name__}: {error}",
            )
        ]
    return verdict(
        "9.1",
        problems,
        _(
            "system on top, results as tool_result blocks in ONE user message before the text, "
            "arguments as objects, and the failure marked is_error."
        ),
    )


def _anthropic_problems(request: Any) -> list[str]:
    if not isinstance(request, Mapping):
        return [
            _(
                "request should be a dict with 'system' and 'messages', not {kind}",
                kind=type(request).__name__,
            )
        ]
    problems = []
    system = CONVERSATION[0]["content"]
    messages = request.get("messages")
    if not isinstance(messages, list):
        return [_("request['messages'] should be the list of messages")]
    roles = [m.get("role") if isinstance(m, Mapping) else None for m in messages]
    if "system" in roles:
        problems.append(
            _(
                "Anthropic has no 'system' role: put the system prompt in the top-level 'system' field "
                "and leave it out of messages"
            )
        )
    # the API takes the system prompt as a string or as a list of text blocks (lesson 06 sends blocks)
    wrong_system = (
        []
        if _text(request.get("system")) == system
        else [
            _(
                "request['system'] should be the system prompt, {system} "
                "(a string, or a list of text blocks)",
                system=repr(system),
            )
        ]
    )
    if "tool" in roles:
        problems.append(
            _(
                "Anthropic has no 'tool' role: a tool result is a {'type': 'tool_result', ...} block in "
                "the content of a 'user' message"
            )
        )
    strange = sorted({str(r) for r in roles if r not in ("user", "assistant", "system", "tool")})
    if strange:
        problems.append(
            _("every message needs a role, 'user' or 'assistant'; found {roles}", roles=", ".join(strange))
        )
    if problems:
        return wrong_system + problems
    for i in range(1, len(roles)):
        if roles[i] == roles[i - 1]:
            return wrong_system + [
                _(
                    "messages[{before}] and messages[{index}] are both {role} messages: all the results "
                    "of one turn, and any text after them, go in ONE user message",
                    before=i - 1,
                    index=i,
                    role=repr(roles[i]),
                )
            ]
    if roles != ["user", "assistant", "user"]:
        return wrong_system + [
            _(
                "the roles should be user, assistant, user (the question, the two calls, their results "
                "with the note); yours are {roles}",
                roles=", ".join(map(str, roles)) or _("empty"),
            )
        ]
    problems += _assistant_problems(_blocks(messages[1]["content"]))
    problems += _results_problems(_blocks(messages[2]["content"]))
    if problems or wrong_system:
        return wrong_system + problems
    expected = _normal(to_anthropic(CONVERSATION))
    difference = first_difference(
        expected, _normal({"system": _text(request.get("system")), "messages": messages})
    )
    if difference:
        where, wanted, got = difference
        problems.append(
            _("at {where}: expected {wanted}, found {got}", where=where, wanted=repr(wanted), got=repr(got))
        )
    return problems


def _blocks(content: Any) -> list[Any]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return list(content) if isinstance(content, list) else [content]


def _assistant_problems(blocks: list[Any]) -> list[str]:
    calls = CONVERSATION[2]["tool_calls"]
    uses = [b for b in blocks if isinstance(b, Mapping) and b.get("type") == "tool_use"]
    if len(uses) != len(calls):
        return [
            _(
                "the assistant message should hold {expected} tool_use blocks, one per call; it has {found}",
                expected=len(calls),
                found=len(uses),
            )
        ]
    problems = []
    for use, call in zip(uses, calls, strict=True):
        if use.get("id") != call["id"]:
            problems.append(
                _(
                    "a tool_use block keeps the call's id as 'id': {expected}, not {found}",
                    expected=repr(call["id"]),
                    found=repr(use.get("id")),
                )
            )
        if use.get("name") != call["function"]["name"]:
            problems.append(
                _(
                    "tool_use {id}: 'name' should be {name}",
                    id=call["id"],
                    name=repr(call["function"]["name"]),
                )
            )
        if isinstance(use.get("input"), str):
            problems.append(
                _(
                    "tool_use {id}: 'input' is an object, {input} without the quotes, "
                    "not the JSON string Chat Completions sends",
                    id=call["id"],
                    input=use["input"],
                )
            )
        elif "input" not in use:
            problems.append(_("tool_use {id}: the arguments go in 'input', as an object", id=call["id"]))
    return problems


def _results_problems(blocks: list[Any]) -> list[str]:
    results = [b for b in blocks if isinstance(b, Mapping) and b.get("type") == "tool_result"]
    answers = {r.get("tool_use_id"): r for r in results}
    problems = []
    for message in CONVERSATION[3:5]:
        call_id = message["tool_call_id"]
        result = answers.get(call_id)
        if result is None:
            problems.append(
                _(
                    "the last user message has no tool_result with tool_use_id {id}: every call "
                    "is answered, and all the answers of one turn travel in one user message",
                    id=repr(call_id),
                )
            )
            continue
        failed = message["content"].startswith(ERROR_PREFIX)
        if failed and result.get("is_error") is not True:
            problems.append(_("the result for {id} is a failure: mark it with 'is_error': True", id=call_id))
        if not failed and result.get("is_error"):
            problems.append(_("the result for {id} worked: it must not say is_error", id=call_id))
        problem = _content_problem(call_id, _text(result.get("content")), message["content"])
        if problem:
            problems.append(problem)
    kinds = [b.get("type") if isinstance(b, Mapping) else None for b in blocks]
    if (
        "text" in kinds
        and "tool_result" in kinds
        and kinds.index("text") < max(i for i, kind in enumerate(kinds) if kind == "tool_result")
    ):
        problems.append(_("in a user message the tool_result blocks come first, then the text"))
    if "text" not in kinds:
        problems.append(
            _("the person's note goes in the same user message, as a text block after the results")
        )
    return problems


def _content_problem(call_id: str, content: Any, text: str) -> str | None:
    """what is wrong with a tool_result's content (its text blocks joined), which should be `text`"""
    if content == text:
        return None
    if not isinstance(content, str):
        return _(
            "the tool_result for {id} should carry the tool's text as 'content', a string (or a list "
            "of text blocks); yours is a {kind}: {content}",
            id=call_id,
            kind=type(content).__name__,
            content=repr(content),
        )
    if text.startswith(ERROR_PREFIX) and not content.startswith(ERROR_PREFIX) and content in text:
        return _(
            "the tool_result for {id} should carry the tool's text as 'content' whole: the failure's "
            "{prefix} is missing (it tells the model the call failed)",
            id=call_id,
            prefix=repr(ERROR_PREFIX),
        )
    return _(
        "the tool_result for {id} should carry the tool's text as 'content', {expected}; yours is {content}",
        id=call_id,
        expected=repr(text),
        content=repr(content),
    )


def _text(content: Any) -> Any:
    if isinstance(content, list) and all(isinstance(b, Mapping) and b.get("type") == "text" for b in content):
        return "".join(b.get("text", "") for b in content)
    return content


def _whole(value: Any) -> Any:
    """every whole float as an int (JSON's 8.0 and 8 are one number), inside lists and objects"""
    if isinstance(value, dict):
        return {key: _whole(inner) for key, inner in value.items()}
    if isinstance(value, list):
        return [_whole(inner) for inner in value]
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _normal(request: Mapping[str, Any]) -> dict[str, Any]:
    """the same request however it is spelled: lone text as a string, is_error only when true"""
    messages = []
    for message in request["messages"]:
        blocks = []
        for block in _blocks(message.get("content")):
            block = dict(block)
            if block.get("type") == "tool_use":
                block["input"] = _whole(block.get("input"))
            if block.get("type") == "tool_result":
                block["content"] = _text(block.get("content"))
                if not block.get("is_error"):
                    block.pop("is_error", None)
            blocks.append(block)
        results = sorted(
            (b for b in blocks if b.get("type") == "tool_result"), key=lambda b: str(b.get("tool_use_id"))
        )
        blocks = results + [b for b in blocks if b.get("type") != "tool_result"]  # results pair by id
        messages.append({"role": message.get("role"), "content": blocks})
    return {"system": request.get("system"), "messages": messages}


# --- Exercise 9.2 ---------------------------------------------------------------------------


def _add(a: float, b: float) -> float:
    return a + b


def _divide(a: float, b: float) -> float:
    return a / b


def _number_tool(name: str, description: str) -> dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "input_schema": {
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
        },
    }


TOOLS = [_number_tool("add", "Add two numbers: a + b."), _number_tool("divide", "Divide a by b: a / b.")]
FUNCTIONS: dict[str, Callable[..., Any]] = {"add": _add, "divide": _divide}
_RUNAWAY = 12  # model calls after which the check stops a loop that has no cap


class _Stopped(Exception):
    """raised by the recorder to end a loop that would never stop"""


class _Recorder(httpx2.BaseTransport):
    """the mock's transport, in process (the browser edition has no sockets), keeping every request
    body and, when it parsed, every reply"""

    def __init__(self, inner: httpx2.BaseTransport, split_text: bool = False, cut: int | None = None) -> None:
        self.inner = inner
        self.requests: list[Any] = []
        self.replies: list[Any] = []
        self.runaway = False
        self.split_text = split_text  # a final answer arrives as two text blocks, as Claude's can
        self.cut = cut  # this reply (0 is the first) is cut off at max_tokens in the middle of a tool_use

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        if len(self.requests) >= _RUNAWAY:
            self.runaway = True
            raise _Stopped(_("the check stopped the loop after {count} model calls", count=_RUNAWAY))
        try:
            self.requests.append(json.loads(request.read() or b"null"))
        except ValueError:
            self.requests.append(None)
        response = self.inner.handle_request(request)
        response.read()
        try:
            self.replies.append(response.json() if response.status_code == 200 else None)
        except ValueError:  # a streamed reply: not the shape this exercise asks for
            self.replies.append(None)
        reply = self.replies[-1]
        split = (
            self.split_text and isinstance(reply, dict) and [b["type"] for b in reply["content"]] == ["text"]
        )
        if split:
            first, _dot, rest = reply["content"][0]["text"].partition(". ")
            reply["content"] = [{"type": "text", "text": first + ". "}, {"type": "text", "text": rest}]
        cut = (
            self.cut == len(self.replies) - 1
            and isinstance(reply, dict)
            and reply.get("stop_reason") == "tool_use"
        )
        if cut:  # the tokens ran out while the model wrote its call: the call is there, but unfinished
            reply["stop_reason"] = "max_tokens"
            for block in reply["content"]:
                if block["type"] == "tool_use":
                    block["input"] = dict(list(block["input"].items())[:1])
        if split or cut:
            headers = {k: v for k, v in response.headers.items() if k.lower() != "content-length"}
            return httpx2.Response(200, headers=headers, content=json.dumps(reply).encode(), request=request)
        return response


class _Served:
    """one mock model for the whole check, in process, whose policy each run sets"""

    def __init__(self) -> None:
        self.policy: Callable[[dict[str, Any]], Any] = mock.Echo()
        self.transport = mock.transport(self)  # the real SDK's requests, answered in process

    def __call__(self, request: dict[str, Any]) -> Any:
        return self.policy(request)


def _run(
    served: _Served,
    run_on_anthropic: Callable[..., Any],
    policy: Any,
    task: str,
    max_turns: int,
    split_text: bool = False,
    cut: int | None = None,
) -> dict[str, Any]:
    """the learner's loop on the mock with the real anthropic SDK: what it returned or raised, and the
    wire"""
    served.policy = mock.as_policy(policy)
    return _run_on(served.transport, run_on_anthropic, task, max_turns, split_text, cut)


def _run_on(
    inner: httpx2.BaseTransport,
    run_on_anthropic: Callable[..., Any],
    task: str,
    max_turns: int,
    split_text: bool = False,
    cut: int | None = None,
) -> dict[str, Any]:
    recorder = _Recorder(inner, split_text, cut)
    outcome: dict[str, Any] = {"recorder": recorder, "returned": None, "raised": None}
    with anthropic.Anthropic(
        base_url=mock.ANTHROPIC_BASE_URL,
        api_key="mock-key",
        max_retries=0,
        http_client=httpx2.Client(transport=recorder),
    ) as client:
        try:
            outcome["returned"] = run_on_anthropic(client, task, TOOLS, dict(FUNCTIONS), max_turns=max_turns)
        except Exception as error:  # the learner's code: reported, never raised
            outcome["raised"] = error
    return outcome


def _block(block: Any) -> Any:
    """a content block as the comparison needs it; lone text and list-of-text tool results read the same"""
    if not isinstance(block, Mapping):
        return block
    kind = block.get("type")
    if kind == "text":
        return {"type": "text", "text": block.get("text")}
    if kind == "tool_use":
        return {
            "type": "tool_use",
            "id": block.get("id"),
            "name": block.get("name"),
            "input": block.get("input"),
        }
    if kind == "tool_result":
        return {
            "type": "tool_result",
            "tool_use_id": block.get("tool_use_id"),
            "content": _text(block.get("content")),
            "is_error": bool(block.get("is_error")),
        }
    return dict(block)


def _kinds(blocks: list[Any]) -> str:
    return (
        ", ".join(str(b.get("type")) if isinstance(b, Mapping) else type(b).__name__ for b in blocks)
        or "nothing"
    )


def _call_text(use: Mapping[str, Any]) -> str:
    return f"{use.get('name')}({json.dumps(use.get('input'))})"


def _wire_problems(
    recorder: _Recorder, expected_results: Callable[[Mapping[str, Any]], tuple[str, bool]]
) -> list[str]:
    """what the requests show about the history: full replies appended, every call answered in one user
    message"""
    requests, replies = recorder.requests, recorder.replies
    for n, body in enumerate(requests, start=1):
        if not isinstance(body, Mapping) or not isinstance(body.get("messages"), list):
            return [
                _(
                    "request {number} has no list of messages: send messages=[...] to client.messages.create",
                    number=n,
                )
            ]
        if body.get("stream"):
            return [_("leave stream off: this exercise reads each reply whole")]
        if body.get("tools") != TOOLS:
            return [
                _(
                    "request {number} does not carry the tools it was given: send tools=tools on EVERY call, "
                    "or the model no longer knows it may use them",
                    number=n,
                )
            ]
    for n in range(1, len(requests)):
        before, after, reply = requests[n - 1]["messages"], requests[n]["messages"], replies[n - 1]
        if reply is None:
            break
        if after[: len(before)] != before:
            return [
                _(
                    "request {number} changed or dropped messages of request {before}: "
                    "only append to the history",
                    number=n + 1,
                    before=n,
                )
            ]
        new = after[len(before) :]
        if reply.get("stop_reason") != "tool_use":
            return [
                _(
                    "reply {number} had stop_reason {reason} and your loop called the model "
                    "again: stop whenever stop_reason is not 'tool_use'",
                    number=n,
                    reason=repr(reply.get("stop_reason")),
                )
            ]
        if not new or not isinstance(new[0], Mapping) or new[0].get("role") != "assistant":
            return [
                _(
                    "request {number}: append the model's reply as an assistant message before the results",
                    number=n + 1,
                )
            ]
        sent = [_block(b) for b in _blocks(new[0].get("content"))]
        wanted = [_block(b) for b in reply["content"]]
        if sent != wanted:
            return [
                _(
                    "request {number}: the assistant message you appended holds {sent}, but the reply "
                    "was {wanted}: append the full reply, every content block, unchanged",
                    number=n + 1,
                    sent=_kinds(sent),
                    wanted=_kinds(wanted),
                )
            ]
        users = new[1:]
        if len(users) > 1:
            return [
                _(
                    "request {number} sends the results of one turn in {count} user messages: put every "
                    "tool_result of the turn in ONE user message (split results teach the model to stop "
                    "calling tools in parallel)",
                    number=n + 1,
                    count=len(users),
                )
            ]
        if not users or not isinstance(users[0], Mapping) or users[0].get("role") != "user":
            return [
                _(
                    "request {number}: after the reply, send one user message of tool_result blocks",
                    number=n + 1,
                )
            ]
        results = {
            b.get("tool_use_id"): b
            for b in (_block(b) for b in _blocks(users[0].get("content")))
            if isinstance(b, Mapping) and b.get("type") == "tool_result"
        }
        for use in (b for b in wanted if b["type"] == "tool_use"):
            result = results.get(use["id"])
            content, failed = expected_results(use)
            if result is None:
                return [
                    _(
                        "request {number}: the call {call} got no tool_result: every call is "
                        "answered, a failed one too (with is_error)",
                        number=n + 1,
                        call=_call_text(use),
                    )
                ]
            if failed and not result["is_error"]:
                return [
                    _(
                        "request {number}: {call} failed, but its tool_result does not say 'is_error': True",
                        number=n + 1,
                        call=_call_text(use),
                    )
                ]
            if not failed and result["is_error"]:
                return [
                    _(
                        "request {number}: {call} worked, so its tool_result must not say is_error",
                        number=n + 1,
                        call=_call_text(use),
                    )
                ]
            if not isinstance(result["content"], str) or content not in result["content"]:
                return [
                    _(
                        "request {number}: the tool_result for {call} should carry the tool's output "
                        "({output}) as its content; it has {content}",
                        number=n + 1,
                        call=_call_text(use),
                        output=repr(content),
                        content=repr(result["content"]),
                    )
                ]
    return []


def _calculated(use: Mapping[str, Any]) -> tuple[str, bool]:
    """what the tool's answer should contain, and whether it failed"""
    try:
        return str(FUNCTIONS[str(use.get("name"))](**use.get("input", {}))), False
    except Exception as error:
        return str(error), True


def _raised(outcome: dict[str, Any]) -> list[str]:
    error = outcome["raised"]
    if error is None:
        return []
    if outcome["recorder"].runaway:
        return [_RUNAWAY_PROBLEM()]
    if isinstance(error, ZeroDivisionError):  # the only tool that fails in these runs is divide
        return [
            _(
                "a tool's {error} escaped your loop: catch it and send its text back as "
                "a tool_result with 'is_error': True",
                error=type(error).__name__,
            )
        ]
    return [_("your function raised {error}", error=f"{type(error).__name__}: {error}")]


def _RUNAWAY_PROBLEM() -> str:  # noqa: N802
    return _("your loop never stopped; the check cut it off after {count} model calls", count=_RUNAWAY)


def _final_text(outcome: dict[str, Any]) -> str | None:
    last = outcome["recorder"].replies[-1] if outcome["recorder"].replies else None
    if not isinstance(last, Mapping):
        return None
    return "".join(b.get("text", "") for b in last.get("content", []) if b.get("type") == "text")


def _answer_problems(
    served: _Served,
    run_on_anthropic: Callable[..., Any],
    name: str,
    policy: Any,
    task: str,
    calls: int,
    split_text: bool = False,
    cut: int | None = None,
) -> list[str]:
    outcome = _run(served, run_on_anthropic, policy, task, max_turns=6, split_text=split_text, cut=cut)
    made = len(outcome["recorder"].requests)
    problems = _wire_problems(outcome["recorder"], _calculated) or _raised(outcome)
    if problems:
        return [_("{scenario}: {problem}", scenario=name, problem=p) for p in problems]
    if made != calls:
        last = outcome["recorder"].replies[-1] if outcome["recorder"].replies else None
        if made < calls and isinstance(last, Mapping) and last.get("stop_reason") == "tool_use":
            problem = _(
                "your loop stopped after {made} model call(s) although the last reply's stop_reason "
                "was 'tool_use': go on while stop_reason == 'tool_use', whatever text the reply also holds",
                made=made,
            )
        else:
            problem = _calls_problem(calls, made)
        return [_("{scenario}: {problem}", scenario=name, problem=problem)]
    if outcome["returned"] != _final_text(outcome):
        return [_("{scenario}: {problem}", scenario=name, problem=_text_problem(outcome, split_text))]
    return []


def _calls_problem(needed: int, made: int) -> str:
    if needed == 1:
        return _("expected {needed} model call, your loop made {made}", needed=needed, made=made)
    return _("expected {needed} model calls, your loop made {made}", needed=needed, made=made)


def _text_problem(outcome: dict[str, Any], split: bool) -> str:
    wanted, returned = repr(_final_text(outcome)), repr(outcome["returned"])
    if split:
        return _(
            "return the text of the last reply (every text block of it, joined with no separator), "
            "{wanted}; yours returned {returned}",
            wanted=wanted,
            returned=returned,
        )
    return _(
        "return the text of the last reply, {wanted}; yours returned {returned}",
        wanted=wanted,
        returned=returned,
    )


def _no_runtime_error(outcome: dict[str, Any]) -> str:
    got = (
        _("it raised {error}", error=type(outcome["raised"]).__name__)
        if outcome["raised"]
        else _("it returned {value}", value=repr(outcome["returned"]))
    )
    return _("with no final answer after max_turns calls, raise RuntimeError; {got}", got=got)


def _cap_problems(served: _Served, run_on_anthropic: Callable[..., Any], max_turns: int) -> list[str]:
    name = _("a model that never stops asking, max_turns={max_turns}", max_turns=max_turns)
    always_two = mock.calls(
        mock.call("add", a=1, b=1), mock.call("add", a=2, b=2)
    )  # a cap on tool calls stops early
    outcome = _run(
        served, run_on_anthropic, lambda request: always_two, "1 + 1 and 2 + 2, for ever", max_turns
    )
    made = len(outcome["recorder"].requests)
    if outcome["recorder"].runaway:
        problems = [
            _(
                "your loop never stopped; the check cut it off after {count} model calls. Cap it",
                count=_RUNAWAY,
            )
        ]
    else:
        problems = _wire_problems(outcome["recorder"], _calculated)
    if not problems and made != max_turns:
        problems = [
            _("make exactly max_turns model calls before giving up; your loop made {made}", made=made)
        ]
    if not problems and not isinstance(outcome["raised"], RuntimeError):
        problems = [_no_runtime_error(outcome)]
    return [_("{scenario}: {problem}", scenario=name, problem=p) for p in problems]


def check_anthropic_loop(run_on_anthropic: Callable[..., Any]) -> Verdict:
    """Exercise 9.2: run_on_anthropic(client, task, tools, functions, max_turns) on the mock, by behaviour

    Scenarios: eight readable runs (the calculator, parallel calls, text with a failing call, a call
    missing an argument (a failure of another kind), a reply cut at max_tokens in the middle of a
    tool_use block, an answer in two text blocks, a model that never stops at max_turns 3 and 1), then,
    once they pass, 12 generated: 0 to 4 turns of 1 to 3 parallel calls (some dividing by zero), a
    unicode answer, sometimes in two text blocks or cut off at max_tokens with an unfinished call, and
    max_turns above, exactly at, or below the calls the model needs.
    """
    failing = mock.Script(
        mock.calls(
            mock.call("divide", a=8, b=12), mock.call("divide", a=1, b=0), content="I'll do both divisions."
        ),
        "8/12 is about 0.667; 1/0 cannot be computed: division by zero.",
    )
    cut = mock.Script(mock.calls(mock.call("add", a=2, b=3), content="Let me add 2 and 3 with the tool."))
    cases: list[tuple[str, Any, str, int, int | None]] = [
        ("5 + 8/12", mock.Calculator(), "5 + 8/12", 3, None),
        (_("4+2 and 7+8 (two calls at once)"), mock.Calculator(), "4+2 and 7+8", 2, None),
        (_("text, then two calls, one failing"), failing, "What are 8/12 and 1/0?", 2, None),
        (
            _("a call missing an argument (the tool raises TypeError, not ZeroDivisionError)"),
            mock.Script(mock.calls(mock.call("add", a=1)), "add needs both numbers: b is missing."),
            "Add 1 and something.",
            2,
            None,
        ),
        (
            _("a reply cut off at max_tokens in the middle of a tool_use block"),
            cut,
            "What is 2 + 3? Explain at length.",
            1,
            0,
        ),
    ]
    two_blocks = mock.Script("8/12 is about 0.667. 1/0 cannot be computed: division by zero.")
    problems: list[str] = []
    served = _Served()
    try:
        for name, policy, task, calls, cut_at in cases:
            problems += _answer_problems(served, run_on_anthropic, name, policy, task, calls, cut=cut_at)
        problems += _answer_problems(
            served,
            run_on_anthropic,
            _("a final answer in two text blocks"),
            two_blocks,
            "8/12 and 1/0?",
            1,
            split_text=True,
        )
        for max_turns in (3, 1):
            problems += _cap_problems(served, run_on_anthropic, max_turns)
    except Exception as error:  # the check's own setup failed (the SDK): say so, never crash
        problems.append(
            _("the check could not run your loop ({error})", error=f"{type(error).__name__}: {error}")
        )
    if problems:
        result = verdict("9.2", problems, "")
        result.scenarios = 8 + _GENERATED
        return result
    # the readable runs pass: now generated ones, the mock's replies changing per scenario
    replies: list[Any] = []

    def replay(request: dict[str, Any]) -> Any:
        turn = sum(m.get("role") == "assistant" for m in request.get("messages", []))
        return replies[min(turn, len(replies) - 1)]

    served.policy = mock.as_policy(replay)

    def judge(case: Generated) -> str | None:
        steps, answer, max_turns, split, cut = case
        last = mock.calls(mock.call("add", a=1, b=2), content=answer) if cut else answer
        replies[:] = [
            *(mock.calls(*(mock.call(n, a=a, b=b) for n, a, b in step)) for step in steps),
            last,
        ]
        outcome = _run_on(
            served.transport, run_on_anthropic, "Compute them.", max_turns, split, len(steps) if cut else None
        )
        return _generated_problem(outcome, case)

    result = judge_scenarios(
        "9.2",
        loop_scenarios(),
        judge,
        _describe_generated,
        _(
            "full replies appended, every call answered in one user message (failures with is_error), "
            "tools on every call, stopped on stop_reason, and capped at max_turns."
        ),
        _smaller_generated,
    )
    result.scenarios += 8
    return result


_GENERATED = 12  # the seed's twelve hold every shape below (a test keeps it so)
Generated = tuple[
    tuple[tuple[tuple[str, float, float], ...], ...], str, int, bool, bool
]  # steps, answer, max_turns, split, cut


def _generated_run(rng: random.Random) -> Generated:
    """0 to 4 turns of 1 to 3 parallel calls (some dividing by zero), a unicode answer, sometimes in two
    text blocks, sometimes cut off at max_tokens in the middle of one more call; max_turns above,
    exactly at, or below the calls the model needs"""
    steps = tuple(
        tuple(
            (rng.choice(["add", "divide"]), rng.choice([1, 8, 2.5]), rng.choice([0, 3, 12]))
            for _ in range(rng.choice([1, 1, 2, 3]))
        )
        for _ in range(rng.choice([0, 1, 2, rng.randint(3, 4)]))
    )
    answer = rng.choice(["Done. All computed.", "Résultat : 3 × 4 = 12. 🙂 Voilà.", "答えは 7 です。 Yes."])
    needed = len(steps) + 1
    ending = rng.choice(["whole", "whole", "split", "cut"])
    return (
        steps,
        answer,
        max(1, needed + rng.choice([-2, -1, 0, 0, 1, 3])),
        ending == "split",
        ending == "cut",
    )


def loop_scenarios() -> list[Generated]:
    """check 9.2's generated runs (its eight readable runs come first, and are not listed here)"""
    return scenarios([], _generated_run, count=_GENERATED, seed=902)


def _needed(case: Generated) -> int:
    return len(case[0]) + 1


# the shapes lesson 09 names for the Messages API loop, each reached by loop_scenarios()
LOOP_SHAPES: dict[str, Callable[[Generated], bool]] = {
    "max_turns below the calls needed": lambda c: c[2] < _needed(c),
    "max_turns exactly the calls needed": lambda c: c[2] == _needed(c),
    "max_turns above the calls needed": lambda c: c[2] > _needed(c),
    "a final answer in two text blocks": lambda c: c[3],
    "a reply cut off at max_tokens in the middle of a tool_use": lambda c: c[4],
    "parallel calls": lambda c: any(len(step) > 1 for step in c[0]),
    "a tool that fails (divides by 0)": lambda c: any(
        n == "divide" and b == 0 for step in c[0] for n, _, b in step
    ),
    "no tool call": lambda c: not c[0],
    "three turns of calls or more": lambda c: len(c[0]) >= 3,
    "a non-ASCII answer": lambda c: not c[1].isascii(),
}


# what exercise 9.2's words say varies, each form reached by loop_scenarios() (test_input_space.py)
LOOP_SPACE: dict[str, Dimension[Generated]] = {
    "max_turns": Dimension(
        "`max_turns` above, at and below what they need",
        {
            "below": LOOP_SHAPES["max_turns below the calls needed"],
            "at": LOOP_SHAPES["max_turns exactly the calls needed"],
            "above": LOOP_SHAPES["max_turns above the calls needed"],
        },
    ),
    "calls": Dimension(
        "two calls at once",
        {
            "no call": LOOP_SHAPES["no tool call"],
            "one at a time": lambda c: bool(c[0]) and all(len(step) == 1 for step in c[0]),
            "parallel": LOOP_SHAPES["parallel calls"],
            "three turns or more": LOOP_SHAPES["three turns of calls or more"],
        },
    ),
    "failures": Dimension(
        "two calls of which one fails",
        {
            "a call that fails": LOOP_SHAPES["a tool that fails (divides by 0)"],
            "none fails": lambda c: not LOOP_SHAPES["a tool that fails (divides by 0)"](c),
        },
    ),
    "cut off": Dimension(
        "a reply cut off at `max_tokens` in the middle of a call",
        {
            "cut off": LOOP_SHAPES["a reply cut off at max_tokens in the middle of a tool_use"],
            "whole": lambda c: not c[4],
        },
    ),
    "the final answer": Dimension(
        "a final answer in two text blocks",
        {
            "two text blocks": LOOP_SHAPES["a final answer in two text blocks"],
            "one text block": lambda c: not c[3],
            "non-ASCII": LOOP_SHAPES["a non-ASCII answer"],
        },
    ),
}


def _smaller_generated(case: Generated) -> Any:
    steps, answer, max_turns, split, cut = case
    if split or cut:
        yield steps, answer, max_turns, False, False
    for fewer in smaller_lists(steps):
        yield tuple(fewer), answer, max(1, max_turns - (len(steps) - len(fewer))), split, cut


def _describe_generated(case: Generated) -> str:
    steps, answer, max_turns, split, cut = case
    said = [_(" and ").join(f"{n}({a}, {b})" for n, a, b in step) for step in steps]
    shown = _("{answer} in two text blocks", answer=repr(answer)) if split else repr(answer)
    if cut:
        shown = _("{answer}, then starts a call to add and is cut off at max_tokens", answer=shown)
    return _(
        "a model that asks {calls}; then answers {answer}, max_turns={max_turns}",
        calls=_("; then ").join(said) or _("nothing"),
        answer=shown,
        max_turns=max_turns,
    )


def _generated_problem(outcome: dict[str, Any], case: Generated) -> str | None:
    steps, _answer, max_turns, split, _cut = case
    made = len(outcome["recorder"].requests)
    if outcome["recorder"].runaway:
        return _RUNAWAY_PROBLEM()
    problems = _wire_problems(outcome["recorder"], _calculated)
    if problems:
        return problems[0]
    needed = len(steps) + 1
    if needed > max_turns:
        if made != max_turns:
            return _(
                "make exactly max_turns={max_turns} model calls before giving up; your loop made {made}",
                max_turns=max_turns,
                made=made,
            )
        if not isinstance(outcome["raised"], RuntimeError):
            return _no_runtime_error(outcome)
        return None
    raised = _raised(outcome)
    if raised:
        return _("{scenario}: {problem}", scenario=_("this run"), problem=raised[0])
    if made != needed:
        return _calls_problem(needed, made)
    if outcome["returned"] != _final_text(outcome):
        return _text_problem(outcome, split)
    return None
