"""The lock (requirements-lock.txt, made by tools/lock.py) is in step with pyproject.toml's dependencies."""

import re
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "requirements-lock.txt"
REFRESH = "run `python tools/lock.py` and commit requirements-lock.txt with pyproject.toml"

sys.path.insert(0, str(ROOT / "tools"))  # tools/ holds scripts, not a package
from lock import Pin, read_lock  # noqa: E402


def locked(lock_text: str) -> dict[str, list[Pin]]:
    """the lock's pins by canonical name (a package may have one pin per Python or OS)"""
    pins: dict[str, list[Pin]] = {}
    for pin in read_lock(lock_text):
        pins.setdefault(canonicalize_name(pin.name), []).append(pin)
    return pins


def requirements(pyproject: dict) -> list[Requirement]:
    """what the lock must hold: the dependencies, every extra's, and the build backend"""
    texts = [
        *pyproject["project"]["dependencies"],
        *(text for extra in pyproject["project"].get("optional-dependencies", {}).values() for text in extra),
        *pyproject["build-system"]["requires"],
    ]
    own_name = canonicalize_name(pyproject["project"]["name"])
    return [r for r in map(Requirement, texts) if canonicalize_name(r.name) != own_name]


def out_of_step(pyproject: dict, lock_text: str) -> list[str]:
    """each way the lock fails pyproject.toml, in a sentence"""
    pins = locked(lock_text)
    problems = []
    for requirement in requirements(pyproject):
        if canonicalize_name(requirement.name) not in pins:
            problems.append(f"{requirement} is required but not locked")
            continue
        for pin in pins[canonicalize_name(requirement.name)]:
            if not requirement.specifier.contains(Version(pin.version), prereleases=True):
                problems.append(f"{requirement} is required but {pin.name}=={pin.version} is locked")
    return problems


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_every_requirement_of_pyproject_is_locked_at_a_version_it_allows():
    problems = out_of_step(pyproject(), LOCK.read_text(encoding="utf-8"))
    assert not problems, (
        "requirements-lock.txt is out of step: " + "; ".join(problems) + f". To fix: {REFRESH}."
    )


def test_a_dependency_added_without_refreshing_the_lock_is_named():
    project = pyproject()
    project["project"]["dependencies"] = [
        *project["project"]["dependencies"],
        "not-a-course-dependency>=1",
        "rich>=99",
    ]
    problems = out_of_step(project, LOCK.read_text(encoding="utf-8"))
    assert problems[0] == "not-a-course-dependency>=1 is required but not locked"
    assert re.fullmatch(r"rich>=99 is required but rich==[\w.]+ is locked", problems[1])


def test_nothing_is_locked_for_a_requirement_pyproject_no_longer_has():
    required = {canonicalize_name(r.name) for r in requirements(pyproject())}
    pins = locked(LOCK.read_text(encoding="utf-8"))
    direct = {name for name, named in pins.items() if any(pin.from_pyproject for pin in named)}
    assert direct, "no locked package says it comes from pyproject.toml: has uv changed its annotations?"
    stale = sorted(direct - required)
    assert not stale, (
        f"locked because pyproject.toml required them, which it no longer does: {stale}. {REFRESH}."
    )


def test_every_locked_package_is_pinned_with_its_hashes():
    unhashed = sorted(pin.name for pin in read_lock(LOCK.read_text(encoding="utf-8")) if pin.hashes == 0)
    assert not unhashed, (
        f"locked without hashes, so pip --require-hashes refuses them: {unhashed}. {REFRESH}."
    )
