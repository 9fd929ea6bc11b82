"""A token ledger as text: one row per model call, then the run's totals (lesson 06)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

__all__ = ["ledger_table", "RowLike", "LedgerLike"]


class RowLike(Protocol):
    """what the table reads of a context.LedgerRow"""

    @property
    def call(self) -> int: ...
    @property
    def messages(self) -> int: ...
    @property
    def prompt(self) -> int: ...
    @property
    def completion(self) -> int: ...
    @property
    def resent(self) -> int: ...
    @property
    def cached(self) -> int: ...
    @property
    def cumulative_input(self) -> int: ...
    @property
    def cumulative_output(self) -> int: ...


class LedgerLike(Protocol):
    """what the table reads of a context.Ledger"""

    @property
    def rows(self) -> Sequence[RowLike]: ...
    @property
    def final_history(self) -> int: ...
    @property
    def total_input(self) -> int: ...
    @property
    def total_output(self) -> int: ...
    @property
    def ratio(self) -> float: ...


def ledger_table(ledger: LedgerLike) -> str:
    head = f"{'call':>4} {'messages':>8} {'prompt':>7} {'completion':>10} {'re-sent':>8} "
    head += f"{'cached':>7} {'cumulative in':>13} {'cumulative out':>14}"
    lines = [head]
    for row in ledger.rows:
        lines.append(
            f"{row.call:>4} {row.messages:>8} {row.prompt:>7,} {row.completion:>10,} "
            f"{row.resent:>8,} {row.cached:>7,} {row.cumulative_input:>13,} {row.cumulative_output:>14,}"
        )
    lines.append(
        f"final history {ledger.final_history:,} tokens · input paid {ledger.total_input:,} "
        f"tokens ({ledger.ratio:.2f}x) · output {ledger.total_output:,} tokens"
    )
    return "\n".join(lines)
