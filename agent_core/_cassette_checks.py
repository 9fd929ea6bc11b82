"""lesson 08: what makes a file something other than a cassette Trace.save() could have written, said in
one line (the replay; Trace.load() and Trace.from_dict() refuse with it)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ._body_text import escaped, may_hold_surrogates

__all__ = ["CassetteError", "read_cassette", "check_cassette", "cassette_problem", "MAX_DEPTH"]


class CassetteError(ValueError):
    """a file that is not a cassette Trace.save() could have written; the message says why, in one line"""


def read_cassette(path: str | Path, version: int) -> dict[str, Any]:
    """a cassette file's JSON, once its shape is right; CassetteError says in one line what is wrong"""
    try:
        raw = Path(path).read_bytes()
        data = json.loads(raw.decode("utf-8"))
        problem = cassette_problem(data, version)
    except UnicodeDecodeError:
        problem = "it is not UTF-8 text"
    except OSError as error:
        problem = error.strerror or "the file cannot be read"
    except RecursionError:
        problem = f"it is nested too deeply (more than {MAX_DEPTH} levels) to be a recorded request"
    except json.JSONDecodeError as error:
        problem = f"it is not JSON ({error.msg.lower()} at line {error.lineno}, column {error.colno})"
    if problem is not None:
        raise CassetteError(f"cannot read the cassette {str(path)!r}: {problem}")
    # a lone surrogate ("\ud800" in the file) becomes its escape, as in a body the mock receives:
    # it can then be printed, sent and compared
    checked: dict[str, Any] = escaped(data) if may_hold_surrogates(raw) else data
    return checked


def check_cassette(data: Any, version: int) -> None:
    """CassetteError, saying in one line what is wrong, unless `data` has a cassette's shape"""
    problem = cassette_problem(data, version)
    if problem is not None:
        raise CassetteError(f"this is not a cassette: {problem}")


MAX_DEPTH = 100  # a recorded request or response nested deeper than this is not one an API sent
_TURN_FIELDS: dict[str, tuple[type, ...]] = {  # a cassette turn's fields and the JSON types each may have
    "index": (int,),
    "url": (str,),
    "status": (int,),
    "request": (dict, str),  # a body that was not JSON is kept as its text
    "response": (dict, str, type(None)),
}
_OPTIONAL_FIELDS: dict[str, tuple[type, ...]] = {
    "method": (str,),
    "stream": (bool,),
    "elapsed_ms": (int, float),
}


def cassette_problem(data: Any, version: int) -> str | None:
    """what makes `data` something other than a cassette; None if its shape is right"""
    if not isinstance(data, dict):
        return f'it holds {_kind(data)}; a cassette is a JSON object with "version" and "turns"'
    if "version" not in data and "turns" not in data:
        if "cells" in data and "nbformat" in data:
            return (
                'it is a Jupyter notebook, not a cassette (the JSON object with "version" and "turns" '
                "that Trace.save() writes)"
            )
        return 'it is not a cassette: it has no "version" and no "turns" (Trace.save() writes both)'
    if data.get("version") != version:
        return (
            f"it has version {_short(data.get('version'))}; this agent_core reads version "
            f"{version}. Record it again with this version."
        )
    deepest = _depth(data)
    if deepest > MAX_DEPTH:
        return f"it is nested {deepest} levels deep; a recorded request is not (at most {MAX_DEPTH})"
    turns = data.get("turns")
    if not isinstance(turns, list):
        return f'its "turns" is {_kind(turns)}; it must be a list of recorded turns'
    for number, turn in enumerate(turns, 1):
        if not isinstance(turn, dict):
            return f"turn {number} is {_kind(turn)}; each turn is an object with {', '.join(_TURN_FIELDS)}"
        for name, kinds in [*_TURN_FIELDS.items(), *_OPTIONAL_FIELDS.items()]:
            if name not in turn:
                if name in _TURN_FIELDS:
                    return f'turn {number} has no "{name}"'
                continue
            value = turn[name]
            if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
                wanted = " or ".join(_kind(kind()) for kind in kinds)
                return f'turn {number}: "{name}" is {_kind(value)}, not {wanted}'
        if not 100 <= turn["status"] <= 599:
            return f'turn {number}: "status" is {turn["status"]}, not an HTTP status (100 to 599)'
        problem = _wire_problem(turn)
        if problem:
            return f"turn {number}: {problem}"
    return None


_NULL = type(None)
_MESSAGE: dict[str, tuple[type, ...]] = {  # the fields of a message the library reads
    "": (dict,),
    "role": (str,),
    "content": (str, list, _NULL),
    "content.*": (dict,),
    "refusal": (str, _NULL),
    "tool_call_id": (str,),
    "tool_calls": (list, _NULL),
    "tool_calls.*": (dict,),
    "tool_calls.*.id": (str,),
    "tool_calls.*.function": (dict,),
    "tool_calls.*.function.name": (str,),
    "tool_calls.*.function.arguments": (str,),
}
_REQUEST = {
    "model": (str, _NULL),
    "messages": (list,),
    **{f"messages.*{'.' if key else ''}{key}": kinds for key, kinds in _MESSAGE.items()},
    "tools": (list, _NULL),
    "tools.*": (dict,),
    "tools.*.function": (dict, _NULL),
    "input": (str, list, _NULL),
    "previous_response_id": (str, _NULL),
}
_USAGE = ("prompt_tokens", "completion_tokens", "total_tokens", "input_tokens", "output_tokens")
_RESPONSE = {
    "object": (str, _NULL),
    "usage": (dict, _NULL),
    **{f"usage.{key}": (int,) for key in _USAGE},
    "choices": (list,),
    "choices.*": (dict,),
    **{f"choices.*.message{'.' if key else ''}{key}": kinds for key, kinds in _MESSAGE.items()},
    "choices.*.finish_reason": (str, _NULL),
    "choices.*.index": (int,),
    "output": (list,),
    "output.*": (dict,),
    "output.*.type": (str,),
    "output.*.content": (list,),
    "output.*.content.*": (dict,),
}


def _wire_problem(turn: dict[str, Any]) -> str | None:
    """the first recorded field the library reads that has the wrong type; None if all are right
    (a field that is absent is fine)"""
    request, response = turn["request"], turn["response"]
    if isinstance(request, dict):
        problem = _fields_problem(request, _REQUEST, "request")
        if problem:
            return problem
    if isinstance(response, dict):
        problem = _fields_problem(response, _RESPONSE, "response")
        if problem:
            return problem
    if isinstance(response, dict) and 200 <= turn["status"] <= 299 and not turn.get("stream"):
        return _answer_problem(urlsplit(turn["url"]).path.rstrip("/"), response)
    return None


def _answer_problem(path: str, response: dict[str, Any]) -> str | None:
    """what a successful answer lacks that the SDK's caller reads: a completion's choices and their
    message, a response's output; None if it has them"""
    if path.endswith("/chat/completions"):
        if not response.get("choices"):
            return 'the response has no "choices" (a completion lists its answers there)'
        for index, choice in enumerate(response["choices"]):
            if "message" not in choice:
                return f'response.choices[{index}] has no "message"'
    if path.endswith("/responses") and "output" not in response:
        return 'the response has no "output" (a response lists its items there)'
    return None


def _fields_problem(value: Any, fields: dict[str, tuple[type, ...]], where: str) -> str | None:
    for path, kinds in fields.items():
        for shown, found in _at(value, path.split("."), where):
            if not isinstance(found, kinds) or (isinstance(found, bool) and bool not in kinds):
                wanted = " or ".join(dict.fromkeys(_kind(kind()) for kind in kinds))
                return f"{shown} is {_kind(found)}, not {wanted}"
    return None


def _at(value: Any, keys: list[str], shown: str) -> Iterator[tuple[str, Any]]:
    """every value at a path like "messages.*.content" ("*": each item of a list), with its name"""
    if not keys or keys == [""]:
        yield shown, value
        return
    key, rest = keys[0], keys[1:]
    if key == "*" and isinstance(value, list):
        for index, item in enumerate(value):
            yield from _at(item, rest, f"{shown}[{index}]")
    elif key != "*" and isinstance(value, dict) and key in value:
        yield from _at(value[key], rest, f"{shown}.{key}")


def _depth(value: Any) -> int:
    """how deeply lists and objects nest in a JSON value (counted without recursion)"""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in children if isinstance(child, (dict, list)))
    return deepest


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "true or false"
    names = {dict: "an object", list: "a list", str: "a string", int: "a number", float: "a number"}
    return "null" if value is None else names.get(type(value), type(value).__name__)


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."
