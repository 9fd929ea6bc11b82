import re

import pytest
from calculator_tools import ADD_TOOL

from agent_core import mock, render
from agent_core.render import _html as _render_html
from agent_core.render import _parts as _render_parts
from agent_core.trace import Trace

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def run_conversation():
    """two parallel tool calls, their results, a final answer, then one refused call"""
    client = mock.client(
        mock.Script([mock.call("add", a=1, b=2), mock.call("add", a=3, b=4)], "The sums are 3 and 7.")
    )
    messages = [
        {"role": "system", "content": "You add numbers."},
        {"role": "user", "content": "What are 1+2 and 3+4?"},
    ]
    first = client.chat.completions.create(model="mock-model", messages=messages, tools=[ADD_TOOL])
    assistant = first.choices[0].message
    messages.append(assistant)
    for tool_call, result in zip(assistant.tool_calls, ["3", "7"], strict=True):
        messages.append({"role": "tool", "tool_call_id": tool_call.id, "content": result})
    second = client.chat.completions.create(model="mock-model", messages=messages, tools=[ADD_TOOL])
    messages.append(second.choices[0].message)
    orphan = [{"role": "tool", "tool_call_id": "call_nobody_asked", "content": "5"}]
    with pytest.raises(Exception, match="must be a response to a preceeding message"):
        client.chat.completions.create(model="mock-model", messages=orphan)
    return client, messages


def plain_text(function, *args, **kwargs) -> str:
    console = render.console(color=False)
    with console.capture() as captured:
        function(*args, console=console, **kwargs)
    return captured.get()


def turn_block(text: str, number: int) -> str:
    """the part of a rendering that belongs to turn `number` (1-based)"""
    start = text.index(f"Turn {number} of ")
    end = text.find(f"Turn {number + 1} of ", start)
    return text[start : end if end != -1 else len(text)]


def test_print_trace_shows_each_request_response_and_usage():
    client, _ = run_conversation()
    trace = client.trace
    text = plain_text(render.print_trace, trace)
    first_call_id = trace[0].reply["tool_calls"][0]["id"]
    assert "Turn 1 of 3 · trace[0] · POST /v1/chat/completions · HTTP 200" in text
    assert "model mock-model · 2 messages · tools: add" in text
    assert '→ add({"a": 1, "b": 2})' in text and '→ add({"a": 3, "b": 4})' in text
    assert f"id {first_call_id}" in text
    assert f"result for {first_call_id}" in text
    assert "finish_reason tool_calls" in text and "finish_reason stop" in text
    usage = trace[1].usage
    assert (
        f"tokens prompt {usage['prompt_tokens']} · completion {usage['completion_tokens']} · "
        f"total {usage['total_tokens']}"
    ) in text
    assert "The sums are 3 and 7." in text
    totals = trace.total_usage()
    assert f"3 turns · tokens prompt {totals['prompt_tokens']}" in text


def test_second_turn_marks_only_the_messages_appended_since_the_first():
    client, _ = run_conversation()
    text = plain_text(render.print_trace, client.trace)
    first, second = turn_block(text, 1), turn_block(text, 2)
    assert first.count("+ new") == 2
    assert second.count("+ new") == 3
    assert "… 2 earlier messages, sent again" in second
    new_roles = [line.split()[3] for line in second.splitlines() if "+ new" in line]
    assert new_roles == ["assistant", "tool", "tool"]

    page = render.trace_html(client.trace)
    second_html = turn_block(page, 2)
    assert second_html.count("+ new</span>") == 3
    assert "… 2 earlier messages, sent again" in second_html
    assert "<details>" in second_html  # the earlier messages are folded away, still readable
    assert second_html.index("[2]</span>") < second_html.index("[3]</span>")


def test_refused_call_shows_status_and_the_api_error_text():
    client, _ = run_conversation()
    text = plain_text(render.print_trace, client.trace)
    refused = turn_block(text, 3)
    assert "HTTP 400" in refused
    assert "HTTP 400 invalid_request_error: Invalid parameter: messages with role 'tool'" in refused
    assert "1 refused" in text
    page = render.trace_html(client.trace)
    red = render.COLORS["error"][0]
    assert f'<div style="color:{red};font-weight:bold">HTTP 400 invalid_request_error' in page
    assert page.count(f"border-left:4px solid {red}") == 1  # only the refused turn is framed red


def test_json_flag_adds_the_full_request_and_response():
    client, _ = run_conversation()
    without = plain_text(render.print_trace, client.trace)
    with_json = plain_text(render.print_trace, client.trace, json=True)
    assert '"system_fingerprint": "fp_mock0001"' not in without
    assert '"system_fingerprint": "fp_mock0001"' in with_json
    assert '"tool_call_id": "call_nobody_asked"' in with_json
    page = render.trace_html(client.trace, json=True)
    assert page.count("<summary") >= 6  # request JSON and response JSON for each of the 3 turns
    assert "request JSON" not in render.trace_html(client.trace, json=False)


def test_renderings_are_deterministic_and_hide_elapsed_time():
    first_client, messages = run_conversation()
    second_client, _ = run_conversation()
    for turn, milliseconds in zip(second_client.trace, [1.0, 250.0, 99999.0], strict=True):
        turn.elapsed_ms = milliseconds  # a different clock must not change a thing
    for make in (render.trace_html, lambda t: repr(render.show_trace(t))):
        assert make(first_client.trace) == make(first_client.trace)
        assert make(first_client.trace) == make(second_client.trace)
    assert " ms" not in repr(render.show_trace(second_client.trace))
    assert render.messages_html(messages) == render.messages_html(messages)
    timed = plain_text(render.print_trace, second_client.trace, timings=True)
    assert "250.0 ms" in timed


def test_console_width_is_fixed_whatever_columns_says(monkeypatch, capsys):
    client, _ = run_conversation()
    monkeypatch.setenv("COLUMNS", "40")
    assert render.console().width == 100
    render.print_trace(client.trace)
    lines = ANSI.sub("", capsys.readouterr().out).splitlines()
    assert max(len(line) for line in lines) == 100
    text_lines = repr(render.show_trace(client.trace, json=False)).splitlines()
    assert max(len(line) for line in text_lines) == 100


def test_terminal_colours_follow_the_role_and_are_explicit(capsys, monkeypatch):
    client, _ = run_conversation()
    monkeypatch.setenv("NO_COLOR", "1")  # the console is told what to do; the environment is not asked
    render.print_trace(client.trace)
    coloured = capsys.readouterr().out
    assert "\x1b[1;32massistant" in coloured and "\x1b[1;33mtool" in coloured
    assert "\x1b[31m╭" in coloured  # the refused turn's border is red
    render.print_trace(client.trace, console=render.console(color=False))
    assert "\x1b[" not in capsys.readouterr().out


def test_sdk_message_objects_render_like_the_json_the_sdk_sent():
    client, messages = run_conversation()
    sent = client.trace[1].messages  # dicts, as they went over the wire
    assert not isinstance(messages[2], dict)  # the SDK's ChatCompletionMessage
    assert repr(render.show_messages(messages[:5])) == repr(render.show_messages(sent))
    assert render.messages_html(messages[:5]) == render.messages_html(sent)
    assert render.json_html(messages[2]) == render.json_html(sent[2])


def test_print_messages_numbers_each_message_with_its_role():
    _, messages = run_conversation()
    text = plain_text(render.print_messages, messages)
    roles = [line.split()[1] for line in text.splitlines() if line.startswith("[")]
    assert roles == ["system", "user", "assistant", "tool", "tool", "assistant"]
    assert text.splitlines()[0].startswith("[0]      system    You add numbers.")
    assert "(no messages)" in plain_text(render.print_messages, [])


def test_html_escapes_what_messages_say():
    messages = [{"role": "user", "content": "<script>alert('hi')</script> & more"}]
    page = render.messages_html(messages)
    assert "<script>" not in page
    assert "&lt;script&gt;alert(&#x27;hi&#x27;)&lt;/script&gt; &amp; more" in page
    assert "<script>" not in render.json_html(messages)


def test_json_html_keeps_key_order_and_colours_tokens():
    page = render.json_html({"zeta": 1, "alpha": [True, None, "text"], "mid": -2.5})
    assert page.startswith("<pre") and page.endswith("</pre>")
    assert page.index("zeta") < page.index("alpha") < page.index("mid")
    colors = _render_html.JSON_COLORS
    assert f'<span style="color:{colors["key"]}">&quot;zeta&quot;</span>:' in page
    assert f'<span style="color:{colors["number"]}">-2.5</span>' in page
    assert f'<span style="color:{colors["literal"]}">null</span>' in page
    assert f'<span style="color:{colors["string"]}">&quot;text&quot;</span>' in page


def test_show_objects_render_html_in_a_notebook_and_text_elsewhere():
    client, messages = run_conversation()
    for shown in (
        render.show_trace(client.trace),
        render.show_messages(messages),
        render.show_json(client.trace[0].response),
    ):
        assert shown._repr_html_().startswith("<")
        assert not repr(shown).startswith("<") and "\x1b[" not in repr(shown)
    assert "Turn 3 of 3" in repr(render.show_trace(client.trace))
    assert '"object": "chat.completion"' in repr(render.show_json(client.trace[0].response))


def test_long_texts_are_clipped_in_the_summary_but_not_in_the_json():
    long = "x" * (_render_parts.MAX_TEXT + 500)
    messages = [{"role": "tool", "tool_call_id": "call_1", "content": long}]
    assert "… (500 more characters)" in render.messages_html(messages)
    assert long in render.json_html(messages)


def test_streamed_turns_render_their_reassembled_reply():
    client = mock.client(mock.Script("Streamed hello."))
    stream = client.chat.completions.create(
        model="mock-model", messages=[{"role": "user", "content": "hi"}], stream=True
    )
    assert "".join(chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices)
    text = plain_text(render.print_trace, client.trace)
    assert "HTTP 200 · streamed" in text and "Streamed hello." in text


def test_empty_traces_and_wrong_types_get_a_clear_answer():
    assert "empty trace" in plain_text(render.print_trace, Trace())
    assert "empty trace" in render.trace_html(Trace())
    with pytest.raises(TypeError, match="expected a Trace, got list"):
        render.print_trace([1, 2])
    with pytest.raises(TypeError, match="expected a Trace, got MockClient"):
        render.show_trace(mock.client())
    with pytest.raises(TypeError, match="expected a list of messages, got str"):
        render.messages_html("hello")
