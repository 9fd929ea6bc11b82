"""lesson 00: messages, JSON and traces as notebook HTML with inline styles."""

from __future__ import annotations

import html
import json as jsonlib
import re
from typing import Any

from ..trace import Trace
from ._parts import (
    as_messages,
    colors,
    count,
    describe,
    error_summary,
    plain,
    request_summary,
    totals,
    turn_title,
    usage_summary,
)

__all__ = ["json_html", "messages_html", "trace_html"]

JSON_COLORS = {"key": "#3b82f6", "string": "#22a35a", "number": "#e8871e", "literal": "#a855f7"}

FONT = "font-family:var(--jp-code-font-family,monospace);font-size:12px;line-height:1.45"

DIM = "opacity:0.65"

_JSON_TOKEN = re.compile(
    r'("(?:\\.|[^"\\])*")(\s*:)?|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|\b(true|false|null)\b'
)


def _esc(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _span(text: str, style: str) -> str:
    return f'<span style="{style}">{_esc(text)}</span>' if style else _esc(text)


def json_html(obj: Any) -> str:
    """pretty-printed, HTML-escaped JSON in a <pre>, keys/strings/numbers lightly coloured"""
    text = jsonlib.dumps(plain(obj), indent=2, ensure_ascii=False, default=str)
    pieces, position = [], 0
    for match in _JSON_TOKEN.finditer(text):
        pieces.append(_esc(text[position : match.start()]))
        string, colon, number, literal = match.groups()
        if string:
            kind = "key" if colon else "string"
            pieces.append(_span(string, f"color:{JSON_COLORS[kind]}") + (colon or ""))
        else:
            kind = "number" if number else "literal"
            pieces.append(_span(number or literal, f"color:{JSON_COLORS[kind]}"))
        position = match.end()
    pieces.append(_esc(text[position:]))
    style = (
        "margin:4px 0;padding:6px 8px;background:rgba(127,127,127,0.08);border-radius:4px;"
        "white-space:pre-wrap;word-break:break-word;max-height:32em;overflow:auto;"
        f"{FONT};color:inherit"
    )
    return f'<pre style="{style}">{"".join(pieces)}</pre>'


def _message_html(message: dict[str, Any], label: str, new: bool = False) -> str:
    role = str(message.get("role"))
    color = colors(role)[0]
    badge = (
        f' <span style="background:{colors("new")[0]};color:#fff;border-radius:3px;padding:0 4px;'
        'font-size:11px">+ new</span>'
        if new
        else ""
    )
    styles = {"text": "", "call": "font-weight:bold", "dim": DIM}
    lines = "".join(
        '<div style="white-space:pre-wrap;word-break:break-word">'
        + "".join(_span(piece, styles[kind]) for kind, piece in line)
        + "</div>"
        for line in describe(message)
    )
    return (
        f'<div style="border-left:3px solid {color};padding:2px 8px;margin:3px 0;'
        f'background:rgba(127,127,127,0.07)"><span style="color:{color};font-weight:bold">'
        f"{_esc(role)}</span> {_span(label, DIM)}{badge}{lines}</div>"
    )


def messages_html(messages: Any, *, start: int = 0, new: bool = False) -> str:
    """a message list as HTML, one block per message; `start` numbers them, `new` badges them"""
    messages = as_messages(messages)
    rows = [_message_html(m, f"[{start + i}]", new) for i, m in enumerate(messages)]
    return f'<div style="{FONT}">{"".join(rows) or _span("(no messages)", DIM)}</div>'


def _details(summary: str, body: str) -> str:
    return f'<details><summary style="cursor:pointer">{summary}</summary>{body}</details>'


def _turn_html(trace: Trace, position: int, json: bool, timings: bool) -> str:
    turn = trace[position]
    new = trace.new_messages(position)
    earlier = len(turn.messages) - len(new)
    error = error_summary(turn)
    parts = [
        f'<div style="font-weight:bold">{_esc(turn_title(trace, position, timings))}</div>',
        f"<div><b>request</b> {_esc(request_summary(turn.request))}</div>",
    ]
    if earlier:
        older = turn.messages[:earlier]
        rows = "".join(_message_html(m, f"[{i}]") for i, m in enumerate(older))
        summary = _span(f"… {count(earlier, 'earlier message')}, sent again", DIM)
        parts.append(_details(summary, f'<div style="{DIM}">{rows}</div>'))
    parts += [_message_html(m, f"[{earlier + i}]", new=True) for i, m in enumerate(new)]
    if error:
        red = colors("error")[0]
        parts.append(f'<div style="color:{red};font-weight:bold">{_esc(error)}</div>')
    elif turn.reply is not None:
        where = "output" if turn.response.get("object") == "response" else "choices[0].message"
        parts.append("<div><b>response</b></div>" + _message_html(turn.reply, where))
    else:
        parts.append(f"<div><b>response</b> {_span('(no message: see the JSON)', DIM)}</div>")
    if usage_summary(turn):
        parts.append(f"<div>{_span(usage_summary(turn), DIM)}</div>")
    if json:
        parts.append(_details("request JSON", json_html(turn.request)))
        parts.append(_details("response JSON", json_html(turn.response)))
    color = colors("error" if error else "assistant")[0]
    return (
        f'<div style="border:1px solid rgba(127,127,127,0.35);border-left:4px solid {color};'
        f'border-radius:4px;padding:6px 10px;margin:6px 0">{"".join(parts)}</div>'
    )


def trace_html(trace: Trace, json: bool = True, timings: bool = False) -> str:
    """every turn as HTML: request (new messages badged, earlier ones folded), response, tokens"""
    if not len(trace):
        return f'<div style="{FONT}">{_span("(an empty trace: no model call yet)", DIM)}</div>'
    turns = "".join(_turn_html(trace, i, json, timings) for i in range(len(trace)))
    return f'<div style="{FONT}">{turns}<div><b>{_esc(totals(trace))}</b></div></div>'
