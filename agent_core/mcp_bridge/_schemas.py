"""lesson 10: an MCP server's input schema: refused when it cannot be used, outlined for the
dispatcher's checks, and applied whole in the call, with patterns matched by `regex`, which stops."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from typing import Any

import regex

from .._jsonschema import (
    NOTHING_TO_FETCH,
    Draft202012Validator,
    ValidationError,
    relevance,
)  # before jsonschema

# isort: split
from jsonschema.exceptions import SchemaError
from jsonschema.validators import extend

from ..dispatch import ToolFailure
from ._session import reason_of
from ._wire import short

__all__ = ["usable_schema", "outline", "check_arguments"]

_VALUES = ("const", "enum", "default", "examples")  # keywords whose values are data, not schemas


def usable_schema(server: str, mcp_tool: dict[str, Any]) -> dict[str, Any]:
    """the tool's inputSchema, when it is a JSON Schema this process can check on its own; else ValueError"""
    schema = mcp_tool.get("inputSchema") or {"type": "object", "properties": {}}
    refused = f"the MCP server {server!r} offers {mcp_tool['name']!r} with an input schema that "
    leave_out = "; leave it out (only=...) or fix the server"
    if not isinstance(schema, dict) or schema.get("type", "object") != "object":
        raise ValueError(f"{refused}does not describe a JSON object of arguments{leave_out}")
    try:
        Draft202012Validator.check_schema(schema)
        references = list(_references(schema))
        patterns = list(_patterns(schema))
    except RecursionError:
        raise ValueError(f"{refused}is nested too deeply to read{leave_out}") from None
    except SchemaError as error:  # the schema breaks JSON Schema's own rules
        where = "/".join(str(part) for part in error.absolute_path) or "the top"
        raise ValueError(
            f"{refused}is not valid JSON Schema (at {where}: {short(error.message, 200)}){leave_out}"
        ) from None
    for reference in references:
        if not reference.startswith("#"):
            raise ValueError(
                f"{refused}refers to {short(reference)}, outside the schema; a schema is never "
                f"fetched from the network{leave_out}"
            )
    for pattern in patterns:
        try:
            regex.compile(pattern)
        except (regex.error, TypeError) as error:
            raise ValueError(
                f"{refused}has the pattern {short(pattern)}, which regex cannot read ({error}){leave_out}"
            ) from None
    return schema


def _references(schema: Any) -> Iterable[str]:
    """every $ref and $dynamicRef in a schema"""
    if isinstance(schema, list):
        for item in schema:
            yield from _references(item)
    elif isinstance(schema, dict):
        for key, value in schema.items():
            if key in ("$ref", "$dynamicRef") and isinstance(value, str):
                yield value
            elif key not in _VALUES:
                yield from _references(value)


def _patterns(schema: Any) -> Iterable[str]:
    """every regular expression in a schema: pattern values and patternProperties keys"""
    if isinstance(schema, list):
        for item in schema:
            yield from _patterns(item)
    elif isinstance(schema, dict):
        for key, value in schema.items():
            if key == "pattern" and isinstance(value, str):
                yield value
            elif key == "patternProperties" and isinstance(value, dict):
                yield from value
                yield from _patterns(list(value.values()))
            elif key not in _VALUES:
                yield from _patterns(value)


def outline(schema: dict[str, Any]) -> dict[str, Any]:
    """what the dispatcher checks before the call: the arguments' names, and each one's JSON type
    and enum when the schema gives them plainly; the whole schema is checked in the call"""
    properties = schema["properties"] if isinstance(schema.get("properties"), dict) else {}
    kept: dict[str, Any] = {"type": "object", "properties": {}}
    for name, property_schema in properties.items():
        plain = {}
        if isinstance(property_schema, dict):
            plain = {key: property_schema[key] for key in ("type", "enum") if key in property_schema}
        kept["properties"][name] = plain
    required = schema.get("required")
    if isinstance(required, list) and all(name in properties for name in required):
        kept["required"] = required
    if schema.get("additionalProperties", True) is not False or "patternProperties" in schema:
        kept["additionalProperties"] = True  # the server may accept more: its schema decides
    return kept


def check_arguments(name: str, schema: dict[str, Any], arguments: dict[str, Any], seconds: float) -> None:
    """raise a ToolFailure listing what is wrong with the arguments for the tool `name`, or saying
    why they cannot be checked; the server is not called then"""
    problems = _argument_problems(schema, arguments, seconds)
    if problems:
        raise ToolFailure(
            f"the arguments for {name!r} do not match its parameters:\n"
            + "\n".join(f"- {problem}" for problem in problems)
            + f"\nCall {name!r} again with corrected arguments; the server was not called."
        )


def _argument_problems(schema: dict[str, Any], arguments: dict[str, Any], seconds: float) -> list[str]:
    """what is wrong with the arguments under the server's whole schema; raises ToolFailure when
    the schema itself cannot be applied (in time, or at all)"""
    _deadline.at = time.monotonic() + seconds
    try:
        validator = _ServerSchemaValidator(schema, registry=NOTHING_TO_FETCH)
        errors = sorted(validator.iter_errors(arguments), key=relevance, reverse=True)
    except TimeoutError:
        raise ToolFailure(
            f"checking the arguments against the server's schema took more than {seconds:g} s (one of "
            "its patterns is too slow for them), so the call was not sent. Try shorter arguments, or another "
            "approach."
        ) from None
    except RecursionError:
        raise ToolFailure(
            "the server's schema for this tool refers to itself without end, so the arguments cannot be "
            "checked and the call was not sent. The tool cannot be used; try another approach."
        ) from None
    except Exception as error:  # a reference to nothing, or one outside the schema
        raise ToolFailure(
            f"the server's schema for this tool cannot be applied ({short(reason_of(error), 200)}), so the "
            "call was not sent. The tool cannot be used; try another approach."
        ) from None
    finally:
        _deadline.at = None
    return list(dict.fromkeys(_explain(error) for error in errors))


def _explain(error: ValidationError) -> str:
    where = "/".join(str(part) for part in error.absolute_path)
    message = error.message if len(error.message) <= 200 else error.message[:200] + "..."
    return f"{repr(where) if where else 'the arguments'}: {message}"


class _Deadline(threading.local):
    """when the check of the current call must end (time.monotonic()), per worker thread"""

    at: float | None = None


_deadline = _Deadline()
_NO_DEADLINE = 10.0  # seconds a pattern may take when no check set a deadline


def _search(pattern: str, text: str) -> bool:
    at = _deadline.at if _deadline.at is not None else time.monotonic() + _NO_DEADLINE
    # concurrent: the match lets go of the GIL, so the dispatcher keeps its own time limit too
    return regex.search(pattern, text, timeout=max(at - time.monotonic(), 0.001), concurrent=True) is not None


def _safe_pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterable[ValidationError]:
    if validator.is_type(instance, "string") and not _search(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _safe_pattern_properties(
    validator: Any, patterns: dict[str, Any], instance: Any, schema: Any
) -> Iterable[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if _search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _safe_additional_properties(
    validator: Any, additional: Any, instance: Any, schema: Any
) -> Iterable[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    properties, patterns = schema.get("properties", {}), schema.get("patternProperties", {})
    extras = [key for key in instance if key not in properties and not any(_search(p, key) for p in patterns)]
    if validator.is_type(additional, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], additional, path=extra)
    elif not additional and extras:
        yield ValidationError(f"unexpected {', '.join(repr(extra) for extra in extras)} (not a parameter)")


# the same validator with every regular expression matched by `regex`, which stops at a timeout
_ServerSchemaValidator = extend(
    Draft202012Validator,
    {
        "pattern": _safe_pattern,
        "patternProperties": _safe_pattern_properties,
        "additionalProperties": _safe_additional_properties,
    },
)
