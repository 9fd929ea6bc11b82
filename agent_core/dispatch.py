"""The dispatcher: a model's tool call in, a `tool` message out; every failure is an observation (lesson 03)."""

from __future__ import annotations

import asyncio
import dataclasses
import enum
import inspect
import json
import threading
import time
import typing
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, get_args, get_origin

import typing_extensions

from ._browser import IN_BROWSER
from ._jsonschema import Draft202012Validator, ValidationError, relevance
from .formats import ERROR_PREFIX  # "ERROR: ": every failed call's observation starts with it
from .schema import Tool, json_type, split_optional
from .trace import escape_surrogates

__all__ = [
    "ToolRegistry",
    "Observation",
    "is_error",
    "truncate",
    "ERROR_PREFIX",
    "DEFAULT_TIMEOUT",
    "python_arguments",
    "to_text",
    "ToolFailure",
]

DEFAULT_TIMEOUT = 30.0  # seconds a tool may run before the dispatcher stops waiting
DEFAULT_MAX_CHARS = 4000  # longest observation sent back to the model
WAIT_SLICE = 0.1  # seconds between checks for Ctrl-C while waiting for a tool (Windows needs them)


@dataclass(frozen=True)
class Observation:
    """what one tool call produced: the text the model will read, and whether it is an error"""

    tool_call_id: str
    name: str
    content: str
    is_error: bool = False
    # unknown_tool, invalid_json, not_an_object, invalid_arguments, tool_error or timeout;
    # tool_error also when the tool itself answered with "ERROR: ..."
    error_type: str | None = None
    arguments: dict[str, Any] | None = None  # the parsed arguments, when they parsed
    value: Any = None  # what the function returned, before it became text

    def to_message(self) -> dict[str, Any]:
        """the Chat Completions `tool` message that answers the call"""
        return {"role": "tool", "tool_call_id": self.tool_call_id, "content": self.content}


def is_error(result: dict[str, Any] | Observation | str) -> bool:
    """whether a tool message (or Observation, or content string) reports a failure"""
    if isinstance(result, Observation):
        return result.is_error
    content = result.get("content") if isinstance(result, dict) else result
    return isinstance(content, str) and content.startswith(ERROR_PREFIX)


class ToolFailure(Exception):
    """raise it from a tool whose message is already written for the model: sent as it is, after ERROR: """


class _Failure(Exception):
    """a step of `run` failed; carries the observation text for the model"""

    def __init__(self, error_type: str, message: str):
        super().__init__(message)
        self.error_type = error_type
        self.message = message


class ToolRegistry:
    """the tools a model may call: their definitions to send, and `dispatch` to run a call"""

    def __init__(
        self,
        tools: Iterable[Callable[..., Any]] = (),
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
        max_chars: int | None = DEFAULT_MAX_CHARS,
    ):
        self.timeout = timeout  # None: wait for ever
        self.max_chars = max_chars  # None: never cut
        self._tools: dict[str, Tool] = {}
        self._timeouts: dict[str, float | None] = {}
        self._own_timeouts: dict[str, float] = {}
        for function in tools:
            self.add(function)

    # --- registering --------------------------------------------------------------------

    def add(
        self,
        function: Callable[..., Any],
        *,
        name: str | None = None,
        timeout: float | None = None,
    ) -> Tool:
        """register a Tool or a plain function (made into a Tool); returns the Tool

        timeout: seconds this tool may run; None uses the registry's timeout. A function with an
        `own_timeout` attribute (seconds) stops itself within that time, as run_command kills its
        command: the registry never gives up on it sooner, so the model hears the tool's own message.
        """
        if isinstance(function, Tool) and name in (None, function.name):
            new_tool = function
        else:
            strict = function.strict if isinstance(function, Tool) else False
            new_tool = Tool(function, name=name, strict=strict)
        if new_tool.name in self._tools:
            raise ValueError(
                f"a tool named {new_tool.name!r} is already registered; give one of them "
                "another name with name=..."
            )
        self._tools[new_tool.name] = new_tool
        if timeout is not None:
            self._timeouts[new_tool.name] = timeout
        own_timeout = getattr(new_tool, "own_timeout", None)
        if own_timeout is not None:
            self._own_timeouts[new_tool.name] = own_timeout
        return new_tool

    def register(self, function: Callable[..., Any] | None = None, **options: Any) -> Any:
        """decorator: `@registry.register` or `@registry.register(timeout=5, name=...)`"""
        if function is None:
            return lambda function: self.add(function, **options)
        return self.add(function, **options)

    @property
    def definitions(self) -> list[dict[str, Any]]:
        """the Chat Completions tool definitions to send as `tools=`"""
        return [t.definition for t in self._tools.values()]

    @property
    def names(self) -> list[str]:
        return list(self._tools)

    def timeout_for(self, name: str) -> float | None:
        """the tool's timeout if it has one, else the registry's; never less than its own_timeout"""
        timeout = self._timeouts.get(name, self.timeout)
        if timeout is None or name not in self._own_timeouts:
            return timeout
        return max(timeout, self._own_timeouts[name])

    def __getitem__(self, name: str) -> Tool:
        return self._tools[name]

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def __repr__(self) -> str:
        return f"ToolRegistry({self.names})"

    # --- running a call -----------------------------------------------------------------

    def dispatch(self, call: Any) -> dict[str, Any]:
        """run one tool call (SDK object or dict); always returns the `tool` message answering it"""
        return self.run(call).to_message()

    def dispatch_all(self, tool_calls: Iterable[Any] | None) -> list[dict[str, Any]]:
        """run every call in order; one `tool` message per call, in the same order"""
        return [self.dispatch(call) for call in tool_calls or []]

    def run(self, call: Any) -> Observation:
        """run one tool call and return the Observation; never raises for the model's mistakes"""
        call_id, name, raw_arguments = _read_call(call)
        arguments = None
        try:
            tool = self._find(name)
            arguments = self._parse(tool, raw_arguments)
            self._validate(tool, arguments)
            text, value = self._call(tool, arguments)
        except _Failure as failure:
            content = self._finish(ERROR_PREFIX + failure.message)
            return Observation(call_id, name, content, True, failure.error_type, arguments)
        # a tool may report its own failure (the coding tools answer "ERROR: ..."): the flag agrees
        failed = text.startswith(ERROR_PREFIX)
        return Observation(
            call_id, name, self._finish(text), failed, "tool_error" if failed else None, arguments, value
        )

    def _finish(self, text: str) -> str:
        """the content the model reads: sendable as UTF-8, then capped"""
        return truncate(escape_surrogates(text), self.max_chars)

    def _find(self, name: Any) -> Tool:
        if not isinstance(name, str):
            raise _Failure(
                "unknown_tool",
                f"the tool name must be a string, but got {json_type(name)}: {_quote(repr(name))}. "
                f"Call a tool by its exact name: {', '.join(self._tools) or '(no tools)'}.",
            )
        if name in self._tools:
            return self._tools[name]
        if not self._tools:
            raise _Failure(
                "unknown_tool",
                f"there is no tool named {name!r}; no tools are available, so answer without one.",
            )
        known = ", ".join(self._tools)
        raise _Failure(
            "unknown_tool",
            f"there is no tool named {name!r}. The available tools are: {known}. "
            "Call one of them by its exact name.",
        )

    def _parse(self, tool: Tool, raw: Any) -> dict[str, Any]:
        if isinstance(raw, dict):  # some servers send arguments already parsed
            return raw
        if not isinstance(raw, str):  # e.g. "arguments": 5 from a server; the SDK keeps it
            raise _Failure(
                "not_an_object",
                f"the arguments for {tool.name!r} must be a JSON object written as a string, but got "
                f"{json_type(raw)}: {_quote(repr(raw))}. Call {tool.name!r} again with one JSON "
                f"object, like {_example(tool)}.",
            )
        if not raw.strip():  # some servers send "" for a call without arguments
            raw = "{}"
        try:
            arguments = json.loads(raw)
        except (ValueError, RecursionError) as error:  # JSONDecodeError is a ValueError
            if isinstance(error, json.JSONDecodeError):
                problem = (
                    f"{error.msg} at line {error.lineno}, column {error.colno} (char {error.pos})"
                )
            else:  # e.g. a 5000-digit number, or nesting too deep to read
                problem = _one_line(error)
            raise _Failure(
                "invalid_json",
                f"the arguments for {tool.name!r} are not valid JSON: {problem}. "
                f"Received: {_quote(raw)}. "
                f"Call {tool.name!r} again with one JSON object, like {_example(tool)}.",
            ) from None
        if not isinstance(arguments, dict):
            raise _Failure(
                "not_an_object",
                f"the arguments for {tool.name!r} must be a JSON object, but got "
                f"{json_type(arguments)}: {_quote(raw)}. Call {tool.name!r} again with one JSON "
                f"object, like {_example(tool)}.",
            )
        return arguments

    def _validate(self, tool: Tool, arguments: dict[str, Any]) -> None:
        # the function takes no other arguments, so report unknown ones even if the schema allows them
        schema = {"additionalProperties": False, **tool.parameters}
        errors = sorted(
            Draft202012Validator(schema).iter_errors(arguments), key=relevance, reverse=True
        )
        if errors:
            order = list(tool.parameters.get("properties", {}))
            explained = dict.fromkeys(_explain(error) for error in errors)  # drop repeats

            def field_order(text: str) -> int:  # list the fields in the order the schema has them
                name = text.split("'")[1] if text.startswith("'") else ""
                return order.index(name) if name in order else len(order)

            lines = [f"- {text}" for text in sorted(explained, key=field_order)]
            problems = "\n".join(lines)
            raise _Failure(
                "invalid_arguments",
                f"the arguments for {tool.name!r} do not match its parameters:\n{problems}\n"
                f"Call {tool.name!r} again with corrected arguments. Its parameters: "
                f"{_signature(tool)}.",
            )

    def _call(self, tool: Tool, arguments: dict[str, Any]) -> Any:
        try:
            kwargs = python_arguments(tool.function, arguments)
        except Exception as error:  # e.g. a pydantic validator the JSON Schema could not express
            raise _Failure(
                "invalid_arguments",
                f"the arguments for {tool.name!r} were rejected: {_one_line(error)}. "
                f"Call {tool.name!r} again with corrected arguments.",
            ) from None
        timeout = self.timeout_for(tool.name)
        # The tool runs on a worker thread, even without a timeout: whatever it raises, even
        # SystemExit or KeyboardInterrupt, stays there, while the user's Ctrl-C still reaches
        # this thread. A Python thread cannot be killed: after a timeout the tool keeps running
        # in the background until it returns on its own, and a tool that holds the GIL (C code
        # such as the `re` module) blocks this thread too. Lesson 07 runs commands in
        # subprocesses, which can be killed, and bounds grep's matching.
        outcome: list[tuple[str, Any]] = []
        if IN_BROWSER:  # no threads in the browser: the tool runs here, with no time limit
            outcome.append(_run_tool(tool, kwargs))
        else:
            worker = threading.Thread(target=lambda: outcome.append(_run_tool(tool, kwargs)), daemon=True)
            worker.start()
        deadline = None if timeout is None else time.monotonic() + timeout
        while not IN_BROWSER and worker.is_alive():
            left = WAIT_SLICE if deadline is None else min(deadline - time.monotonic(), WAIT_SLICE)
            if left <= 0:
                raise _Failure(
                    "timeout",
                    f"the tool {tool.name!r} did not finish within {timeout:g} seconds. The dispatcher "
                    "stopped waiting but cannot stop it: it may still be running, and what it does may "
                    "still happen. Try a smaller request, or another approach.",
                )
            worker.join(left)
        if isinstance(outcome[0], _Failure):
            raise outcome[0]
        return outcome[0]


# --- reading a call -------------------------------------------------------------------------


def _read_call(call: Any) -> tuple[str, Any, Any]:
    """(id, name, arguments) from an SDK tool call object or its dict shape; name and arguments
    as the server sent them, which may be neither strings nor valid"""
    if isinstance(call, dict):
        function = call.get("function")
        function = function if isinstance(function, dict) else {}
        name, arguments = function.get("name", ""), function.get("arguments")
        call_id = call.get("id", "")
    else:
        function = getattr(call, "function", None)
        if function is None:
            raise TypeError(
                f"expected a tool call (an SDK object or a dict with 'id' and 'function'), got {call!r}"
            )
        call_id = getattr(call, "id", "")
        name, arguments = getattr(function, "name", ""), getattr(function, "arguments", None)
    return call_id, name, "" if arguments is None else arguments


# --- JSON arguments -> the Python values the function expects ----------------------------


def python_arguments(function: Callable[..., Any], arguments: dict[str, Any]) -> dict[str, Any]:
    """validated JSON arguments -> keyword arguments (Enums, pydantic models; null means default)"""
    hints = typing.get_type_hints(function, include_extras=True)
    kwargs = {}
    for parameter in inspect.signature(function).parameters.values():
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:  # **arguments: the rest, as JSON values
            named = inspect.signature(function).parameters
            kwargs.update({key: value for key, value in arguments.items() if key not in named})
            continue
        annotation = hints.get(parameter.name, Any)
        has_default = parameter.default is not inspect.Parameter.empty
        value = arguments.get(parameter.name)
        if value is None and not split_optional(annotation)[1] and has_default:
            continue  # strict mode sends null for "not given": let the default apply
        if parameter.name in arguments:
            kwargs[parameter.name] = _to_python(value, annotation)
        elif not has_default and split_optional(annotation)[1]:
            kwargs[parameter.name] = None  # an optional parameter the model left out
    return kwargs


def _to_python(value: Any, annotation: Any) -> Any:
    """one JSON value -> the Python type its annotation names"""
    annotation = split_optional(annotation)[0]
    origin, args = get_origin(annotation), get_args(annotation)
    if value is None:
        return None
    if annotation is int and isinstance(value, float) and value.is_integer():
        return int(value)  # JSON Schema counts 3.0 as an integer
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return annotation(value)
    if origin is list and args:
        return [_to_python(item, args[0]) for item in value]
    if origin is dict and len(args) == 2:
        return {key: _to_python(item, args[1]) for key, item in value.items()}
    if hasattr(annotation, "model_validate"):  # a pydantic model
        fields = annotation.model_fields
        value = {
            key: item
            for key, item in value.items()
            if not (item is None and key in fields and _default_covers_null(fields[key]))
        }
        return annotation.model_validate(value)
    if typing_extensions.is_typeddict(annotation):
        hints = typing.get_type_hints(annotation)
        return {
            key: _to_python(item, hints.get(key, Any))
            for key, item in value.items()
            if not (
                item is None
                and key not in annotation.__required_keys__
                and not split_optional(hints.get(key))[1]
            )
        }
    return value


# --- a result -> text -----------------------------------------------------------------------


def to_text(value: Any) -> str:
    """a str as it is; anything else as JSON (pydantic models, dataclasses and Enums included)"""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=_jsonable)


def truncate(text: str, max_chars: int | None = DEFAULT_MAX_CHARS) -> str:
    """keep the head and the tail of a long text, with a marker saying how much was cut"""
    if max_chars is None or len(text) <= max_chars:
        return text
    room = max(max_chars - len(_cut_marker(len(text))), 0)
    head = room // 2
    tail = room - head
    cut = len(text) - room
    return text[:head] + _cut_marker(cut) + (text[-tail:] if tail else "")


def _cut_marker(count: int) -> str:
    return f"\n[... {count:,} characters cut ...]\n"


# --- helpers --------------------------------------------------------------------------------


def _run_tool(tool: Tool, kwargs: dict[str, Any]) -> tuple[str, Any] | _Failure:
    """(text, value) of one call, or the _Failure to report; runs on the worker thread, so the
    time limit covers making the text too"""
    try:
        value = tool.function(**kwargs)
        if inspect.isawaitable(value):  # an `async def` tool: run it on this thread's own event loop
            value = asyncio.run(_awaited(value))
    except ToolFailure as error:  # the tool's own words for what went wrong, sent as they are
        return _Failure("tool_error", str(error))
    except BaseException as error:  # SystemExit (argparse does it) and KeyboardInterrupt included
        return _Failure(
            "tool_error",
            f"the tool {tool.name!r} raised {type(error).__name__}: {_safe_one_line(error)}. "
            "Check the arguments and call it again, or try another approach.",
        )
    try:
        return to_text(value), value
    except BaseException as error:  # a __str__ that raises, a structure that contains itself, nesting too deep
        return _Failure(
            "tool_error",
            f"the tool {tool.name!r} returned a value that cannot be written as text "
            f"({type(error).__name__}: {_safe_one_line(error)}). This is a bug in the tool; "
            "try another approach.",
        )


async def _awaited(awaitable: Any) -> Any:
    return await awaitable


def _explain(error: ValidationError) -> str:
    """one schema violation, in words a model can act on"""
    path = list(error.absolute_path)
    where = _field(path)
    if error.validator == "required":
        missing = [name for name in error.validator_value if name not in error.instance]
        return ", ".join(f"{_field([*path, name])}: missing (required)" for name in missing)
    if error.validator == "additionalProperties":
        known = set(error.schema.get("properties", {}))
        extra = [key for key in error.instance if key not in known]
        return f"{where}: unexpected {', '.join(repr(e) for e in extra)} (not a parameter)"
    if error.validator == "type":
        expected = error.validator_value
        expected = " or ".join(expected) if isinstance(expected, list) else expected
        got = _quote(json.dumps(error.instance, ensure_ascii=False))
        return f"{where}: expected {_a(expected)}, got {json_type(error.instance)} {got}"
    if error.validator == "enum":
        choices = ", ".join(json.dumps(c, ensure_ascii=False) for c in error.validator_value)
        return f"{where}: {json.dumps(error.instance, ensure_ascii=False)} is not one of {choices}"
    return f"{where}: {error.message}"


def _field(path: Iterable[Any]) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return repr(text) if text else "the arguments"


def _signature(tool: Tool) -> str:
    properties = tool.parameters.get("properties", {})
    required = set(tool.parameters.get("required", []))
    parts = []
    for name, schema in properties.items():
        kind = _type_label(schema)
        parts.append(f"{name} ({kind}{', required' if name in required else ''})")
    return ", ".join(parts) or "none"


def _type_label(schema: dict[str, Any]) -> str:
    if "enum" in schema:
        return "one of " + "/".join(json.dumps(c) for c in schema["enum"])
    if "anyOf" in schema:
        return " or ".join(_type_label(option) for option in schema["anyOf"])
    json_type = schema.get("type", "any")
    return " or ".join(json_type) if isinstance(json_type, list) else json_type


def _example(tool: Tool) -> str:
    properties = tool.parameters.get("properties", {})
    return "{" + ", ".join(f'"{name}": ...' for name in properties) + "}"


def _a(json_type: str) -> str:
    return f"an {json_type}" if json_type[0] in "aeiou" else f"a {json_type}"


def _quote(text: str, limit: int = 300) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"... ({len(text) - limit:,} more characters)"


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split()) or "(no message)"


def _safe_one_line(error: BaseException) -> str:
    """_one_line of an exception a tool raised, whose own __str__ may raise too"""
    try:
        return _quote(_one_line(error))
    except Exception:
        return "(its message cannot be shown)"


def _default_covers_null(field: Any) -> bool:
    return not field.is_required() and not split_optional(field.annotation)[1]


def _jsonable(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    return str(value)
