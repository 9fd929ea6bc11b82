"""The notebook widgets: a step-through viewer of a trace (every lesson) and Approve / Deny buttons (lesson 05)."""

from __future__ import annotations

import html
from typing import Any

import ipywidgets as widgets

from . import render
from .guardrails import Decision, describe_call
from .trace import Trace, Turn

__all__ = ["TraceViewer", "step_through", "ApprovalPanel"]

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


class ApprovalPanel(widgets.VBox):
    """Approve / Deny buttons in the notebook: a decider for Approval

    A running cell blocks the kernel, so a click cannot arrive while run_agent waits. Instead,
    the first time the panel is asked about a call it has no decision yet: the run stops with
    stop_reason "needs_approval" and the panel shows the call. A click records the decision;
    resume() then continues the run, and this time the panel answers with that decision.
    """

    def __init__(self) -> None:
        self.pending: dict[str, Any] | None = None  # the call on show, waiting for a click
        self.decisions: dict[str, Decision] = {}  # tool_call_id -> what was decided
        self.decided: dict[str, Any] | None = None  # the call decided last
        self.call_html = widgets.HTML()
        self.reason_text = widgets.Text(placeholder="why not? (the model reads this)")
        self.approve_button = widgets.Button(description="Approve", button_style="success")
        self.deny_button = widgets.Button(description="Deny", button_style="danger")
        super().__init__(
            [
                self.call_html,
                widgets.HBox([self.approve_button, self.deny_button, self.reason_text]),
            ]
        )
        self.approve_button.on_click(lambda _: self.approve())
        self.deny_button.on_click(lambda _: self.deny(self.reason_text.value))
        self._update()

    def __call__(self, call: dict[str, Any]) -> Decision | None:
        decision = self.decisions.get(call["id"])
        if decision is None:
            self.pending = call
            self._update()
        return decision

    def approve(self, reason: str = "") -> Decision | None:
        """what the Approve button does: approve the call on show (None if nothing is waiting)"""
        return self._decide(Decision(True, reason))

    def deny(self, reason: str = "") -> Decision | None:
        """what the Deny button does: deny the call on show, with a reason for the model"""
        return self._decide(Decision(False, reason.strip() or "the user clicked Deny"))

    def _decide(self, decision: Decision) -> Decision | None:
        if self.pending is None:  # e.g. a second click: the first one already decided
            return None
        self.decisions[self.pending["id"]] = decision
        self.decided, self.pending = self.pending, None
        self._update()
        return decision

    def _update(self) -> None:
        waiting = self.pending is not None
        self.approve_button.disabled = self.deny_button.disabled = not waiting
        self.reason_text.disabled = not waiting
        self.call_html.value = f'<div style="{render.FONT}">{html.escape(self.status)}</div>'

    @property
    def status(self) -> str:
        """one line: what the panel is waiting for, or what was decided"""
        if self.pending is not None:
            return f"The agent wants to run {describe_call(self.pending)}. Approve or deny?"
        if self.decided is not None:
            decision = self.decisions[self.decided["id"]]
            verdict = "approved" if decision.approved else f"denied ({decision.reason})"
            return f"{describe_call(self.decided)}: {verdict}. resume() the run to go on."
        return "No call is waiting for approval."

    def __repr__(self) -> str:
        return f"ApprovalPanel: {self.status}"

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        # the widget view has a random model id (nbval skips it); text and HTML stay deterministic
        bundle = super()._repr_mimebundle_(**kwargs) or {}
        bundle["text/plain"] = repr(self)
        bundle["text/html"] = (
            f'<div style="{render.FONT}">{html.escape(self.status)}'
            '<div style="opacity:0.65">(the Approve / Deny buttons need a running kernel)</div></div>'
        )
        return bundle
