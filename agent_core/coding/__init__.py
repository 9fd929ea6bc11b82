"""The coding agent's workbench: tools, sandbox and practice projects (lesson 07); read agent.py first."""

from ._confinement import ToolError, ToolLimits
from .agent import ALL_TOOLS, CORE_TOOLS, WRITING_TOOLS, Workspace
from .sandbox import CommandResult, OutputCap, SandboxLimits, run_sandboxed, sandbox_env
from ._projects import copy_project, diff, list_projects, project_files, snapshot

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
