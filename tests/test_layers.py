"""lab/ keeps its layers: the import contracts in pyproject.toml ([tool.importlinter]) hold."""

import subprocess
import sys
from pathlib import Path

LAB_ROOT = Path(__file__).resolve().parent.parent


def test_every_import_contract_is_kept():
    linter = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run([str(linter), "--no-cache"], cwd=LAB_ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "Contracts: 2 kept, 0 broken." in done.stdout
