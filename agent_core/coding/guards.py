"""lesson 07: the coding agent's guards under the import path the lesson uses (defined in agent.py)."""

from __future__ import annotations

from ..guardrails import WRITING_TOOLS, AnswerCheck
from .agent import (
    EXPECTED_FILES,
    Citation,
    ClaimsCheck,
    DiffReview,
    FileChanges,
    changes_by_file,
    citations,
    coding_guards,
    shown_lines,
)

__all__ = ["AnswerCheck", "Citation", "citations", "shown_lines", "ClaimsCheck", "FileChanges"]
__all__ += ["changes_by_file", "DiffReview", "EXPECTED_FILES", "WRITING_TOOLS", "coding_guards"]
