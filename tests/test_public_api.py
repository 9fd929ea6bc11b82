"""The public surface: every module declares __all__, and every name it lists exists."""

import importlib
import pkgutil
import subprocess
import sys

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


def test_the_mock_alone_does_not_load_the_rest_of_the_course():
    # every notebook starts with `from agent_core import mock`; in a fresh kernel each of these
    # would cost a few tenths of a second
    code = (
        "import sys\n"
        "from agent_core import mock\n"
        "mock.client().chat.completions.create(model='m', messages=[{'role': 'user', 'content': 'hi'}])\n"
        "print(' '.join(sorted(sys.modules)))\n"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    heavy = ["jsonschema", "rich", "ipywidgets", "agent_core.coding", "agent_core.guardrails", "agent_core.loop"]
    assert [name for name in heavy if name in loaded] == []
    assert "agent_core.mock" in loaded
