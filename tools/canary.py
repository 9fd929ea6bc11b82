"""The canary: the whole test suite against the newest releases of everything, in a throwaway venv.

    python tools/canary.py                 newest releases, this Python; exit 1 if anything broke
    python tools/canary.py --python 3.13   the same on another installed Python
    python tools/canary.py -- tests/test_sdk_contract.py   only these tests (pytest's arguments)

It copies the work tree (git's files, committed or not) to a temporary folder, makes a venv there,
installs the project with --no-deps and then the newest release of every package pyproject.toml
names, with no version ranges, so new major versions come in too. It runs the README's test
command there and prints which versions differ from requirements-lock.txt, which tests and
notebook cells broke, and the first difference of each. Nothing in the work tree changes.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path

from lock import LOCK, ROOT, read_lock, uv_executable
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ANSI = re.compile(r"(?:\x1b|#x1B)\[[0-9;]*m")  # nbval colours its messages; junit XML escapes ESC as #x1B
SHOWN_PER_FILE = 3


@dataclass
class Change:
    """a package whose newest release differs from the lock"""

    name: str
    locked: str | None  # None: not in the lock
    newest: str | None  # None: no longer installed
    outside: str | None = None  # pyproject's range, when the newest release falls outside it


@dataclass
class Broken:
    """a test or notebook cell that failed, and the first thing that differed"""

    file: str
    test: str
    first_difference: str


def newest_requirements(pyproject: dict) -> dict[str, Requirement]:
    """every package pyproject.toml names (dependencies, every extra, the build backend), by canonical name"""
    texts = [*pyproject["project"]["dependencies"], *pyproject["build-system"]["requires"]]
    texts += [
        text for extra in pyproject["project"].get("optional-dependencies", {}).values() for text in extra
    ]
    own = canonicalize_name(pyproject["project"]["name"])
    named: dict[str, Requirement] = {canonicalize_name(r.name): r for r in map(Requirement, texts)}
    named.pop(own, None)
    return named


def unpinned(requirement: Requirement) -> str:
    """the requirement without its version range: `name[extras]; marker`"""
    extras = f"[{','.join(sorted(requirement.extras))}]" if requirement.extras else ""
    marker = f"; {requirement.marker}" if requirement.marker else ""
    return f"{requirement.name}{extras}{marker}"


def changes(lock_text: str, installed: dict[str, str], environment: dict, wanted: dict[str, Requirement]):
    """what the canary installed that the lock does not pin, for the venv's platform and Python"""
    locked: dict[str, str] = {
        canonicalize_name(pin.name): pin.version
        for pin in read_lock(lock_text)
        if pin.marker is None or Marker(pin.marker).evaluate(environment)
    }
    found = []
    for name in sorted(set(locked) | set(installed)):
        before, after = locked.get(name), installed.get(name)
        if before == after or name == canonicalize_name("agent-core"):
            continue
        requirement = wanted.get(name)
        outside = None
        if requirement and after and not requirement.specifier.contains(Version(after), prereleases=True):
            outside = str(requirement.specifier)
        found.append(Change(name, before, after, outside))
    return found


def first_difference(text: str) -> str:
    """the line that says what went wrong: nbval's first differing output line, or the exception"""
    lines = [ANSI.sub("", line).rstrip() for line in text.splitlines()]
    for i, line in enumerate(lines):
        if line.strip().startswith("mismatch "):  # nbval: "mismatch 'stdout'", then pytest's diff
            what = line.strip().removeprefix("mismatch ")
            diff = [d.strip() for d in lines[i + 1 :] if d.strip()[:2] in ("- ", "+ ")]
            # pytest's diff of `reference_output == test_output`: + is the stored output, - this run's
            stored = next((d[2:] for d in diff if d.startswith("+ ")), "")
            now = next((d[2:] for d in diff if d.startswith("- ")), "")
            return f"{what} differs: stored {stored!r}, now {now!r}"
    errors = [
        line.strip() for line in lines if re.match(r"^E?\s*\w*(Error|Exception|Warning)\b.*:", line.strip())
    ]
    if errors:
        return errors[0].removeprefix("E").strip()
    reasons = [m.group(1) for m in map(re.compile(r"^Cell \d+: (.+)").match, lines) if m]  # nbval's own words
    if reasons:
        return reasons[0]
    meaningful = [line.strip() for line in lines if line.strip()]
    return meaningful[-1] if meaningful else "(no message)"


def file_of(classname: str) -> str:
    """junit's classname as a path: `lessons.00_one_model_call.ipynb`, `tests.test_loop` (module.Class too)"""
    if classname.endswith(".ipynb"):
        return classname.removesuffix(".ipynb").replace(".", "/") + ".ipynb"
    module = ".".join(part for part in classname.split(".") if not part[:1].isupper())
    return module.replace(".", "/") + ".py"


def broken_tests(junit_xml: Path) -> tuple[dict[str, int], list[Broken]]:
    """pytest's counts and each failed or errored test, from its junit XML"""
    root = ElementTree.parse(junit_xml).getroot()
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    counts = {
        key: sum(int(s.get(key, 0)) for s in suites) for key in ("tests", "failures", "errors", "skipped")
    }
    broken = []
    for case in root.iter("testcase"):
        for problem in case:
            if problem.tag in ("failure", "error"):
                text = "\n".join(filter(None, [problem.get("message", ""), problem.text or ""]))
                broken.append(
                    Broken(file_of(case.get("classname", "")), case.get("name", ""), first_difference(text))
                )
    return counts, broken


def report(changed: list[Change], counts: dict[str, int], broken: list[Broken], python: str) -> str:
    out = [f"canary: the newest releases against {LOCK.name}, on Python {python}", ""]
    out.append(
        f"versions that differ from the lock ({len(changed)}):" if changed else "versions: all as locked"
    )
    width = max((len(c.name) for c in changed), default=0)
    for change in changed:
        line = f"  {change.name:<{width}}  {change.locked or '(not locked)'} -> {change.newest or '(gone)'}"
        if change.outside:
            line += f"   outside pyproject.toml's {change.outside}"
        out.append(line)
    passed = counts["tests"] - counts["failures"] - counts["errors"] - counts["skipped"]
    out += [
        "",
        f"tests: {passed} passed, {counts['failures']} failed, {counts['errors']} errors, "
        f"{counts['skipped']} skipped",
    ]
    by_file: dict[str, list[Broken]] = {}
    for item in broken:
        by_file.setdefault(item.file, []).append(item)
    for file, items in by_file.items():
        out.append(f"  {file}: {len(items)} broken")
        for item in items[:SHOWN_PER_FILE]:
            out.append(f"    {item.test}: {item.first_difference[:300]}")
        if len(items) > SHOWN_PER_FILE:
            out.append(f"    ... and {len(items) - SHOWN_PER_FILE} more")
    return "\n".join(out)


def bin_dir(venv: Path) -> Path:
    return venv / ("Scripts" if os.name == "nt" else "bin")


def copy_work_tree(destination: Path) -> None:
    """git's files (tracked, or new and not ignored) as they are now in the work tree"""
    listed = (
        subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (destination / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination / name)


def run(command: list, **options) -> None:
    print("  $", " ".join(str(part) for part in command), flush=True)
    subprocess.run(command, check=True, **options)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--python", default=sys.executable, help="the interpreter for the venv (default: this one)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder even when all passed")
    parser.add_argument(
        "pytest_args", nargs="*", help="after --: pytest's arguments (default: the whole suite)"
    )
    args = parser.parse_args(argv)

    uv = uv_executable()
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    wanted = newest_requirements(pyproject)
    work = Path(tempfile.mkdtemp(prefix="agent-core-canary-"))
    repo, venv = work / "repo", work / "venv"
    print(f"canary: working in {work}", flush=True)
    try:
        copy_work_tree(repo)
        run([uv, "venv", "--quiet", "--python", args.python, venv])
        python = bin_dir(venv) / ("python.exe" if os.name == "nt" else "python")
        run([uv, "pip", "install", "--quiet", "--python", python, "--no-deps", "-e", repo])
        # no ranges and no lock: the newest release of each, and the newest their dependencies allow
        newest = [unpinned(r) for r in wanted.values()]
        run([uv, "pip", "install", "--quiet", "--python", python, "--upgrade", *newest])
    except subprocess.CalledProcessError as error:
        print(
            f"canary: could not set up the environment ({error}); the folder is kept: {work}", file=sys.stderr
        )
        return 2

    listed = subprocess.run(
        [uv, "pip", "list", "--python", python, "--format", "json"], capture_output=True, text=True
    )
    installed: dict[str, str] = {
        canonicalize_name(p["name"]): p["version"] for p in json.loads(listed.stdout)
    }
    probe = "import json; from packaging.markers import default_environment as d; print(json.dumps(d()))"
    environment = json.loads(subprocess.run([python, "-c", probe], capture_output=True, text=True).stdout)
    changed = changes(LOCK.read_text(encoding="utf-8"), installed, environment, wanted)

    junit, log = work / "junit.xml", work / "pytest.log"
    print(f"canary: running the test suite (its output: {log})", flush=True)
    with log.open("w", encoding="utf-8") as output:
        tests = subprocess.run(
            [python, "-m", "pytest", f"--junitxml={junit}", "-q", *args.pytest_args],
            cwd=repo,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    if not junit.exists():
        print(f"canary: pytest wrote no report (exit {tests.returncode}); see {log}", file=sys.stderr)
        return 2
    counts, broken = broken_tests(junit)
    print()
    print(report(changed, counts, broken, environment["python_full_version"]))
    print()
    if broken or tests.returncode != 0:
        print(
            f"canary: BROKEN (pytest exit {tests.returncode}); the venv, the copy and the log stay in {work}"
        )
        return 1
    print(
        "canary: all passed on the newest releases"
        + (": refresh the lock (python tools/lock.py --upgrade)" if changed else "")
    )
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
