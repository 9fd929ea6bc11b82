"""The notebook widgets: a step-through viewer of a trace (every lesson) and Approve / Deny buttons
(lesson 05)."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

import ipywidgets as widgets

from . import render
from ._guard_calls import describe_call
from ._i18n import N_, _
from .guardrails import Decision
from .trace import Trace, Turn

__all__ = ["TraceViewer", "step_through", "ApprovalPanel"]

BAR_WIDTH = 160  # pixels for the turn that used the most tokens
KERNEL_FREE = "agent-core-kernel-free"  # marks a widget whose saved state works without a kernel


class TraceViewer(widgets.VBox):
    """a button per turn; each turn's new messages, request and response JSON, and tokens

    Every turn's page is built once, in Python, and the buttons switch pages in the browser
    (`jslink`): so the viewer also steps through its turns from the saved widget state, with no
    kernel: on the course website, in nbviewer, in JupyterLab before any cell runs (once the
    notebook is trusted; untrusted, JupyterLab shows the text/html below instead).
    """

    def __init__(self, trace: Trace, labels: Sequence[str] | None = None):
        if not isinstance(trace, Trace):
            raise TypeError(
                "expected a Trace (a run's run.trace, a mock client's client.trace), "
                f"got {type(trace).__name__}"
            )
        if not len(trace):
            raise ValueError("this trace has no turns yet: call the model first, then step through")
        if labels is not None and len(labels) != len(trace):
            raise ValueError(f"give one label per turn: {len(labels)} labels for {len(trace)} turns")
        self.trace = trace
        self.labels = list(labels) if labels is not None else None  # which agent made each turn (lesson 12)
        self.turn_buttons = widgets.ToggleButtons(
            options=[(str(position + 1), position) for position in range(len(trace))],
            description="turn",
            tooltips=[self._tooltip(position) for position in range(len(trace))],
            style={"button_width": "3em"},
        )
        self.pages = widgets.Stack(
            [widgets.HTML(self.page_html(position)) for position in range(len(trace))], selected_index=0
        )
        # the link lives in the browser, so it works from saved widget state without a kernel
        self.link = widgets.jslink((self.turn_buttons, "index"), (self.pages, "selected_index"))
        super().__init__([self.turn_buttons, self.pages], _dom_classes=[KERNEL_FREE])

    @property
    def index(self) -> int:
        """the turn on show, as an index into the trace (the buttons count from 1)"""
        index: int = self.turn_buttons.index
        return index

    @property
    def turn(self) -> Turn:
        """the Turn on show"""
        return self.trace[self.index]

    def show(self, index: int) -> None:
        """show trace[index]; an index past either end shows the first or the last turn"""
        self.turn_buttons.index = min(max(index, 0), len(self.trace) - 1)

    def page_html(self, index: int) -> str:
        """trace[index] as HTML: header, new messages, request and response JSON, token table"""
        turn = self.trace[index]
        new = self.trace.new_messages(index)
        earlier = len(turn.messages) - len(new)
        again = f" ({earlier} earlier sent again)" if earlier else ""
        half = "flex:1 1 0;min-width:0"
        return (
            f'<div style="{render.FONT}">{self._header(index)}'
            f"<div><b>new in this request</b>{again}"
            f"{render.messages_html(new, start=earlier, new=True)}</div>"
            f'<div style="display:flex;gap:8px">'
            f'<div style="{half}"><b>request JSON</b>{render.json_html(turn.request)}</div>'
            f'<div style="{half}"><b>response JSON</b>{render.json_html(turn.response)}</div></div>'
            f"{self._tokens_table(index)}</div>"
        )

    def _tooltip(self, index: int) -> str:
        turn = self.trace[index]
        who = f" ({self.labels[index]})" if self.labels is not None else ""
        if turn.error is not None or turn.status >= 400:
            return f"turn {index + 1}{who}: HTTP {turn.status}, refused"
        return f"turn {index + 1}{who}: finish_reason {turn.finish_reason or 'unknown'}"

    def _header(self, index: int) -> str:
        turn, parts = self.trace[index], [f"Turn {index + 1} of {len(self.trace)}"]
        if self.labels is not None:
            parts.append(html.escape(self.labels[index]))
        if turn.error is not None or turn.status >= 400:
            red = render.COLORS["error"][0]
            parts.append(f'<span style="color:{red}">HTTP {turn.status}: refused</span>')
        if turn.usage:
            parts.append(f"prompt {turn.usage.get('prompt_tokens')}")
            parts.append(f"completion {turn.usage.get('completion_tokens')} tokens")
        if turn.finish_reason:
            parts.append(f"finish_reason: {html.escape(turn.finish_reason)}")
        return f'<div style="font-weight:bold;margin:4px 0">{" · ".join(parts)}</div>'

    def _tokens_table(self, index: int) -> str:
        """one row per turn: prompt and completion tokens, with a bar; turn `index` in bold"""
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
            style = "font-weight:bold;background:rgba(127,127,127,0.15)" if position == index else ""
            numbers = [position + 1, prompt, completion, usage.get("total_tokens", 0)]
            if self.labels is not None:
                numbers[0] = f"{position + 1} {html.escape(self.labels[position])}"
            cells = "".join(_td(n) for n in numbers) + _td(bar, align="left")
            rows.append(f'<tr style="{style}">{cells}</tr>')
        head = "".join(_td(f"<b>{name}</b>") for name in ("turn", "prompt", "completion", "total"))
        table = f'<table style="{render.FONT};border-collapse:collapse">'
        return f"{table}<tr>{head}<td></td></tr>{''.join(rows)}</table>"

    def static_html(self) -> str:
        """the turn on show as plain HTML, without the buttons"""
        return f'{self.page_html(self.index)}<div style="opacity:0.65">{html.escape(repr(self))}</div>'

    def snapshot(self) -> render.Rendered:
        """the turn on show, displayed without the live widget (HTML, or text outside a notebook)"""
        return render.Rendered(self.static_html(), repr(self))

    def __repr__(self) -> str:
        turns = f"{len(self.trace)} turn{'' if len(self.trace) == 1 else 's'}"
        return f"TraceViewer: {turns} (open in JupyterLab to step through)"

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        # ipywidgets gives text/plain (the widget tree) and the widget view. Where no widget can
        # show (GitHub's view runs no JavaScript), the HTML shows every turn, one after another.
        bundle = super()._repr_mimebundle_(**kwargs) or {}
        bundle["text/plain"] = repr(self)
        bundle["text/html"] = render.trace_html(self.trace)
        return bundle


def _td(content: Any, align: str = "right") -> str:
    return f'<td style="padding:1px 8px;text-align:{align}">{content}</td>'


def step_through(trace: Trace, labels: Sequence[str] | None = None) -> TraceViewer:
    """a TraceViewer over a Trace; labels: which agent made each turn, shown beside its number"""
    return TraceViewer(trace, labels)


_NEEDS_KERNEL = N_("(the Approve / Deny buttons need a running kernel)")


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
        self.reason_text = widgets.Text(placeholder=_("why not? (the model reads this)"))
        self.approve_button = widgets.Button(description=_("Approve"), button_style="success")
        self.deny_button = widgets.Button(description=_("Deny"), button_style="danger")
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
            return _("The agent wants to run {call}. Approve or deny?", call=describe_call(self.pending))
        if self.decided is not None:
            decision, call = self.decisions[self.decided["id"]], describe_call(self.decided)
            if decision.approved:
                return _("{call}: approved. resume() the run to go on.", call=call)
            return _(
                "{call}: denied ({reason}). resume() the run to go on.", call=call, reason=decision.reason
            )
        return _("No call is waiting for approval.")

    def __repr__(self) -> str:
        return _("ApprovalPanel: {status}", status=self.status)

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        # the widget view has a random model id (nbval skips it); text and HTML stay deterministic
        bundle = super()._repr_mimebundle_(**kwargs) or {}
        bundle["text/plain"] = repr(self)
        bundle["text/html"] = (
            f'<div style="{render.FONT}">{html.escape(self.status)}'
            f'<div style="opacity:0.65">{html.escape(_(_NEEDS_KERNEL))}</div></div>'
        )
        return bundle
