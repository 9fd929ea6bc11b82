"""lesson 01: rewriting a tool's JSON Schema: pydantic's $refs inlined, null allowed, OpenAI's strict
mode."""

from __future__ import annotations

from typing import Any

__all__ = ["ToolSchemaError", "inline_refs", "nullable", "make_strict", "is_pydantic_model"]


class ToolSchemaError(TypeError):
    """a function cannot become a tool definition; the message says which parameter and why"""


def inline_refs(
    schema: Any, where: str, defs: dict[str, Any] | None = None, seen: tuple[str, ...] = ()
) -> Any:
    """pydantic's schema without $ref/$defs/title, so every model and server accepts it"""
    if isinstance(schema, list):
        return [inline_refs(item, where, defs, seen) for item in schema]
    if not isinstance(schema, dict):
        return schema
    defs = schema.get("$defs", defs) or {}
    if "$ref" in schema:
        ref = schema["$ref"]
        if ref in seen:
            raise ToolSchemaError(
                f"{where}: the model refers to itself ({ref}); recursive models are not supported"
            )
        target = defs[ref.rsplit("/", 1)[-1]]
        rest = {k: v for k, v in schema.items() if k != "$ref"}
        return inline_refs({**target, **rest}, where, defs, (*seen, ref))
    inlined = {}
    for key, value in schema.items():
        if key in ("$defs", "title"):
            continue
        if key == "properties":
            value = {name: inline_refs(sub, where, defs, seen) for name, sub in value.items()}
        elif key not in ("default", "enum", "const", "examples"):
            value = inline_refs(value, where, defs, seen)
        inlined[key] = value
    return inlined


def nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """the same schema, also accepting null"""
    json_type = schema.get("type")
    if "anyOf" in schema:
        if {"type": "null"} not in schema["anyOf"]:
            schema = {**schema, "anyOf": [*schema["anyOf"], {"type": "null"}]}
        return schema
    if json_type in ("string", "integer", "number", "boolean") or isinstance(json_type, list):
        types_ = json_type if isinstance(json_type, list) else [json_type]
        schema = {**schema, "type": types_ if "null" in types_ else [*types_, "null"]}
        if "enum" in schema and None not in schema["enum"]:
            schema["enum"] = [*schema["enum"], None]
        return schema
    outer: dict[str, Any] = {k: schema[k] for k in ("description", "default") if k in schema}
    inner = {k: v for k, v in schema.items() if k not in outer}
    return {"anyOf": [inner, {"type": "null"}], **outer}


# --- strict mode ----------------------------------------------------------------------------
# OpenAI strict mode accepts a subset of JSON Schema: every object lists all its properties in
# `required` and sets `additionalProperties: false`; an optional field is a required field that
# may be null. https://platform.openai.com/docs/guides/structured-outputs#supported-schemas and
# https://platform.openai.com/docs/guides/function-calling (section "Strict mode").


def make_strict(schema: dict[str, Any], where: str, top: bool = False) -> dict[str, Any]:
    schema = dict(schema)
    if not any(key in schema for key in ("type", "enum", "const", "anyOf")):
        raise ToolSchemaError(
            f"strict mode cannot express {where}: it accepts any JSON value, and strict mode "
            "needs a concrete type. Give it one, or use strict=False"
        )
    if "anyOf" in schema:
        schema["anyOf"] = [make_strict(option, where) for option in schema["anyOf"]]
    json_types = schema.get("type")
    json_types = json_types if isinstance(json_types, list) else [json_types]
    if "object" in json_types:
        if "properties" not in schema or schema.get("additionalProperties", False) is not False:
            raise ToolSchemaError(
                f"strict mode cannot express {where}: a free-form dict may hold keys the schema "
                "does not name, and strict mode needs every key listed. Use a TypedDict or a "
                "pydantic model with named fields, or use strict=False"
            )
        required = set(schema.get("required", []))
        properties = {}
        for name, sub in schema["properties"].items():
            inner_where = f"parameter '{name}' of {where}" if top else f"field '{name}' in {where}"
            sub = make_strict(sub, inner_where)
            if name not in required:
                sub = nullable(sub)
                sub.pop("default", None)
            properties[name] = sub
        schema.update(properties=properties, required=list(properties), additionalProperties=False)
    if "array" in json_types:
        if "items" not in schema:
            raise ToolSchemaError(
                f"strict mode cannot express {where}: a list needs an item type, e.g. list[str]"
            )
        schema["items"] = make_strict(schema["items"], f"the items of {where}")
    return schema


def is_pydantic_model(annotation: Any) -> bool:
    try:
        from pydantic import BaseModel
    except ImportError:  # pragma: no cover - pydantic is a dependency, but keep schema.py standalone
        return False
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)
