"""Lesson 08's exercise checks pass the solutions and say what is wrong otherwise; the shipped cassette is
reproducible.

Run this file as a script to write the illustrative cassette again:
    python tests/test_checks_lesson08.py
"""

import copy
import json
from importlib.resources import files

import httpx2
import pytest
from hash_seeds import under_two_hash_seeds

from agent_core import mock, replay
from agent_core.checks.lesson04 import add, divide
from agent_core.checks.lesson08 import (
    DIFFERENCE_CASES,
    SETUPS,
    check_find_difference,
    check_recorder,
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


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:11434/v1", "http://localhost:11434/v1/", "http://[::1]:11434/v1"]
)
def test_the_same_ollama_server_written_another_way_passes(url, capsys):
    other = copy.deepcopy(SETTINGS)
    other["ollama"]["AGENT_CORE_BASE_URL"] = url
    assert check_settings(other), capsys.readouterr().out


@pytest.mark.parametrize(
    "url", ["http://127.0.0.2:11434/v1", "http://localhost:8000/v1", "https://localhost:11434/v1"]
)
def test_another_server_or_port_is_still_named(url, capsys):
    other = copy.deepcopy(SETTINGS)
    other["ollama"]["AGENT_CORE_BASE_URL"] = url
    assert not check_settings(other)
    assert (
        f"'ollama': the base URL is {url}; the setup says http://localhost:11434/v1"
        in capsys.readouterr().out
    )


@pytest.mark.parametrize("url", ["https://api.openai.com/v1", "https://api.openai.com/v1/"])
def test_openai_written_with_its_own_url_passes(url, capsys):
    other = copy.deepcopy(SETTINGS)
    other["openai"]["AGENT_CORE_BASE_URL"] = url
    assert check_settings(other), capsys.readouterr().out


@pytest.mark.parametrize(
    "url", ["https://api.openai.com/v2", "https://api.openai.com", "http://api.openai.com/v1"]
)
def test_openai_s_host_with_another_path_or_scheme_is_named(url, capsys):
    """the host alone is not OpenAI's API: its path and scheme are part of it"""
    other = copy.deepcopy(SETTINGS)
    other["openai"]["AGENT_CORE_BASE_URL"] = url
    assert not check_settings(other)
    assert (
        f"'openai': the base URL is {url}; the setup says https://api.openai.com/v1"
        in capsys.readouterr().out
    )


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


def test_a_missing_openai_key_is_not_called_the_servers(capsys):
    wrong = copy.deepcopy(SETTINGS)
    wrong["openai"]["OPENAI_API_KEY"] = "sk-other"
    assert not check_settings(wrong)
    out = capsys.readouterr().out
    assert (
        "'openai': OpenAI's key for this setup is 'sk-placeholder', and this environment sends another one"
        in out
    )
    assert "server" not in out


# --- Exercise 8.2 ---------------------------------------------------------------------------


class Recorder(httpx2.BaseTransport):
    """the solution"""

    def __init__(self, inner):
        self.inner = inner
        self.calls = []

    def handle_request(self, request):
        response = self.inner.handle_request(request)
        self.calls.append(
            {
                "request": json.loads(request.read()),
                "status": response.status_code,
                "response": json.loads(response.read()),
            }
        )
        return response


class RecorderReadingFirst(Recorder):
    """right, written differently: the request parsed before it is sent, the response with .json()"""

    def handle_request(self, request):
        sent = json.loads(request.content)
        response = self.inner.handle_request(request)
        response.read()
        self.calls.append({"status": response.status_code, "response": response.json(), "request": sent})
        return response


class RecorderInFinally(Recorder):
    """right, written differently: the call is kept in a finally block"""

    def handle_request(self, request):
        response = None
        try:
            response = self.inner.handle_request(request)
            return response
        finally:
            body = response.read()
            self.calls.append(
                dict(
                    request=json.loads(request.read()), status=response.status_code, response=json.loads(body)
                )
            )


class KeepsOnlyAnswers(Recorder):
    """the most tempting: a refused call is not worth keeping"""

    def handle_request(self, request):
        response = self.inner.handle_request(request)
        if response.is_success:
            self.calls.append(
                {
                    "request": json.loads(request.read()),
                    "status": 200,
                    "response": json.loads(response.read()),
                }
            )
        return response


class KeepsHeaders(Recorder):
    def handle_request(self, request):
        response = super().handle_request(request)
        self.calls[-1]["request"] = {**self.calls[-1]["request"], "headers": dict(request.headers)}
        return response


class KeepsText(Recorder):
    def handle_request(self, request):
        response = self.inner.handle_request(request)
        self.calls.append(
            {
                "request": request.read().decode(),
                "status": response.status_code,
                "response": response.read().decode(),
            }
        )
        return response


class KeepsTheLastOnly(Recorder):
    def handle_request(self, request):
        response = self.inner.handle_request(request)
        self.calls = [
            {
                "request": json.loads(request.read()),
                "status": response.status_code,
                "response": json.loads(response.read()),
            }
        ]
        return response


class RemakesTheResponse(Recorder):
    """sends on a new response made from the body: the status is lost"""

    def handle_request(self, request):
        super().handle_request(request)
        return httpx2.Response(200, json=self.calls[-1]["response"])


class KeepsTheStatusAsText(Recorder):
    def handle_request(self, request):
        response = super().handle_request(request)
        self.calls[-1]["status"] = str(response.status_code)
        return response


class KeepsInReverse(Recorder):
    """the newest call first"""

    def handle_request(self, request):
        response = super().handle_request(request)
        self.calls.insert(0, self.calls.pop())
        return response


class SharesOneDict(Recorder):
    """one dict, filled again for every call and appended each time"""

    def __init__(self, inner):
        super().__init__(inner)
        self.entry = {}

    def handle_request(self, request):
        response = self.inner.handle_request(request)
        self.entry.update(
            request=json.loads(request.read()),
            status=response.status_code,
            response=json.loads(response.read()),
        )
        self.calls.append(self.entry)
        return response


class RecorderBuildingByZip(Recorder):
    """right, written differently: keys zipped with values, the list grown with +="""

    def handle_request(self, request):
        response = self.inner.handle_request(request)
        values = (
            json.loads(request.content.decode("utf-8")),
            int(response.status_code),
            json.loads(response.read()),
        )
        self.calls += [dict(zip(("response", "status", "request"), values[::-1], strict=True))]
        return response


class NotYet(Recorder):
    """the stub"""

    def handle_request(self, request):
        return self.inner.handle_request(request)


class SendsTwice(Recorder):
    """records what one send answered, then sends the request again for the response it returns"""

    def handle_request(self, request):
        super().handle_request(request)
        return self.inner.handle_request(request)


WRONG_RECORDERS = [  # the most tempting first
    (
        KeepsOnlyAnswers,
        "then a request the API refuses (HTTP 400): 2 HTTP calls went through, and you kept 1",
    ),
    (KeepsHeaders, "the API key is in what you kept"),
    (KeepsText, "its request should be the request's JSON body"),
    (KeepsTheLastOnly, "HTTP calls went through, and you kept 1"),
    (RemakesTheResponse, "the run ended differently"),
    (KeepsTheStatusAsText, "its status should be the HTTP status (an int)"),
    (NotYet, "1 HTTP call went through, and you kept 0"),
    (KeepsInReverse, "you kept the right calls in reverse order"),
    (SharesOneDict, "entries are one and the same dict, so each shows the last call"),
    (
        SendsTwice,
        "the SDK sent 1 request(s), but the server received 2: your recorder sends a request to the inner "
        "transport more than once",
    ),
]


@pytest.mark.parametrize(
    "recorder", [Recorder, RecorderReadingFirst, RecorderInFinally, RecorderBuildingByZip]
)
def test_check_recorder_passes_right_answers_however_written(recorder, capsys):
    assert check_recorder(recorder)
    assert "✓ Exercise 8.2" in capsys.readouterr().out


@pytest.mark.parametrize("recorder, problem", WRONG_RECORDERS)
def test_check_recorder_names_what_is_wrong(recorder, problem, capsys):
    assert not check_recorder(recorder)
    out = capsys.readouterr().out
    assert "✗ Exercise 8.2: not yet." in out and problem in out and "an agent run on" in out


def test_check_recorder_shows_the_smallest_run_that_fails(capsys):
    check_recorder(KeepsOnlyAnswers)
    assert "whose model answers '" in capsys.readouterr().out  # no tool calls left in it


def test_check_recorder_is_deterministic_and_counts_its_scenarios(capsys):
    first, second = check_recorder(KeepsTheLastOnly), check_recorder(KeepsTheLastOnly)
    out = capsys.readouterr().out.split("✗")
    assert first.scenarios == second.scenarios == 31 and out[1] == out[2]


# --- Exercise 8.3 ---------------------------------------------------------------------------


def find_difference(recorded, received, path=""):
    """the solution: walk both values, dict keys in the recorded order, then the received-only ones"""
    if isinstance(recorded, dict) and isinstance(received, dict):
        for key in [*recorded, *(k for k in received if k not in recorded)]:
            where = f"{path}.{key}" if path else key
            if key not in recorded or key not in received:
                return where
            found = find_difference(recorded[key], received[key], where)
            if found is not None:
                return found
        return None
    if isinstance(recorded, list) and isinstance(received, list):
        for i in range(max(len(recorded), len(received))):
            if i >= len(recorded) or i >= len(received):
                return f"{path}[{i}]"
            found = find_difference(recorded[i], received[i], f"{path}[{i}]")
            if found is not None:
                return found
        return None
    if type(recorded) is not type(received) or recorded != received:
        return path
    return None


def falsy_path_is_none(recorded, received, path=""):
    """`if found:` treats the path of the top-level key '', the empty string, as no difference"""
    if isinstance(recorded, dict) and isinstance(received, dict):
        for key in [*recorded, *(k for k in received if k not in recorded)]:
            where = f"{path}.{key}" if path else key
            if key not in recorded or key not in received:
                return where
            found = falsy_path_is_none(recorded[key], received[key], where)
            if found:
                return found
        return None
    return find_difference(recorded, received, path)


def with_a_stack(recorded, received):
    """right, written differently: no recursion; a stack of (path, recorded, received), first on top"""
    absent = object()
    stack = [("", recorded, received)]
    while stack:
        path, mine, theirs = stack.pop()
        if isinstance(mine, dict) and isinstance(theirs, dict):
            keys = [*mine, *(k for k in theirs if k not in mine)]
            for key in reversed(keys):
                stack.append(
                    (f"{path}.{key}" if path else key, mine.get(key, absent), theirs.get(key, absent))
                )
        elif isinstance(mine, list) and isinstance(theirs, list):
            for i in reversed(range(max(len(mine), len(theirs)))):
                stack.append(
                    (
                        f"{path}[{i}]",
                        mine[i] if i < len(mine) else absent,
                        theirs[i] if i < len(theirs) else absent,
                    )
                )
        elif mine is absent or theirs is absent or type(mine) is not type(theirs) or mine != theirs:
            return path
    return None


def through_json_text(recorded, received, path=""):
    """right, written differently: leaves compared as their JSON text"""
    if isinstance(recorded, dict) and isinstance(received, dict):
        for key in list(recorded) + [k for k in received if k not in recorded]:
            where = f"{path}.{key}" if path else key
            if (key in recorded) != (key in received):
                return where
            if (found := through_json_text(recorded[key], received[key], where)) is not None:
                return found
        return None
    if isinstance(recorded, list) and isinstance(received, list):
        for i, (mine, theirs) in enumerate(zip(recorded, received, strict=False)):
            if (found := through_json_text(mine, theirs, f"{path}[{i}]")) is not None:
                return found
        return None if len(recorded) == len(received) else f"{path}[{min(len(recorded), len(received))}]"
    return None if json.dumps(recorded) == json.dumps(received) else path


def top_level_only(recorded, received):
    """the stub: compares only the top-level keys, with Python's =="""
    for key in recorded:
        if recorded[key] != received.get(key):
            return key
    return None


def equality_only(recorded, received, path=""):
    if recorded == received:
        return None
    return find_difference(recorded, received, path)


def received_keys_first(recorded, received, path=""):
    if isinstance(recorded, dict) and isinstance(received, dict):
        for key in [*received, *(k for k in recorded if k not in received)]:
            where = f"{path}.{key}" if path else key
            if key not in recorded or key not in received:
                return where
            found = received_keys_first(recorded[key], received[key], where)
            if found is not None:
                return found
        return None
    return find_difference(recorded, received, path)


def sorted_keys(recorded, received, path=""):
    if isinstance(recorded, dict) and isinstance(received, dict):
        for key in sorted(set(recorded) | set(received)):
            where = f"{path}.{key}" if path else key
            if key not in recorded or key not in received:
                return where
            found = sorted_keys(recorded[key], received[key], where)
            if found is not None:
                return found
        return None
    return find_difference(recorded, received, path)


def list_items_only_up_to_the_shorter(recorded, received, path=""):
    if isinstance(recorded, list) and isinstance(received, list):
        for i, (mine, theirs) in enumerate(zip(recorded, received, strict=False)):
            if (found := list_items_only_up_to_the_shorter(mine, theirs, f"{path}[{i}]")) is not None:
                return found
        return None
    if isinstance(recorded, dict) and isinstance(received, dict):
        for key in [*recorded, *(k for k in received if k not in recorded)]:
            where = f"{path}.{key}" if path else key
            if key not in recorded or key not in received:
                return where
            if (found := list_items_only_up_to_the_shorter(recorded[key], received[key], where)) is not None:
                return found
        return None
    return find_difference(recorded, received, path)


def isinstance_for_the_type(recorded, received, path=""):
    """compares types with isinstance(recorded, type(received)): true recorded, 1 received looks equal"""
    if isinstance(recorded, (dict, list)) and isinstance(received, (dict, list)):
        return (
            find_difference(recorded, received, path)
            if type(recorded) is not type(received)
            else (_walk_with(isinstance_for_the_type, recorded, received, path))
        )
    return None if (isinstance(recorded, type(received)) and recorded == received) else path


def _walk_with(compare, recorded, received, path):
    if isinstance(recorded, dict):
        for key in [*recorded, *(k for k in received if k not in recorded)]:
            where = f"{path}.{key}" if path else key
            if key not in recorded or key not in received:
                return where
            if (found := compare(recorded[key], received[key], where)) is not None:
                return found
        return None
    for i in range(max(len(recorded), len(received))):
        if i >= len(recorded) or i >= len(received):
            return f"{path}[{i}]"
        if (found := compare(recorded[i], received[i], f"{path}[{i}]")) is not None:
            return found
    return None


def isinstance_the_other_way(recorded, received, path=""):
    """isinstance(received, type(recorded)): 1 recorded, true received looks equal (True is an int)"""
    if isinstance(recorded, (dict, list)) and isinstance(received, (dict, list)):
        return (
            find_difference(recorded, received, path)
            if type(recorded) is not type(received)
            else (_walk_with(isinstance_the_other_way, recorded, received, path))
        )
    return None if (isinstance(received, type(recorded)) and recorded == received) else path


def missing_as_null(recorded, received, path=""):
    """reads both sides with .get(key): a key left out looks like a key set to null"""
    if isinstance(recorded, dict) and isinstance(received, dict):
        for key in [*recorded, *(k for k in received if k not in recorded)]:
            where = f"{path}.{key}" if path else key
            if (found := missing_as_null(recorded.get(key), received.get(key), where)) is not None:
                return found
        return None
    return find_difference(recorded, received, path)


WRONG_DIFFERENCES = [  # the most tempting first
    (isinstance_for_the_type, "(True and 1: in Python they are ==, but in JSON they are different text"),
    (equality_only, "in Python they are ==, but in JSON they are different text"),
    (isinstance_the_other_way, "(1 and True: in Python they are ==, but in JSON they are different text"),
    (missing_as_null, "one request sets a key to null, the other leaves it out"),
    (received_keys_first, "the first difference is at"),
    (sorted_keys, "the first difference is at"),
    (
        list_items_only_up_to_the_shorter,
        "the requests differ at 'tools[1]', but find_difference returned None",
    ),
    (top_level_only, "'messages' holds the difference, but go deeper"),
    (lambda recorded, received: find_difference(received, recorded), "the first difference is at"),
    (lambda recorded, received: "model", "the two requests are equal, so return None; you returned 'model'"),
    (lambda recorded, received: ["messages", 0], "the two requests are equal"),
    (lambda recorded, received: recorded["nope"], "your code raised KeyError: 'nope'"),
    (
        falsy_path_is_none,
        "the requests differ, but find_difference returned None (the path of the top-level key '' is '', a "
        "falsy string: test `found is not None`, not `if found:`)",
    ),
]


@pytest.mark.parametrize("attempt", [find_difference, with_a_stack, through_json_text])
def test_check_find_difference_passes_right_answers_however_written(attempt, capsys):
    assert check_find_difference(attempt)
    assert "on all 208 pairs of requests" in capsys.readouterr().out


@pytest.mark.parametrize("attempt, problem", WRONG_DIFFERENCES)
def test_check_find_difference_names_what_is_wrong(attempt, problem, capsys):
    assert not check_find_difference(attempt)
    out = capsys.readouterr().out
    assert "✗ Exercise 8.3: not yet." in out and problem in out


def test_several_differences_in_one_pair_test_which_comes_first(capsys):
    check_find_difference(received_keys_first)
    out = capsys.readouterr().out
    assert "a received one that differs at" in out and "(and lists its keys in another order)" in out


def test_check_find_difference_is_deterministic_and_counts_its_scenarios(capsys):
    first, second = check_find_difference(sorted_keys), check_find_difference(sorted_keys)
    out = capsys.readouterr().out.split("✗")
    assert first.scenarios == second.scenarios == len(DIFFERENCE_CASES) + 200 and out[1] == out[2]


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


def test_settings_written_another_way_pass(capsys):
    """right, written differently: built with dict(), setups in another order, OpenAI's own variables
    for the vLLM server"""
    settings = dict(
        mock=dict(AGENT_CORE_MOCK_POLICY="calculator", AGENT_CORE_BACKEND="mock"),
        openai=dict(AGENT_CORE_MODEL="gpt-4.1", OPENAI_API_KEY="sk-placeholder"),
        vllm=dict(
            OPENAI_API_KEY="team-key-123",
            OPENAI_BASE_URL="http://gpu-box:8000/v1",
            AGENT_CORE_MODEL="Qwen/Qwen2.5-7B-Instruct",
        ),
        ollama=dict(AGENT_CORE_MODEL="qwen2.5:7b", AGENT_CORE_BASE_URL="http://localhost:11434/v1"),
    )
    result = check_settings(settings)
    assert result and result.scenarios == 0, capsys.readouterr().out


def test_settings_with_urls_written_out_another_way_pass(capsys):
    """right, written differently: OpenAI's URL written out (still OpenAI), hosts in capitals, a final /"""
    settings = copy.deepcopy(SETTINGS)
    settings["openai"]["OPENAI_BASE_URL"] = "https://api.openai.com/v1/"
    settings["ollama"]["AGENT_CORE_BASE_URL"] = "http://LocalHost:11434/v1"
    settings["vllm"]["AGENT_CORE_BASE_URL"] = "http://GPU-BOX:8000/v1/"
    assert check_settings(settings), capsys.readouterr().out


def test_check_settings_gives_the_same_verdict_every_time(capsys):
    wrong = copy.deepcopy(SETTINGS)
    del wrong["openai"]["AGENT_CORE_MODEL"]
    first, second = check_settings(wrong), check_settings(wrong)
    out = capsys.readouterr().out.split("✗")
    assert first.scenarios == second.scenarios == 0 and out[1] == out[2]


def test_the_lesson_08_checks_give_the_same_verdicts_under_another_hash_seed():
    """each check on a wrong answer: the same words whatever the order of a set"""
    outputs = under_two_hash_seeds(
        "test_checks_lesson08",
        "c.check_settings({}); "
        "c.check_recorder(t.WRONG_RECORDERS[0][0]); "
        "c.check_find_difference(t.WRONG_DIFFERENCES[0][0])",
    )
    assert len(outputs) == 1 and outputs.pop().count("✗ Exercise 8.") == 3
