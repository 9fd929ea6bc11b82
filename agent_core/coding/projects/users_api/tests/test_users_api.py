from app.routes import handle


def names(body):
    return [user["name"] for user in body["users"]]


def test_list_all_users():
    status, body = handle("GET", "/users")
    assert status == 200
    assert names(body) == ["Ana", "Bruno", "Carla", "Dario"]


def test_get_one_user():
    assert handle("GET", "/users/3") == (200, {"user": {"id": 3, "name": "Carla", "role": "viewer"}})


def test_unknown_user_is_not_found():
    status, _ = handle("GET", "/users/99")
    assert status == 404


def test_filter_users_by_role_viewer():
    status, body = handle("GET", "/users?role=viewer")
    assert status == 200
    assert names(body) == ["Carla"]


def test_filter_users_by_role_editor():
    status, body = handle("GET", "/users?role=editor")
    assert status == 200
    assert names(body) == ["Bruno", "Dario"]
