"""lesson 00: messages, JSON and traces as terminal text, with rich."""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.json import JSON
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from ..trace import Trace
from ._parts import (
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

__all__ = ["console", "messages_renderable", "json_renderable", "trace_renderable", "to_text"]


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
    for number, line in enumerate(describe(message)):
        if number:
            content.append("\n")
        for kind, piece in line:
            content.append(piece, style=_STYLES[kind])
    return Text(role, style=f"bold {colors(role)[1]}"), content


def messages_renderable(messages: list[dict[str, Any]]) -> RenderableType:
    if not messages:
        return Text("(no messages)", style="dim")
    grid = _grid()
    for index, message in enumerate(messages):
        grid.add_row(Text(f"[{index}]", style="dim"), *_message_cells(message))
    return grid


def json_renderable(obj: Any) -> RenderableType:
    text = JSON.from_data(plain(obj), indent=2, ensure_ascii=False, default=str).text
    text.no_wrap, text.overflow = False, "fold"  # wrap long strings instead of cutting them off
    return text


def _turn_renderable(trace: Trace, position: int, json: bool, timings: bool) -> Panel:
    turn = trace[position]
    new = trace.new_messages(position)
    earlier = len(turn.messages) - len(new)
    blank = Text("")
    grid = _grid()
    grid.add_row(Text("request", style="bold"), blank, Text(request_summary(turn.request)))
    if earlier:
        grid.add_row(blank, blank, Text(f"… {count(earlier, 'earlier message')}, sent again", style="dim"))
    for message in new:
        grid.add_row(Text("+ new", style=f"bold {colors('new')[1]}"), *_message_cells(message))
    error = error_summary(turn)
    if error:
        red = colors("error")[1]
        grid.add_row(Text("error", style=f"bold {red}"), blank, Text(error, style=red))
    elif turn.reply is not None:
        grid.add_row(Text("response", style="bold"), *_message_cells(turn.reply))
    else:
        grid.add_row(Text("response", style="bold"), blank, Text("(no message: see the JSON)"))
    if usage_summary(turn):
        grid.add_row(blank, blank, Text(usage_summary(turn), style="dim"))
    body: list[RenderableType] = [grid]
    if json:
        body += [Text("\nrequest JSON", style="bold"), json_renderable(turn.request)]
        body += [Text("\nresponse JSON", style="bold"), json_renderable(turn.response)]
    color = colors("error" if error else "assistant")[1]
    title = Text(f" {turn_title(trace, position, timings)} ", style="bold")
    return _TitleKeepsStatus(Group(*body), title=title, title_align="left", border_style=color)


class _TitleKeepsStatus(Panel):
    """a turn's panel whose title, on a narrow console, leaves out the URL's path and then trace[i]
    rather than cut off the HTTP status at its end"""

    def __init__(self, renderable: RenderableType, **options: Any) -> None:
        super().__init__(renderable, **options)
        self.full_title = str(self.title).strip()

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        parts = self.full_title.split(" · ")
        for dropped in (2, 1):  # "POST /v1/chat/completions", then "trace[0]"
            if cell_len(" · ".join(parts)) <= options.max_width - 6 or len(parts) <= dropped:
                break
            parts.pop(dropped)
        self.title = Text(f" {' · '.join(parts)} ", style="bold")
        yield from super().__rich_console__(console, options)


def trace_renderable(trace: Trace, json: bool = False, timings: bool = False) -> RenderableType:
    if not len(trace):
        return Text("(an empty trace: no model call was recorded yet)", style="dim")
    turns = [_turn_renderable(trace, i, json, timings) for i in range(len(trace))]
    return Group(*turns, Text(totals(trace), style="bold"))


def to_text(renderable: RenderableType) -> str:
    plain = console(color=False)
    with plain.capture() as captured:
        plain.print(renderable)
    return "\n".join(line.rstrip() for line in captured.get().rstrip("\n").splitlines())
