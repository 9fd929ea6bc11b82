"""The mock model: a genuine openai.OpenAI client whose HTTP transport runs a policy in-process (every lesson).

    from agent_core import mock
    client = mock.client()                      # a real openai.OpenAI, no key, no network
    client.chat.completions.create(model="mock-model", messages=[...])
    client.trace                                # every call's exact request and response JSON
"""

from __future__ import annotations

import httpx2
import openai

from ..trace import RecordingTransport, Trace
from .calculator import Calculator
from .chooser import DescriptionReader
from .clumsy import Clumsy
from .misbehaving import ClaimsDone, Reckless, Repeater, Runaway
from .model import CREATED, MODELS, SYSTEM_FINGERPRINT, Echo, MockModel
from .obedient import Obedient
from .policy import (
    Policy,
    PolicyLike,
    Reply,
    Script,
    ScriptExhausted,
    ToolCall,
    as_policy,
    as_reply,
    call,
    calls,
    last_user_text,
    offered_tools,
    text,
    tool_results,
    turn_index,
)
from .protocol import ProtocolError, check_request

__all__ = [
    "client",
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
    "as_reply",
    "as_policy",
    "offered_tools",
    "last_user_text",
    "tool_results",
    "turn_index",
    "CREATED",
    "MODELS",
    "SYSTEM_FINGERPRINT",
]

DEFAULT_MODEL = "mock-model"
BASE_URL = "http://mock.agent-core.invalid/v1"  # never resolved: requests stay in this process


def transport(
    policy: PolicyLike | None = None, *, strict: bool = True, picky: bool = False
) -> httpx2.MockTransport:
    """the in-process httpx2 transport that answers as the mock model"""
    return httpx2.MockTransport(MockModel(policy, strict=strict, picky=picky).handle)


def client(
    policy: PolicyLike | None = None,
    *,
    strict: bool = True,
    picky: bool = False,
    trace: Trace | None = None,
    max_retries: int = 0,
) -> openai.OpenAI:
    """a real openai.OpenAI that talks to the mock model; its calls are recorded in `client.trace`

    policy: what the model says next (default: Echo, a plain text reply).
    strict: refuse what the real API refuses, with its HTTP 400 and error text.
    picky: also refuse message fields the request schema does not define, as some
        OpenAI-compatible servers (vLLM, for one) do.
    trace: the Trace to record into (default: a new one).
    max_retries: the SDK's retries; 0 so a mock error shows at once.
    """
    trace = trace if trace is not None else Trace()
    recording = RecordingTransport(transport(policy, strict=strict, picky=picky), trace)
    sdk_client = openai.OpenAI(
        api_key="mock-key-not-secret",
        base_url=BASE_URL,
        http_client=httpx2.Client(transport=recording),
        max_retries=max_retries,
        _strict_response_validation=True,
    )
    sdk_client.trace = trace
    return sdk_client
