"""The user store: a fixed list standing in for a database."""

USERS = [
    {"id": 1, "name": "Ana", "role": "admin"},
    {"id": 2, "name": "Bruno", "role": "editor"},
    {"id": 3, "name": "Carla", "role": "viewer"},
    {"id": 4, "name": "Dario", "role": "editor"},
]


def all_users() -> list[dict]:
    """Every user, as copies that callers may change freely."""
    return [dict(user) for user in USERS]


def find_user(user_id: int) -> dict | None:
    """The user with this id, or None."""
    for user in USERS:
        if user["id"] == user_id:
            return dict(user)
    return None
