"""Lesson 08's exercise checks pass the solutions and say what is wrong otherwise; the shipped cassette is reproducible.

Run this file as a script to write the illustrative cassette again:
    python tests/test_checks_lesson08.py
"""

import copy
import json
from importlib.resources import files

from agent_core import mock, replay
from agent_core.checks.lesson04 import add, divide
from agent_core.checks.lesson08 import (
    DIFFERENCE_CASES,
    SETUPS,
    check_find_difference,
    check_settings,
)
from agent_core.loop import run_agent
from agent_core.trace import Trace

CASSETTE = files("agent_core") / "cassettes" / "illustrative_small_model.json"
NOTE = (
    "Illustrative, not from a real model: recorded from agent_core's mock model, scripted "
    "(mock.Script) to make the kind of mistake small local models make: a tool call whose JSON "
    "arguments are cut off, then the corrected call after reading the error. Regenerate with: "
    "python tests/test_checks_lesson08.py"
)


def illustrative_cassette() -> dict:
    """the cassette agent_core ships for lesson 08, recorded from a scripted mock model"""
    script = mock.Script(
        mock.calls(mock.ToolCall("divide", '{"a": 8, "b": 12'), content="I'll start with the division."),
        mock.call("divide", a=8, b=12),
        mock.call("add", a=5, b=0.6666666666666666),
        "5 + 8/12 is about 5.667.",
    )
    run = run_agent(mock.client(script), "5 + 8/12", [add, divide], model="illustrative-small-model")
    recorded = run.trace.to_dict(timings=False)
    return {"version": recorded["version"], "note": NOTE, "turns": recorded["turns"]}


# --- the shipped cassette -------------------------------------------------------------------


def test_the_shipped_cassette_is_what_the_scripted_mock_records():
    shipped = json.loads(CASSETTE.read_text(encoding="utf-8"))
    assert shipped == illustrative_cassette(), "run `python tests/test_checks_lesson08.py` to rewrite it"


def test_the_shipped_cassette_says_it_is_illustrative():
    shipped = json.loads(CASSETTE.read_text(encoding="utf-8"))
    assert shipped["note"].startswith("Illustrative, not from a real model")
    assert all(turn["url"].startswith("http://mock.agent-core.invalid/") for turn in shipped["turns"])


def test_the_shipped_cassette_replays_the_broken_call_and_its_correction():
    client = replay.client(Trace.from_dict(json.loads(CASSETTE.read_text(encoding="utf-8"))))
    run = run_agent(client, "5 + 8/12", [add, divide], model=client.replay.model)
    assert run.answer == "5 + 8/12 is about 5.667." and run.model_calls == 4
    assert run.observations[0].is_error and "not valid JSON" in run.observations[0].content
    assert [o.is_error for o in run.observations] == [True, False, False]


# --- Exercise 8.1 ---------------------------------------------------------------------------

SETTINGS = {
    "ollama": {"AGENT_CORE_BASE_URL": "http://localhost:11434/v1", "AGENT_CORE_MODEL": "qwen2.5:7b"},
    "vllm": {
        "AGENT_CORE_BASE_URL": "http://gpu-box:8000/v1",
        "AGENT_CORE_MODEL": "Qwen/Qwen2.5-7B-Instruct",
        "AGENT_CORE_API_KEY": "team-key-123",
    },
    "openai": {"OPENAI_API_KEY": "sk-placeholder", "AGENT_CORE_MODEL": "gpt-4.1"},
    "mock": {"AGENT_CORE_BACKEND": "mock", "AGENT_CORE_MOCK_POLICY": "calculator"},
}


def test_the_right_settings_pass(capsys):
    assert check_settings(SETTINGS)
    assert "each environment chooses the backend it describes" in capsys.readouterr().out


def test_other_spellings_of_the_same_setup_pass_too():
    other = copy.deepcopy(SETTINGS)
    other["ollama"] = {"OPENAI_BASE_URL": "http://localhost:11434/v1", "AGENT_CORE_MODEL": "qwen2.5:7b"}
    other["openai"] = {"AGENT_CORE_API_KEY": "sk-placeholder", "AGENT_CORE_MODEL": "gpt-4.1"}
    assert check_settings(other)


def test_the_empty_stub_says_which_backend_each_setup_would_get(capsys):
    assert not check_settings(dict.fromkeys(SETUPS, {}))
    out = capsys.readouterr().out
    assert "'ollama': with nothing set, client_from_env() would talk to the mock model" in out
    assert "a server is chosen by its URL: AGENT_CORE_BASE_URL" in out
    assert (
        "'mock': with nothing set (and the shell's OPENAI_API_KEY), client_from_env() would talk to OpenAI"
        in out
    )
    assert "AGENT_CORE_BACKEND=mock chooses the mock" in out


def test_a_wrong_url_model_key_or_policy_is_named(capsys):
    wrong = copy.deepcopy(SETTINGS)
    wrong["ollama"]["AGENT_CORE_BASE_URL"] = "http://localhost:11434"
    del wrong["vllm"]["AGENT_CORE_API_KEY"]
    del wrong["openai"]["AGENT_CORE_MODEL"]
    del wrong["mock"]["AGENT_CORE_MOCK_POLICY"]
    assert not check_settings(wrong)
    out = capsys.readouterr().out
    assert "the setup says http://localhost:11434/v1 (an OpenAI-compatible base URL ends in /v1)" in out
    assert "'vllm': the server wants the key 'team-key-123', and this environment sends no key" in out
    assert "'openai': the model would be 'gpt-4.1-mini'; the setup says 'gpt-4.1'" in out
    assert "'mock': the mock's policy would be 'echo'; the setup wants 'calculator'" in out


def test_settings_of_the_wrong_shape_are_explained_not_raised(capsys):
    assert not check_settings([1, 2])
    assert "should be a dict" in capsys.readouterr().out
    assert not check_settings({**SETTINGS, "ollama": {"AGENT_CORE_MODEL": 7}, "lmstudio": {}})
    out = capsys.readouterr().out
    assert "'AGENT_CORE_MODEL' is not set to a string" in out and "'lmstudio' is not one of the setups" in out
    assert not check_settings({**SETTINGS, "mock": {"AGENT_CORE_BACKEND": "fake"}})
    assert "AGENT_CORE_BACKEND='fake' is not understood" in capsys.readouterr().out


# --- Exercise 8.2 ---------------------------------------------------------------------------


def find_difference(recorded, received, path=""):
    """the solution: walk both values, dict keys in the recorded order, then the received-only ones"""
    if isinstance(recorded, dict) and isinstance(received, dict):
        for key in [*recorded, *(k for k in received if k not in recorded)]:
            where = f"{path}.{key}" if path else key
            if key not in recorded or key not in received:
                return where
            found = find_difference(recorded[key], received[key], where)
            if found:
                return found
        return None
    if isinstance(recorded, list) and isinstance(received, list):
        for i in range(max(len(recorded), len(received))):
            if i >= len(recorded) or i >= len(received):
                return f"{path}[{i}]"
            found = find_difference(recorded[i], received[i], f"{path}[{i}]")
            if found:
                return found
        return None
    if type(recorded) is not type(received) or recorded != received:
        return path
    return None


def top_level_only(recorded, received):
    """the stub: compares only the top-level keys, with Python's =="""
    for key in recorded:
        if recorded[key] != received.get(key):
            return key
    return None


def test_the_solution_passes(capsys):
    assert check_find_difference(find_difference)
    assert f"all {len(DIFFERENCE_CASES)} cases" in capsys.readouterr().out


def test_the_stub_is_told_to_go_deeper_and_about_types(capsys):
    assert not check_find_difference(top_level_only)
    out = capsys.readouterr().out
    assert "'messages' holds the difference, but go deeper" in out
    assert "'messages[1].tool_calls[0].function.arguments'" in out
    assert "an option only the new request has: the requests differ, but find_difference returned None" in out
    assert "in Python 0 == 0.0, but in JSON they are different text" in out
    assert "the same request" not in out


def test_python_equality_misses_only_the_type_case(capsys):
    def equality_only(recorded, received, path=""):
        if recorded == received:
            return None
        return find_difference(recorded, received, path)

    assert not check_find_difference(equality_only)
    problems = [line for line in capsys.readouterr().out.splitlines() if line.startswith("  - ")]
    assert problems == [
        "  - 0 written as 0.0: the requests differ, but find_difference returned None",
        "  - in Python 0 == 0.0, but in JSON they are different text: compare the types too, as type(a) is type(b)",
    ]


def test_walking_only_the_received_keys_misses_a_dropped_option(capsys):
    def received_keys_only(recorded, received, path=""):
        if isinstance(recorded, dict) and isinstance(received, dict):
            for key in received:
                where = f"{path}.{key}" if path else key
                if key not in recorded:
                    return where
                found = received_keys_only(recorded[key], received[key], where)
                if found:
                    return found
            return None
        return find_difference(recorded, received, path)

    assert not check_find_difference(received_keys_only)
    problems = [line for line in capsys.readouterr().out.splitlines() if line.startswith("  - ")]
    assert problems == [
        "  - an option the new request left out: the requests differ, but find_difference returned None"
    ]


def test_a_wrong_path_a_non_string_and_a_crash_are_each_explained(capsys):
    assert not check_find_difference(lambda recorded, received: "model")
    out = capsys.readouterr().out
    assert "the same request: the two requests are equal, so return None; you returned 'model'" in out
    assert "you returned 'model'; the first difference is at 'tools[1]'" in out
    assert not check_find_difference(lambda recorded, received: ["messages", 0])
    assert "return the path as a string" in capsys.readouterr().out
    assert not check_find_difference(lambda recorded, received: recorded["nope"])
    assert "find_difference raised KeyError: 'nope'" in capsys.readouterr().out


def test_the_learners_function_cannot_change_the_cases():
    def vandal(recorded, received):
        recorded.clear()
        return None

    check_find_difference(vandal)
    assert check_find_difference(find_difference)


if __name__ == "__main__":
    target = CASSETTE
    target.write_text(
        json.dumps(illustrative_cassette(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    print("wrote", target)
