"""What a run costs: prices per million tokens, with and without prompt caching (lesson 06)."""

from __future__ import annotations

from dataclasses import dataclass

from .context import Ledger

__all__ = ["Prices", "call_costs", "billed_costs", "run_cost", "caching_pays_from"]


@dataclass(frozen=True)
class Prices:
    """what a provider charges, in dollars per million tokens; look up your own, these change"""

    input: float
    output: float
    cache_read_multiplier: float = 0.10  # a cached prefix read costs this times `input`
    cache_write_multiplier: float = 1.25  # writing a prefix to the cache costs this times `input`


def call_costs(ledger: Ledger, prices: Prices, *, caching: bool = False) -> list[float]:
    """dollars per call; with caching, each call reads the re-sent prefix from the cache and
    writes the rest (so the next call can read it)"""
    costs = []
    for row in ledger.rows:
        if caching:
            new = row.prompt - row.resent
            input_cost = prices.input * (
                row.resent * prices.cache_read_multiplier + new * prices.cache_write_multiplier
            )
        else:
            input_cost = prices.input * row.prompt
        costs.append((input_cost + prices.output * row.completion) / 1_000_000)
    return costs


def billed_costs(ledger: Ledger, prices: Prices) -> list[float]:
    """dollars per call as the usage reports it: cached tokens at `cache_read_multiplier` times the
    input price (OpenAI's automatic caching has no write premium), the rest at the input price"""
    return [
        (
            prices.input * (row.prompt - row.cached + row.cached * prices.cache_read_multiplier)
            + prices.output * row.completion
        )
        / 1_000_000
        for row in ledger.rows
    ]


def run_cost(ledger: Ledger, prices: Prices, *, caching: bool = False) -> float:
    """dollars for the whole run"""
    return sum(call_costs(ledger, prices, caching=caching))


def caching_pays_from(ledger: Ledger, prices: Prices) -> int | None:
    """the first call after which the run so far costs less with caching than without (or None)"""
    with_cache = without = 0.0
    for row, cached, plain in zip(
        ledger.rows,
        call_costs(ledger, prices, caching=True),
        call_costs(ledger, prices),
        strict=True,
    ):
        with_cache, without = with_cache + cached, without + plain
        if with_cache < without:
            return row.call
    return None
