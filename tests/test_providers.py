"""client_from_env: the mock by default, a real endpoint when configured, and clear messages when it fails.

Endpoints are the mock's HTTP server on 127.0.0.1 (real sockets) or a closed port; the live
tests at the end talk to a real model and run only with AGENT_CORE_LIVE=1.
"""

import os
import socket

import httpx2
import openai
import pytest
from calculator_tools import add, divide

from agent_core import mock
from agent_core.loop import run_agent
from agent_core.mock.server import serve
from agent_core.providers import (
    DEFAULT_OPENAI_MODEL,
    BackendClient,
    BackendError,
    backend_from_env,
    check_backend,
    client_from_env,
    describe_backend,
    explain_api_error,
    model_name,
)
from agent_core.trace import Trace

HELLO = [{"role": "user", "content": "hi"}]
SECRET = "sk-test-abcdefghijklmnopqrstuvwxyz0123"


def local(server, **more):
    """the environment of a learner pointing the course at a local OpenAI-compatible server"""
    return {"AGENT_CORE_BASE_URL": server.base_url, "AGENT_CORE_MODEL": "mock-model", **more}


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def failure_from(status, body):
    """the exception the real SDK raises when a server answers with this status and JSON body"""
    transport = httpx2.MockTransport(lambda request: httpx2.Response(status, json=body))
    client = openai.OpenAI(
        base_url="http://localhost:8000/v1",
        api_key="x",
        max_retries=0,
        http_client=httpx2.Client(transport=transport),
    )
    with pytest.raises(openai.APIError) as caught:
        client.chat.completions.create(model="m", messages=HELLO)
    return caught.value


# --- choosing the backend -------------------------------------------------------------------


def test_with_nothing_set_the_backend_is_the_mock():
    backend = backend_from_env({})
    assert (backend.kind, backend.model, backend.base_url) == ("mock", "mock-model", mock.BASE_URL)
    assert describe_backend({}) == (
        "the mock model (policy echo, model 'mock-model'): in this process, no key, no network"
    )


def test_an_openai_key_selects_openai_with_the_default_model():
    backend = backend_from_env({"OPENAI_API_KEY": SECRET})
    assert (backend.kind, backend.model) == ("openai", DEFAULT_OPENAI_MODEL)
    assert backend.base_url == "https://api.openai.com/v1"
    assert model_name({"OPENAI_API_KEY": SECRET, "AGENT_CORE_MODEL": "gpt-4.1"}) == "gpt-4.1"


def test_a_base_url_selects_a_compatible_server():
    env = {"OPENAI_BASE_URL": "http://localhost:11434/v1/", "AGENT_CORE_MODEL": "qwen2.5:7b"}
    backend = backend_from_env(env)
    assert (backend.kind, backend.base_url, backend.model) == (
        "compatible",
        "http://localhost:11434/v1",
        "qwen2.5:7b",
    )
    assert describe_backend(env) == (
        "an OpenAI-compatible server at http://localhost:11434/v1, model 'qwen2.5:7b', no key"
    )


def test_agent_core_variables_win_over_openai_ones():
    env = {
        "AGENT_CORE_BASE_URL": "http://localhost:8000/v1",
        "OPENAI_BASE_URL": "http://elsewhere/v1",
        "AGENT_CORE_API_KEY": "local-key",
        "OPENAI_API_KEY": SECRET,
    }
    backend = backend_from_env(env)
    assert (backend.base_url, backend.api_key, backend.key_from) == (
        "http://localhost:8000/v1",
        "local-key",
        "AGENT_CORE_API_KEY",
    )


def test_agent_core_backend_mock_ignores_configured_keys():
    assert backend_from_env({"AGENT_CORE_BACKEND": "mock", "OPENAI_API_KEY": SECRET}).kind == "mock"
    with pytest.raises(BackendError, match="set it to 'mock'"):
        backend_from_env({"AGENT_CORE_BACKEND": "ollama"})


def test_the_key_is_never_shown():
    env = {"OPENAI_API_KEY": SECRET}
    assert SECRET not in describe_backend(env) and SECRET not in repr(backend_from_env(env))
    assert describe_backend(env) == (
        f"OpenAI at https://api.openai.com/v1, model '{DEFAULT_OPENAI_MODEL}', key from $OPENAI_API_KEY"
    )


def test_a_local_server_without_a_model_name_says_to_set_one():
    env = {"AGENT_CORE_BASE_URL": "http://localhost:11434/v1"}
    assert "model (none set: set AGENT_CORE_MODEL)" in describe_backend(env)
    with pytest.raises(BackendError, match="Set AGENT_CORE_MODEL to a model it serves"):
        model_name(env)


# --- the clients ----------------------------------------------------------------------------


def test_the_mock_client_uses_the_policy_named_in_the_environment():
    client = client_from_env({"AGENT_CORE_MOCK_POLICY": "calculator"})
    run = run_agent(client, "5 + 8/12", [add, divide], model=model_name({}))
    assert run.answer == "5 + 8/12 = 5.666666666666667"
    assert client.backend.kind == "mock" and len(client.trace) == 3


def test_a_policy_argument_overrides_the_named_one():
    client = client_from_env({}, policy=mock.Script("scripted"))
    reply = client.chat.completions.create(model="mock-model", messages=HELLO)
    assert reply.choices[0].message.content == "scripted"
    assert len(client.trace) == 1


def test_an_openai_client_is_real_and_recorded_without_calling_anything():
    with client_from_env({"OPENAI_API_KEY": SECRET}) as client:
        assert str(client.base_url) == "https://api.openai.com/v1/"
        assert client.api_key == SECRET and client.max_retries == openai.DEFAULT_MAX_RETRIES
        assert isinstance(client, BackendClient) and client.backend.kind == "openai"
        assert isinstance(client.trace, Trace) and len(client.trace) == 0


def test_a_base_url_switches_the_agent_to_that_server():
    with (
        serve(mock.Calculator()) as server,
        client_from_env(local(server), max_retries=0) as client,
    ):
        run = run_agent(client, "5 + 8/12", [add, divide], model=model_name(local(server)))
    assert run.answer == "5 + 8/12 = 5.666666666666667"
    assert [t.url for t in run.trace] == [server.base_url + "/chat/completions"] * 3


def test_check_backend_lists_the_served_models():
    with serve() as server, client_from_env(local(server)) as client:
        assert check_backend(client) == ["mock-model"]


# --- failures, explained --------------------------------------------------------------------


def test_a_closed_port_says_the_server_is_not_running():
    port = closed_port()
    env = {"AGENT_CORE_BASE_URL": f"http://127.0.0.1:{port}/v1", "AGENT_CORE_MODEL": "m"}
    with client_from_env(env, max_retries=0) as client:
        with pytest.raises(BackendError) as caught:
            check_backend(client)
    assert str(caught.value).startswith(f"Could not connect to http://127.0.0.1:{port} (")
    assert "Is the server running? Check AGENT_CORE_BASE_URL" in str(caught.value)
    assert isinstance(caught.value.__cause__, openai.APIConnectionError)


def test_a_wrong_key_says_the_key_was_refused():
    with serve(api_key="sk-mock-right-key-0123456789") as server:
        with client_from_env(
            local(server, AGENT_CORE_API_KEY="sk-mock-wrong-key-9876543210"), max_retries=0
        ) as client:
            with pytest.raises(BackendError) as caught:
                check_backend(client)
    message = str(caught.value)
    assert message.startswith(f"The server at {server.url} refused the API key (401: Incorrect API key")
    assert "sk-mock-wrong-key-9876543210" not in message and "Check AGENT_CORE_API_KEY" in message


def test_an_unknown_model_says_which_models_are_served():
    with (
        serve(models=["small-model"]) as server,
        client_from_env(local(server), max_retries=0) as client,
    ):
        with pytest.raises(
            BackendError, match=r"does not serve the model 'mock-model'\. It serves: small-model"
        ):
            check_backend(client)
        with pytest.raises(openai.NotFoundError) as caught:
            client.chat.completions.create(model="mock-model", messages=HELLO)
    assert explain_api_error(caught.value).startswith(
        "The server has no such model (404: The model `mock-model` does not exist"
    )


def test_a_rate_limit_says_the_sdk_retried_and_to_wait():
    with serve(rate_limit=1) as server, client_from_env(local(server), max_retries=0) as client:
        client.chat.completions.create(model="mock-model", messages=HELLO)
        with pytest.raises(openai.RateLimitError) as caught:
            client.chat.completions.create(model="mock-model", messages=HELLO)
    assert explain_api_error(caught.value).startswith("Rate limited (429: Rate limit reached for mock-model")


def test_a_missing_endpoint_says_to_check_the_base_url():
    with serve() as server, client_from_env(local(server), max_retries=0) as client:
        with pytest.raises(openai.NotFoundError) as caught:
            client.embeddings.create(model="mock-model", input="hi")
    assert "does not exist on this server (404: Invalid URL" in explain_api_error(caught.value)
    assert "expect it to end in /v1" in explain_api_error(caught.value)


def test_vllm_without_tool_flags_says_which_flags_to_add():
    error = failure_from(
        400,
        {
            "error": {
                "message": '"auto" tool choice requires '
                "--enable-auto-tool-choice and --tool-call-parser to be set"
            }
        },
    )
    assert "--enable-auto-tool-choice --tool-call-parser" in explain_api_error(error)


def test_a_model_without_tools_says_to_pick_another():
    error = failure_from(
        400, {"error": {"message": "registry.ollama.ai/library/gemma3:4b does not support tools"}}
    )
    assert explain_api_error(error).startswith("This model cannot call tools (400: registry.ollama.ai")


def test_ollamas_missing_model_is_recognised():
    error = failure_from(404, {"error": 'model "llama3.9" not found, try pulling it first'})
    assert "ollama pull NAME" in explain_api_error(error)


def test_a_timeout_says_the_model_may_still_be_loading():
    def too_slow(request):
        raise httpx2.ReadTimeout("timed out", request=request)

    client = openai.OpenAI(
        base_url="http://localhost:11434/v1",
        api_key="x",
        max_retries=0,
        http_client=httpx2.Client(transport=httpx2.MockTransport(too_slow)),
    )
    with pytest.raises(openai.APITimeoutError) as caught:
        client.chat.completions.create(model="m", messages=HELLO)
    assert explain_api_error(caught.value).startswith(
        "The request to http://localhost:11434 timed out. A local model may still be loading"
    )


# --- live: a real model, only when asked ----------------------------------------------------


def live_backend_configured() -> bool:
    try:
        return os.environ.get("AGENT_CORE_LIVE") == "1" and backend_from_env().kind != "mock"
    except BackendError:
        return False


live = pytest.mark.skipif(
    not live_backend_configured(),
    reason="live: set AGENT_CORE_LIVE=1 and a real model (OPENAI_API_KEY, or AGENT_CORE_BASE_URL "
    "and AGENT_CORE_MODEL); see docs/real_models.md",
)


@pytest.mark.live
@live
def test_live_the_configured_model_is_served():
    with client_from_env() as client:
        assert check_backend(client)


@pytest.mark.live
@live
def test_live_the_real_model_does_arithmetic_with_the_calculator_tools():
    with client_from_env() as client:
        run = run_agent(
            client,
            "What is 5 + 8/12? Use the tools for every step.",
            [add, divide],
            model=model_name(),
            system=(
                "You are a careful calculator. Call a tool for each arithmetic step, then give the result."
            ),
        )
    assert run.stop_reason == "answered", run.answer
    assert run.tool_calls_made >= 1
    assert "5.66" in run.answer or "5.67" in run.answer, run.answer
