"""Package exports that are imported on first use, so a notebook pays only for what it touches.

`from agent_core import mock` should not also load jsonschema, rich, ipywidgets and the coding
agent: in a fresh kernel each of those is a few tenths of a second, every time. A package's
__init__ therefore lists where each public name lives, and this module's PEP 562 hooks import
that module when the name is first asked for:

    __getattr__, __dir__ = lazy_exports(__name__, {"run_agent": ".loop", "loop": ".loop"})
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, exports: dict[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """a module's __getattr__ and __dir__ for `exports`: {public name: relative module it lives in}

    A name that is also the last part of its module's path (`"loop": ".loop"`) is the module itself.
    """

    def __getattr__(name: str) -> Any:
        where = exports.get(name)
        if where is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = importlib.import_module(where, package)
        value = module if where.rsplit(".", 1)[-1] == name else getattr(module, name)
        setattr(sys.modules[package], name, value)  # the next lookup is an ordinary attribute
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(exports))

    return __getattr__, __dir__
