"""Tests for agent_core._guard_calls: calls compared as values, MCP annotations, terminal-safe text (lesson
05)."""

import json

import pytest

from agent_core._guard_calls import escape_for_terminal, readonly_from_annotations, same_call, times_asked


def call(arguments, name="add", call_id="call_1"):
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": text}}


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ('{"a": 1, "b": 2}', '{"b": 2.0, "a": 1.0}'),
        ('{"x": [1, {"y": 3}]}', '{ "x" : [1.0, {"y": 3e0}] }'),
        ('{"a": 1e2}', '{"a": 100}'),
    ],
)
def test_same_call_compares_arguments_as_json_values(a, b):
    assert same_call(call(a, call_id="call_1"), call(b, call_id="call_2"))


@pytest.mark.parametrize(
    ("a", "b"),
    [('{"a": 1}', '{"a": true}'), ('{"a": 1}', '{"a": "1"}'), ('{"a": 1}', '{"a": 1.5}'), ('{"a": 1}', "{}")],
)
def test_different_values_are_different_calls(a, b):
    assert not same_call(call(a), call(b))


def test_calls_to_different_tools_differ_and_broken_json_compares_as_text():
    assert not same_call(call({"a": 1}, name="add"), call({"a": 1}, name="sub"))
    assert same_call(call('{"a": 1'), call('{"a": 1'))
    assert not same_call(call('{"a": 1'), call('{"a":  1'))


def test_times_asked_counts_by_position_not_by_id():
    repeated = [call({"a": 1.0}, call_id="same") for _ in range(3)]
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": [call({"a": 1}, call_id="same")]},
        {"role": "tool", "tool_call_id": "same", "content": "2"},
        {"role": "assistant", "content": None, "tool_calls": repeated},
        {"role": "tool", "tool_call_id": "same", "content": "2"},
    ]
    # the second call of the last message: one earlier message, one earlier call in this one
    assert times_asked(messages, repeated[1]) == 3


@pytest.mark.parametrize(
    ("annotations", "readonly"),
    [
        (None, False),
        ({}, False),
        ({"readOnlyHint": True}, True),
        ({"readOnlyHint": True, "destructiveHint": False}, True),
        ({"readOnlyHint": True, "destructiveHint": True}, False),
        ({"readOnlyHint": "yes"}, False),
        ({"destructiveHint": False}, False),
        ("not a dict", False),
    ],
)
def test_only_a_plain_readonly_hint_makes_a_tool_readonly(annotations, readonly):
    assert readonly_from_annotations(annotations) is readonly


def test_escape_for_terminal_shows_bidi_overrides_zero_width_and_control_characters():
    text = "rm -rf /tmp/\u202ecod.exe\u200b \x1b[2K\u2066x\u2069\ufeff\u2028"
    shown = escape_for_terminal(text)
    assert shown == "rm -rf /tmp/\\u202ecod.exe\\u200b \\x1b[2K\\u2066x\\u2069\\ufeff\\u2028"
    assert escape_for_terminal("line one\n\tcafé ✓ 日本") == "line one\n\tcafé ✓ 日本"
