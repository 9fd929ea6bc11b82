"""Seeded noisy models: any policy misbehaving at chosen rates, the same way for the same seed; and one
model that plays lesson 11's whole task suite (lesson 11)."""

from __future__ import annotations

import json
import random
from dataclasses import asdict, dataclass
from typing import Any

from .calculator import Calculator
from .misbehaving import ClaimsDone, discount_versions
from .policy import Policy, PolicyLike, Reply, ReplyLike, ToolCall, as_policy, call, offered_tools

__all__ = ["Noise", "Noisy", "SuiteSolver"]


@dataclass(frozen=True)
class Noise:
    """how often a noisy model misbehaves: each a probability per model call (at most one per call)"""

    wrong_tool: float = 0.0
    """asks for another of the offered tools, with the same arguments"""
    bad_arguments: float = 0.0
    """drops an argument of a call (the dispatcher answers with a validation error)"""
    early_done: float = 0.0
    """stops working and claims to be done, with a guessed number"""
    loop: float = 0.0
    """repeats its previous calls, and keeps repeating them until a call comes back as an error"""

    def __post_init__(self) -> None:
        rates = asdict(self).values()
        if any(not 0 <= rate <= 1 for rate in rates) or sum(rates) > 1:
            raise ValueError(f"each rate must be between 0 and 1, and together at most 1; got {self}")

    def draw(self, rng: random.Random) -> str | None:
        """one misbehaviour for this call, or None"""
        roll, threshold = rng.random(), 0.0
        for kind, rate in asdict(self).items():
            threshold += rate
            if roll < threshold:
                return kind
        return None


class Noisy(Policy):
    """wraps a policy and makes it misbehave at the given rates, the same way for the same seed

    Each model call draws from its own random.Random, seeded with the seed, the task and the call's
    position in the conversation, never from the global generator: the same conversation gets the
    same misbehaviour on every machine and in any order of runs. `faults` lists what it did.
    """

    def __init__(self, policy: PolicyLike, seed: int, noise: Noise) -> None:
        self.policy, self.seed, self.noise = as_policy(policy), seed, noise
        self.faults: list[str] = []

    def reply(self, request: dict[str, Any]) -> Reply:
        messages = request.get("messages", [])
        turn = sum(m.get("role") == "assistant" for m in messages)
        task = next((str(m.get("content")) for m in messages if m.get("role") == "user"), "")
        rng = random.Random(f"{self.seed}/{turn}/{task}")  # str seeds hash with SHA-512: same everywhere
        previous = _last_calls(messages)
        if previous and _still_looping(messages):
            return self._fault("loop", Reply(tool_calls=previous))
        kind = self.noise.draw(rng)
        if kind == "early_done":
            return self._fault(kind, Reply(content=f"Done. The answer is {rng.randint(1, 99)}."))
        if kind == "loop" and previous:
            return self._fault(kind, Reply(tool_calls=previous))
        reply = self.policy(request)
        if not reply.tool_calls or kind not in ("wrong_tool", "bad_arguments"):
            return reply
        calls = list(reply.tool_calls)
        index = rng.randrange(len(calls))
        changed = (
            _wrong_tool(calls[index], request, rng)
            if kind == "wrong_tool"
            else _bad_arguments(calls[index], rng)
        )
        if changed is None:
            return reply
        calls[index] = changed
        return self._fault(kind, Reply(content=reply.content, tool_calls=tuple(calls)))

    def _fault(self, kind: str, reply: Reply) -> Reply:
        self.faults.append(kind)
        return reply


class SuiteSolver(Policy):
    """lesson 11's task suite played by one model, as one real model plays every task: arithmetic as the
    Calculator does it; with a run_tests tool, lesson 05's discount fix (run the tests, read the code,
    write the fix, run the tests again, then say so)"""

    def __init__(self) -> None:
        fix = discount_versions()["right_fix"]
        work = [
            call("run_tests"),
            call("read_file", path="discount.py"),
            call("write_file", path="discount.py", content=fix),
            call("run_tests"),
        ]
        claim = "Fixed: an order of exactly 100 now gets the member discount. All 4 tests pass."
        self.calculator, self.fixer = Calculator(), ClaimsDone(work, claim, [*work, claim])

    def reply(self, request: dict[str, Any]) -> ReplyLike:
        return (self.fixer if "run_tests" in offered_tools(request) else self.calculator)(request)


def _last_calls(messages: list[dict[str, Any]]) -> tuple[ToolCall, ...]:
    """the calls of the latest assistant message, as the model would write them again"""
    for message in reversed(messages):
        if message.get("role") == "assistant":
            return tuple(
                ToolCall(c["function"]["name"], c["function"].get("arguments") or "{}")
                for c in message.get("tool_calls") or []
            )
    return ()


def _still_looping(messages: list[dict[str, Any]]) -> bool:
    """the last two assistant messages asked for the same calls, and no result since was an error"""
    assistants = [i for i, m in enumerate(messages) if m.get("role") == "assistant"]
    if len(assistants) < 2:
        return False
    last, before = (messages[i] for i in assistants[-2:][::-1])
    if not last.get("tool_calls") or _call_keys(last) != _call_keys(before):
        return False
    results = [m for m in messages[assistants[-1] + 1 :] if m.get("role") == "tool"]
    return not any(str(m.get("content") or "").startswith("ERROR") for m in results)


def _call_keys(message: dict[str, Any]) -> list[tuple[str, str]]:
    return [
        (c["function"]["name"], c["function"].get("arguments") or "") for c in message.get("tool_calls") or []
    ]


def _wrong_tool(tool_call: ToolCall, request: dict[str, Any], rng: random.Random) -> ToolCall | None:
    others = sorted(name for name in offered_tools(request) if name != tool_call.name)
    return ToolCall(rng.choice(others), tool_call.arguments) if others else None


def _bad_arguments(tool_call: ToolCall, rng: random.Random) -> ToolCall | None:
    arguments = tool_call.arguments
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments or "{}")
        except ValueError:  # already broken: nothing to drop
            return None
    if not isinstance(arguments, dict) or not arguments:
        return None
    dropped = rng.choice(sorted(arguments))
    return ToolCall(tool_call.name, {k: v for k, v in arguments.items() if k != dropped})
