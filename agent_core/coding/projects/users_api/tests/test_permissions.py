from app.permissions import can_delete, can_edit
from app.users import find_user


def test_editors_can_edit_but_not_delete():
    bruno = find_user(2)
    assert can_edit(bruno)
    assert not can_delete(bruno)


def test_viewers_can_only_look():
    carla = find_user(3)
    assert not can_edit(carla)
    assert not can_delete(carla)
