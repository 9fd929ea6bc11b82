"""run_agent: the loop on the mock model with real tools and the real dispatcher."""

import math

import openai
import pytest
from calculator_tools import add, divide

from agent_core import mock
from agent_core.dispatch import ToolRegistry
from agent_core.loop import Guardrail, StopRun, run_agent
from agent_core.trace import Trace


def test_five_plus_eight_twelfths_takes_three_model_calls():
    run = run_agent(mock.client(mock.Calculator()), "5 + 8/12", ToolRegistry([add, divide]))
    assert run.stop_reason == "answered"
    assert run.model_calls == 3 and len(run.trace) == 3
    assert run.answer == "5 + 8/12 = 5.666666666666667"
    first_calls = run.trace[0].reply["tool_calls"]
    assert [c["function"]["name"] for c in first_calls] == ["divide"]
    assert run.trace[1].reply["tool_calls"][0]["function"]["name"] == "add"
    assert math.isclose(float(run.answer.split("=")[1]), 5 + 8 / 12)


@pytest.mark.parametrize("task", ["4+2 and 7+8", "Suma 4+2 y suma 7+8"])
def test_independent_sums_are_requested_in_parallel(task):
    run = run_agent(mock.client(mock.Calculator()), task, [add])
    assert run.model_calls == 2
    assert len(run.trace[0].reply["tool_calls"]) == 2
    assert run.tool_calls_made == 2
    assert "6" in run.answer and "15" in run.answer


@pytest.mark.parametrize("tools", [[add], [divide]])
def test_a_missing_tool_is_done_in_the_models_head(tools):
    run = run_agent(mock.client(mock.Calculator()), "5 + 8/12", tools)
    assert run.model_calls == 2
    assert run.answer == "5 + 8/12 = 5.666666666666667"


def test_the_tool_call_id_threads_each_result_to_its_request():
    run = run_agent(mock.client(mock.Calculator()), "4+2 and 7+8", [add])
    requested = [c["id"] for c in run.messages[1]["tool_calls"]]
    answered = [m["tool_call_id"] for m in run.messages[2:4]]
    assert requested == answered
    assert [m["content"] for m in run.messages[2:4]] == ["6", "15"]


def test_the_turn_cap_stops_with_an_honest_message():
    script = mock.Script(*[mock.call("add", a=1, b=1)] * 5)
    run = run_agent(mock.client(script), "loop for ever", [add], max_turns=3)
    assert run.stop_reason == "max_turns"
    assert run.model_calls == 3
    assert "stopped after 3 model calls" in run.answer
    assert run.messages[-1]["role"] == "tool"  # every call was still answered


def test_model_mistakes_become_observations_and_the_loop_goes_on():
    script = mock.Script(mock.call("multiply", a=2, b=3), mock.call("add", '{"a": 2,'), "I give up.")
    run = run_agent(mock.client(script), "2 * 3", [add])
    assert run.stop_reason == "answered" and run.answer == "I give up."
    assert [o.error_type for o in run.observations] == ["unknown_tool", "invalid_json"]


def test_a_conversation_continues_after_the_system_prompt():
    conversation = [
        {"role": "user", "content": "earlier"},
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": "hello"},
    ]
    run = run_agent(mock.client(mock.Script("hi")), conversation, [], system="Be brief.")
    assert [m["role"] for m in run.trace[0].messages] == ["system", "user", "assistant", "user"]
    assert run.task == "hello" and run.answer == "hi"
    assert "tools" not in run.trace[0].request  # no tools offered, no empty list sent


class Deny(Guardrail):
    def before_tool(self, run, call):
        return "ERROR: refused by policy"


class StopAfterFirstTool(Guardrail):
    def after_tool(self, run, call, observation):
        raise StopRun("needs_approval", "stopped by a guardrail")


class RejectFirstAnswer(Guardrail):
    def __init__(self):
        self.rejected = False

    def check_answer(self, run, answer):
        if not self.rejected:
            self.rejected = True
            return "Check your answer again."
        return None


def test_a_guardrail_can_refuse_a_tool_call():
    run = run_agent(
        mock.client(mock.Script(mock.call("add", a=1, b=2), "ok")), "1+2", [add], guardrails=[Deny()]
    )
    assert run.messages[2]["content"] == "ERROR: refused by policy"
    assert run.observations[0].error_type == "refused"


def test_a_guardrail_stop_leaves_a_valid_history():
    script = mock.Script([mock.call("add", a=1, b=2), mock.call("add", a=3, b=4)])
    run = run_agent(mock.client(script), "two sums", [add], guardrails=[StopAfterFirstTool()])
    assert run.stop_reason == "needs_approval" and run.answer == "stopped by a guardrail"
    assert [m["role"] for m in run.messages[-2:]] == ["tool", "tool"]
    assert run.messages[-1]["content"].startswith("ERROR: not run")
    mock.check_request({"model": "m", "messages": run.messages})  # the strict rules still hold


def test_a_guardrail_can_reject_the_final_answer():
    run = run_agent(mock.client(mock.Script("done?", "done!")), "task", [], guardrails=[RejectFirstAnswer()])
    assert run.answer == "done!" and run.model_calls == 2
    assert run.messages[2] == {"role": "user", "content": "Check your answer again."}


def test_a_plain_client_is_recorded_and_its_connection_closed():
    from agent_core.mock.server import serve

    with serve(mock.Calculator()) as server:
        import openai

        plain = openai.OpenAI(base_url=server.base_url, api_key="not-needed", max_retries=0)
        run = run_agent(plain, "4 + 2", [add])
        plain.close()
    assert run.answer == "4 + 2 = 6" and len(run.trace) == 2
    assert run.trace[0].url.startswith(server.base_url)


def test_guardrails_see_the_usage_of_every_model_call():
    seen = []

    class Usage(Guardrail):
        def after_model(self, run, message, usage):
            seen.append(usage.total_tokens)

    run = run_agent(mock.client(mock.Calculator()), "4 + 2", [add], guardrails=[Usage()])
    assert seen == [t.usage["total_tokens"] for t in run.trace] and len(seen) == 2


@pytest.mark.parametrize("task", [[], {"role": "user", "content": "hi"}, ["hi"], None, 42])
def test_a_task_that_is_neither_a_request_nor_a_conversation_is_refused_with_what_to_give(task):
    with pytest.raises(ValueError, match=r"task is the user's request \(a str\) or the messages to continue"):
        run_agent(mock.client(), task)


def test_a_run_records_its_own_calls_numbered_from_zero_as_they_crossed_the_wire():
    client = mock.client(mock.Calculator())
    client.chat.completions.create(model="mock-model", messages=[{"role": "user", "content": "hi"}])
    run = run_agent(client, "4 + 2", [add])
    assert [turn.index for turn in run.trace] == [0, 1]
    wire = client.trace.turns[1:]  # the mock's transport saw the same two calls, after the first one
    assert [(t.method, t.url, t.status, t.sent, t.received) for t in run.trace] == [
        (t.method, t.url, t.status, t.sent, t.received) for t in wire
    ]
    assert all(turn.elapsed_ms > 0 for turn in run.trace)


def test_a_refused_call_is_recorded_in_the_given_trace_then_raised():
    trace = Trace()
    client = mock.client(mock.Script(mock.call("add", a=1, b=2), "done"))
    with pytest.raises(openai.BadRequestError):
        run_agent(client, "1+2", [add], trace=trace, temperature=7)
    assert [turn.status for turn in trace] == [400] and trace[0].index == 0
    assert "temperature" in trace[0].error["message"] and trace[0].request["temperature"] == 7


def test_every_request_of_a_run_carries_the_default_output_cap():
    from agent_core._shared import DEFAULT_MAX_TOKENS

    run = run_agent(mock.client(mock.Calculator()), "5 + 8/12", [add, divide])
    assert run.stop_reason == "answered" and len(run.trace) == 3
    assert [turn.request["max_tokens"] for turn in run.trace] == [DEFAULT_MAX_TOKENS] * 3


def test_the_output_cap_can_be_changed_or_lifted():
    lower = run_agent(mock.client(mock.Script("fine")), "hi", max_tokens=50)
    lifted = run_agent(mock.client(mock.Script("fine")), "hi", max_tokens=None)
    newer = run_agent(mock.client(mock.Script("fine")), "hi", max_completion_tokens=70)
    assert lower.trace[0].request["max_tokens"] == 50
    assert "max_tokens" not in lifted.trace[0].request
    assert "max_tokens" not in newer.trace[0].request
    assert newer.trace[0].request["max_completion_tokens"] == 70
    assert {run.stop_reason for run in (lower, lifted, newer)} == {"answered"}


def test_a_reply_cut_by_the_output_cap_ends_the_run_as_output_cap_with_its_partial_text():
    rambling = " ".join(["the model goes on and on"] * 200)
    run = run_agent(mock.client(mock.Script(rambling)), "Say something", max_tokens=20)
    assert run.stop_reason == "output_cap"
    assert run.trace[0].finish_reason == "length"
    assert run.answer and rambling.startswith(run.answer) and len(run.answer) < len(rambling)
    assert run.model_calls == 1  # stopped at once, not retried into more runaway calls


def test_an_empty_answer_is_reported_as_empty_not_as_answered():
    for said in ("", "   \n"):
        run = run_agent(mock.client(mock.Script(said)), "What is 2 + 2?", [add])
        assert run.stop_reason == "empty_answer"
        assert "no text and no tool call" in (run.answer or "")


def test_the_assistant_turn_with_tool_calls_goes_back_with_empty_text_not_null():
    """llama.cpp's Python server answers null content with HTTP 500; every server accepts \"\""""
    run = run_agent(mock.client(mock.Calculator()), "4 + 2", [add])
    with_calls = [m for m in run.messages if m["role"] == "assistant" and m.get("tool_calls")]
    assert with_calls and all(m["content"] == "" for m in with_calls)
    assert run.trace[0].reply["content"] is None  # what the API itself answers is shown as it came
