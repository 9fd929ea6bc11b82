"""The public surface: every module declares __all__, and every name it lists exists."""

import importlib
import pkgutil

import agent_core


def all_modules():
    for info in pkgutil.walk_packages(agent_core.__path__, "agent_core."):
        if ".projects" not in info.name:
            yield importlib.import_module(info.name)


def test_every_module_declares_its_public_names():
    missing = [m.__name__ for m in all_modules() if not hasattr(m, "__all__")]
    assert not missing, f"modules without __all__: {missing}"


def test_every_public_name_exists():
    for module in [agent_core, *all_modules()]:
        for name in module.__all__:
            assert hasattr(module, name), f"{module.__name__}.__all__ lists {name!r}, which does not exist"
