"""Mock policies and a folder of logs for measuring context and cost: a log reader and a summariser
(lesson 06)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from typing import Any

from .._shared import ERROR_PREFIX
from .policy import Policy, ReplyLike, call, offered_tools

__all__ = [
    "LogReader",
    "Summarizer",
    "is_summary_request",
    "make_log",
    "sample_logs",
    "log_tools",
]

_DEFAULT_WORD = "ERROR"  # what LogReader counts when the task quotes no word
_LOG_TOOLS = ("list_files", "read_file", "search_file")
MAX_SHOWN = 20  # search_file shows at most this many matching lines
SHORT_RESULT = 200  # Summarizer keeps a tool result whole up to this many characters

# --- the folder of logs ---------------------------------------------------------------------

_EVENTS = {
    "INFO": (
        "request handled",
        "cache hit for key user:{n}",
        "job {n} queued",
        "health check ok",
        "user {n} signed in",
        "sent {n} bytes",
    ),
    "WARN": ("slow response ({n} ms)", "retrying call to upstream (attempt {k})"),
    "ERROR": (
        "timeout after 30000 ms calling upstream",
        "database connection refused",
        "unhandled exception in handler {n}",
    ),
}

# path -> (lines, positions of the ERROR lines); sized so that lesson 06's runs have the
# proportions of its source: see tests/test_context.py for the numbers they produce
_FOLDER = {
    "api.log": (38, (4, 17)),
    "auth.log": (44, (9,)),
    "billing.log": (9, (5,)),
    "cache.log": (8, ()),
    "cron.log": (50, (12, 30, 41)),
    "mail.log": (52, (20,)),
    "private/cards.log": (12, (3, 7)),
    "queue.log": (9, (2,)),
    "search.log": (8, ()),
    "worker.log": (10, (6,)),
}
_BIG_BILLING = (385, (40, 151, 152, 307))  # about 8,200 tokens


def make_log(service: str, lines: int, errors: Iterable[int] = ()) -> str:
    """a deterministic log of `lines` lines; the lines at the 0-based positions `errors` are ERRORs"""
    errors = set(errors)
    out = []
    for i in range(lines):
        level = "ERROR" if i in errors else ("WARN" if i % 7 == 3 else "INFO")
        events = _EVENTS[level]
        event = events[(i * 5 + len(service)) % len(events)]
        event = event.format(n=1000 + (i * 37) % 9000, k=1 + i % 3)
        seconds = 9 * 3600 + i * 13 + len(service) * 60
        clock = f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
        out.append(f"2026-03-02 {clock} {level:<5} {service} {event}")
    return "\n".join(out) + "\n"


def sample_logs(big_billing: bool = False) -> dict[str, str]:
    """the folder of service logs, path -> text; with big_billing, billing.log is ~8,200 tokens"""
    folder = dict(_FOLDER)
    if big_billing:
        folder["billing.log"] = _BIG_BILLING
    return {
        path: make_log(path.rsplit("/", 1)[-1].removesuffix(".log"), lines, errors)
        for path, (lines, errors) in folder.items()
    }


def log_tools(files: dict[str, str], *names: str) -> list[Callable[..., str]]:
    """the tools an agent uses on a folder (path -> text): the named ones, or list_files and read_file"""
    chosen = names or ("list_files", "read_file")
    unknown = [name for name in chosen if name not in _LOG_TOOLS]
    if unknown:
        raise ValueError(f"unknown log tool(s) {unknown}; choose from {list(_LOG_TOOLS)}")

    def text_of(path: str) -> str:
        if path not in files:
            raise FileNotFoundError(f"there is no file {path!r}; the files are: {', '.join(sorted(files))}")
        return files[path]

    def list_files() -> str:
        """List the paths of every file in the folder, one per line."""
        return "\n".join(sorted(files))

    def read_file(path: str, start_line: int | None = None, end_line: int | None = None) -> str:
        """Read a file of the folder, whole or a range of its lines.

        Args:
            path: File path as list_files shows it, e.g. "api.log".
            start_line: First line to return, counting from 1. Leave it out to start at line 1.
            end_line: Last line to return (included). Leave it out to read to the end.
        """
        lines = text_of(path).splitlines(keepends=True)
        first = 1 if start_line is None else max(start_line, 1)
        last = len(lines) if end_line is None else end_line
        return "".join(lines[first - 1 : last])

    def search_file(path: str, pattern: str) -> str:
        """Find the lines of a file that contain some text, with their line numbers and count.

        Use it instead of reading a whole log when you look for something specific.

        Args:
            path: File path as list_files shows it, e.g. "api.log".
            pattern: Text to look for, case-sensitive, e.g. "ERROR".
        """
        lines = text_of(path).splitlines()
        found = [(n, line) for n, line in enumerate(lines, start=1) if pattern in line]
        report = [f"{len(found)} of {len(lines)} lines match"]
        report += [f"{n}: {line}" for n, line in found[:MAX_SHOWN]]
        if len(found) > MAX_SHOWN:
            report.append(f"[... {len(found) - MAX_SHOWN} more matching lines not shown]")
        return "\n".join(report)

    tools: dict[str, Callable[..., str]] = {
        "list_files": list_files,
        "read_file": read_file,
        "search_file": search_file,
    }
    return [tools[name] for name in chosen]


# --- reading what the model has seen --------------------------------------------------------

_QUOTED = re.compile(r"(?<![\w'])'([^'\n]{1,40})'(?![\w'])")
_FILE = re.compile(r"(?<![\w/.-])((?:[\w-]+/)*[\w-]+\.(?:log|txt|csv|md))\b")
_RULE = re.compile(
    r"(?i)\b(?:skip|do not open|don't open|never open|do not read|don't read|never read)\b"
    r"[^.\n]*?\b([\w-]+)/"
)
_SUMMARY_CALL = re.compile(r"^- called (\w+) (\{.*?\}) -> (.*)$", re.MULTILINE)
_COUNT = re.compile(r"^(\d+) of (\d+) lines match")
_CUT = re.compile(r"\[\.\.\. .*cut")


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return content or ""


def _said(messages: list[dict[str, Any]], *roles: str) -> list[str]:
    return [_text(m) for m in messages if m.get("role") in roles]


def is_summary_request(request: dict[str, Any]) -> bool:
    """whether the latest message is a user message asking for a summary of the ones before it"""
    messages = request.get("messages") or []
    if len(messages) < 2 or messages[-1].get("role") != "user":
        return False
    return re.match(r"(?i)\s*summari[sz]e\b", _text(messages[-1])) is not None


def _word(texts: Iterable[str]) -> str:
    """the first quoted word in what the user said: what to count"""
    for text in texts:
        found = _QUOTED.search(text)
        if found:
            return found.group(1)
    return _DEFAULT_WORD


def _finding(result: str, word: str) -> tuple[int, bool]:
    """(how many lines of a tool result contain the word, whether part of the result was cut)"""
    header = _COUNT.match(result)
    count = int(header.group(1)) if header else sum(word in line for line in result.splitlines())
    return count, _CUT.search(result) is not None


def _arguments(raw: str) -> dict[str, Any]:
    try:
        arguments = json.loads(raw or "{}")
    except ValueError:
        return {}
    return arguments if isinstance(arguments, dict) else {}


class _Seen:
    """what a request shows: the calls made so far (also those a summary reports) and their results"""

    def __init__(self, messages: list[dict[str, Any]]):
        self.user_texts = _said(messages, "user")
        self.rules_texts = _said(messages, "system", "developer", "user")
        self.word = _word(self.user_texts)
        # (tool name, arguments, result text or None, what a summary says about it or None)
        self.calls: list[tuple[str, dict[str, Any], str | None, str | None]] = []
        for text in self.user_texts:
            for name, raw, account in _SUMMARY_CALL.findall(text):
                self.calls.append((name, _arguments(raw), None, account))
        results = {m.get("tool_call_id"): _text(m) for m in messages if m.get("role") == "tool"}
        for message in messages:
            for tool_call in message.get("tool_calls") or []:
                function = tool_call.get("function") or {}
                result = results.get(tool_call.get("id"), "")
                arguments = _arguments(function.get("arguments", ""))
                self.calls.append((function.get("name", ""), arguments, result, None))

    def files(self) -> list[str]:
        """files named by the user, or listed by list_files, in the order they first appeared"""
        named = [f for text in self.user_texts for f in _FILE.findall(text)]
        for name, _, result, account in self.calls:
            if name == "list_files" and result is not None:
                named += [line.strip() for line in result.splitlines() if _FILE.fullmatch(line.strip())]
            elif name == "list_files" and account is not None:
                named += _FILE.findall(account)
        return list(dict.fromkeys(named))

    def forbidden(self) -> list[str]:
        """folder prefixes an instruction says not to open"""
        return [f"{folder}/" for text in self.rules_texts for folder in _RULE.findall(text)]

    def opened(self) -> dict[str, tuple[str | None, str | None]]:
        """path -> (result, summary account) of the latest call that opened it"""
        return {
            args["path"]: (result, account)
            for name, args, result, account in self.calls
            if name in ("read_file", "search_file") and isinstance(args.get("path"), str)
        }

    def listed(self) -> bool:
        return any(name == "list_files" for name, *_ in self.calls)


# --- the policies ---------------------------------------------------------------------------


class Summarizer(Policy):
    """summarises the messages it receives, deterministically, keeping only some of what they say"""

    def reply(self, request: dict[str, Any]) -> str:
        messages = list(request.get("messages") or [])
        if is_summary_request(request):
            messages = messages[:-1]
        return _summarize_messages(messages)


def _summarize_messages(messages: list[dict[str, Any]]) -> str:
    """the Summarizer's summary of a list of messages: one '- ' line per thing it keeps"""
    word = _word(_said(messages, "user"))
    results = {m.get("tool_call_id"): _text(m) for m in messages if m.get("role") == "tool"}
    lines = []
    for message in messages:
        role, text = message.get("role"), _text(message).strip()
        if role == "user" and text.startswith("[Summary"):
            lines += [line for line in text.splitlines() if line.startswith("- ")]
        elif role == "user" and text:
            lines.append(f"- The user asked: {text.splitlines()[0]}")
        elif role == "assistant":
            if text:
                lines.append(f"- The assistant said: {text.splitlines()[0]}")
            for tool_call in message.get("tool_calls") or []:
                function = tool_call.get("function") or {}
                arguments = json.dumps(_arguments(function.get("arguments", "")))
                account = _account(results.get(tool_call.get("id"), ""), word)
                lines.append(f"- called {function.get('name')} {arguments} -> {account}")
    return "\n".join(lines) or "- Nothing happened yet."


def _account(result: str, word: str) -> str:
    """a tool result in one line: whole if short, else its size and what it says about `word`"""
    if len(result) <= SHORT_RESULT:
        return ", ".join(line.strip() for line in result.splitlines() if line.strip()) or "(empty)"
    count, cut = _finding(result, word)
    total = _COUNT.match(result)
    size = total.group(2) if total else str(len(result.splitlines()))
    return f"{size} lines, {count} with {word!r}" + (", part of it was cut" if cut else "")


class LogReader(Policy):
    """counts the lines with a quoted word in log files, one file per call, then reports per file"""

    def reply(self, request: dict[str, Any]) -> ReplyLike:
        if is_summary_request(request):
            return Summarizer().reply(request)
        seen = _Seen(request.get("messages") or [])
        tools = offered_tools(request)
        if request.get("tool_choice") == "none":
            tools = {}
        files = seen.files()
        if not files and "list_files" in tools and not seen.listed():
            return call("list_files")
        forbidden = seen.forbidden()
        allowed = [f for f in files if not f.startswith(tuple(forbidden))]
        opened = seen.opened()
        for path in allowed:
            if path in opened:
                continue
            if "search_file" in tools:
                return call("search_file", path=path, pattern=seen.word)
            if "read_file" in tools:
                return call("read_file", path=path)
            break
        return self._report(seen, allowed, opened, [f for f in files if f not in allowed])

    def _report(
        self,
        seen: _Seen,
        allowed: list[str],
        opened: dict[str, tuple[str | None, str | None]],
        skipped: list[str],
    ) -> str:
        if not allowed:
            return "I found no log files to check. Name them, or give me a list_files tool."
        lines, total, partial = [f"Lines containing {seen.word!r}:"], 0, False
        for path in allowed:
            if path not in opened:
                lines.append(f"- {path}: not checked (I have no tool to open it)")
                continue
            result, account = opened[path]
            said = result if result is not None else account or ""
            if said.startswith(ERROR_PREFIX):
                lines.append(f"- {path}: could not be read ({said.splitlines()[0]})")
                continue
            if result is not None:
                count, cut = _finding(result, seen.word)
            else:
                found = re.search(r"(\d+) with '", said)
                count, cut = (int(found.group(1)) if found else 0), "was cut" in said
            total, partial = total + count, partial or cut
            lines.append(f"- {path}: at least {count} (part of it was cut)" if cut else f"- {path}: {count}")
        lines.append(f"Total: {'at least ' if partial else ''}{total} in {len(allowed)} files.")
        if skipped:
            lines.append(f"Not opened, as instructed: {', '.join(skipped)}.")
        return "\n".join(lines)
