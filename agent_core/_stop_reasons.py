"""lesson 04: why a run ended: every stop reason the library writes (lessons 04 to 12), in one typed set."""

from __future__ import annotations

from typing import Literal, get_args

__all__ = ["StopReason", "STOP_REASONS"]

StopReason = Literal[
    "answered",  # the model gave a final answer and every guardrail accepted it (lesson 04)
    "max_turns",  # the loop's turn cap, or Limits(max_turns) (lessons 04, 05)
    "empty_answer",  # the model answered with no text and no tool call (lesson 08: a small local model)
    "output_cap",  # the reply was cut by the output cap (finish_reason "length") with nothing usable
    "max_tokens",  # Limits: the run's token budget (lesson 05)
    "max_tool_calls",  # Limits: the run's tool-call budget (lesson 05)
    "max_seconds",  # Limits: the run's time budget (lesson 05)
    "repeated_call",  # LoopDetector: the same call again after feedback (lesson 05)
    "needs_approval",  # Approval: a call waits for a person's decision (lesson 05)
    "rejected",  # an answer check rejected the answer too often (lesson 05)
    "not_verified",  # VerifyBeforeDone: the answer failed its check too often (lesson 05)
    "compaction_failed",  # Compactor: the summary did not make the context small enough (lesson 06)
    "unverified_claims",  # ClaimsCheck: the answer cites lines never read (lesson 07)
    "diff_review",  # DiffReview: the change touched what it must not (lesson 07)
    "error",  # evaluation: the attempt raised instead of ending (lesson 11)
]

STOP_REASONS: frozenset[str] = frozenset(get_args(StopReason))
