"""The log folder, its tools, and the LogReader and Summarizer policies, on the strict mock."""

import pytest

from agent_core import mock
from agent_core.dispatch import ToolRegistry
from agent_core.loop import run_agent
from agent_core.mock.context_policies import (
    LogReader,
    Summarizer,
    is_summary_request,
    log_tools,
    make_log,
    sample_logs,
)
from agent_core.tokens import count_text

TASK = "Check these logs for 'ERROR': api.log, auth.log."
FOLDER_TASK = (
    "Check every log in the folder for 'ERROR' lines and say how many each has.\n"
    "Do not open anything under private/: those logs hold card numbers."
)


def errors_in(text, word="ERROR"):
    return sum(word in line for line in text.splitlines())


def registry(files, *names):
    return ToolRegistry(log_tools(files, *names), max_chars=None)


def called(run):
    return [
        (c["function"]["name"], c["function"]["arguments"])
        for m in run.messages
        for c in m.get("tool_calls") or []
    ]


# --- the folder and its tools -------------------------------------------------------------------


def test_make_log_is_deterministic_and_puts_errors_where_asked():
    log = make_log("api", 10, (2, 7))
    assert log == make_log("api", 10, (2, 7))
    lines = log.splitlines()
    assert len(lines) == 10
    assert [i for i, line in enumerate(lines) if " ERROR " in line] == [2, 7]
    assert lines[0].startswith("2026-03-02 09:03:00 INFO  api ")


def test_sample_logs_has_a_small_and_a_big_billing_log():
    small, big = sample_logs(), sample_logs(big_billing=True)
    assert set(small) == set(big) and "private/cards.log" in small
    assert count_text(small["billing.log"]) < 250
    assert 8_000 <= count_text(big["billing.log"]) <= 8_400
    assert {p: t for p, t in small.items() if p != "billing.log"} == {
        p: t for p, t in big.items() if p != "billing.log"
    }


def test_log_tools_refuses_an_unknown_tool_name():
    with pytest.raises(ValueError, match="unknown log tool"):
        log_tools({}, "delete_file")


def test_read_file_returns_the_whole_file_or_a_range_of_lines():
    files = {"a.log": "one\ntwo\nthree\n"}
    (read_file,) = log_tools(files, "read_file")
    assert read_file("a.log") == "one\ntwo\nthree\n"
    assert read_file("a.log", start_line=2, end_line=3) == "two\nthree\n"
    assert read_file("a.log", end_line=1) == "one\n"


def test_search_file_returns_the_count_and_at_most_twenty_numbered_lines():
    files = {"a.log": "".join(f"line {i} {'ERROR' if i % 2 else 'ok'}\n" for i in range(1, 51))}
    (search_file,) = log_tools(files, "search_file")
    report = search_file("a.log", "ERROR").splitlines()
    assert report[0] == "25 of 50 lines match"
    assert report[1] == "1: line 1 ERROR"
    assert len(report) == 1 + 20 + 1
    assert report[-1] == "[... 5 more matching lines not shown]"


def test_a_missing_file_is_an_observation_that_lists_the_files():
    observation = registry({"a.log": "x\n"}, "read_file").run(
        {"id": "c1", "function": {"name": "read_file", "arguments": '{"path": "b.log"}'}}
    )
    assert observation.is_error
    assert "there is no file 'b.log'; the files are: a.log" in observation.content


# --- LogReader ----------------------------------------------------------------------------------


def test_log_reader_reads_each_named_file_once_then_reports_exact_counts():
    logs = sample_logs()
    run = run_agent(mock.client(LogReader()), TASK, registry(logs, "read_file"))
    assert run.stop_reason == "answered" and run.model_calls == 3
    assert called(run) == [
        ("read_file", '{"path": "api.log"}'),
        ("read_file", '{"path": "auth.log"}'),
    ]
    api, auth = errors_in(logs["api.log"]), errors_in(logs["auth.log"])
    assert run.answer == (
        f"Lines containing 'ERROR':\n- api.log: {api}\n- auth.log: {auth}\nTotal: {api + auth} in 2 files."
    )


def test_log_reader_prefers_search_file_when_it_is_offered():
    logs = sample_logs()
    run = run_agent(mock.client(LogReader()), TASK, registry(logs, "read_file", "search_file"))
    assert [name for name, _ in called(run)] == ["search_file", "search_file"]
    assert f"- api.log: {errors_in(logs['api.log'])}" in run.answer


def test_log_reader_lists_the_folder_and_skips_what_it_is_told_not_to_open():
    logs = sample_logs()
    run = run_agent(mock.client(LogReader()), FOLDER_TASK, registry(logs), max_turns=15)
    assert run.stop_reason == "answered"
    paths = [arguments for name, arguments in called(run)]
    assert called(run)[0] == ("list_files", "{}")
    assert not any("private/" in p for p in paths)
    assert len(paths) == 1 + len(logs) - 1
    assert "Not opened, as instructed: private/cards.log." in run.answer
    total = sum(errors_in(t) for p, t in logs.items() if not p.startswith("private/"))
    assert f"Total: {total} in 9 files." in run.answer


def test_log_reader_obeys_a_rule_in_the_system_prompt():
    logs = sample_logs()
    task, rule = FOLDER_TASK.split("\n")
    run = run_agent(mock.client(LogReader()), task, registry(logs), system=rule, max_turns=15)
    assert not any("private/" in arguments for _, arguments in called(run))


def test_log_reader_says_at_least_when_a_result_was_cut():
    logs = sample_logs(big_billing=True)
    tools = ToolRegistry(log_tools(logs, "read_file"), max_chars=2000)  # the dispatcher cuts
    run = run_agent(mock.client(LogReader()), "Check 'ERROR' in billing.log.", tools)
    assert "- billing.log: at least " in run.answer and "(part of it was cut)" in run.answer
    assert "Total: at least " in run.answer


def test_log_reader_reports_a_file_it_could_not_read():
    run = run_agent(mock.client(LogReader()), TASK, registry({"api.log": "ERROR x\n"}, "read_file"))
    assert "- api.log: 1" in run.answer
    assert "- auth.log: could not be read (ERROR: the tool 'read_file' raised" in run.answer


def test_log_reader_without_tools_says_what_it_needs():
    client = mock.client(LogReader())
    reply = client.chat.completions.create(
        model="mock-model", messages=[{"role": "user", "content": FOLDER_TASK}]
    )
    assert "give me a list_files tool" in reply.choices[0].message.content


def test_log_reader_carries_on_from_a_summary():
    logs = sample_logs()
    summary = (
        "[Summary of 5 earlier messages, written to save space]\n"
        "- The user asked: Check these logs for 'ERROR': api.log, auth.log.\n"
        '- called read_file {"path": "api.log"} -> 38 lines, 2 with \'ERROR\''
    )
    run = run_agent(mock.client(LogReader()), summary, registry(logs, "read_file"))
    assert called(run) == [("read_file", '{"path": "auth.log"}')]
    assert "- api.log: 2\n" in run.answer and "Total: 3 in 2 files." in run.answer


# --- Summarizer ---------------------------------------------------------------------------------


def finished_run():
    logs = sample_logs()
    return run_agent(mock.client(LogReader()), FOLDER_TASK, registry(logs), max_turns=15)


def test_summarizer_keeps_the_first_line_of_the_task_and_an_account_of_each_call():
    run = finished_run()
    summary = Summarizer().reply({"messages": run.messages})
    lines = summary.splitlines()
    assert lines[0] == f"- The user asked: {FOLDER_TASK.splitlines()[0]}"
    assert "private/" not in lines[0] and "Do not open" not in summary
    assert lines[1].startswith("- called list_files {} -> api.log, auth.log, billing.log")
    assert lines[2] == '- called read_file {"path": "api.log"} -> 38 lines, 2 with \'ERROR\''
    assert lines[-1] == "- The assistant said: Lines containing 'ERROR':"


def test_summarizer_is_deterministic_and_keeps_an_earlier_summary():
    earlier = "[Summary of 3 earlier messages]\n- The user asked: count\n- called x {} -> 1"
    messages = [{"role": "user", "content": earlier}, {"role": "assistant", "content": "ok"}]
    summary = Summarizer().reply({"messages": messages})
    assert summary == "- The user asked: count\n- called x {} -> 1\n- The assistant said: ok"
    assert Summarizer().reply({"messages": messages}) == summary


def test_a_summary_request_with_tool_calls_in_it_is_accepted_by_the_strict_mock():
    run = finished_run()
    messages = [*run.messages, {"role": "user", "content": "Summarise the conversation so far."}]
    client = mock.client(LogReader())  # the reader summarises when asked to
    reply = client.chat.completions.create(
        model="mock-model", messages=messages, tools=run.tools.definitions, tool_choice="none"
    )
    assert reply.choices[0].message.content == Summarizer().reply({"messages": run.messages})


@pytest.mark.parametrize(
    "last, expected",
    [("Summarise the conversation so far.", True), ("summarize it", True), ("Count them", False)],
)
def test_is_summary_request(last, expected):
    messages = [{"role": "user", "content": "hi"}, {"role": "user", "content": last}]
    assert is_summary_request({"messages": messages}) is expected
    assert not is_summary_request({"messages": messages[1:]})
