"""lesson 03: running a tool: JSON arguments as Python values, a worker thread, a time limit, async tools."""

from __future__ import annotations

import asyncio
import dataclasses
import enum
import inspect
import json
import threading
import time
import typing
from collections.abc import Callable
from typing import Any, get_args, get_origin

import pydantic
import typing_extensions

from ._browser import IN_BROWSER
from ._dispatch_errors import CallFailure, ToolFailure
from ._schema_rewrites import is_pydantic_model
from ._shared import one_line, safe_one_line
from .schema import Tool, split_optional

__all__ = ["run_tool", "python_arguments", "to_text"]

WAIT_SLICE = 0.1  # seconds between checks for Ctrl-C while waiting for a tool (Windows needs them)


def run_tool(tool: Tool, arguments: dict[str, Any], timeout: float | None) -> tuple[str, Any]:
    """(text, value) of the tool called with these arguments, on a worker thread, waiting at most
    `timeout` seconds (None: for ever); a CallFailure when it raises, hangs or returns no text"""
    try:
        kwargs = python_arguments(tool.function, arguments)
    except Exception as error:  # e.g. a pydantic validator the JSON Schema could not express
        raise CallFailure(
            "invalid_arguments",
            f"the arguments for {tool.name!r} were rejected: {one_line(error)}. "
            f"Call {tool.name!r} again with corrected arguments.",
        ) from None
    # The tool runs on a worker thread, even without a timeout: whatever it raises, even
    # SystemExit or KeyboardInterrupt, stays there, while the user's Ctrl-C still reaches
    # this thread. A Python thread cannot be killed: after a timeout the tool keeps running
    # in the background until it returns on its own, and a tool that holds the GIL (C code
    # such as the `re` module) blocks this thread too. Lesson 07 runs commands in
    # subprocesses, which can be killed, and bounds grep's matching.
    outcome: list[tuple[str, Any] | CallFailure] = []
    if IN_BROWSER:  # no threads in the browser: the tool runs here, with no time limit
        outcome.append(_call_on_this_thread(tool, kwargs))
    else:
        worker = threading.Thread(
            target=lambda: outcome.append(_call_on_this_thread(tool, kwargs)), daemon=True
        )
        worker.start()
        _wait(worker, tool, timeout)
    if isinstance(outcome[0], CallFailure):
        raise outcome[0]
    return outcome[0]


def _wait(worker: threading.Thread, tool: Tool, timeout: float | None) -> None:
    """wait for the tool's thread, at most `timeout` seconds (None: for ever)"""
    deadline = None if timeout is None else time.monotonic() + timeout
    while worker.is_alive():
        left = WAIT_SLICE if deadline is None else min(deadline - time.monotonic(), WAIT_SLICE)
        if left <= 0:
            raise CallFailure(
                "timeout",
                f"the tool {tool.name!r} did not finish within {timeout:g} seconds. The dispatcher "
                "stopped waiting but cannot stop it: it may still be running, and what it does may "
                "still happen. Try a smaller request, or another approach.",
            )
        worker.join(left)


def _call_on_this_thread(tool: Tool, kwargs: dict[str, Any]) -> tuple[str, Any] | CallFailure:
    """(text, value) of one call, or the CallFailure to report; runs on the worker thread, so the
    time limit covers making the text too"""
    try:
        value = tool.function(**kwargs)
        if inspect.isawaitable(value):  # an `async def` tool: run it on this thread's own event loop
            value = asyncio.run(_awaited(value))
    except ToolFailure as error:  # the tool's own words for what went wrong, sent as they are
        return CallFailure("tool_error", str(error))
    except BaseException as error:  # SystemExit (argparse does it) and KeyboardInterrupt included
        said = safe_one_line(error)
        stop = "" if said.endswith((".", "!", "?")) else "."  # "a larger group." gets no second period
        return CallFailure(
            "tool_error",
            f"the tool {tool.name!r} raised {type(error).__name__}: {said}{stop} "
            "Check the arguments and call it again, or try another approach.",
        )
    try:
        return to_text(value), value
    # a __str__ that raises, a structure that contains itself, nesting too deep
    except BaseException as error:
        return CallFailure(
            "tool_error",
            f"the tool {tool.name!r} returned a value that cannot be written as text "
            f"({type(error).__name__}: {safe_one_line(error)}). This is a bug in the tool; "
            "try another approach.",
        )


async def _awaited(awaitable: Any) -> Any:
    return await awaitable


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
    if is_pydantic_model(annotation):
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


def _default_covers_null(field: Any) -> bool:
    return not field.is_required() and not split_optional(field.annotation)[1]


def to_text(value: Any) -> str:
    """a str as it is; anything else as JSON (pydantic models, dataclasses and Enums included)"""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=_jsonable)


def _jsonable(value: Any) -> Any:
    if isinstance(value, pydantic.BaseModel):
        return value.model_dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    return str(value)
