"""The coding tools' former address (lesson 07): Workspace and its names live in agent.py, the front module,
and are imported from here too."""

from ._folder import ToolError, ToolLimits
from .agent import ALL_TOOLS, CORE_TOOLS, Workspace

__all__ = ["Workspace", "ToolLimits", "ToolError", "CORE_TOOLS", "ALL_TOOLS"]
