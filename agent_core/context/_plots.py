"""lesson 06: a picture of token ledgers: each call's input, and the cumulative input."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._browser import PlainTable

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["plot_ledgers"]


def plot_ledgers(ledgers: Any, title: str = "") -> Figure | PlainTable:
    """a Figure with each call's input tokens (left) and the cumulative input (right), of one
    context.Ledger or of several, {label: Ledger}

    Fixed size and dpi. The figure is closed in pyplot, so a notebook shows it once: where
    the returned Figure is displayed (save it with figure.savefig(path) elsewhere).
    """
    if not isinstance(ledgers, Mapping):  # one Ledger
        ledgers = {"run": ledgers}
    try:
        import matplotlib.pyplot as plt
    except ImportError:  # the browser edition has no matplotlib: the same numbers, as a table
        rows = [
            (label, r.call, r.prompt, r.cumulative_input)
            for label, ledger in ledgers.items()
            for r in ledger.rows
        ]
        return PlainTable(title, ["run", "model call", "input tokens", "cumulative input tokens"], rows)
    figure, (per_call, cumulative) = plt.subplots(1, 2, figsize=(9, 3.2), dpi=100, layout="constrained")
    plt.close(figure)
    for label, ledger in ledgers.items():
        calls = [row.call for row in ledger.rows]
        per_call.plot(calls, [row.prompt for row in ledger.rows], marker="o", label=label)
        cumulative.plot(calls, [row.cumulative_input for row in ledger.rows], marker="o", label=label)
    for axes, name in (
        (per_call, "input tokens of each call"),
        (cumulative, "cumulative input tokens"),
    ):
        axes.set_title(name, fontsize=10)
        axes.set_xlabel("model call")
        axes.grid(alpha=0.3)
        axes.xaxis.get_major_locator().set_params(integer=True)
        axes.yaxis.set_major_formatter("{x:,.0f}")
    if len(ledgers) > 1:
        cumulative.legend(fontsize=8)
    if title:
        figure.suptitle(title, fontsize=11)
    return figure
