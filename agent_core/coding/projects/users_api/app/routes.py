"""Which handler answers which request."""

from urllib.parse import parse_qsl, urlsplit

from app.handlers import get_user, list_users


def handle(method: str, url: str) -> tuple[int, dict]:
    """Answer one request, e.g. handle("GET", "/users?role=admin")."""
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query))
    if method != "GET":
        return 405, {"error": "method not allowed"}
    if parts.path == "/users":
        return list_users(query)
    if parts.path.startswith("/users/"):
        return get_user(parts.path.removeprefix("/users/"))
    return 404, {"error": "not found"}
