import pytest
from calculator_tools import ADD_TOOL

from agent_core import mock, render
from agent_core.trace import Trace
from agent_core.widgets import KERNEL_FREE, TraceViewer, step_through


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


def test_a_button_per_turn_switches_pages_through_a_browser_side_link():
    viewer = step_through(run_conversation().trace)
    assert [label for label, _ in viewer.turn_buttons.options] == ["1", "2", "3"]
    assert len(viewer.pages.children) == 3 and viewer.pages.selected_index == 0
    # jslink: the browser switches the page, so it works from saved state without a kernel
    assert viewer.link.source == (viewer.turn_buttons, "index")
    assert viewer.link.target == (viewer.pages, "selected_index")
    assert KERNEL_FREE in viewer._dom_classes
    assert viewer.children == (viewer.turn_buttons, viewer.pages)


def test_show_moves_the_buttons_and_stops_at_the_ends():
    viewer = step_through(run_conversation().trace)
    assert viewer.index == 0
    viewer.show(1)
    assert (viewer.turn_buttons.index, viewer.index) == (1, 1)
    viewer.show(99)
    assert viewer.index == 2 and viewer.turn is viewer.trace[2]
    viewer.show(-7)
    assert viewer.index == 0


def test_each_turn_page_shows_its_own_request_response_and_new_messages():
    client = run_conversation()
    trace = client.trace
    call_id = trace[0].reply["tool_calls"][0]["id"]
    viewer = TraceViewer(trace)
    first, second = (page.value for page in viewer.pages.children[:2])
    assert first == viewer.page_html(0)
    assert "Turn 1 of 3 · prompt" in first and "finish_reason: tool_calls" in first
    request, response = first.split("<b>request JSON</b>")[1].split("<b>response JSON</b>")
    assert "tool_call_id" not in request and call_id in response
    assert first.count("+ new</span>") == 1  # the user's question

    usage = trace[1].usage
    assert (
        f"Turn 2 of 3 · prompt {usage['prompt_tokens']} · "
        f"completion {usage['completion_tokens']} tokens · finish_reason: stop"
    ) in second
    request, response = second.split("<b>request JSON</b>")[1].split("<b>response JSON</b>")
    assert "&quot;tool_call_id&quot;" in request and "2 + 3 = 5." in response
    assert second.count("+ new</span>") == 2 and "(1 earlier sent again)" in second
    assert second.index(">assistant<") < second.index(">tool<")
    assert render.messages_html(trace.new_messages(1), start=1, new=True) in second


def test_a_refused_turn_says_so_in_its_header_tooltip_and_the_token_table():
    viewer = step_through(run_conversation().trace)
    third = viewer.pages.children[2].value
    assert "HTTP 400: refused" in third
    assert "invalid_request_error" in third.split("<b>response JSON</b>")[1]
    assert ">refused</td>" in third
    assert viewer.turn_buttons.tooltips == (
        "turn 1: finish_reason tool_calls",
        "turn 2: finish_reason stop",
        "turn 3: HTTP 400, refused",
    )


def test_token_table_has_a_row_per_turn_and_marks_the_turn_of_its_page():
    client = run_conversation()
    viewer = TraceViewer(client.trace)
    for position, page in enumerate(viewer.pages.children):
        table = page.value[page.value.index("<table") :]
        rows = table.split("<tr")[2:]
        assert len(rows) == 3
        bold = [row.startswith(' style="font-weight:bold') for row in rows]
        assert bold == [i == position for i in range(3)]
    first_row = viewer.page_html(0).split("<table")[1].split("<tr")[2]
    assert f">{client.trace[0].usage['total_tokens']}</td>" in first_row


def test_repr_and_notebook_output_are_short_deterministic_and_show_every_turn_without_javascript():
    client = run_conversation()
    one, two = TraceViewer(client.trace), step_through(client.trace)
    assert repr(one) == "TraceViewer: 3 turns (open in JupyterLab to step through)"
    first, second = one._repr_mimebundle_(), two._repr_mimebundle_()
    assert first["text/plain"] == second["text/plain"] == repr(one)
    assert first["text/html"] == second["text/html"] == render.trace_html(client.trace)
    assert "2 + 3 = 5." in first["text/html"] and "invalid_request_error" in first["text/html"]
    # the live widget's id differs on every run: tools/notebooks.py renumbers it when storing
    view = "application/vnd.jupyter.widget-view+json"
    assert first[view]["model_id"] != second[view]["model_id"]


def test_snapshot_shows_the_turn_on_show_without_the_live_widget():
    viewer = step_through(run_conversation().trace)
    viewer.show(1)
    snapshot = viewer.snapshot()
    assert "Turn 2 of 3" in snapshot._repr_html_() and "Turn 1 of 3" not in snapshot._repr_html_()
    assert repr(snapshot) == repr(viewer)
    assert not hasattr(snapshot, "_repr_mimebundle_")


def test_an_empty_trace_or_a_wrong_value_is_refused_clearly():
    with pytest.raises(ValueError, match="no turns yet"):
        TraceViewer(Trace())
    with pytest.raises(
        TypeError, match=r"expected a Trace \(a run's run.trace, a mock client's client.trace\), got dict"
    ):
        step_through({"turns": []})
    single = mock.client()
    single.chat.completions.create(model="mock-model", messages=[{"role": "user", "content": "hi"}])
    viewer = step_through(single.trace)
    assert repr(viewer) == "TraceViewer: 1 turn (open in JupyterLab to step through)"
    assert [label for label, _ in viewer.turn_buttons.options] == ["1"]


def test_labels_name_the_agent_of_each_turn_in_header_tooltip_and_token_table():
    viewer = step_through(run_conversation().trace, labels=["parent", "explorer 1", "parent"])
    assert "Turn 2 of 3 · explorer 1" in viewer.page_html(1)
    assert viewer.turn_buttons.tooltips[1] == "turn 2 (explorer 1): finish_reason stop"
    assert ">2 explorer 1</td>" in viewer.page_html(0)
    with pytest.raises(ValueError, match="one label per turn: 2 labels for 3 turns"):
        step_through(run_conversation().trace, labels=["parent", "parent"])
