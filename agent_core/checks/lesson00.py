"""Checks for lesson 00's exercises: one model call."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from typing import Any

import openai

from .. import mock
from .._i18n import _
from . import Verdict, _trace_of, verdict
from ._scenarios import Dimension, forms_of, judge_scenarios, scenarios, smaller_lists

__all__ = [
    "check_ask",
    "ask_scenarios",
    "ASK_SHAPES",
    "check_repaired",
    "JUMBLED",
    "repair_scenarios",
    "REPAIR_SHAPES",
]


QUESTIONS = ["My name is Ada.", "What is my name?", "And what did I say first?"]
_MORE = [
    "I live in Lisbon.",
    "Where do I live?",
    "¿Cómo me llamo?",
    "私の名前は?",
    "Spell my name backwards 🙃",
    "What did I ask two questions ago?",
    "",
    "Thanks!",
    "  Where do I live?\n",  # sent as typed: the model reads the question as it was asked
]


def _plain(message: Any) -> Any:
    """role and content of a message as the server received it"""
    return (
        {"role": message.get("role"), "content": message.get("content")}
        if isinstance(message, dict)
        else message
    )


def _conversation(questions: list[str], replies: list[Any]) -> list[dict[str, Any]]:
    """every question followed by the model's answer to it: what the reference's history holds"""
    pairs = zip(questions, replies, strict=True)
    return [
        m for q, r in pairs for m in ({"role": "user", "content": q}, {"role": "assistant", "content": r})
    ]


def _questions(rng: random.Random) -> list[str]:
    """4 to 7 questions, past what a window of the last few messages keeps; some repeated"""
    pool = [*QUESTIONS, *_MORE]
    return [rng.choice(pool) for _ in range(rng.choice((4, 4, 5, 6, 7)))]


def _fewer_questions(questions: list[str]) -> Iterator[list[str]]:
    yield from (shorter for shorter in smaller_lists(questions) if shorter)


def _describe(questions: list[str]) -> str:
    shown = ", ".join(repr(q) for q in questions[:3]) + (", ..." if len(questions) > 3 else "")
    return _("asked {count} question(s) in a row ({shown})", count=len(questions), shown=shown)


def check_ask(ask: Callable[[openai.OpenAI, list[dict[str, Any]], str], str]) -> Verdict:
    """Exercise 0.1: ask() keeps the conversation, so the model sees every earlier turn, in order

    Scenarios: the lesson's three questions, then 12 seeded runs of 4 to 7 questions (repeated
    questions, an empty one, one with spaces and a newline around it, Spanish, Japanese, an emoji),
    each on a fresh history. On every call the messages sent must be the reference's (every earlier
    question and answer, then the question).
    """
    cases = ask_scenarios()
    return judge_scenarios(
        "0.1",
        cases,
        lambda questions: _judge_ask(ask, questions),
        _describe,
        _("the model now sees the whole conversation on every call."),
        _fewer_questions,
    )


def ask_scenarios() -> list[list[str]]:
    """check 0.1's scenarios: the lesson's three questions, then 12 seeded conversations"""
    return scenarios([QUESTIONS], _questions, count=12, seed=0)


# the shapes lesson 00 names for ask(), each reached by ask_scenarios() (tests/test_check_shapes.py)
ASK_SHAPES: dict[str, Callable[[list[str]], bool]] = {
    "the lesson's three questions": lambda s: s == QUESTIONS,
    "a question that needs an earlier turn": lambda s: "What is my name?" in s[1:],
    "longer than three questions": lambda s: len(s) > 3,
    "the same question twice": lambda s: len(set(s)) < len(s),
    "another language": lambda s: any(not q.isascii() and "🙃" not in q for q in s),
    "an emoji": lambda s: any("🙃" in q for q in s),
    "an empty question": lambda s: "" in s,
    "spaces and a newline around a question": lambda s: any(q != q.strip() and q.strip() for q in s),
}


def _judge_ask(
    ask: Callable[[openai.OpenAI, list[dict[str, Any]], str], str], questions: list[str]
) -> str | None:
    client = mock.client(reject_unknown_fields=True)  # a dumped SDK message carries fields the API refuses
    history: list[dict[str, Any]] = []
    answers = []
    try:
        for question in questions:
            answers.append(ask(client, history, question))
    except openai.BadRequestError as error:
        body = error.body if isinstance(error.body, dict) else {}
        if body.get("code") == "extra_forbidden":
            return _(
                "the API refused call {number}: {field} is not a field a message may have. Append a plain "
                "dict {example}, not the SDK's message or its model_dump()",
                number=len(_trace_of(client)),
                field=body.get("param"),
                example="{'role': 'assistant', 'content': message.content}",
            )
        first_line = str(body.get("message", error)).splitlines()[0]
        return _("the API refused call {number}: {error}", number=len(_trace_of(client)), error=first_line)
    if len(_trace_of(client)) != len(questions):
        return _(
            "ask() should call the model once per question; {questions} questions made {calls} calls",
            questions=len(questions),
            calls=len(_trace_of(client)),
        )
    replies = [(turn.reply or {}).get("content") for turn in _trace_of(client)]
    for index, turn in enumerate(_trace_of(client)):
        expected = [
            *_conversation(questions[:index], replies[:index]),
            {"role": "user", "content": questions[index]},
        ]
        sent = [_plain(m) for m in turn.messages]
        if sent == expected:
            continue
        for at, message in enumerate(sent):
            wanted = expected[at] if at < len(expected) else None
            if (
                isinstance(message, dict)
                and isinstance(wanted, dict)
                and wanted["role"] == "assistant"
                and message.get("content") == wanted["content"]
                and message.get("role") != "assistant"
            ):
                return _(
                    "call {number}: message [{at}] is the model's answer with role {role}; the model's own "
                    "answers go back with role 'assistant' (role 'user' is what the person said)",
                    number=index + 1,
                    at=at,
                    role=repr(message.get("role")),
                )
        if len(sent) > 1 and all(isinstance(m, dict) and m.get("role") == "user" for m in sent):
            return _(
                "call {number} sent the questions but none of the model's answers: append each reply "
                "to history as {example} before the next question",
                number=index + 1,
                example="{'role': 'assistant', 'content': ...}",
            )
        if len(sent) != len(expected):
            return _(
                "call {number} sent {sent} message(s); it should send {expected}: every earlier question "
                "and answer, then the new question. Append to `history` and send all of it",
                number=index + 1,
                sent=len(sent),
                expected=len(expected),
            )
        wrong = next(i for i, (a, b) in enumerate(zip(sent, expected, strict=True)) if a != b)
        return _(
            "call {number}: message [{at}] should be {expected}, it was {sent} "
            "(question first, then the model's answer, in the order they happened)",
            number=index + 1,
            at=wrong,
            expected=expected[wrong],
            sent=sent[wrong],
        )
    for answer, reply in zip(answers, replies, strict=True):
        if answer != reply:
            return _(
                "ask() should return the reply's text (message.content); it returned {answer}",
                answer=f"{answer!r:.120}",
            )
    if not all(isinstance(m, dict) for m in history):
        return _(
            "append plain dicts ({example}) to history, not SDK objects",
            example="{'role': ..., 'content': ...}",
        )
    if [_plain(m) for m in history] != _conversation(questions, replies):
        roles = [m.get("role") for m in history]
        conversation = _conversation(questions, replies)
        if [m.get("content") for m in history] == [m["content"] for m in conversation]:
            at = next(
                i
                for i, (m, w) in enumerate(zip(history, conversation, strict=True))
                if m.get("role") != w["role"]
            )
            if conversation[at]["role"] == "user":
                return _(
                    "history[{at}] is the question with role {role}; it should be {expected} (the person's "
                    "words go as 'user', the model's own answers as 'assistant')",
                    at=at,
                    role=repr(roles[at]),
                    expected=repr(conversation[at]["role"]),
                )
            return _(
                "history[{at}] is the model's answer with role {role}; it should be {expected} (the "
                "person's words go as 'user', the model's own answers as 'assistant')",
                at=at,
                role=repr(roles[at]),
                expected=repr(conversation[at]["role"]),
            )
        if "user" in roles and "assistant" not in roles:
            return _(
                "history holds the questions but none of the model's answers: append each reply to "
                "history as {example} before the next question",
                example="{'role': 'assistant', 'content': ...}",
            )
        return _(
            "after the questions, history should hold each question and its answer, in order "
            "(user, assistant, user, assistant, ...); it has roles {roles}",
            roles=roles,
        )
    return None


# Exercise 0.2's conversation as the lesson prints it (tests/test_lesson_figures.py compares the two)
JUMBLED: list[dict[str, Any]] = [
    {"role": "tool", "tool_call_id": "call_b", "content": "15"},
    {"role": "user", "content": "What are 4+2 and 7+8?"},
    {"role": "assistant", "content": "4 + 2 = 6 and 7 + 8 = 15."},
    {"role": "tool", "tool_call_id": "call_a", "content": "6"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_a",
                "type": "function",
                "function": {"name": "add", "arguments": '{"a": 4, "b": 2}'},
            },
            {
                "id": "call_b",
                "type": "function",
                "function": {"name": "add", "arguments": '{"a": 7, "b": 8}'},
            },
        ],
    },
]


def repair_scenarios() -> list[dict[str, Any]]:
    """check 0.2's fixed case, message by message: an answer, not code, so nothing is generated"""
    return [dict(message) for message in JUMBLED]


def _call_ids(message: dict[str, Any]) -> list[str]:
    return [call["id"] for call in message.get("tool_calls") or []]


# the shapes lesson 00 names for a refused conversation, each in JUMBLED (tests/test_check_shapes.py)
REPAIR_SHAPES: dict[str, Callable[[dict[str, Any]], bool]] = {
    "the question": lambda m: m["role"] == "user",
    "an assistant message of two tool calls, with no text": lambda m: (
        len(_call_ids(m)) == 2 and m["content"] is None
    ),
    "a tool result before the call it answers": lambda m: m["role"] == "tool" and JUMBLED.index(m) < 4,
    "a tool result whose call comes second": lambda m: m.get("tool_call_id") == "call_b",
    "a result ahead of the first call's result (call_b's before call_a's)": lambda m: (
        m.get("tool_call_id") == "call_b"
        and JUMBLED.index(m) < [r.get("tool_call_id") for r in JUMBLED].index("call_a")
    ),
    "the final answer, before the results it is built on": lambda m: (
        m["role"] == "assistant" and not _call_ids(m)
    ),
}


def check_repaired(messages: list[dict[str, Any]], original: list[dict[str, Any]]) -> Verdict:
    """Exercise 0.2: the same messages, in an order the API accepts (an answer, not code: no scenarios)"""
    problems = []
    if not isinstance(messages, list | tuple):
        problems.append(
            _("`repaired` should be a list of the messages; it is {kind}", kind=type(messages).__name__)
        )
    elif sorted(map(_canonical, messages)) != sorted(map(_canonical, original)):
        problems.append(_("use exactly the same messages as `jumbled`, only in a different order"))
    else:
        client = mock.client(mock.Script("accepted"))
        try:
            # the learner's messages, as written: the API's answer is the check
            client.chat.completions.create(model="mock-model", messages=messages)  # type: ignore[arg-type]
        except openai.BadRequestError as error:
            body = error.body if isinstance(error.body, dict) else {}
            refusal = str(body.get("message", error)).splitlines()[0]
            problems.append(_("the API still refuses it: {error}", error=refusal))
        else:
            problems += _story_order(messages)
    return verdict(
        "0.2", problems, _("the API accepts the conversation: each tool result follows its request.")
    )


def _canonical(message: Any) -> str:
    """a message as JSON with its keys sorted: the same message whatever order its keys were typed in"""
    return json.dumps(message, sort_keys=True, default=repr)


def _story_order(messages: list[dict[str, Any]]) -> list[str]:
    """the API accepted the order; does it also read as it happened: question, calls, their results in
    the calls' order, answer?"""
    roles = [m.get("role") for m in messages]
    if roles[0] != "user":
        return [
            _(
                "the conversation should start with the user's question; it starts with {role}",
                role=repr(roles[0]),
            )
        ]
    answers = [i for i, m in enumerate(messages) if m.get("role") == "assistant" and not m.get("tool_calls")]
    results = [i for i, m in enumerate(messages) if m.get("role") == "tool"]
    if answers and results and min(answers) < max(results):
        return [
            _(
                "the API accepts it, but the final answer comes before the tool results it is built on: "
                "order it as it happened (question, the calls, their results, the answer)"
            )
        ]
    calls = [call_id for m in messages for call_id in _call_ids(m)]
    given = [m.get("tool_call_id") for m in messages if m.get("role") == "tool"]
    if given != [call_id for call_id in calls if call_id in given]:
        return [
            _(
                "the API accepts it, but the results come in the order {given} while the calls were "
                "{calls}: put the results in the order of the calls",
                given=", ".join(map(str, given)),
                calls=", ".join(calls),
            )
        ]
    return []


# --- the input space the exercises' words name (tests/test_input_space.py) ---------------------------

ASK_SPACE: dict[str, Dimension[list[str]]] = {
    "conversations": Dimension(
        "three questions, then longer conversations",
        forms_of(ASK_SHAPES, "the lesson's three questions", "longer than three questions"),
    ),
    "repeats": Dimension(
        "repeated questions",
        {
            **forms_of(ASK_SHAPES, "the same question twice"),
            "every question new": lambda s: len(set(s)) == len(s),
        },
    ),
    "languages": Dimension(
        "other languages",
        {
            "English only": lambda s: all(q.isascii() for q in s),
            **forms_of(ASK_SHAPES, "another language", "an emoji"),
        },
    ),
    "the question": Dimension(
        "It appends the question to `history` as a user message",
        {
            **forms_of(ASK_SHAPES, "an empty question", "spaces and a newline around a question"),
            "a question with words": lambda s: any(q.strip() for q in s),
        },
    ),
    "earlier turns": Dimension(
        "calls the model with the **whole** history",
        {
            **forms_of(ASK_SHAPES, "a question that needs an earlier turn"),
            "a question that stands alone": lambda s: "Thanks!" in s or "I live in Lisbon." in s,
        },
    ),
}

REPAIR_SPACE: dict[str, Dimension[dict[str, Any]]] = {
    "the story": Dimension(
        "the question, the model's calls, their results (in the order of the calls), its answer",
        {
            "the question": REPAIR_SHAPES["the question"],
            "the calls": lambda m: bool(_call_ids(m)),
            "a result": lambda m: m["role"] == "tool",
            "the answer": REPAIR_SHAPES["the final answer, before the results it is built on"],
        },
    ),
    "calls and results": Dimension(
        "there are two tool calls and two results",
        {
            "call_a's result": lambda m: m.get("tool_call_id") == "call_a",
            "call_b's result": lambda m: m.get("tool_call_id") == "call_b",
        },
    ),
}
