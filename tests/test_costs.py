"""What a run costs (agent_core.costs), with and without caching, priced from real runs of the mock."""

import math

import pytest

from agent_core import mock
from agent_core.context import Ledger, LedgerRow, token_ledger
from agent_core.costs import Prices, caching_pays_from, call_costs, run_cost
from agent_core.dispatch import ToolRegistry
from agent_core.loop import run_agent
from agent_core.mock.context_policies import LogReader, log_tools, sample_logs

FIVE_CALLS = "Check these logs for 'ERROR': api.log, auth.log, cron.log, mail.log."
TEN_CALLS = (
    "Check these logs for 'ERROR': api.log, billing.log, auth.log, cron.log, mail.log, "
    "queue.log, search.log, worker.log, cache.log."
)
PRICES = Prices(input=5.0, output=25.0)


def read_run(task, big_billing=False):
    logs = sample_logs(big_billing)
    return run_agent(
        mock.client(LogReader()), task, ToolRegistry(log_tools(logs, "read_file"), max_chars=None)
    )


@pytest.fixture(scope="module")
def five():
    return read_run(FIVE_CALLS)


def test_cost_without_caching_is_tokens_times_prices(five):
    ledger = token_ledger(five)
    costs = call_costs(ledger, PRICES)
    first = ledger.rows[0]
    assert costs[0] == pytest.approx((first.prompt * 5 + first.completion * 25) / 1e6)
    expected = (ledger.total_input * 5 + ledger.total_output * 25) / 1e6
    assert run_cost(ledger, PRICES) == pytest.approx(expected)


def test_caching_writes_new_tokens_at_a_premium_and_reads_the_resent_prefix_cheaply(five):
    ledger = token_ledger(five)
    cached = call_costs(ledger, PRICES, caching=True)
    first, second = ledger.rows[0], ledger.rows[1]
    assert cached[0] == pytest.approx((first.prompt * 5 * 1.25 + first.completion * 25) / 1e6)
    new = second.prompt - second.resent
    expected = (second.resent * 5 * 0.1 + new * 5 * 1.25 + second.completion * 25) / 1e6
    assert cached[1] == pytest.approx(expected)
    assert cached[0] > call_costs(ledger, PRICES)[0]  # the first call costs more
    assert run_cost(ledger, PRICES, caching=True) < run_cost(ledger, PRICES)


def test_caching_pays_from_the_call_where_reading_the_prefix_outweighs_the_write_premium(five):
    # this run's second call is mostly new tokens (a file), written at the premium
    assert caching_pays_from(token_ledger(five), PRICES) == 3
    rows = (LedgerRow(1, 1, 1000, 10, 0, 1000, 10), LedgerRow(2, 3, 1050, 10, 1000, 2050, 20))
    assert caching_pays_from(Ledger(rows), PRICES) == 2  # a long prefix and a short addition
    one = mock.client(mock.Script("hi"))
    one.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
    assert caching_pays_from(token_ledger(one.trace), PRICES) is None
    no_discount = Prices(input=5.0, output=25.0, cache_read_multiplier=1.0, cache_write_multiplier=1.25)
    assert caching_pays_from(token_ledger(five), no_discount) is None


def test_the_extra_64k_tokens_cost_what_the_prices_say():
    small, big = token_ledger(read_run(TEN_CALLS)), token_ledger(read_run(TEN_CALLS, True))
    extra = run_cost(big, PRICES) - run_cost(small, PRICES)
    assert math.isclose(extra, (big.total_input - small.total_input) * 5 / 1e6, rel_tol=1e-9)
    assert 0.28 <= extra <= 0.36
