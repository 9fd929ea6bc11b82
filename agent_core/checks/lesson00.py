"""Checks for lesson 00's exercises: one model call."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import openai

from .. import mock
from . import Verdict, verdict

__all__ = ["check_ask", "check_repaired"]


def check_ask(ask: Callable[[openai.OpenAI, list, str], str]) -> Verdict:
    """Exercise 0.1: ask() keeps the conversation, so the model sees every earlier turn"""
    client = mock.client()
    history: list[dict[str, Any]] = []
    problems = []
    try:
        first = ask(client, history, "My name is Ada.")
        second = ask(client, history, "What is my name?")
    except Exception as error:  # the learner's code: report, don't crash the notebook
        return verdict("0.1", [f"ask() raised {type(error).__name__}: {error}"], "")
    if len(client.trace) != 2:
        problems.append(f"ask() should call the model once per question; it called it {len(client.trace)} times")
    elif len(client.trace[1].messages) != 3:
        problems.append(
            f"the second call sent {len(client.trace[1].messages)} message(s); it should send 3 "
            "(first question, first answer, second question): append to `history` and send all of it"
        )
    if not isinstance(first, str) or not isinstance(second, str):
        problems.append("ask() should return the reply's text (message.content), a str")
    roles = [m.get("role") if isinstance(m, dict) else type(m).__name__ for m in history]
    if roles != ["user", "assistant", "user", "assistant"]:
        problems.append(f"after two questions history should have roles user, assistant, user, assistant; it has {roles}")
    elif not all(isinstance(m, dict) for m in history):
        problems.append("append plain dicts ({'role': ..., 'content': ...}), not SDK objects")
    return verdict("0.1", problems, "the model now sees the whole conversation on every call.")


def check_repaired(messages: list[dict[str, Any]], original: list[dict[str, Any]]) -> Verdict:
    """Exercise 0.2: the same messages, in an order the API accepts"""
    problems = []
    if sorted(map(repr, messages)) != sorted(map(repr, original)):
        problems.append("use exactly the same messages as `jumbled`, only in a different order")
    else:
        client = mock.client(mock.Script("accepted"))
        try:
            client.chat.completions.create(model="mock-model", messages=messages)
        except openai.BadRequestError as error:
            problems.append(f"the API still refuses it: {error.body['message'].splitlines()[0]}")
    return verdict("0.2", problems, "the API accepts the conversation: each tool result follows its request.")
