"""lesson 10: MCP tool names in the registry: a name that cannot be a tool name, or that two tools would
share, is refused with what to do instead."""

from __future__ import annotations

from collections.abc import Container

from ..schema import TOOL_NAME_PATTERN

__all__ = ["refuse_clashes"]


def refuse_clashes(
    name: str, own_name: object, server: str, chosen: dict[str, str], taken: Container[str]
) -> None:
    """ValueError unless `name` (made from the MCP name `own_name`) can be added: a valid tool name,
    not made from another of the server's tools (`chosen`: name -> MCP name), not `taken` already"""
    if not TOOL_NAME_PATTERN.match(name):
        raise ValueError(f"the MCP tool name {own_name!r} cannot be made into a tool name")
    if name in chosen:
        raise ValueError(
            f"the MCP server {server!r} offers the tools {chosen[name]!r} and {own_name!r}, which both "
            f"become {name!r} (a tool name has only letters, digits, '_' and '-', at most 64 of them); "
            "leave one of them out (only=...)"
        )
    if name in taken:
        raise ValueError(
            f"a tool named {name!r} is already registered, so the MCP server {server!r} cannot add its "
            f"own; add this server's tools with a prefix (prefix={server!r}) or leave one of them out "
            "(only=...)"
        )
