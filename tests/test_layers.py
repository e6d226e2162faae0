"""lab/ keeps its layers: the import contracts in pyproject.toml ([tool.importlinter]) hold, and
its rooms stay small."""

import subprocess
import sys
from pathlib import Path

LAB_ROOT = Path(__file__).resolve().parent.parent


def test_every_import_contract_is_kept():
    linter = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run([str(linter), "--no-cache"], cwd=LAB_ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "Contracts: 2 kept, 0 broken." in done.stdout


def test_no_module_of_the_engine_is_over_400_lines():
    """Rooms of one job: a module that grows past this is split by role (as classroom.py was into
    classroom, class_table, class_view and class_outputs)."""
    lengths = {
        str(p.relative_to(LAB_ROOT)): len(p.read_text(encoding="utf-8").splitlines())
        for p in (LAB_ROOT / "lab").rglob("*.py")
    }
    assert lengths and not {path: n for path, n in lengths.items() if n > 400}
