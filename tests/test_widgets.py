import pytest

from agent_core import mock, render
from agent_core.trace import Trace
from agent_core.widgets import TraceViewer, step_through

ADD_TOOL = {
    "type": "function",
    "function": {
        "name": "add",
        "description": "Add two numbers.",
        "parameters": {
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
        },
    },
}


def run_conversation():
    """turn 1 asks for a tool, turn 2 answers, turn 3 is refused by the API"""
    client = mock.client(mock.Script(mock.call("add", a=2, b=3), "2 + 3 = 5."))
    messages = [{"role": "user", "content": "What is 2 + 3?"}]
    first = client.chat.completions.create(model="mock-model", messages=messages, tools=[ADD_TOOL])
    call = first.choices[0].message.tool_calls[0]
    messages += [
        first.choices[0].message,
        {"role": "tool", "tool_call_id": call.id, "content": "5"},
    ]
    client.chat.completions.create(model="mock-model", messages=messages, tools=[ADD_TOOL])
    with pytest.raises(Exception, match="Error code: 400"):
        client.chat.completions.create(model="mock-model", messages=[])
    return client


def test_buttons_and_slider_move_together_and_stop_at_the_ends():
    viewer = step_through(run_conversation())
    assert (viewer.slider.value, viewer.index) == (1, 0)
    assert viewer.previous_button.disabled and not viewer.next_button.disabled
    viewer.next_button.click()
    assert (viewer.slider.value, viewer.index) == (2, 1)
    viewer.slider.value = 3
    assert viewer.index == 2 and viewer.next_button.disabled
    viewer.next_button.click()  # already on the last turn
    assert viewer.slider.value == 3
    viewer.previous_button.click()
    assert viewer.slider.value == 2 and not viewer.previous_button.disabled
    viewer.show(-7)
    assert viewer.slider.value == 1 and viewer.previous_button.disabled
    viewer.show(99)
    assert viewer.slider.value == 3
    assert (viewer.slider.min, viewer.slider.max) == (1, 3)


def test_each_turn_shows_its_own_request_response_and_new_messages():
    client = run_conversation()
    trace = client.trace
    call_id = trace[0].reply["tool_calls"][0]["id"]
    viewer = TraceViewer(trace)
    assert "Turn 1 of 3 · prompt" in viewer.header_html.value
    assert "finish_reason: tool_calls" in viewer.header_html.value
    assert "tool_call_id" not in viewer.request_html.value
    assert call_id in viewer.response_html.value
    assert viewer.new_messages_html.value.count("+ new</span>") == 1  # the user's question

    viewer.next_button.click()
    usage = trace[1].usage
    assert (
        f"Turn 2 of 3 · prompt {usage['prompt_tokens']} · "
        f"completion {usage['completion_tokens']} tokens · finish_reason: stop"
    ) in viewer.header_html.value
    assert "&quot;tool_call_id&quot;" in viewer.request_html.value
    assert "2 + 3 = 5." in viewer.response_html.value
    new = viewer.new_messages_html.value
    assert new.count("+ new</span>") == 2 and "(1 earlier sent again)" in new
    assert new.index(">assistant<") < new.index(">tool<")
    assert render.messages_html(trace.new_messages(1), start=1, new=True) in new


def test_a_refused_turn_says_so_in_the_header_and_the_token_table():
    viewer = step_through(run_conversation())
    viewer.slider.value = 3
    assert "HTTP 400: refused" in viewer.header_html.value
    assert "invalid_request_error" in viewer.response_html.value
    assert "refused" in viewer.tokens_html.value


def test_token_table_has_a_row_per_turn_and_marks_the_turn_on_show():
    client = run_conversation()
    viewer = TraceViewer(client.trace)
    table = viewer.tokens_html.value
    assert table.count("<tr") == 4  # header + 3 turns
    first_row = table.split("<tr")[2]
    assert first_row.startswith(' style="font-weight:bold')
    assert f">{client.trace[0].usage['total_tokens']}</td>" in first_row
    viewer.next_button.click()
    assert viewer.tokens_html.value.split("<tr")[3].startswith(' style="font-weight:bold')


def test_repr_and_notebook_output_are_short_and_deterministic():
    client = run_conversation()
    one, two = TraceViewer(client.trace), TraceViewer(client)
    assert repr(one) == "TraceViewer: 3 turns (open in JupyterLab to step through)"
    first, second = one._repr_mimebundle_(), two._repr_mimebundle_()
    assert first["text/plain"] == second["text/plain"] == repr(one)
    assert first["text/html"] == second["text/html"]
    assert "Turn 1 of 3" in first["text/html"]
    # the live widget's id differs on every run: nbval skips this mime type by default
    view = "application/vnd.jupyter.widget-view+json"
    assert first[view]["model_id"] != second[view]["model_id"]


def test_snapshot_shows_the_turn_on_show_without_the_live_widget():
    viewer = step_through(run_conversation())
    viewer.next_button.click()
    snapshot = viewer.snapshot()
    assert "Turn 2 of 3" in snapshot._repr_html_()
    assert repr(snapshot) == repr(viewer)
    assert not hasattr(snapshot, "_repr_mimebundle_")


def test_an_empty_trace_or_a_wrong_value_is_refused_clearly():
    with pytest.raises(ValueError, match="no turns yet"):
        TraceViewer(Trace())
    with pytest.raises(TypeError, match="expected a Trace or a recorded client, got dict"):
        step_through({"turns": []})
    single = mock.client()
    single.chat.completions.create(model="mock-model", messages=[{"role": "user", "content": "hi"}])
    viewer = step_through(single)
    assert repr(viewer) == "TraceViewer: 1 turn (open in JupyterLab to step through)"
    assert viewer.previous_button.disabled and viewer.next_button.disabled
