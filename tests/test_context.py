"""The token ledger, pruning and compaction, measured on real runs of the mock."""

import openai
import pytest

from agent_core import mock
from agent_core.context import (
    SUMMARY_REQUEST,
    Compactor,
    Ledger,
    compact,
    count_tokens,
    keep_head_and_tail,
    plot_ledgers,
    pruned,
    split_point,
    summarize,
    token_ledger,
)
from agent_core.dispatch import ToolRegistry
from agent_core.loop import run_agent
from agent_core.mock.context_policies import LogReader, Summarizer, log_tools, sample_logs
from agent_core.tokens import count_text

FIVE_CALLS = "Check these logs for 'ERROR': api.log, auth.log, cron.log, mail.log."
TEN_CALLS = (
    "Check these logs for 'ERROR': api.log, billing.log, auth.log, cron.log, mail.log, "
    "queue.log, search.log, worker.log, cache.log."
)
FOLDER_TASK = "Check every log in the folder for 'ERROR' lines and say how many each has."
RULE = "Do not open anything under private/: those logs hold card numbers."


def read_run(task, big_billing=False, tools=None):
    logs = sample_logs(big_billing)
    tools = tools or log_tools(logs, "read_file")
    return run_agent(mock.client(LogReader()), task, ToolRegistry(tools, max_chars=None))


@pytest.fixture(scope="module")
def five():
    return read_run(FIVE_CALLS)


def opened(run):
    return [c["function"]["arguments"] for m in run.messages for c in m.get("tool_calls") or []]


# --- the ledger ---------------------------------------------------------------------------------


def test_the_ledger_is_computed_from_each_responses_usage(five):
    ledger = token_ledger(five)
    usages = [turn.usage for turn in five.trace]
    assert [row.prompt for row in ledger.rows] == [u["prompt_tokens"] for u in usages]
    assert [row.completion for row in ledger.rows] == [u["completion_tokens"] for u in usages]
    running = 0
    for row, usage in zip(ledger.rows, usages, strict=True):
        running += usage["prompt_tokens"]
        assert row.cumulative_input == running
    assert ledger.total_output == sum(u["completion_tokens"] for u in usages)
    assert ledger.final_history == usages[-1]["prompt_tokens"] + usages[-1]["completion_tokens"]


def test_every_call_resends_the_whole_history(five):
    ledger = token_ledger(five)
    assert [row.messages for row in ledger.rows] == [1, 3, 5, 7, 9]
    for before, after in zip(five.trace.turns, five.trace.turns[1:], strict=False):
        assert after.messages[: len(before.messages)] == before.messages
    assert [row.resent for row in ledger.rows] == [0] + [row.prompt for row in ledger.rows[:-1]]


def test_a_five_call_run_pays_about_two_and_a_half_times_its_final_history(five):
    ledger = token_ledger(five)
    assert five.model_calls == 5 and len(ledger.rows) == 5
    assert 3_800 <= ledger.final_history <= 4_600
    assert 9_300 <= ledger.total_input <= 11_300
    assert 2.2 <= ledger.ratio <= 2.8
    assert ledger.ratio == ledger.total_input / ledger.final_history


def test_an_eight_thousand_token_result_in_call_two_of_ten_adds_about_64k_input():
    small, big = read_run(TEN_CALLS), read_run(TEN_CALLS, big_billing=True)
    assert small.model_calls == big.model_calls == 10
    assert opened(big)[1] == '{"path": "billing.log"}'
    extra = token_ledger(big).total_input - token_ledger(small).total_input
    assert 56_000 <= extra <= 72_000
    grown = count_text(sample_logs(True)["billing.log"]) - count_text(sample_logs()["billing.log"])
    assert abs(extra - 8 * grown) < 50  # re-sent by the eight calls after the one that read it


def test_the_ledger_accepts_a_trace_or_a_run_and_skips_refused_calls(five):
    assert token_ledger(five.trace) == token_ledger(five)
    client = mock.client(mock.Script("hi"))
    client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
    with pytest.raises(openai.BadRequestError):
        client.chat.completions.create(model="m", messages=[])
    ledger = token_ledger(client.trace)
    assert len(client.trace) == 2 and len(ledger.rows) == 1
    with pytest.raises(TypeError, match="needs a Trace"):
        token_ledger([1, 2])


def test_the_ledger_table_shows_each_call_and_the_totals(five):
    table = str(token_ledger(five))
    assert table.splitlines()[0].split() == [
        "call", "messages", "prompt", "completion", "re-sent", "cached",
        "cumulative", "in", "cumulative", "out",
    ]  # fmt: skip
    assert len(table.splitlines()) == 1 + 5 + 1
    assert "(2.45x)" in table.splitlines()[-1]
    assert Ledger(()).total_input == 0 and Ledger(()).ratio == 0.0


# --- pruning ------------------------------------------------------------------------------------


def test_keep_head_and_tail_leaves_a_short_text_alone():
    assert keep_head_and_tail("short text", 100) == "short text"


def test_keep_head_and_tail_keeps_the_ends_within_the_budget_and_marks_the_cut():
    log = sample_logs(big_billing=True)["billing.log"]
    cut = keep_head_and_tail(log, 300)
    assert count_text(cut) <= 300
    assert cut.startswith(log[:40]) and cut.endswith(log[-40:])
    marker = [line for line in cut.splitlines() if line.startswith("[... ")]
    assert len(marker) == 1 and marker[0].endswith(" tokens cut from the middle ...]")
    removed = int(marker[0].split()[1].replace(",", ""))
    assert removed == count_text(log) - (300 - 20)


@pytest.mark.parametrize("budget", [22, 23, 57, 100, 1000])
def test_keep_head_and_tail_stays_within_the_budget_on_any_text(budget):
    texts = [sample_logs(big_billing=True)["billing.log"], "naïve café 😀 漢字 " * 300, "x" * 9000]
    for text in texts:
        assert count_text(keep_head_and_tail(text, budget)) <= budget


def test_keep_head_and_tail_refuses_a_budget_with_no_room():
    with pytest.raises(ValueError, match="give at least 22"):
        keep_head_and_tail("word " * 500, 5)


def test_a_pruned_tool_has_the_same_definition_and_a_shorter_result():
    logs = sample_logs(big_billing=True)
    (read_file,) = log_tools(logs, "read_file")
    short = pruned(read_file, 500)
    assert ToolRegistry([short]).definitions == ToolRegistry([read_file]).definitions
    assert count_text(short("billing.log")) <= 500
    assert short("api.log", start_line=1, end_line=2) == read_file("api.log", 1, 2)
    assert pruned(lambda: 42, 10)() == 42


def test_pruning_the_big_result_saves_input_tokens_on_the_same_run():
    logs = sample_logs(big_billing=True)
    (read_file,) = log_tools(logs, "read_file")
    whole = token_ledger(read_run(TEN_CALLS, True))
    cut = read_run(TEN_CALLS, True, tools=[pruned(read_file, 1200)])
    (search_file,) = log_tools(logs, "search_file")
    searched = read_run(TEN_CALLS, True, tools=[search_file])
    assert token_ledger(cut).total_input < whole.total_input - 50_000
    assert token_ledger(searched).total_input < token_ledger(cut).total_input
    assert "- billing.log: at least" in cut.answer  # the cut hid some lines
    assert "- billing.log: 4\n" in searched.answer  # the count tool did not


# --- compaction ---------------------------------------------------------------------------------


def call(call_id):
    return {"id": call_id, "type": "function", "function": {"name": "f", "arguments": "{}"}}


SYSTEM = {"role": "system", "content": "rules"}
USER = {"role": "user", "content": "task"}
PARALLEL = {"role": "assistant", "content": None, "tool_calls": [call("a"), call("b")]}
RESULT_A = {"role": "tool", "tool_call_id": "a", "content": "1"}
RESULT_B = {"role": "tool", "tool_call_id": "b", "content": "2"}
ONE = {"role": "assistant", "content": None, "tool_calls": [call("c")]}
RESULT_C = {"role": "tool", "tool_call_id": "c", "content": "3"}
HISTORY = [SYSTEM, USER, PARALLEL, RESULT_A, RESULT_B, ONE, RESULT_C]


@pytest.mark.parametrize(
    "keep_last, start",
    [(1, 5), (2, 5), (3, 2), (4, 2), (5, 2), (6, 1), (20, 1), (0, 7)],
)
def test_split_point_never_separates_a_call_from_its_results(keep_last, start):
    assert split_point(HISTORY, keep_last) == start
    kept = HISTORY[split_point(HISTORY, keep_last) :]
    assert not kept or kept[0]["role"] != "tool"


def test_split_point_without_a_system_prompt_can_start_at_zero():
    assert split_point(HISTORY[1:], 10) == 0
    assert split_point([], 3) == 0


def test_compact_keeps_the_system_prompt_and_the_latest_turns_and_the_api_accepts_it():
    summarizer = mock.client(Summarizer())
    shorter = compact(HISTORY, summarizer, keep_last=2)
    assert shorter[0] == SYSTEM and shorter[2:] == [ONE, RESULT_C]
    assert shorter[1]["role"] == "user"
    assert shorter[1]["content"].startswith("[Summary of 4 earlier messages, written to save space]")
    assert "- The user asked: task" in shorter[1]["content"]
    mock.check_request({"model": "mock-model", "messages": shorter})  # raises if refused
    sent = summarizer.trace[0].request
    assert sent["messages"][-1] == {"role": "user", "content": SUMMARY_REQUEST}
    assert sent["messages"][:-1] == HISTORY[1:5]


def test_compact_leaves_a_history_with_nothing_old_enough_alone():
    summarizer = mock.client(Summarizer())
    assert compact(HISTORY, summarizer, keep_last=6) == HISTORY
    assert len(summarizer.trace) == 0


def test_summarize_sends_the_tools_and_asks_for_text():
    client = mock.client(Summarizer())
    tools = ToolRegistry(log_tools({}, "read_file")).definitions
    summary = summarize(client, HISTORY[1:5], tools=tools)
    assert summary.startswith("- The user asked: task")
    assert client.trace[0].request["tool_choice"] == "none"
    assert client.trace[0].request["tools"] == tools


def folder_run(task, system=None, max_tokens=3000):
    compactor = Compactor(mock.client(Summarizer()), max_tokens=max_tokens, keep_last=4)
    tools = ToolRegistry(log_tools(sample_logs()), max_chars=None)
    run = run_agent(
        mock.client(LogReader()), task, tools, system=system, max_turns=15, guardrails=[compactor]
    )
    return run, compactor


def test_the_compactor_shrinks_the_history_inside_run_agent_and_the_agent_finishes():
    run, compactor = folder_run(FOLDER_TASK)
    assert run.stop_reason == "answered"
    assert compactor.events, "the history never went over max_tokens"
    event = compactor.events[0]
    assert event.tokens_before > 3000 >= event.tokens_after
    assert event.messages_after < event.messages_before
    sent = run.trace[event.before_call - 1]  # the loop sent the compacted list itself
    assert len(sent.messages) == event.messages_after
    assert sent.usage["prompt_tokens"] == event.tokens_after
    assert sent.messages[0]["content"].startswith("[Summary of ")
    ledger = token_ledger(run)
    assert ledger.rows[event.before_call - 1].prompt < ledger.rows[event.before_call - 2].prompt
    logs = sample_logs()
    assert f"Total: {sum(t.count('ERROR') for t in logs.values())} in 10 files." in run.answer


def test_a_compactor_reused_for_a_second_run_reports_that_runs_own_compactions():
    compactor = Compactor(mock.client(Summarizer()), max_tokens=3000, keep_last=4)
    tools = ToolRegistry(log_tools(sample_logs()), max_chars=None)
    long = run_agent(mock.client(LogReader()), FOLDER_TASK, tools, max_turns=15, guardrails=[compactor])
    first = list(compactor.events)
    short = run_agent(mock.client(LogReader()), FIVE_CALLS, tools, guardrails=[compactor])
    assert long.stop_reason == short.stop_reason == "answered" and first
    fresh_run, fresh = folder_run(FIVE_CALLS)
    assert compactor.events == fresh.events and short.answer == fresh_run.answer
    assert [e.before_call for e in compactor.events] == [e.before_call for e in fresh.events] == [4, 5]
    sent = short.trace[compactor.events[0].before_call - 1]
    assert len(sent.messages) == compactor.events[0].messages_after


def test_a_rule_given_in_the_task_is_lost_by_compaction_but_not_from_the_system_prompt():
    lost, _ = folder_run(f"{FOLDER_TASK}\n{RULE}")
    assert any("private/cards.log" in arguments for arguments in opened(lost))
    kept, compactor = folder_run(FOLDER_TASK, system=RULE)
    assert compactor.events and kept.stop_reason == "answered"
    assert not any("private/" in arguments for arguments in opened(kept))
    assert all(m["role"] != "system" for m in kept.messages[1:])
    assert kept.messages[0] == {"role": "system", "content": RULE}


def test_without_compaction_the_rule_in_the_task_is_obeyed():
    run, compactor = folder_run(f"{FOLDER_TASK}\n{RULE}", max_tokens=100_000)
    assert not compactor.events
    assert not any("private/" in arguments for arguments in opened(run))


def test_a_failed_summary_call_stops_the_run_with_a_clear_reason():
    compactor = Compactor(mock.client(mock.Script()), max_tokens=500)
    tools = ToolRegistry(log_tools(sample_logs()), max_chars=None)
    run = run_agent(mock.client(LogReader()), FOLDER_TASK, tools, guardrails=[compactor])
    assert run.stop_reason == "compaction_failed"
    assert "the summary call failed (InternalServerError" in run.answer


def test_count_tokens_is_what_the_mock_bills(five):
    first = five.trace[0]
    assert count_tokens(first.messages, first.request["tools"]) == first.usage["prompt_tokens"]


# --- the picture --------------------------------------------------------------------------------


def test_plot_ledgers_draws_two_panels_and_its_repr_has_no_address(five):
    figure = plot_ledgers({"a": token_ledger(five), "b": token_ledger(five)}, title="t")
    assert len(figure.axes) == 2
    assert repr(figure) == "<Figure size 900x320 with 2 Axes>"
    assert len(figure.axes[0].lines) == 2
    assert list(figure.axes[1].lines[0].get_ydata()) == [
        row.cumulative_input for row in token_ledger(five).rows
    ]
