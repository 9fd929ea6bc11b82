"""The lock (requirements-lock.txt, made by tools/lock.py) is in step with pyproject.toml's dependencies."""

import re
from pathlib import Path

import tomllib
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "requirements-lock.txt"
REFRESH = "run `python tools/lock.py` and commit requirements-lock.txt with pyproject.toml"
PROJECT_VIA = re.compile(r"^#\s+(?:via\s+)?agent-core \(pyproject\.toml\)$")


def locked_entries(lock_text: str) -> dict[str, list[dict]]:
    """name -> each pinned entry: its version, whether it has hashes, and whether pyproject asked for it"""
    entries: dict[str, list[dict]] = {}
    entry = None
    for line in lock_text.splitlines():
        text = line.strip()
        if line[:1].isalnum():
            name, _, rest = text.partition("==")
            version = re.split(r"[\s;\\]", rest, maxsplit=1)[0]
            entry = {"version": Version(version), "hashes": 0, "direct": False}
            entries.setdefault(canonicalize_name(name), []).append(entry)
        elif entry is not None and text.startswith("--hash="):
            entry["hashes"] += 1
        elif entry is not None and PROJECT_VIA.match(text):
            entry["direct"] = True
    return entries


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
    entries = locked_entries(lock_text)
    problems = []
    for requirement in requirements(pyproject):
        locked = entries.get(canonicalize_name(requirement.name))
        if not locked:
            problems.append(f"{requirement} is required but not locked")
            continue
        for entry in locked:
            if not requirement.specifier.contains(entry["version"], prereleases=True):
                problems.append(f"{requirement} is required but {requirement.name}=={entry['version']} is locked")
    return problems


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_every_requirement_of_pyproject_is_locked_at_a_version_it_allows():
    problems = out_of_step(pyproject(), LOCK.read_text(encoding="utf-8"))
    assert not problems, "requirements-lock.txt is out of step: " + "; ".join(problems) + f". To fix: {REFRESH}."


def test_a_dependency_added_without_refreshing_the_lock_is_named():
    project = pyproject()
    project["project"]["dependencies"] = [*project["project"]["dependencies"], "mcp>=1.20", "rich>=99"]
    problems = out_of_step(project, LOCK.read_text(encoding="utf-8"))
    assert problems[0] == "mcp>=1.20 is required but not locked"
    assert re.fullmatch(r"rich>=99 is required but rich==[\w.]+ is locked", problems[1])


def test_nothing_is_locked_for_a_requirement_pyproject_no_longer_has():
    required = {canonicalize_name(r.name) for r in requirements(pyproject())}
    entries = locked_entries(LOCK.read_text(encoding="utf-8"))
    direct = {name for name, pins in entries.items() if any(pin["direct"] for pin in pins)}
    assert direct, "no locked package says it comes from pyproject.toml: has uv changed its annotations?"
    stale = sorted(direct - required)
    assert not stale, f"locked because pyproject.toml required them, which it no longer does: {stale}. {REFRESH}."


def test_every_locked_package_is_pinned_with_its_hashes():
    entries = locked_entries(LOCK.read_text(encoding="utf-8"))
    unhashed = sorted(name for name, pins in entries.items() if any(pin["hashes"] == 0 for pin in pins))
    assert not unhashed, f"locked without hashes, so pip --require-hashes refuses them: {unhashed}. {REFRESH}."
