"""What the browser tests share: finding Chromium, its flags, and skipping (or, in CI, failing) without it."""

import os
import shutil

import pytest

CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # what slipped past the interception finds no host
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]


def missing(reason: str, tests: str) -> None:
    """skip the test, or fail it in CI (CI=true), where `tests` must run"""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (CI=true: {tests} must run in CI)")
    pytest.skip(reason)


def chromium(tests: str) -> str:
    """the Chrome or Chromium to drive: AGENT_CORE_CHROMIUM, else the first one on PATH"""
    candidates = [os.environ.get("AGENT_CORE_CHROMIUM")]
    candidates += [shutil.which(name) for name in ("chromium", "chromium-browser", "google-chrome", "chrome")]
    found = next((c for c in candidates if c), None)
    if found is None:
        missing(
            "no Chromium found: install it (Debian or Ubuntu: apt-get install chromium) "
            "or set AGENT_CORE_CHROMIUM to a Chrome or Chromium executable",
            tests,
        )
    assert found is not None
    return found
