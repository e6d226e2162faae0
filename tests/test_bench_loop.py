"""make bench-loop: every figure of the learner's loop comes out, as a row of the table (English and
Japanese) and in the JSON, measured on real edits of a copy of the lab."""

import ast
import io
import json
import subprocess
import sys

import pytest
from rich.console import Console

from lab.dev import loop_bench, loop_report
from lab.model.course import LAB_ROOT

CLAIM = '''def claim(path, job_id, owner, now, ttl):
    """Take the job's lease when it has expired."""
    if ttl <= 0:
        raise ValueError(ttl)
    return 1
'''


def test_an_edit_is_a_new_statement_at_the_top_of_the_functions_body():
    once, twice = loop_bench.edited(CLAIM, "claim", 1), loop_bench.edited(CLAIM, "claim", 2)
    assert once.splitlines()[2] == "    _edited_by_bench_loop = 1"
    body = ast.parse(once).body[0].body
    assert ast.get_docstring(ast.parse(once).body[0]) == "Take the job's lease when it has expired."
    assert ast.unparse(body[1]) == "_edited_by_bench_loop = 1"
    assert ast.dump(ast.parse(once)) not in (ast.dump(ast.parse(CLAIM)), ast.dump(ast.parse(twice)))
    bare = "def init_db(path):\n    return path\n"
    assert (
        loop_bench.edited(bare, "init_db", 3) == "def init_db(path):\n    _edited_by_bench_loop = 3\n    return path\n"
    )


def figures():
    seconds = {"unit": 2.0, "watch": 1.5, "unchanged": 2.5, "own_edit": 3.0, "earlier_edit": 7.0, "fresh_clone": 30.0}
    return [loop_bench.Figure(kind, [value], [value / 2.0]) for kind, value in seconds.items()]


@pytest.mark.parametrize(
    ("lang", "rows"),
    [
        (
            "en",
            [
                "check-step 1, just after an edit to init_db (the unit) 2.00 1.00×",
                "watch 8: from a save of an edit to claim_many to the report's last line 1.50 0.75× ≤ 1×: met",
                "check-step 8, nothing changed since the last one 2.50 1.25× ≤ 1×: missed",
                "check-step 8, just after an edit to claim_many 3.00 1.50× ≤ 1.5×: met",
                "check-step 8, just after an edit to claim 7.00 3.50× ≤ 4×: met",
                "the first check-step 1 on a fresh clone, with empty caches 30.00 15.00× half of the time before uv",
            ],
        ),
        (
            "ja",
            [
                "check-step 1 (init_db を編集した直後。これが単位) 2.00 1.00×",
                "watch 8: claim_many の編集を保存してから、レポートの最後の行まで 1.50 0.75× ≤ 1×: 達成",
                "check-step 8 (前回から何も変えずに) 2.50 1.25× ≤ 1×: 未達",
                "check-step 8 (claim_many を編集した直後) 3.00 1.50× ≤ 1.5×: 達成",
                "check-step 8 (claim を編集した直後) 7.00 3.50× ≤ 4×: 達成",
                "新しいクローンでの最初の check-step 1 (キャッシュは空) 30.00 15.00× uv 以前の時間の半分",
            ],
        ),
    ],
)
def test_the_table_has_a_row_for_every_figure_with_its_goal(lang, rows):
    screen = io.StringIO()
    loop_report.render(figures(), loop_bench.Plan(), lang, Console(file=screen, width=400, highlight=False))
    shown = [
        " ".join(cell.strip() for cell in line.split("│") if cell.strip()) for line in screen.getvalue().splitlines()
    ]
    assert [line for line in shown if line.startswith(("check-step", "watch", "the first", "新しい"))] == rows


def test_bench_loop_measures_every_figure_of_the_loop_on_a_copy_of_the_lab(tmp_path):
    """One repetition on step 1 without mutants (the fresh clone left out by its flag): the real
    commands, the real watcher, real edits; the learner's steps/ untouched."""
    steps_before = {p: p.read_bytes() for p in (LAB_ROOT / "steps").rglob("*") if p.is_file()}
    out = tmp_path / "loop.json"
    arguments = ["--repeat", "1", "--no-fresh-clone", "--step", "1", "--earlier", "1", "--no-mutants"]
    done = subprocess.run(
        [sys.executable, "-m", "lab", "bench-loop", *arguments, "--lang", "en", "--json", str(out)],
        cwd=LAB_ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    record = json.loads(out.read_text(encoding="utf-8"))
    kinds = [figure["kind"] for figure in record["figures"]]
    assert kinds == ["unit", "watch", "unchanged", "own_edit", "earlier_edit"]
    for figure in record["figures"]:
        assert len(figure["seconds"]) == 1 and figure["seconds"][0] > 0
        assert figure["ratios"] == [figure["seconds"][0] / record["figures"][0]["seconds"][0]]
        assert figure["name"] in done.stdout
    assert record["figures"][0]["ratios"] == [1.0] and record["check_flags"] == ["--no-mutants"]
    assert {p: p.read_bytes() for p in (LAB_ROOT / "steps").rglob("*") if p.is_file()} == steps_before
