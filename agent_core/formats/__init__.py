"""Other wire formats: one Chat Completions conversation as Responses, Anthropic and Ollama (lesson 09).

The same conversation, four shapes. What changes is where each piece goes:

                 Chat Completions    Responses              Anthropic Messages     Ollama /api/chat
system prompt    a system message    `instructions`         top-level `system`     a system message
a tool call      `tool_calls` + id   `function_call` item   `tool_use` block       `tool_calls`, NO id
its arguments    JSON text           JSON text              an object              an object
its result       `tool` message      `function_call_output` `tool_result` block    `tool` message,
                 naming the id       naming `call_id`       in the next user turn  paired by ORDER
a failure        "ERROR: " text      "ERROR: " text         `is_error: true`       "ERROR: " text

One module per format, each with its to_ and from_ (messages), tool_to_ and tool_from_ (definitions)
and completion_to_ (a response): `responses.py`, `anthropic.py` (turns alternate: a second message of
the same role joins the first), `ollama.py` (no call ids: results go back in the calls' order). What
they share is in `_chat.py`.
"""

from __future__ import annotations

from .._shared import ERROR_PREFIX
from ._chat import UNPARSED_ARGUMENTS
from .anthropic import (
    completion_to_anthropic,
    from_anthropic,
    from_anthropic_stop_reason,
    to_anthropic,
    to_anthropic_stop_reason,
    tool_from_anthropic,
    tool_to_anthropic,
)
from .ollama import completion_to_ollama, from_ollama, to_ollama, tool_from_ollama, tool_to_ollama
from .responses import (
    completion_to_responses,
    from_responses,
    to_responses,
    tool_from_responses,
    tool_to_responses,
)

__all__ = ["to_responses", "from_responses", "to_anthropic", "from_anthropic", "to_ollama", "from_ollama"]
__all__ += ["tool_to_responses", "tool_from_responses", "tool_to_anthropic", "tool_from_anthropic"]
__all__ += ["tool_to_ollama", "tool_from_ollama", "ERROR_PREFIX", "UNPARSED_ARGUMENTS"]
__all__ += ["completion_to_responses", "completion_to_anthropic", "completion_to_ollama"]
__all__ += ["to_anthropic_stop_reason", "from_anthropic_stop_reason"]
