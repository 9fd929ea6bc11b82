"""Seeing the wire: messages, JSON and traces as notebook HTML and as terminal text (every lesson).

A tool the learner uses from lesson 00 on: what to call is here, the drawing beneath it. `_parts.py`
says what a message or a turn holds, `_text.py` draws it in the terminal (rich), `_html.py` in a
notebook.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console

from ..trace import Trace
from ._html import FONT  # widgets.py styles its own HTML alike
from ._html import json_html as _json_html
from ._html import messages_html as _messages_html
from ._html import trace_html as _trace_html
from ._parts import COLORS, as_messages
from ._text import console, json_renderable, messages_renderable, to_text, trace_renderable

__all__ = [
    "show_trace",
    "show_messages",
    "show_json",
    "print_trace",
    "print_messages",
    "print_json",
    "trace_html",
    "messages_html",
    "json_html",
    "console",
    "Rendered",
    "COLORS",
    "FONT",
]


class Rendered:
    """shows as HTML in a notebook and as the same content in plain text everywhere else"""

    def __init__(self, html: str, text: str):
        self.html, self.text = html, text

    def _repr_html_(self) -> str:
        return self.html

    def __repr__(self) -> str:
        return self.text


def show_trace(trace: Trace, json: bool = True) -> Rendered:
    """a whole trace, for the last line of a notebook cell"""
    trace = _as_trace(trace)
    return Rendered(_trace_html(trace, json=json), to_text(trace_renderable(trace, json=json)))


def show_messages(messages: Any) -> Rendered:
    """a message list (dicts or SDK objects), for the last line of a notebook cell"""
    messages = as_messages(messages)
    return Rendered(_messages_html(messages), to_text(messages_renderable(messages)))


def show_json(obj: Any) -> Rendered:
    """any JSON-like value (or SDK object), for the last line of a notebook cell"""
    return Rendered(json_html(obj), to_text(json_renderable(obj)))


def print_trace(
    trace: Trace, console: Console | None = None, json: bool = False, timings: bool = False
) -> None:
    """print each turn: request (new messages marked), response, tokens; json=True adds the full JSON"""
    _or_default(console).print(trace_renderable(_as_trace(trace), json=json, timings=timings))


def print_messages(messages: Any, console: Console | None = None) -> None:
    """print a message list (dicts or SDK objects), one row per message, colour by role"""
    _or_default(console).print(messages_renderable(as_messages(messages)))


def print_json(obj: Any, console: Console | None = None) -> None:
    """print any JSON-like value (or SDK object) pretty and in received key order"""
    _or_default(console).print(json_renderable(obj))


def trace_html(trace: Trace, json: bool = True, timings: bool = False) -> str:
    """every turn as HTML: request (new messages badged, earlier ones folded), response, tokens"""
    return _trace_html(_as_trace(trace), json=json, timings=timings)


def messages_html(messages: Any, *, start: int = 0, new: bool = False) -> str:
    """a message list as HTML, one block per message; `start` numbers them, `new` badges them"""
    return _messages_html(messages, start=start, new=new)


def json_html(obj: Any) -> str:
    """pretty-printed, HTML-escaped JSON in a <pre>, keys/strings/numbers lightly coloured"""
    return _json_html(obj)


def _as_trace(trace: Trace) -> Trace:
    if not isinstance(trace, Trace):  # a client's trace is `client.trace`, a run's `run.trace`
        raise TypeError(f"expected a Trace, got {type(trace).__name__}")
    return trace


def _or_default(given: Console | None) -> Console:
    return given if given is not None else console()
