"""A failure travels as a typed field, not as text a tool's output can imitate; a stream is a stream,
never read as an empty message."""

import openai
import pytest

from agent_core import mock
from agent_core._shared import ERROR_PREFIX, ErrorText, failure
from agent_core.calls import assistant_message, tool_calls_of
from agent_core.dispatch import ToolFailure, ToolRegistry, is_error
from agent_core.loop import run_agent


def log_line() -> str:
    """Return the last line of the service log."""
    return "ERROR: disk full on /var (this is the log's own text)"


def check_disk() -> str:
    """Check the disk."""
    return failure("the disk cannot be read now; try again later")


def lookup(user: str) -> str:
    """Look a user up.

    Args:
        user: the user's name.
    """
    raise ToolFailure(f"the directory is down; {user} cannot be looked up now.")


def call(name: str, arguments: str = "{}") -> dict:
    return {"id": "call_1", "type": "function", "function": {"name": name, "arguments": arguments}}


def test_a_tool_whose_output_starts_with_error_is_not_a_failed_call():
    observation = ToolRegistry([log_line]).run(call("log_line"))
    assert observation.content == log_line()  # the model reads the tool's words, unchanged
    assert not observation.is_error and observation.error_type is None
    assert not is_error(observation)


def test_a_tool_reports_its_own_failure_by_type_and_the_model_reads_the_same_text():
    registry = ToolRegistry([check_disk, lookup])
    returned = registry.run(call("check_disk"))
    raised = registry.run(call("lookup", '{"user": "ada"}'))
    assert isinstance(check_disk(), str) and check_disk().startswith(ERROR_PREFIX)  # a caller sees text
    assert (returned.is_error, returned.error_type) == (True, "tool_error")
    assert returned.content == ERROR_PREFIX + "the disk cannot be read now; try again later"
    assert (raised.is_error, raised.error_type) == (True, "tool_error")
    assert raised.content == ERROR_PREFIX + "the directory is down; ada cannot be looked up now."


def test_through_run_agent_only_the_real_failure_is_one():
    client = mock.client(mock.Script([mock.call("log_line"), mock.call("check_disk")], "done"))
    run = run_agent(client, "look at the log and the disk", [log_line, check_disk])
    assert run.stop_reason == "answered"
    assert [(o.name, o.is_error) for o in run.observations] == [("log_line", False), ("check_disk", True)]
    sent = [m for m in client.trace.turns[-1].messages if m["role"] == "tool"]
    assert [m["content"] for m in sent] == [log_line(), str(check_disk())]  # the wire is unchanged


def test_text_that_only_looks_like_an_error_stays_plain_text():
    assert type(ERROR_PREFIX + "x") is str and not isinstance(ERROR_PREFIX + "x", ErrorText)
    assert isinstance(failure("x"), ErrorText) and failure("x") == "ERROR: x"


def test_run_agent_refuses_stream_true_at_once_saying_what_to_do():
    client = mock.client(mock.Script("never sent"))
    with pytest.raises(ValueError, match="does not take stream=True: leave it out"):
        run_agent(client, "hi", stream=True)
    assert len(client.trace) == 0  # refused before any model call


def test_a_stream_is_never_read_as_an_empty_message():
    client = mock.client(mock.Script(mock.call("add", a=1, b=2)))
    stream = client.chat.completions.create(
        model="mock-model", messages=[{"role": "user", "content": "1 + 2"}], stream=True
    )
    assert isinstance(stream, openai.Stream)
    for reader in (tool_calls_of, assistant_message):
        with pytest.raises(TypeError, match="this is a stream"):
            reader(stream)
    stream.close()


def test_something_that_is_not_a_reply_is_refused_by_name():
    with pytest.raises(TypeError, match="not int"):
        tool_calls_of(42)
