"""The coding agent's workbench: tools, sandbox and practice projects (lesson 07)."""

from agent_core.coding.agent import (
    CodingRun,
    coding_guards,
    project_tests,
    run_coding_agent,
)
from agent_core.coding.guards import ClaimsCheck, DiffReview
from agent_core.coding.sandbox import (
    CommandResult,
    OutputCap,
    SandboxLimits,
    run_sandboxed,
    sandbox_env,
)
from agent_core.coding.tools import ALL_TOOLS, CORE_TOOLS, ToolError, ToolLimits, Workspace
from agent_core.coding.workspace import (
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
    "ClaimsCheck",
    "DiffReview",
    "coding_guards",
    "project_tests",
    "run_coding_agent",
    "CodingRun",
]
