"""`make test` lints and format-checks the lab with ruff, as pyproject.toml's [tool.ruff] configures it, and
type-checks its typed core with mypy, as [tool.mypy] does."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_finds_nothing_to_fix():
    found = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "."], cwd=ROOT, capture_output=True, text=True
    )
    assert found.returncode == 0, found.stdout + found.stderr


def test_ruff_finds_nothing_to_format():
    found = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "--no-cache", "."], cwd=ROOT, capture_output=True, text=True
    )
    assert found.returncode == 0, found.stdout + found.stderr


def test_mypy_finds_nothing_in_the_typed_core():
    """The files [tool.mypy] names (the course model, the sandbox and the modules under them), held to
    strict; no cache is written, as ruff writes none."""
    found = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", os.devnull], cwd=ROOT, capture_output=True, text=True
    )
    assert found.returncode == 0 and "Success: no issues found" in found.stdout, found.stdout + found.stderr
