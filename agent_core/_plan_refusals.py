"""The plan's refusals: why a change to the model's plan is not allowed, in words it can act on
(lesson 12)."""

from __future__ import annotations

__all__ = ["plan_refusal"]


def plan_refusal(items: list[dict[str, str]], action: str, text: str) -> str | None:
    """why `action` on the item `text` is not allowed (None when it is): an item is added once, with
    some text; only a pending item starts, while none is in progress; only the one in progress is done"""
    found = next((item for item in items if item["text"] == text), None)
    if action == "add":
        if not text.strip():
            return "an item needs some text, e.g. 'read app/roles.py'."
        if found is not None:
            return f"{text!r} is already in the plan ({found['status']}); add a different item."
        return None
    if action not in ("start", "done"):
        return f"unknown action {action!r}: use 'add', 'start' or 'done'."
    if found is None:
        return f"there is no item {text!r} in the plan. Add it first, or use its exact text."
    status = found["status"].replace("_", " ")
    busy = next((item for item in items if item["status"] == "in_progress"), None)
    if action == "start" and found["status"] != "pending":
        return f"{text!r} is {status}; only a pending item can start."
    if action == "start" and busy is not None:
        return f"{busy['text']!r} is in progress: mark it done before you start another item."
    if action == "done" and found["status"] != "in_progress":
        return f"{text!r} is {status}; start it before you mark it done."
    return None
