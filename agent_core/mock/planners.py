"""Fake models that keep a plan and hand sub-tasks to subagents, well and badly (lesson 12)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from agent_core.mock.coding_policies import ToolStep, read_view, tool_steps
from agent_core.mock.policy import Policy, ReplyLike, ToolCall, call, calls, content_text, offered_tools

__all__ = ["Planner", "Explorer", "Delegator", "USERS_TASK", "EXPLORE_TASK", "CHILD_BEHAVIOURS"]

USERS_TASK = "GET /users?role=editor answers 500. Find out why and say it in two lines; change nothing."
"""the parent's task on lesson 07's users_api project"""
EXPLORE_TASK = (
    "Explore the users_api project, read only: GET /users?role=editor answers 500. Read the code "
    "under app/ and answer in two lines: where the role is checked, and why 'editor' fails."
)
"""the sub-task the Delegator hands to an explorer (a child recognises it by its first words)"""
CHILD_BEHAVIOURS = ("careful", "loops", "overreaches", "fails", "recurses")


def _user_texts(request: dict[str, Any]) -> list[str]:
    return [content_text(m.get("content")) for m in request.get("messages", []) if m["role"] == "user"]


def _last_is_user(request: dict[str, Any]) -> bool:
    messages = request.get("messages", [])
    return bool(messages) and messages[-1]["role"] == "user" and len(_user_texts(request)) > 1


class Planner(Policy):
    """adds its steps to a plan (update_plan), then for each: start it, do its tool call, mark it done

    steps: (item text, the tool call that does it). With forgets=True it adds the items and starts
    the first, then works without touching the plan, and catches up only when a user message
    (a reminder, or an answer turned back) follows its work. It answers with one line per item.
    """

    def __init__(self, steps: Sequence[tuple[str, ToolCall]], forgets: bool = False):
        self.steps, self.forgets = list(steps), forgets

    def reply(self, request: dict[str, Any]) -> ReplyLike:
        done_work = [s for s in tool_steps(request) if s.name != "update_plan"]
        plan = [s for s in tool_steps(request) if s.name == "update_plan" and not s.failed]
        if not plan:
            return calls(*(call("update_plan", action="add", item=text) for text, _ in self.steps))
        status: dict[Any, str] = {text: "pending" for text, _ in self.steps}  # keys: what the model sent
        for step in plan:
            status[step.arguments.get("item")] = {"start": "in_progress", "done": "done"}.get(
                step.arguments.get("action", ""), status.get(step.arguments.get("item"), "pending")
            )
        worked = len(done_work)
        updates = self._catch_up(status, worked)
        if self.forgets and not _last_is_user(request) and any(s == "in_progress" for s in status.values()):
            updates = []  # it forgets the plan while it works
        elif self.forgets and not _last_is_user(request) and worked == 0:
            updates = updates[:1]  # it starts the first item, then forgets
        if updates:
            return calls(*updates)
        if worked < len(self.steps):
            return self.steps[worked][1]
        return "\n".join(
            f"{text}: {_first_line(result.result)}"
            for (text, _), result in zip(self.steps, done_work, strict=False)
        )

    def _catch_up(self, status: dict[str, str], worked: int) -> list[ToolCall]:
        """the plan updates that make the plan say what the work did: finished items done, the next started"""
        updates = []
        for index, (text, _) in enumerate(self.steps):
            if index < worked and status[text] != "done":
                if status[text] == "pending":
                    updates.append(call("update_plan", action="start", item=text))
                updates.append(call("update_plan", action="done", item=text))
            elif index == worked and status[text] == "pending":
                updates.append(call("update_plan", action="start", item=text))
        return updates


def _first_line(text: str) -> str:
    return text.splitlines()[0] if text else ""


class Explorer(Policy):
    """reads users_api's app/ files with list_dir and read_file, then answers in two lines

    behaviour: "careful" does just that; "loops" reads the files again and again and never
    answers; "overreaches" also tries to fix roles.py with write_file, given or not; "fails" makes
    its third model call fail (HTTP 500); "recurses" first hands its own task to delegate, if offered.
    """

    def __init__(self, behaviour: str = "careful"):
        if behaviour not in CHILD_BEHAVIOURS:
            raise ValueError(f"behaviour must be one of {CHILD_BEHAVIOURS}, not {behaviour!r}")
        self.behaviour = behaviour

    def reply(self, request: dict[str, Any]) -> ReplyLike:
        steps, offered = tool_steps(request), offered_tools(request)
        if self.behaviour == "recurses" and "delegate" in offered and not _named(steps, "delegate"):
            return call("delegate", task=_user_texts(request)[0])
        if (
            self.behaviour == "fails"
            and sum(m["role"] == "assistant" for m in request.get("messages", [])) >= 2
        ):
            raise RuntimeError("the model's server is overloaded")
        if "list_dir" not in offered or "read_file" not in offered:
            return "I need list_dir and read_file to explore the project."
        listed = _named(steps, "list_dir")
        if not listed:
            return call("list_dir", path=".")
        files = [line.split()[0] for line in listed[0].result.splitlines()[1:] if line.startswith("app/")]
        files = [path for path in files if path.endswith(".py") and not path.endswith("__init__.py")]
        read = [s.arguments.get("path") for s in _named(steps, "read_file")]
        unread = [path for path in files if path not in read]
        if unread:
            return call("read_file", path=unread[0])
        if self.behaviour == "loops":
            return call("read_file", path=files[len(read) % len(files)])
        views = [v for v in (read_view(s.result) for s in _named(steps, "read_file")) if v is not None]
        answer = _two_lines(views, _role_asked(_user_texts(request)[0]))
        if self.behaviour == "overreaches" and not _named(steps, "write_file"):
            roles = next((v for v in views if "ROLES = [" in v.text()), None)
            if roles is not None:
                fixed = roles.text().replace(
                    "ROLES = [\n", f'ROLES = [\n    "{_role_asked(_user_texts(request)[0])}",\n'
                )
                return call("write_file", path=roles.path, content=fixed)
        return answer


def _named(steps: list[ToolStep], name: str) -> list[ToolStep]:
    return [step for step in steps if step.name == name]


def _role_asked(task: str) -> str:
    found = re.search(r"role=(\w+)", task)
    return found[1] if found else "editor"


def _two_lines(views: list[Any], role: str) -> str:
    """where the role is checked, and what the list of roles holds, from the files read"""
    roles = next((v for v in views if "ROLES = [" in v.text()), None)
    checker = next((v for v in views if "check_role(" in v.text() and v is not roles), None)
    if roles is None or checker is None:
        return "I could not find where the role is checked."
    members = re.findall(r'"(\w+)"', roles.text().split("ROLES = [", 1)[1].split("]", 1)[0])
    return (
        f"{checker.path} checks ?role= with check_role() from {roles.path} and answers 500 when it raises.\n"
        f"{roles.path}: ROLES lists only {', '.join(members)}, so check_role({role!r}) raises UnknownRole."
    )


class Delegator(Policy):
    """on users_api, hands the reading to an explorer (delegate) and answers with what it returns

    Without a delegate tool it reads the files itself, as an Explorer. It plays the explorer too:
    a conversation that starts with EXPLORE_TASK is a child's, answered by Explorer(child). With
    twice=True it asks for two delegations in one reply.
    """

    def __init__(self, child: str = "careful", twice: bool = False):
        self.explorer, self.twice = Explorer(child), twice

    def reply(self, request: dict[str, Any]) -> ReplyLike:
        users = _user_texts(request)
        if (users and users[0].startswith(EXPLORE_TASK[:30])) or "delegate" not in offered_tools(request):
            return self.explorer.reply(request)
        handed = _named(tool_steps(request), "delegate")
        if not handed:
            return calls(*[call("delegate", task=EXPLORE_TASK)] * (2 if self.twice else 1))
        answers = [step.result for step in handed if not step.failed]
        if not answers:
            return f"The explorer could not answer, so I cannot say why yet. It said: {handed[0].result}"
        return answers[0]
