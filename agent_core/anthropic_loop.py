"""The agent loop written directly against Anthropic's Messages API, with the anthropic SDK (lesson 09)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["run_on_anthropic"]


def run_on_anthropic(
    client: Any,
    task: str,
    tools: list[dict[str, Any]],
    functions: Mapping[str, Callable[..., Any]],
    max_turns: int = 6,
    model: str = "mock-model",
) -> str:
    """ask, run every tool_use block, answer them all in one user message; stop when stop_reason is not
    "tool_use"

    Returns the final reply's text; raises RuntimeError after max_turns model calls that all asked for tools.
    """
    messages: list[dict[str, Any]] = [{"role": "user", "content": task}]
    for _ in range(max_turns):
        response = client.messages.create(model=model, max_tokens=1024, tools=tools, messages=messages)
        # the whole reply, text and tool_use blocks alike: each tool_result answers a tool_use sent back here
        messages.append(
            {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in response.content]}
        )
        if response.stop_reason != "tool_use":
            return "".join(block.text for block in response.content if block.type == "text")
        results = []
        for block in response.content:
            if block.type != "tool_use":
                continue
            try:
                output, failed = str(functions[block.name](**block.input)), False
            except Exception as error:  # the model's mistake or the tool's: an observation, never a crash
                output, failed = f"{type(error).__name__}: {error}", True
            results.append(
                {"type": "tool_result", "tool_use_id": block.id, "content": output, "is_error": failed}
            )
        # every result of the turn in ONE user message, a failure with is_error: split results teach the
        # model to stop calling in parallel
        # (platform.claude.com/docs/en/agents-and-tools/tool-use/parallel-tool-use)
        messages.append({"role": "user", "content": results})
    raise RuntimeError(f"no final answer after {max_turns} model calls")
