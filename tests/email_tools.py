"""An email agent's tools for the unit tests, defined once: `from email_tools import emailer, send_email`."""

from agent_core import mock
from agent_core.mock.misbehaving import Reckless
from agent_core.schema import tool


def draft_email(to: str, subject: str) -> str:
    """Save an email as a draft for a person to review."""
    return f"draft saved for {to}"


OUTBOX: list[str] = []


@tool
def send_email(to: str, subject: str) -> str:
    """Send an email now."""
    OUTBOX.append(to)
    return f"sent to {to}"


WRITING_TOOLS = ("send_email",)  # what Permissions(read_only=True, writing_tools=...) refuses

EMAIL = {"to": "jobs@acme.example", "subject": "Application"}


def emailer() -> Reckless:
    return Reckless(mock.call("draft_email", **EMAIL), mock.call("send_email", **EMAIL))
