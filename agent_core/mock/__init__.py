"""The mock model: a genuine openai.OpenAI client (or its asyncio twin) whose HTTP transport runs a
policy in-process (every lesson)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, TypeVar

import httpx2
import openai

from ..trace import RecordingHTTPTransport, Trace
from .calculator import Calculator
from .chooser import DescriptionReader
from .clumsy import Clumsy
from .misbehaving import ClaimsDone, Reckless, Repeater, Runaway
from .model import DEFAULT_MODEL, Echo, MockModel
from .obedient import Obedient
from .policy import (
    Policy,
    PolicyLike,
    Reply,
    Script,
    ScriptExhausted,
    ToolCall,
    as_policy,
    call,
    calls,
    last_user_text,
    offered_tools,
    text,
    tool_results,
    turn_index,
)
from .protocol import ProtocolError, check_request

if TYPE_CHECKING:
    import anthropic

__all__ = [
    "client",
    "MockClient",
    "async_client",
    "AsyncMockClient",
    "anthropic_client",
    "async_anthropic_client",
    "transport",
    "DEFAULT_MODEL",
    "BASE_URL",
    "MockModel",
    "Echo",
    "Calculator",
    "DescriptionReader",
    "Obedient",
    "Clumsy",
    "Runaway",
    "Repeater",
    "Reckless",
    "ClaimsDone",
    "Policy",
    "PolicyLike",
    "Reply",
    "ToolCall",
    "Script",
    "ScriptExhausted",
    "ProtocolError",
    "check_request",
    "text",
    "call",
    "calls",
    "as_policy",
    "offered_tools",
    "last_user_text",
    "tool_results",
    "turn_index",
]

BASE_URL = "http://mock.agent-core.invalid/v1"  # never resolved: requests stay in this process
ANTHROPIC_BASE_URL = BASE_URL.removesuffix("/v1")  # the anthropic SDK adds /v1 itself


def transport(
    policy: PolicyLike | None = None, *, check_protocol: bool = True, reject_unknown_fields: bool = False
) -> httpx2.MockTransport:
    """the in-process httpx2 transport that answers as the mock model"""
    model = MockModel(policy, check_protocol=check_protocol, reject_unknown_fields=reject_unknown_fields)
    return httpx2.MockTransport(model.handle)


class MockClient(openai.OpenAI):
    """the openai.OpenAI that client() makes: the same client, plus the Trace its calls go to"""

    trace: Trace


class _Traced(Protocol):
    """an SDK client with the Trace its calls go to"""

    trace: Trace


_Client = TypeVar("_Client", bound=_Traced)


class AsyncMockClient(openai.AsyncOpenAI):
    """the openai.AsyncOpenAI that async_client() makes: the same client, plus the Trace its calls go to"""

    trace: Trace


def client(
    policy: PolicyLike | None = None,
    *,
    check_protocol: bool = True,
    reject_unknown_fields: bool = False,
    trace: Trace | None = None,
    max_retries: int = 0,
) -> MockClient:
    """a real openai.OpenAI that talks to the mock model; its calls are recorded in `client.trace`

    policy: what the model says next (default: Echo, a plain text reply).
    check_protocol: refuse what the real API refuses, with its HTTP 400 and error text.
    reject_unknown_fields: also refuse message fields the request schema does not define, as some
        OpenAI-compatible servers (vLLM, for one) do.
    trace: the Trace to record into (default: a new one).
    max_retries: the SDK's retries; 0 so a mock error shows at once.
    """
    recording = _recording(policy, check_protocol, reject_unknown_fields, trace)
    return _on_the_mock(MockClient, BASE_URL, httpx2.Client(transport=recording), recording, max_retries)


def async_client(
    policy: PolicyLike | None = None,
    *,
    check_protocol: bool = True,
    reject_unknown_fields: bool = False,
    trace: Trace | None = None,
    max_retries: int = 0,
) -> AsyncMockClient:
    """client()'s twin for asyncio: a real openai.AsyncOpenAI on the same mock model and policies

    The same transport answers both, as httpx2.MockTransport serves sync and async clients alike;
    calls are recorded in `client.trace`. The arguments are client()'s.
    """
    recording = _recording(policy, check_protocol, reject_unknown_fields, trace)
    return _on_the_mock(
        AsyncMockClient, BASE_URL, httpx2.AsyncClient(transport=recording), recording, max_retries
    )


def _on_the_mock(
    sdk_class: Callable[..., _Client],
    base_url: str,
    http_client: httpx2.Client | httpx2.AsyncClient,
    recording: RecordingHTTPTransport,
    max_retries: int,
) -> _Client:
    """a real SDK client whose HTTP goes through the mock's recording transport, and its Trace"""
    sdk_client = sdk_class(
        api_key="mock-key-not-secret",
        base_url=base_url,
        http_client=http_client,
        max_retries=max_retries,
        _strict_response_validation=True,  # the SDK checks every response against its types
    )
    sdk_client.trace = recording.trace
    return sdk_client


def _recording(
    policy: PolicyLike | None, check_protocol: bool, reject_unknown_fields: bool, trace: Trace | None
) -> RecordingHTTPTransport:
    """the mock's transport, each call recorded into `trace` (a new Trace if None)"""
    mock_transport = transport(
        policy, check_protocol=check_protocol, reject_unknown_fields=reject_unknown_fields
    )
    return RecordingHTTPTransport(mock_transport, trace if trace is not None else Trace())


def anthropic_client(
    policy: PolicyLike | None = None,
    *,
    check_protocol: bool = True,
    trace: Trace | None = None,
    max_retries: int = 0,
) -> anthropic.Anthropic:
    """a real anthropic.Anthropic that talks to the mock model in process; calls recorded in `client.trace`

    The same mock as client(), on Anthropic's Messages API: POST /v1/messages and /v1/messages/count_tokens.
    """
    import anthropic  # only here: most lessons never load the anthropic SDK

    class MockAnthropicClient(anthropic.Anthropic):
        """the anthropic.Anthropic that anthropic_client() makes: the same client, plus its Trace"""

        trace: Trace

    recording = _recording(policy, check_protocol, False, trace)
    return _on_the_mock(
        MockAnthropicClient, ANTHROPIC_BASE_URL, httpx2.Client(transport=recording), recording, max_retries
    )


def async_anthropic_client(
    policy: PolicyLike | None = None,
    *,
    check_protocol: bool = True,
    trace: Trace | None = None,
    max_retries: int = 0,
) -> anthropic.AsyncAnthropic:
    """anthropic_client()'s twin for asyncio: a real anthropic.AsyncAnthropic on the same mock model"""
    import anthropic  # only here: most lessons never load the anthropic SDK

    class AsyncMockAnthropicClient(anthropic.AsyncAnthropic):
        """the anthropic.AsyncAnthropic that async_anthropic_client() makes, plus its Trace"""

        trace: Trace

    recording = _recording(policy, check_protocol, False, trace)
    return _on_the_mock(
        AsyncMockAnthropicClient,
        ANTHROPIC_BASE_URL,
        httpx2.AsyncClient(transport=recording),
        recording,
        max_retries,
    )
