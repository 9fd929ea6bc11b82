"""The coding agent's workbench: tools, sandbox and practice projects (lesson 07).

Each name is imported the first time it is used (see agent_core/_lazy.py): the mock's
misbehaving models need the sandbox, not the whole coding agent.
"""

from agent_core._lazy import lazy_exports

# public name -> the module it lives in
_EXPORTS = {
    "Workspace": ".tools",
    "ToolLimits": ".tools",
    "ToolError": ".tools",
    "CORE_TOOLS": ".tools",
    "ALL_TOOLS": ".tools",
    "SandboxLimits": ".sandbox",
    "CommandResult": ".sandbox",
    "OutputCap": ".sandbox",
    "run_sandboxed": ".sandbox",
    "sandbox_env": ".sandbox",
    "list_projects": ".workspace",
    "copy_project": ".workspace",
    "project_files": ".workspace",
    "snapshot": ".workspace",
    "diff": ".workspace",
    "ClaimsCheck": ".guards",
    "DiffReview": ".guards",
    "coding_guards": ".agent",
    "project_tests": ".agent",
    "run_coding_agent": ".agent",
    "CodingRun": ".agent",
}

__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
