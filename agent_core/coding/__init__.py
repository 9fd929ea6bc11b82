"""The coding agent's workbench: tools, sandbox and practice projects (lesson 07); read workspace.py first."""

from .agent import WRITING_TOOLS
from .sandbox import CommandResult, OutputCap, SandboxLimits, run_sandboxed, sandbox_env
from .workspace import (
    ALL_TOOLS,
    CORE_TOOLS,
    ToolError,
    ToolLimits,
    Workspace,
    copy_project,
    diff,
    list_projects,
    project_files,
    snapshot,
)

__all__ = [
    "Workspace",
    "ToolLimits",
    "ToolError",
    "CORE_TOOLS",
    "ALL_TOOLS",
    "WRITING_TOOLS",
    "SandboxLimits",
    "CommandResult",
    "OutputCap",
    "run_sandboxed",
    "sandbox_env",
    "list_projects",
    "copy_project",
    "project_files",
    "snapshot",
    "diff",
]
