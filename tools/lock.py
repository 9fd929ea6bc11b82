"""Refresh requirements-lock.txt: the exact versions, with hashes, that CI and workshop laptops install.

    python tools/lock.py            add what pyproject.toml now requires, keep every other pin
    python tools/lock.py --upgrade  move every package to its newest release allowed by pyproject.toml

The lock is made by `uv pip compile --universal`: one file valid on Linux, macOS and Windows and on
every Python that pyproject.toml allows (pip-tools and `pip lock` lock for the machine they run on).
It holds every extra, and the build backend, so the project installs with nothing left to resolve:

    pip install --require-hashes -r requirements-lock.txt
    pip install --no-deps --no-build-isolation -e .

Then it checks that every pin has a wheel on each OS, on the oldest and newest Python, so no laptop
needs a compiler (--no-wheel-check skips that).
"""

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "requirements-lock.txt"
NEWEST_PYTHON = "3.15"  # the newest Python released; the wheel check covers it and the oldest allowed
# the laptops a workshop sees (Intel Macs are left out: argon2-cffi-bindings 26 has no wheel for them)
PLATFORMS = {
    "Linux": "x86_64-manylinux_2_28",
    "macOS": "aarch64-apple-darwin",
    "Windows": "x86_64-pc-windows-msvc",
}
_FROM_PYPROJECT = re.compile(r"^#\s+(?:via\s+)?agent-core \(pyproject\.toml\)$")


@dataclass
class Pin:
    """one package of the lock: name==version, for the platforms its marker names"""

    name: str
    version: str
    marker: str | None = None
    hashes: int = 0
    from_pyproject: bool = False  # uv's "# via agent-core (pyproject.toml)": a direct requirement


def read_lock(text: str) -> list[Pin]:
    """the pins of a lock written by uv pip compile (`name==version ; marker \\`, hashes, `# via` lines)"""
    pins: list[Pin] = []
    for line in text.splitlines():
        stripped = line.strip()
        if line[:1].isalnum():
            requirement, _, marker = line.rstrip(" \\").partition(";")
            name, _, version = requirement.partition("==")
            pins.append(Pin(name.strip(), version.strip(), marker.strip() or None))
        elif pins and stripped.startswith("--hash="):
            pins[-1].hashes += 1
        elif pins and _FROM_PYPROJECT.match(stripped):
            pins[-1].from_pyproject = True
    return pins


def uv_executable() -> str:
    """the uv binary: from the `uv` package in this environment (the test extra has it), else on PATH"""
    try:
        from uv import find_uv_bin

        return find_uv_bin()
    except (ImportError, FileNotFoundError):
        found = shutil.which("uv")
        if found is None:
            sys.exit("tools/lock.py needs uv: `python -m pip install uv` (it is in the test extra)")
        return found


def oldest_python(pyproject: dict) -> str:
    """the oldest Python the project allows: a universal lock covers it and every newer one"""
    return pyproject["project"]["requires-python"].removeprefix(">=").strip()


def compile_command(pyproject: dict, upgrade: bool) -> list[str]:
    command = [
        uv_executable(),
        "pip",
        "compile",
        "pyproject.toml",
        "-",  # "-": the build backend, from stdin
        "--all-extras",
        "--universal",
        "--python-version",
        oldest_python(pyproject),
        "--generate-hashes",
        "--custom-compile-command",
        "python tools/lock.py",
        "--output-file",
        LOCK.name,
        "--quiet",
    ]
    if upgrade:
        command.append("--upgrade")  # otherwise uv keeps the versions the lock already pins
    return command


def missing_wheels(oldest: str) -> list[str]:
    """each OS and Python on which installing the lock would need a compiler: no wheel for some pin"""
    problems = []
    for system, platform in PLATFORMS.items():
        for python in dict.fromkeys([oldest, NEWEST_PYTHON]):
            # a dry run resolves the lock for that machine, wheels only, reading PyPI's metadata
            command = [uv_executable(), "pip", "install", "--dry-run", "--quiet", "--only-binary", ":all:"]
            command += ["--python-platform", platform, "--python-version", python, "--require-hashes"]
            command += [
                "--target",
                str(Path(tempfile.gettempdir()) / "agent-core-lock-check"),
                "-r",
                LOCK.name,
            ]
            result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
            if result.returncode != 0:
                reason = next(
                    (line.strip() for line in result.stderr.splitlines() if "cause:" in line), result.stderr
                )
                problems.append(f"{system}, Python {python}: {reason.removeprefix('cause: ')}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--upgrade", action="store_true", help="newest allowed release of every package")
    parser.add_argument("--no-wheel-check", action="store_true", help="skip checking for wheels on each OS")
    args = parser.parse_args(argv)
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    build_requires = "\n".join(pyproject["build-system"]["requires"]) + "\n"
    result = subprocess.run(
        compile_command(pyproject, args.upgrade), cwd=ROOT, input=build_requires, text=True
    )
    if result.returncode != 0:
        print("tools/lock.py: uv could not lock the dependencies (its reason is above)", file=sys.stderr)
        return result.returncode
    print(f"{LOCK.name}: {len(read_lock(LOCK.read_text(encoding='utf-8')))} pinned packages")
    if not args.no_wheel_check:
        problems = missing_wheels(oldest_python(pyproject))
        for problem in problems:
            print(f"  no install from wheels alone on {problem}", file=sys.stderr)
        if not problems:
            print(
                f"  a wheel for every pin on {', '.join(PLATFORMS)}, Python {oldest_python(pyproject)} to "
                f"{NEWEST_PYTHON}"
            )
    print("commit it with the pyproject.toml change")
    return 0


if __name__ == "__main__":
    sys.exit(main())
