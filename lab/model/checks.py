"""The checks of a step: their files, and the course functions each check names.

A check calls the code under test by name (``call(lease, "claim", ...)``, ``lease.claim``). The
functions a check names are found by over-approximation: any string constant, attribute, bare
name or parameter equal to a function's name counts. lab/grading/reach.py closes them over the
module's own calls, to key each check's cached results on the text it can reach;
tests/test_reach.py compares them with the functions the checks actually call.
"""

from __future__ import annotations

import ast
import functools
import re
import tomllib
from typing import TYPE_CHECKING

from lab.model.course import LAB_ROOT, load_course

if TYPE_CHECKING:
    from pathlib import Path

    from lab.model.course import Step

CHECKS_DIR = LAB_ROOT / "checks"
CHECK_FILE = re.compile(r"^test_(\d+)_\w*\.py$")  # test_07_release.py holds checks of step 7
MODEL_CHECK = "model_check"
RACE_MARK = "race"
DURATIONS = CHECKS_DIR / "durations.toml"  # seconds each check takes against the reference (`dev durations`)
# The weight of a check the table does not list yet (a new one, before `dev durations`): about the
# median of the table's slow checks and of its others.
UNLISTED_SLOW, UNLISTED = 0.15, 0.001
# Seconds each check costs beyond the call the table times: loading the learner's files afresh.
SETUP = 0.002


def rules_module(step: Step) -> str:
    """The module of a step's own rules beside its checks (checks/rules.py collects them):
    rules_04_claim for step 4, whose function is claim."""
    return f"rules_{step.number:02d}_{step.function}"


def check_files(step: int) -> list[Path]:
    """The check files of a step, by the course's naming: test_<step number>_<anything>.py."""
    return sorted(p for p in CHECKS_DIR.glob("test_*.py") if (m := CHECK_FILE.match(p.name)) and int(m[1]) == step)


@functools.cache
def checks_of(step: int) -> dict[str, frozenset[str]]:
    """{check name: the course functions it names}, for every check of the step's check files, in
    the files' order (the order pytest collects them in).

    A check is a top-level ``def test_...`` or a name ``test_... = model_check(...)``. It names
    what its own code names, what the helpers, fixtures and classes of its file that it uses
    name, and what the file's other module-level code (constants, imports) names. conftest.py and
    support.py are left out: they call only the function a check names (support.call(lease,
    name)), and support.PARAMETERS names every one of them. A generated check
    (sequences.model_check) calls every function of the steps up to its own.
    """
    course = {s.function for s in load_course()}
    found: dict[str, frozenset[str]] = {}
    for path in check_files(step):
        helpers: dict[str, ast.stmt] = {}
        shared: set[str] = set()
        checks: dict[str, ast.stmt] = {}
        for node in _statements(path):
            name = _bound_name(node)
            if name and name.startswith("test"):
                checks[name] = node
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                helpers[node.name] = node
            else:
                shared |= names_in(node)
        for name, node in checks.items():
            named = _closure(names_in(node) | shared, helpers)
            if MODEL_CHECK in named:  # it drives every function of the steps up to its own
                named |= {s.function for s in load_course()[:step]}
            found[name] = frozenset(named & course)
    return found


@functools.cache
def _statements(path: Path) -> tuple[ast.stmt, ...]:
    """The top-level statements of a check file, parsed once however many questions are asked of it."""
    return tuple(ast.parse(path.read_text(encoding="utf-8")).body)


@functools.cache
def race_checks(step: int) -> frozenset[str]:
    """The checks of the step whose point is a race or timing: those marked ``@pytest.mark.race``
    (registered in checks/pytest.ini, the one place that says which they are)."""
    return frozenset(
        node.name
        for path in check_files(step)
        for node in _statements(path)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and any(map(_marks_a_race, node.decorator_list))
    )


def _marks_a_race(decorator: ast.expr) -> bool:
    """``@pytest.mark.race``, or ``@mark.race`` after ``from pytest import mark``."""
    return isinstance(decorator, ast.Attribute) and decorator.attr == RACE_MARK and "mark" in names_in(decorator.value)


@functools.cache
def slow_checks(step: int) -> frozenset[str]:
    """The checks of the step that take tenths of a second where the others take hundredths: a
    race (lab.model.checks.race_checks) or a check whose examples Hypothesis draws (a generated
    ``model_check``, or a check decorated ``@given``). lab/grading/kill_matrix.py deals them out
    when one run's checks are shared over two child processes."""
    slow = set(race_checks(step))
    for path in check_files(step):
        for node in _statements(path):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and any(map(_is_given, node.decorator_list)):
                slow.add(node.name)
            elif isinstance(node, ast.Assign) and (name := _bound_name(node)) and MODEL_CHECK in names_in(node.value):
                slow.add(name)
    return frozenset(slow)


def _is_given(decorator: ast.expr) -> bool:
    """``@given(...)``, or ``@hypothesis.given(...)``."""
    called = decorator.func if isinstance(decorator, ast.Call) else decorator
    return (isinstance(called, ast.Name) and called.id == "given") or (
        isinstance(called, ast.Attribute) and called.attr == "given"
    )


@functools.cache
def durations() -> dict[tuple[int, str], float]:
    """{(step, check name): seconds} as checks/durations.toml lists them: measured once against the
    reference (`python -m lab dev durations`) and kept, so that they weigh the checks the same
    way on every run and machine. Where the table is missing, every check is unlisted."""
    try:
        table = tomllib.loads(DURATIONS.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    return {(int(step), name): seconds for step, checks in table.items() for name, seconds in checks.items()}


def weight(step: int, check: str) -> float:
    """About how many seconds the check takes: what the table lists, else a typical one of its
    kind, and its setup."""
    listed = durations().get((step, check))
    if listed is None:
        listed = UNLISTED_SLOW if check in slow_checks(step) else UNLISTED
    return listed + SETUP


@functools.cache
def named_by_checks(step: int) -> frozenset[str]:
    """The course functions named by any check of the step."""
    return frozenset().union(*checks_of(step).values())


def _bound_name(node: ast.stmt) -> str | None:
    """The name a top-level statement defines: a def or class, or the one target of an assignment."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return node.name
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        return node.targets[0].id
    return None


def _closure(named: set[str], helpers: dict[str, ast.stmt]) -> set[str]:
    """The names used by code naming `named`, through the helpers (name -> node) it uses."""
    todo, seen = [n for n in named if n in helpers], set()
    named = set(named)
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            more = names_in(helpers[name])
            named |= more
            todo.extend(n for n in more if n in helpers)
    return named


def names_in(tree: ast.AST) -> set[str]:
    """Every identifier-like word the code uses: names, attributes, string constants."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.add(node.value)
        elif isinstance(node, ast.arg):  # a check's or helper's parameter: a fixture it uses
            found.add(node.arg)
    return found
