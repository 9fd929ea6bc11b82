"""Seeing the wire: messages and traces as terminal text (rich) and as notebook HTML (every lesson)."""

from __future__ import annotations

import html
import json as jsonlib
import re
from typing import Any
from urllib.parse import urlsplit

from rich.console import Console, Group, RenderableType
from rich.json import JSON
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from .trace import Trace

__all__ = [
    "console",
    "print_messages",
    "print_trace",
    "print_json",
    "messages_html",
    "trace_html",
    "json_html",
    "show_messages",
    "show_trace",
    "show_json",
    "Rendered",
    "COLORS",
]

# role (or "error", "new") -> (notebook colour, terminal colour). The notebook colours are mid-tones
# that read on light and dark themes; the terminal's 16 standard colours have no orange.
COLORS = {
    "system": ("#8a8a8a", "bright_black"),
    "developer": ("#8a8a8a", "bright_black"),
    "user": ("#3b82f6", "blue"),
    "assistant": ("#22a35a", "green"),
    "tool": ("#e8871e", "yellow"),
    "error": ("#e5484d", "red"),
    "new": ("#8b5cf6", "magenta"),
}
JSON_COLORS = {"key": "#3b82f6", "string": "#22a35a", "number": "#e8871e", "literal": "#a855f7"}
MAX_TEXT = 1000  # longer message texts are clipped in the summaries (the JSON always has it all)
FONT = "font-family:var(--jp-code-font-family,monospace);font-size:12px;line-height:1.45"
DIM = "opacity:0.65"


def console(width: int = 100, color: bool = True) -> Console:
    """a rich Console whose output never depends on the terminal or on environment variables"""
    return Console(
        width=width,
        height=50,
        color_system="standard" if color else None,
        no_color=not color,
        force_terminal=False,
        force_jupyter=False,
        force_interactive=False,
        legacy_windows=False,
        soft_wrap=False,
        emoji=False,
        markup=False,
        highlight=False,
    )


# --- what a message says, independent of how it is drawn -----------------------------------


def _plain(obj: Any) -> Any:
    """SDK objects become the dicts they stand for (as sent on the wire); the rest is kept"""
    if hasattr(obj, "model_dump"):
        return obj.model_dump(mode="json", exclude_unset=True)
    if isinstance(obj, dict):
        return {key: _plain(value) for key, value in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(value) for value in obj]
    return obj


def _as_messages(messages: Any) -> list[dict[str, Any]]:
    messages = _plain(messages)
    if isinstance(messages, dict):
        messages = [messages]  # one message on its own
    if not isinstance(messages, list):
        raise TypeError(f"expected a list of messages, got {type(messages).__name__}")
    return messages


def _as_trace(trace: Any) -> Trace:
    """a Trace, or the Trace a client made by mock.client() or recorded() writes into"""
    found = trace if isinstance(trace, Trace) else getattr(trace, "trace", None)
    if not isinstance(found, Trace):
        raise TypeError(f"expected a Trace or a recorded client, got {type(trace).__name__}")
    return found


def _clip(text: str) -> str:
    if len(text) <= MAX_TEXT:
        return text
    return f"{text[:MAX_TEXT]} … ({len(text) - MAX_TEXT} more characters)"


def _content_text(content: Any) -> str | None:
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            part.get("text", "") if part.get("type") == "text" else f"[{part.get('type')} part]"
            for part in content
        )
    return jsonlib.dumps(content, ensure_ascii=False)


def _describe(message: dict[str, Any]) -> list[list[tuple[str, str]]]:
    """a message as lines of (kind, text) pieces; kind is "text", "call" or "dim" """
    lines = []
    text = _content_text(message.get("content"))
    if text:
        lines.append([("text", _clip(text))])
    if message.get("refusal"):
        lines.append([("dim", "refusal: "), ("text", message["refusal"])])
    for call in message.get("tool_calls") or []:
        function = call.get("function") or {}
        name, arguments = function.get("name"), function.get("arguments", "")
        lines.append([("call", f"→ {name}({_clip(arguments)})"), ("dim", f"  id {call.get('id')}")])
    if message.get("tool_call_id"):
        lines.append([("dim", f"result for {message['tool_call_id']}")])
    return lines or [[("dim", "(empty)")]]


def _colors(kind: str) -> tuple[str, str]:
    return COLORS.get(kind, COLORS["system"])


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _request_summary(request: Any) -> str:
    request = request if isinstance(request, dict) else {}
    names = [(t.get("function") or t).get("name") for t in request.get("tools") or []]
    tools = "tools: " + ", ".join(map(str, names)) if names else "no tools"
    if "input" in request and "messages" not in request:  # the Responses API
        items = request["input"]
        items = _count(1 if isinstance(items, str) else len(items or []), "input item")
        previous = (
            f" · after {request['previous_response_id']}" if request.get("previous_response_id") else ""
        )
        return f"model {request.get('model')} · Responses API · {items}{previous} · {tools}"
    if "messages" not in request:
        return f"model {request.get('model')} · not a Chat Completions request (see the JSON)"
    return f"model {request.get('model')} · {_count(len(request['messages']), 'message')} · {tools}"


def _usage_summary(turn: Any) -> str:
    parts = [f"finish_reason {turn.finish_reason}"] if turn.finish_reason else []
    usage = turn.usage or {}
    if isinstance(turn.response, dict) and turn.response.get("object") == "response":
        parts.append(f"status {turn.response.get('status')}")
        if usage:
            parts.append(
                f"tokens input {usage.get('input_tokens')} · output "
                f"{usage.get('output_tokens')} · total {usage.get('total_tokens')}"
            )
    elif usage:
        parts.append(
            f"tokens prompt {usage.get('prompt_tokens')} · completion "
            f"{usage.get('completion_tokens')} · total {usage.get('total_tokens')}"
        )
    return " · ".join(parts)


def _error_summary(turn: Any) -> str | None:
    error = turn.error
    if isinstance(error, dict):
        return f"HTTP {turn.status} {error.get('type') or 'error'}: {error.get('message')}"
    if turn.status >= 400 or error is not None:
        return f"HTTP {turn.status}: {_clip(str(error or turn.response))}"
    return None


def _turn_title(trace: Trace, position: int, timings: bool) -> str:
    turn = trace[position]
    parts = [f"Turn {position + 1} of {len(trace)}", f"trace[{position}]"]
    parts += [f"{turn.method} {urlsplit(turn.url).path}", f"HTTP {turn.status}"]
    if turn.stream:
        parts.append("streamed")
    if timings:
        parts.append(f"{turn.elapsed_ms:.1f} ms")
    return " · ".join(parts)


def _totals(trace: Trace) -> str:
    usage = trace.total_usage()
    refused = sum(1 for turn in trace if _error_summary(turn))
    text = (
        f"{_count(len(trace), 'turn')} · tokens prompt {usage['prompt_tokens']} · completion "
        f"{usage['completion_tokens']} · total {usage['total_tokens']}"
    )
    return text + (f" · {refused} refused" if refused else "")


# --- terminal: rich renderables ---------------------------------------------------------------

_STYLES = {"text": "", "call": "bold", "dim": "dim"}


def _grid() -> Table:
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True, min_width=8)  # index, "+ new" or section name
    grid.add_column(no_wrap=True, min_width=9)  # role
    grid.add_column(overflow="fold")  # what the message says
    return grid


def _message_cells(message: dict[str, Any]) -> tuple[Text, Text]:
    role = str(message.get("role"))
    content = Text()
    for number, line in enumerate(_describe(message)):
        if number:
            content.append("\n")
        for kind, piece in line:
            content.append(piece, style=_STYLES[kind])
    return Text(role, style=f"bold {_colors(role)[1]}"), content


def _messages_renderable(messages: list[dict[str, Any]]) -> RenderableType:
    if not messages:
        return Text("(no messages)", style="dim")
    grid = _grid()
    for index, message in enumerate(messages):
        grid.add_row(Text(f"[{index}]", style="dim"), *_message_cells(message))
    return grid


def _json_renderable(obj: Any) -> RenderableType:
    text = JSON.from_data(_plain(obj), indent=2, ensure_ascii=False, default=str).text
    text.no_wrap, text.overflow = False, "fold"  # wrap long strings instead of cutting them off
    return text


def _turn_renderable(trace: Trace, position: int, json: bool, timings: bool) -> Panel:
    turn = trace[position]
    new = trace.new_messages(position)
    earlier = len(turn.messages) - len(new)
    blank = Text("")
    grid = _grid()
    grid.add_row(Text("request", style="bold"), blank, Text(_request_summary(turn.request)))
    if earlier:
        grid.add_row(blank, blank, Text(f"… {_count(earlier, 'earlier message')}, sent again", style="dim"))
    for message in new:
        grid.add_row(Text("+ new", style=f"bold {_colors('new')[1]}"), *_message_cells(message))
    error = _error_summary(turn)
    if error:
        red = _colors("error")[1]
        grid.add_row(Text("error", style=f"bold {red}"), blank, Text(error, style=red))
    elif turn.reply is not None:
        grid.add_row(Text("response", style="bold"), *_message_cells(turn.reply))
    else:
        grid.add_row(Text("response", style="bold"), blank, Text("(no message: see the JSON)"))
    if _usage_summary(turn):
        grid.add_row(blank, blank, Text(_usage_summary(turn), style="dim"))
    body: list[RenderableType] = [grid]
    if json:
        body += [Text("\nrequest JSON", style="bold"), _json_renderable(turn.request)]
        body += [Text("\nresponse JSON", style="bold"), _json_renderable(turn.response)]
    color = _colors("error" if error else "assistant")[1]
    title = Text(f" {_turn_title(trace, position, timings)} ", style="bold")
    return Panel(Group(*body), title=title, title_align="left", border_style=color)


def _trace_renderable(trace: Trace, json: bool = False, timings: bool = False) -> RenderableType:
    if not len(trace):
        return Text("(an empty trace: no model call was recorded yet)", style="dim")
    turns = [_turn_renderable(trace, i, json, timings) for i in range(len(trace))]
    return Group(*turns, Text(_totals(trace), style="bold"))


def print_messages(messages: Any, console: Console | None = None) -> None:
    """print a message list (dicts or SDK objects), one row per message, colour by role"""
    _or_default(console).print(_messages_renderable(_as_messages(messages)))


def print_trace(
    trace: Any, console: Console | None = None, json: bool = False, timings: bool = False
) -> None:
    """print each turn: request (new messages marked), response, tokens; json=True adds the full JSON"""
    renderable = _trace_renderable(_as_trace(trace), json=json, timings=timings)
    _or_default(console).print(renderable)


def print_json(obj: Any, console: Console | None = None) -> None:
    """print any JSON-like value (or SDK object) pretty and in received key order"""
    _or_default(console).print(_json_renderable(obj))


def _or_default(given: Console | None) -> Console:
    return given if given is not None else console()


def _to_text(renderable: RenderableType) -> str:
    plain = console(color=False)
    with plain.capture() as captured:
        plain.print(renderable)
    return "\n".join(line.rstrip() for line in captured.get().rstrip("\n").splitlines())


# --- notebook: HTML with inline styles --------------------------------------------------------

_JSON_TOKEN = re.compile(
    r'("(?:\\.|[^"\\])*")(\s*:)?|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|\b(true|false|null)\b'
)


def _esc(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _span(text: str, style: str) -> str:
    return f'<span style="{style}">{_esc(text)}</span>' if style else _esc(text)


def json_html(obj: Any) -> str:
    """pretty-printed, HTML-escaped JSON in a <pre>, keys/strings/numbers lightly coloured"""
    text = jsonlib.dumps(_plain(obj), indent=2, ensure_ascii=False, default=str)
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
    color = _colors(role)[0]
    badge = (
        f' <span style="background:{_colors("new")[0]};color:#fff;border-radius:3px;padding:0 4px;'
        'font-size:11px">+ new</span>'
        if new
        else ""
    )
    styles = {"text": "", "call": "font-weight:bold", "dim": DIM}
    lines = "".join(
        '<div style="white-space:pre-wrap;word-break:break-word">'
        + "".join(_span(piece, styles[kind]) for kind, piece in line)
        + "</div>"
        for line in _describe(message)
    )
    return (
        f'<div style="border-left:3px solid {color};padding:2px 8px;margin:3px 0;'
        f'background:rgba(127,127,127,0.07)"><span style="color:{color};font-weight:bold">'
        f"{_esc(role)}</span> {_span(label, DIM)}{badge}{lines}</div>"
    )


def messages_html(messages: Any, *, start: int = 0, new: bool = False) -> str:
    """a message list as HTML, one block per message; `start` numbers them, `new` badges them"""
    messages = _as_messages(messages)
    rows = [_message_html(m, f"[{start + i}]", new) for i, m in enumerate(messages)]
    return f'<div style="{FONT}">{"".join(rows) or _span("(no messages)", DIM)}</div>'


def _details(summary: str, body: str) -> str:
    return f'<details><summary style="cursor:pointer">{summary}</summary>{body}</details>'


def _turn_html(trace: Trace, position: int, json: bool, timings: bool) -> str:
    turn = trace[position]
    new = trace.new_messages(position)
    earlier = len(turn.messages) - len(new)
    error = _error_summary(turn)
    parts = [
        f'<div style="font-weight:bold">{_esc(_turn_title(trace, position, timings))}</div>',
        f"<div><b>request</b> {_esc(_request_summary(turn.request))}</div>",
    ]
    if earlier:
        older = turn.messages[:earlier]
        rows = "".join(_message_html(m, f"[{i}]") for i, m in enumerate(older))
        summary = _span(f"… {_count(earlier, 'earlier message')}, sent again", DIM)
        parts.append(_details(summary, f'<div style="{DIM}">{rows}</div>'))
    parts += [_message_html(m, f"[{earlier + i}]", new=True) for i, m in enumerate(new)]
    if error:
        red = _colors("error")[0]
        parts.append(f'<div style="color:{red};font-weight:bold">{_esc(error)}</div>')
    elif turn.reply is not None:
        where = "output" if turn.response.get("object") == "response" else "choices[0].message"
        parts.append("<div><b>response</b></div>" + _message_html(turn.reply, where))
    else:
        parts.append(f"<div><b>response</b> {_span('(no message: see the JSON)', DIM)}</div>")
    if _usage_summary(turn):
        parts.append(f"<div>{_span(_usage_summary(turn), DIM)}</div>")
    if json:
        parts.append(_details("request JSON", json_html(turn.request)))
        parts.append(_details("response JSON", json_html(turn.response)))
    color = _colors("error" if error else "assistant")[0]
    return (
        f'<div style="border:1px solid rgba(127,127,127,0.35);border-left:4px solid {color};'
        f'border-radius:4px;padding:6px 10px;margin:6px 0">{"".join(parts)}</div>'
    )


def trace_html(trace: Any, json: bool = True, timings: bool = False) -> str:
    """every turn as HTML: request (new messages badged, earlier ones folded), response, tokens"""
    trace = _as_trace(trace)
    if not len(trace):
        return f'<div style="{FONT}">{_span("(an empty trace: no model call yet)", DIM)}</div>'
    turns = "".join(_turn_html(trace, i, json, timings) for i in range(len(trace)))
    return f'<div style="{FONT}">{turns}<div><b>{_esc(_totals(trace))}</b></div></div>'


# --- notebook display objects -----------------------------------------------------------------


class Rendered:
    """shows as HTML in a notebook and as the same content in plain text everywhere else"""

    def __init__(self, html: str, text: str):
        self.html, self.text = html, text

    def _repr_html_(self) -> str:
        return self.html

    def __repr__(self) -> str:
        return self.text


def show_messages(messages: Any) -> Rendered:
    """a message list, for the last line of a notebook cell"""
    messages = _as_messages(messages)
    return Rendered(messages_html(messages), _to_text(_messages_renderable(messages)))


def show_trace(trace: Any, json: bool = True) -> Rendered:
    """a whole trace, for the last line of a notebook cell"""
    trace = _as_trace(trace)
    return Rendered(trace_html(trace, json=json), _to_text(_trace_renderable(trace, json=json)))


def show_json(obj: Any) -> Rendered:
    """any JSON-like value (or SDK object), for the last line of a notebook cell"""
    return Rendered(json_html(obj), _to_text(_json_renderable(obj)))
