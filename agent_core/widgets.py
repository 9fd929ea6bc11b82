"""Stepping through a trace one model call at a time: an ipywidgets viewer (every lesson)."""

from __future__ import annotations

import html
from typing import Any

import ipywidgets as widgets

from . import render
from .trace import Trace, Turn

__all__ = ["TraceViewer", "step_through"]

BAR_WIDTH = 160  # pixels for the turn that used the most tokens


class TraceViewer(widgets.VBox):
    """Previous / Next buttons and a slider over the turns; each turn's request and response JSON"""

    def __init__(self, trace: Any):
        found = trace if isinstance(trace, Trace) else getattr(trace, "trace", None)
        if not isinstance(found, Trace):
            raise TypeError(f"expected a Trace or a recorded client, got {type(trace).__name__}")
        if not len(found):
            raise ValueError("this trace has no turns yet: call the model first, then step through")
        self.trace = found
        self.previous_button = widgets.Button(description="◀ Previous")
        self.next_button = widgets.Button(description="Next ▶")
        self.slider = widgets.IntSlider(value=1, min=1, max=len(found), description="turn")
        self.header_html = widgets.HTML()
        self.new_messages_html = widgets.HTML()
        self.request_html = widgets.HTML(layout=widgets.Layout(width="50%"))
        self.response_html = widgets.HTML(layout=widgets.Layout(width="50%"))
        self.tokens_html = widgets.HTML()
        super().__init__(
            [
                widgets.HBox([self.previous_button, self.slider, self.next_button]),
                self.header_html,
                self.new_messages_html,
                widgets.HBox([self.request_html, self.response_html]),
                self.tokens_html,
            ]
        )
        self.previous_button.on_click(lambda _: self.show(self.index - 1))
        self.next_button.on_click(lambda _: self.show(self.index + 1))
        self.slider.observe(lambda _: self._update(), names="value")
        self._update()

    @property
    def index(self) -> int:
        """the turn on show, as an index into the trace (the slider counts from 1)"""
        return self.slider.value - 1

    @property
    def turn(self) -> Turn:
        """the Turn on show"""
        return self.trace[self.index]

    def show(self, index: int) -> None:
        """show trace[index]; an index past either end shows the first or the last turn"""
        self.slider.value = min(max(index, 0), len(self.trace) - 1) + 1

    def _update(self) -> None:
        self.header_html.value = self._header()
        new = self.trace.new_messages(self.index)
        earlier = len(self.turn.messages) - len(new)
        again = f" ({earlier} earlier sent again)" if earlier else ""
        self.new_messages_html.value = f"<b>new in this request</b>{again}" + render.messages_html(
            new, start=earlier, new=True
        )
        self.request_html.value = "<b>request JSON</b>" + render.json_html(self.turn.request)
        self.response_html.value = "<b>response JSON</b>" + render.json_html(self.turn.response)
        self.tokens_html.value = self._tokens_table()
        self.previous_button.disabled = self.index == 0
        self.next_button.disabled = self.index == len(self.trace) - 1

    def _header(self) -> str:
        turn, parts = self.turn, [f"Turn {self.index + 1} of {len(self.trace)}"]
        if turn.error is not None or turn.status >= 400:
            red = render.COLORS["error"][0]
            parts.append(f'<span style="color:{red}">HTTP {turn.status}: refused</span>')
        if turn.usage:
            parts.append(f"prompt {turn.usage.get('prompt_tokens')}")
            parts.append(f"completion {turn.usage.get('completion_tokens')} tokens")
        if turn.finish_reason:
            parts.append(f"finish_reason: {html.escape(turn.finish_reason)}")
        return f'<div style="{render.FONT};font-weight:bold">{" · ".join(parts)}</div>'

    def _tokens_table(self) -> str:
        """one row per turn: prompt and completion tokens, with a bar; the turn on show in bold"""
        most = max((turn.usage or {}).get("total_tokens", 0) for turn in self.trace) or 1
        blue, green = render.COLORS["user"][0], render.COLORS["assistant"][0]
        rows = []
        for position, turn in enumerate(self.trace):
            usage = turn.usage or {}
            prompt, completion = usage.get("prompt_tokens", 0), usage.get("completion_tokens", 0)
            bar = "".join(
                f'<span style="display:inline-block;height:9px;background:{color};'
                f'width:{round(BAR_WIDTH * tokens / most)}px"></span>'
                for color, tokens in ((blue, prompt), (green, completion))
            )
            if not usage:
                bar = "refused" if turn.error is not None else "no usage reported"
            current = position == self.index
            style = "font-weight:bold;background:rgba(127,127,127,0.15)" if current else ""
            numbers = [position + 1, prompt, completion, usage.get("total_tokens", 0)]
            cells = "".join(_td(n) for n in numbers) + _td(bar, align="left")
            rows.append(f'<tr style="{style}">{cells}</tr>')
        head = "".join(_td(f"<b>{name}</b>") for name in ("turn", "prompt", "completion", "total"))
        table = f'<table style="{render.FONT};border-collapse:collapse">'
        return f"{table}<tr>{head}<td></td></tr>{''.join(rows)}</table>"

    def static_html(self) -> str:
        """the turn on show as plain HTML, for a notebook read without a running kernel"""
        half = "flex:1 1 0;min-width:0"
        return (
            f'<div style="{render.FONT}">{self.header_html.value}{self.new_messages_html.value}'
            f'<div style="display:flex;gap:8px"><div style="{half}">{self.request_html.value}</div>'
            f'<div style="{half}">{self.response_html.value}</div></div>{self.tokens_html.value}'
            f'<div style="opacity:0.65">{html.escape(repr(self))}</div></div>'
        )

    def snapshot(self) -> render.Rendered:
        """the turn on show, displayed without the live widget (HTML, or text outside a notebook)"""
        return render.Rendered(self.static_html(), repr(self))

    def __repr__(self) -> str:
        turns = f"{len(self.trace)} turn{'' if len(self.trace) == 1 else 's'}"
        return f"TraceViewer: {turns} (open in JupyterLab to step through)"

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        # ipywidgets gives text/plain (the widget tree) and the widget view, whose model_id is
        # random; nbval skips that one. Replace text/plain and add a static HTML fallback.
        bundle = super()._repr_mimebundle_(**kwargs) or {}
        bundle["text/plain"] = repr(self)
        bundle["text/html"] = self.static_html()
        return bundle


def _td(content: Any, align: str = "right") -> str:
    return f'<td style="padding:1px 8px;text-align:{align}">{content}</td>'


def step_through(trace: Any) -> TraceViewer:
    """a TraceViewer over a Trace (or over the trace of a recorded client)"""
    return TraceViewer(trace)
