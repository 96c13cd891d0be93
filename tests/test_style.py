"""The code base stays ruff clean under the rules in pyproject.toml."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_reports_nothing() -> None:
    if importlib.util.find_spec('ruff') is None:
        pytest.skip('ruff is not installed (pip install -e ".[test]")')
    result = subprocess.run([sys.executable, '-m', 'ruff', 'check', '--output-format', 'concise',
                             str(ROOT)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
