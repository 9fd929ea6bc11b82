"""The roles a user account can have."""

ROLES = [
    "admin",
    "viewer",
]


class UnknownRole(ValueError):
    """A role name that is not in ROLES."""


def check_role(role: str) -> str:
    """Return `role` if it is a known role; raise UnknownRole otherwise."""
    if role not in ROLES:
        raise UnknownRole(f"unknown role: {role!r}")
    return role
