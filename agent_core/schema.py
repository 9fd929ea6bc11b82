"""The tool schema: one Python function becomes the tool definition a model reads (lesson 01).

Beneath it: `_docstrings.py` reads a docstring's summary and parameter texts; `_schema_rewrites.py`
inlines pydantic's `$ref`s, allows null and writes strict mode; a default is written as JSON (below),
and a value's type named for error messages by `_shared.json_type`.
"""

from __future__ import annotations

import copy
import enum
import functools
import inspect
import json
import re
import types
import typing
from collections.abc import Callable
from typing import Any, Literal, Union, get_args, get_origin

import typing_extensions

from ._docstrings import parse_docstring
from ._schema_rewrites import ToolSchemaError, inline_refs, is_pydantic_model, make_strict, nullable
from ._shared import json_type

__all__ = ["Tool", "tool", "tool_definition", "ToolSchemaError", "TOOL_NAME_PATTERN"]
__all__ += ["parse_docstring", "split_optional", "json_type"]

# The rule OpenAI documents for function names (see FunctionDefinition.name in the openai SDK).
TOOL_NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")

SUPPORTED = (
    "str, int, float, bool, list[T], dict[str, T], Literal[...], an Enum, "
    "T | None, a pydantic BaseModel or a TypedDict"
)

_JSON_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean"}


class Tool:
    """a function plus the definition the model reads; calling the Tool calls the function"""

    def __init__(
        self,
        function: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        strict: bool = False,
    ):
        if isinstance(function, Tool):  # re-wrapping keeps the tool's name and description
            name, description = name or function.name, description or function.description
            function = function.function
        functools.update_wrapper(self, function, updated=())  # its name, docstring and signature
        self.function: Callable[..., Any] = function
        function_name: str = getattr(function, "__name__", "")  # a functools.partial has none
        self.name: str = name or function_name
        self.strict = strict
        if not TOOL_NAME_PATTERN.match(self.name):
            raise ToolSchemaError(
                f"tool name {self.name!r} is not allowed: use 1 to 64 letters, digits, "
                "'_' or '-' (pass name=... to choose one)"
            )
        summary, parameter_docs = parse_docstring(function.__doc__ or "")
        self.description: str = description or summary
        if not self.description:
            raise ToolSchemaError(
                f"{self.name}() has no description: its docstring is missing or empty. The "
                "description is the prompt the model reads to decide when to call this tool: "
                "write a docstring saying what it does and when to use it (or pass description=...)"
            )
        parameters = self.read_parameters(parameter_docs)
        self.parameters = make_strict(parameters, f"{self.name}()", top=True) if strict else parameters

    def read_parameters(self, parameter_docs: dict[str, str]) -> dict[str, Any]:
        """the JSON Schema of the arguments, read from the function's signature and docstring"""
        return _parameters_schema(self.function, self.name, parameter_docs)

    @property
    def definition(self) -> dict[str, Any]:
        """the Chat Completions tool definition, ready for `tools=[...]` (a fresh copy each time)"""
        function: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "parameters": copy.deepcopy(self.parameters),
        }
        if self.strict:
            function["strict"] = True
        return {"type": "function", "function": function}

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.function(*args, **kwargs)

    def __repr__(self) -> str:
        return f"Tool({self.name!r}, strict={self.strict})"


def tool(
    function: Callable[..., Any] | None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    strict: bool = False,
) -> Any:
    """decorator: `@tool`, or `@tool(strict=True, name=..., description=...)`, turns a function into a Tool"""

    def make(function: Callable[..., Any]) -> Tool:
        return Tool(function, name=name, description=description, strict=strict)

    return make if function is None else make(function)


def tool_definition(
    function: Callable[..., Any],
    *,
    name: str | None = None,
    description: str | None = None,
    strict: bool | None = None,
) -> dict[str, Any]:
    """the Chat Completions tool definition of a function (or of a Tool, keeping its own options)"""
    if isinstance(function, Tool) and strict is None:
        strict = function.strict
    return Tool(function, name=name, description=description, strict=bool(strict)).definition


# --- Python types -> JSON Schema ------------------------------------------------------------


def _parameters_schema(
    function: Callable[..., Any], tool_name: str, parameter_docs: dict[str, str]
) -> dict[str, Any]:
    try:
        hints = typing.get_type_hints(function, include_extras=True)
    except NameError as error:
        raise ToolSchemaError(
            f"{tool_name}(): cannot resolve a type hint ({error}); define the types it uses at module level"
        ) from error
    properties: dict[str, Any] = {}
    required: list[str] = []
    for parameter in inspect.signature(function).parameters.values():
        where = f"parameter '{parameter.name}' of {tool_name}()"
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            raise ToolSchemaError(
                f"{where}: *args and **kwargs cannot be described to a model; "
                "list each parameter by name with a type hint"
            )
        if parameter.kind is parameter.POSITIONAL_ONLY:
            raise ToolSchemaError(
                f"{where} is positional-only, but tool arguments arrive by name; remove the '/'"
            )
        if parameter.name not in hints:
            raise ToolSchemaError(f"{where} has no type hint; give it one of: {SUPPORTED}")
        annotation = hints[parameter.name]
        schema = _schema_for(annotation, where)
        text = parameter_docs.get(parameter.name) or _annotated_text(annotation)
        if text:
            schema["description"] = text
        has_default = parameter.default is not inspect.Parameter.empty
        if has_default and _is_json(_json_value(parameter.default)):
            schema["default"] = _json_value(parameter.default)
        if not has_default and not split_optional(annotation)[1]:
            required.append(parameter.name)
        properties[parameter.name] = schema
    return {"type": "object", "properties": properties, "required": required}


def split_optional(annotation: Any) -> tuple[Any, bool]:
    """`T | None` -> (T, True); anything else -> (annotation, False)"""
    if get_origin(annotation) is typing.Annotated:
        annotation = get_args(annotation)[0]
    if get_origin(annotation) in (Union, types.UnionType):
        members = get_args(annotation)
        if type(None) in members:
            rest = tuple(m for m in members if m is not type(None))
            return (rest[0] if len(rest) == 1 else Union[rest]), True  # noqa: UP007
    return annotation, False


def _schema_for(annotation: Any, where: str) -> dict[str, Any]:
    origin, args = get_origin(annotation), get_args(annotation)
    if origin in (typing.Annotated, typing_extensions.Required, typing_extensions.NotRequired):
        return _schema_for(args[0], where)
    if annotation is Any:
        return {}
    if annotation in _JSON_TYPES:
        return {"type": _JSON_TYPES[annotation]}
    if origin is Literal:
        return _enum_schema(list(args), where)
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return _enum_schema([member.value for member in annotation], where)
    inner, optional = split_optional(annotation)
    if optional:
        return nullable(_schema_for(inner, where))
    if annotation is list:
        return {"type": "array"}
    if origin is list:
        return {"type": "array", "items": _schema_for(args[0], f"the items of {where}")}
    if annotation is dict:
        return {"type": "object"}
    if origin is dict:
        if args[0] is not str:
            raise ToolSchemaError(f"{where}: JSON object keys are strings; write dict[str, ...]")
        return {"type": "object", "additionalProperties": _schema_for(args[1], where)}
    if typing_extensions.is_typeddict(annotation):
        return _typeddict_schema(annotation, where)
    if is_pydantic_model(annotation):
        inlined: dict[str, Any] = inline_refs(annotation.model_json_schema(), where)
        return inlined
    raise ToolSchemaError(f"{where}: type {_type_name(annotation)} is not supported; use {SUPPORTED}")


def _enum_schema(values: list[Any], where: str) -> dict[str, Any]:
    json_types = []
    for value in values:
        kind = "null" if value is None else _JSON_TYPES.get(type(value))
        if kind is None:
            raise ToolSchemaError(f"{where}: choice {value!r} is not a JSON string, number or bool")
        if kind not in json_types:
            json_types.append(kind)
    return {"type": json_types[0] if len(json_types) == 1 else json_types, "enum": values}


def _typeddict_schema(typed_dict: Any, where: str) -> dict[str, Any]:
    hints = typing.get_type_hints(typed_dict, include_extras=True)
    schema: dict[str, Any] = {"type": "object"}
    if typed_dict.__doc__:
        schema["description"] = parse_docstring(typed_dict.__doc__)[0]
    schema["properties"] = {
        key: _schema_for(hint, f"field '{key}' of {typed_dict.__name__} in {where}")
        for key, hint in hints.items()
    }
    schema["required"] = [key for key in hints if key in typed_dict.__required_keys__]
    return schema


# --- small helpers --------------------------------------------------------------------------


def _annotated_text(annotation: Any) -> str | None:
    """`Annotated[str, "the city"]` carries its own description"""
    if get_origin(annotation) is typing.Annotated:
        return next((m for m in get_args(annotation)[1:] if isinstance(m, str)), None)
    return None


def _type_name(annotation: Any) -> str:
    return annotation.__qualname__ if isinstance(annotation, type) else repr(annotation)


# --- JSON values: a default written as JSON ---------------------------------------------------


def _json_value(value: Any) -> Any:
    """an Enum member as its value; anything else as it is"""
    return value.value if isinstance(value, enum.Enum) else value


def _is_json(value: Any) -> bool:
    """whether json.dumps can write the value"""
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True
