"""Checks for lesson 00's exercises: one model call."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import openai

from .. import mock
from . import Verdict, verdict

__all__ = ["check_ask", "check_repaired"]


QUESTIONS = ["My name is Ada.", "What is my name?", "And what did I say first?"]


def _plain(message: Any) -> Any:
    """role and content of a message as the server received it"""
    return {"role": message.get("role"), "content": message.get("content")} if isinstance(message, dict) else message


def _conversation(replies: list[Any]) -> list[dict[str, Any]]:
    """every question followed by the model's answer to it"""
    pairs = zip(QUESTIONS, replies, strict=True)
    return [m for q, r in pairs for m in ({"role": "user", "content": q}, {"role": "assistant", "content": r})]


def check_ask(ask: Callable[[openai.OpenAI, list, str], str]) -> Verdict:
    """Exercise 0.1: ask() keeps the conversation, so the model sees every earlier turn, in order"""
    client = mock.client()
    history: list[dict[str, Any]] = []
    answers = []
    try:
        for question in QUESTIONS:
            answers.append(ask(client, history, question))
    except openai.BadRequestError as error:
        body = error.body if isinstance(error.body, dict) else {}
        first_line = str(body.get("message", error)).splitlines()[0]
        return verdict("0.1", [f"the API refused call {len(client.trace)}: {first_line}"], "")
    except Exception as error:  # the learner's code: report, don't crash the notebook
        return verdict("0.1", [f"ask() raised {type(error).__name__}: {error}"], "")
    if len(client.trace) != len(QUESTIONS):
        return verdict("0.1", [
            f"ask() should call the model once per question; {len(QUESTIONS)} questions made "
            f"{len(client.trace)} calls"
        ], "")
    problems = []
    replies = [(turn.reply or {}).get("content") for turn in client.trace]
    for index, turn in enumerate(client.trace):
        expected = []
        for question, reply in zip(QUESTIONS[:index], replies[:index], strict=True):
            expected += [{"role": "user", "content": question}, {"role": "assistant", "content": reply}]
        expected.append({"role": "user", "content": QUESTIONS[index]})
        sent = [_plain(m) for m in turn.messages]
        if sent == expected:
            continue
        if len(sent) > 1 and all(isinstance(m, dict) and m.get("role") == "user" for m in sent):
            problems.append(
                f"call {index + 1} sent the questions but none of the model's answers: append each reply "
                "to history as {'role': 'assistant', 'content': ...} before the next question"
            )
        elif len(sent) != len(expected):
            problems.append(
                f"call {index + 1} sent {len(sent)} message(s); it should send {len(expected)}: every "
                "earlier question and answer, then the new question. Append to `history` and send all of it"
            )
        else:
            wrong = next(i for i, (a, b) in enumerate(zip(sent, expected, strict=True)) if a != b)
            problems.append(
                f"call {index + 1}: message [{wrong}] should be {expected[wrong]}, it was {sent[wrong]} "
                "(question first, then the model's answer, in the order they happened)"
            )
        break
    if any(a != r for a, r in zip(answers, replies, strict=True)):
        problems.append(
            f"ask() should return the reply's text (message.content); it returned {answers[-1]!r}"
        )
    if not all(isinstance(m, dict) for m in history):
        problems.append("append plain dicts ({'role': ..., 'content': ...}) to history, not SDK objects")
    elif [_plain(m) for m in history] != _conversation(replies):
        roles = [m.get("role") for m in history]
        problems.append(
            "after the questions, history should hold each question and its answer, in order "
            f"(user, assistant, user, assistant, ...); it has roles {roles}"
        )
    return verdict("0.1", problems, "the model now sees the whole conversation on every call.")


def check_repaired(messages: list[dict[str, Any]], original: list[dict[str, Any]]) -> Verdict:
    """Exercise 0.2: the same messages, in an order the API accepts"""
    problems = []
    if not isinstance(messages, list | tuple):
        problems.append(f"`repaired` should be a list of the messages; it is {type(messages).__name__}")
    elif sorted(map(repr, messages)) != sorted(map(repr, original)):
        problems.append("use exactly the same messages as `jumbled`, only in a different order")
    else:
        client = mock.client(mock.Script("accepted"))
        try:
            # the learner's messages, as written: the API's answer is the check
            client.chat.completions.create(model="mock-model", messages=messages)  # type: ignore[arg-type]
        except openai.BadRequestError as error:
            body = error.body if isinstance(error.body, dict) else {}
            problems.append(f"the API still refuses it: {str(body.get('message', error)).splitlines()[0]}")
        else:
            problems += _story_order(messages)
    return verdict("0.2", problems, "the API accepts the conversation: each tool result follows its request.")


def _story_order(messages: list[dict[str, Any]]) -> list[str]:
    """the API accepted the order; does it also read as it happened: question, calls, results, answer?"""
    roles = [m.get("role") for m in messages]
    if roles[0] != "user":
        return [f"the conversation should start with the user's question; it starts with {roles[0]!r}"]
    answers = [i for i, m in enumerate(messages) if m.get("role") == "assistant" and not m.get("tool_calls")]
    results = [i for i, m in enumerate(messages) if m.get("role") == "tool"]
    if answers and results and min(answers) < max(results):
        return [
            "the API accepts it, but the final answer comes before the tool results it is built on: "
            "order it as it happened (question, the calls, their results, the answer)"
        ]
    return []
