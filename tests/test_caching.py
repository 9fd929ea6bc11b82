"""The mock reports prompt caching in usage as the real APIs do: a repeated prefix of 1,024+ tokens, in
128-token steps."""

from calculator_tools import add

from agent_core import mock
from agent_core.loop import run_agent
from agent_core.mock.caching import OPENAI_INCREMENT, OPENAI_MINIMUM

LONG_RULES = "Rules of the house.\n" + "\n".join(
    f"Rule {i}: answer politely and cite rule {i}." for i in range(150)
)


def ask(client, *messages):
    return client.chat.completions.create(model="mock-model", messages=list(messages))


def cached(response):
    details = response.usage.prompt_tokens_details
    return 0 if details is None else details.cached_tokens


def test_the_same_long_prompt_twice_is_cached_in_128_token_steps_the_second_time():
    client = mock.client(mock.Script("one", "two"))
    system, user = {"role": "system", "content": LONG_RULES}, {"role": "user", "content": "Hi"}
    first, second = ask(client, system, user), ask(client, system, user)
    assert first.usage.prompt_tokens >= OPENAI_MINIMUM
    assert cached(first) == 0
    sent_before = second.usage.prompt_tokens - 3  # all of it but the 3 tokens that prime the reply
    steps = (sent_before - OPENAI_MINIMUM) // OPENAI_INCREMENT
    assert cached(second) == OPENAI_MINIMUM + steps * OPENAI_INCREMENT
    assert second.usage.prompt_tokens - OPENAI_INCREMENT - 3 < cached(second) <= second.usage.prompt_tokens


def test_a_short_prompt_is_never_cached():
    client = mock.client(mock.Script("one", "two"))
    user = {"role": "user", "content": "Hi"}
    assert cached(ask(client, user)) == 0 and cached(ask(client, user)) == 0
    # the field is there with a zero, as the real API sends it
    assert ask(mock.client(), user).usage.prompt_tokens_details.cached_tokens == 0


def test_a_prefix_must_match_from_the_first_token():
    client = mock.client(mock.Script("one", "two"))
    ask(client, {"role": "system", "content": LONG_RULES}, {"role": "user", "content": "Hi"})
    changed = ask(
        client,
        {"role": "system", "content": "Today is Monday.\n" + LONG_RULES},
        {"role": "user", "content": "Hi"},
    )
    assert cached(changed) == 0


def test_only_the_shared_prefix_is_cached_when_the_end_differs():
    client = mock.client(mock.Script("one", "two"))
    system = {"role": "system", "content": LONG_RULES}
    ask(client, system, {"role": "user", "content": "Hi"})
    other = ask(
        client, system, {"role": "user", "content": "A different question, much longer than the first " * 20}
    )
    assert OPENAI_MINIMUM <= cached(other) < other.usage.prompt_tokens - 200


def test_each_mock_client_has_its_own_cache():
    system, user = {"role": "system", "content": LONG_RULES}, {"role": "user", "content": "Hi"}
    ask(mock.client(), system, user)
    assert cached(ask(mock.client(), system, user)) == 0


def test_an_agent_run_reads_the_previous_calls_prompt_from_the_cache():
    run = run_agent(mock.client(mock.Calculator()), "5 + 8/12 + 1", [add], system=LONG_RULES)
    details = [turn.usage.get("prompt_tokens_details", {}).get("cached_tokens", 0) for turn in run.trace]
    assert details[0] == 0
    assert all(later > 0 for later in details[1:]) and len(details) >= 2
    for turn, hit in zip(run.trace[1:], details[1:], strict=True):
        assert hit % OPENAI_INCREMENT == 0 and hit <= turn.usage["prompt_tokens"]


def test_the_responses_api_reports_cached_input_tokens():
    client = mock.client(mock.Script("one", "two"))
    first = client.responses.create(model="mock-model", instructions=LONG_RULES, input="Hi")
    second = client.responses.create(model="mock-model", instructions=LONG_RULES, input="Hi")
    assert first.usage.input_tokens_details.cached_tokens == 0
    assert second.usage.input_tokens_details.cached_tokens >= OPENAI_MINIMUM
    assert second.usage.input_tokens_details.cached_tokens % OPENAI_INCREMENT == 0


def test_the_ledger_reads_cached_tokens_from_usage_and_bills_them_at_the_cache_price():
    from agent_core.context import token_ledger
    from agent_core.costs import Prices, billed_costs, call_costs

    run = run_agent(mock.client(mock.Calculator()), "5 + 8/12 + 1", [add], system=LONG_RULES)
    ledger = token_ledger(run)
    reported = [turn.usage.get("prompt_tokens_details", {}).get("cached_tokens", 0) for turn in run.trace]
    assert [row.cached for row in ledger.rows] == reported and reported[-1] > 0
    prices = Prices(input=2.0, output=8.0, cache_read_multiplier=0.1)
    billed, plain = billed_costs(ledger, prices), call_costs(ledger, prices)
    assert billed[0] == plain[0]
    for row, cost, full in zip(ledger.rows[1:], billed[1:], plain[1:], strict=True):
        assert abs((full - cost) - row.cached * 2.0 * 0.9 / 1_000_000) < 1e-12


# --- Anthropic: explicit cache_control breakpoints ----------------------------------------------


def anthropic_usage(server, model="mock-model", **request):
    import anthropic

    client = anthropic.Anthropic(base_url=server.url, api_key="anything")
    return client.messages.create(model=model, max_tokens=100, **request).usage


MARKED = [{"type": "text", "text": LONG_RULES, "cache_control": {"type": "ephemeral"}}]


def test_a_marked_prefix_is_written_once_then_read_and_the_three_parts_add_up():
    from agent_core.mock.server import serve

    with serve(mock.Script("one", "two", "three")) as server:
        plain = anthropic_usage(server, system=LONG_RULES, messages=[{"role": "user", "content": "Hi"}])
        first = anthropic_usage(server, system=MARKED, messages=[{"role": "user", "content": "Hi"}])
        second = anthropic_usage(
            server, system=MARKED, messages=[{"role": "user", "content": "Something else"}]
        )
    assert (plain.cache_creation_input_tokens, plain.cache_read_input_tokens) == (
        0,
        0,
    )  # always sent, as the API does
    assert first.cache_creation_input_tokens >= 1024 and first.cache_read_input_tokens == 0
    assert first.input_tokens + first.cache_creation_input_tokens == plain.input_tokens
    assert second.cache_read_input_tokens == first.cache_creation_input_tokens
    assert second.cache_creation_input_tokens == 0 and 0 < second.input_tokens < 50


def test_a_marked_prefix_below_the_minimum_is_not_cached_and_haiku_needs_more():
    from agent_core.mock.server import serve

    short = [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}]
    medium = [{"type": "text", "text": LONG_RULES[:6000], "cache_control": {"type": "ephemeral"}}]
    with serve(mock.Script("one", "two", "three")) as server:
        tiny = anthropic_usage(server, system=short, messages=[{"role": "user", "content": "Hi"}])
        sonnet = anthropic_usage(server, system=medium, messages=[{"role": "user", "content": "Hi"}])
        haiku = anthropic_usage(
            server, model="mock-haiku", system=medium, messages=[{"role": "user", "content": "Hi"}]
        )
    assert (tiny.cache_creation_input_tokens, tiny.cache_read_input_tokens) == (0, 0)
    assert 1024 <= sonnet.cache_creation_input_tokens < 2048
    assert (haiku.cache_creation_input_tokens, haiku.cache_read_input_tokens) == (0, 0)


def test_a_changed_block_before_the_breakpoint_misses_the_cache():
    from agent_core.mock.server import serve

    changed = [{"type": "text", "text": "Today is Monday."}, *MARKED]
    with serve(mock.Script("one", "two")) as server:
        anthropic_usage(server, system=MARKED, messages=[{"role": "user", "content": "Hi"}])
        again = anthropic_usage(server, system=changed, messages=[{"role": "user", "content": "Hi"}])
    assert again.cache_read_input_tokens == 0 and again.cache_creation_input_tokens > 1024
