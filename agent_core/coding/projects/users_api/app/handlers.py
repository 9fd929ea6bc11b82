"""Request handlers: each takes the request's parameters and returns (status, body)."""

from app.roles import check_role
from app.users import all_users, find_user


def list_users(query: dict[str, str]) -> tuple[int, dict]:
    """GET /users, or GET /users?role=<role> for the users with that role."""
    try:
        users = all_users()
        if "role" in query:
            role = check_role(query["role"])
            users = [user for user in users if user["role"] == role]
        return 200, {"users": users}
    except Exception:
        return 500, {"error": "internal server error"}


def get_user(user_id: str) -> tuple[int, dict]:
    """GET /users/<id>."""
    if not user_id.isdigit():
        return 400, {"error": "the user id must be a number"}
    user = find_user(int(user_id))
    if user is None:
        return 404, {"error": f"no user with id {user_id}"}
    return 200, {"user": user}
