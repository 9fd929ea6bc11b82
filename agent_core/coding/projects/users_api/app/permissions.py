"""What each kind of user is allowed to do."""

CAN_EDIT = {"admin", "editor"}
CAN_DELETE = {"admin"}


def can_edit(user: dict) -> bool:
    return user["role"] in CAN_EDIT


def can_delete(user: dict) -> bool:
    return user["role"] in CAN_DELETE
