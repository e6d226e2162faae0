"""The reachability map that keys the kill matrix's cache (lab.grading.reach) against the
functions that each step's checks, and each check, really call when they run on the reference.

If the map missed a function, an edit to it would leave stale verdicts in the cache; if it named
too many, re-runs would be slower than they need to be. Both show up here: a step's map must be
exactly what its checks call, and each check's must include everything that check calls.
"""

import ast
import json
import os
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import pytest

from lab.grading import reach
from lab.model import checks
from lab.model.course import LAB_ROOT, load_course
from lab.model.implementation import assemble, read
from lab.model.mutants import SOLUTIONS_DIR
from lab.model.targets import PLAN_VARIABLE, Target

STEPS = [step.number for step in load_course()]

# A pytest plugin for the child: wrap the course functions of every module the checks load, so
# that calls from the checks and between the functions (claim_many -> claim) are both seen.
RECORDER = """
import atexit, functools, json, os
from lab.model.course import load_course
from lab.model.targets import Target

CALLED = {}  # (check name, its step) -> the course functions called while it ran (its fixtures included)
CHECKS = []  # (check name, its step, its file) of every check collected, in order
CURRENT = [None]
FUNCTIONS = [step.function for step in load_course()]
_load = Target.load


def _check(item):
    return item.originalname, item.callspec.params["lease"].steps[0]


def pytest_collection_modifyitems(items):
    CHECKS.extend((*_check(item), str(item.path)) for item in items)


def pytest_runtest_setup(item):
    CURRENT[0] = _check(item)


def _recording(name, function):
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        CALLED.setdefault(CURRENT[0], set()).add(name)
        return function(*args, **kwargs)
    return wrapper


def load(self):
    loaded = _load(self)
    for name in FUNCTIONS:
        function = getattr(loaded.module, name, None)
        if callable(function):
            setattr(loaded.module, name, _recording(name, function))
    return loaded


Target.load = load
atexit.register(lambda: open(os.environ["CALLED_OUT"], "w").write(
    json.dumps({"called": [[*check, sorted(names)] for check, names in CALLED.items()], "checks": CHECKS})
))
"""


@pytest.fixture(scope="module")
def called_when_checked(tmp_path_factory):
    """step -> (check name -> the functions it called, the (check, step) pytest collected from the
    step's files), from one run of every step's checks on the reference, a target per step."""
    folder = tmp_path_factory.mktemp("reach")
    (folder / "called_recorder.py").write_text(RECORDER, encoding="utf-8")
    plan = folder / "plan.json"
    # The reference as one module file, loaded in the checks' process: a learner's folder
    # would run in a learner process of its own, out of the recorder's sight.
    (folder / "reference_lease.py").write_text(assemble(read(SOLUTIONS_DIR, label="solutions")), encoding="utf-8")
    module_file = str(folder / "reference_lease.py")
    targets = [asdict(Target(f"reference-{step}", (step,), module_file=module_file)) for step in STEPS]
    plan.write_text(json.dumps({"targets": targets}))
    out = folder / "called.json"
    env = {**os.environ, PLAN_VARIABLE: str(plan), "CALLED_OUT": str(out), "PYTHONDONTWRITEBYTECODE": "1"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(folder), str(LAB_ROOT), env.get("PYTHONPATH")]))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "called_recorder",
            "-p",
            "no:cacheprovider",
            "-c",
            str(LAB_ROOT / "checks" / "pytest.ini"),
            *(str(path) for step in STEPS for path in checks.check_files(step)),
        ],
        cwd=LAB_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    recorded = json.loads(out.read_text())
    return {
        step: (
            {check: set(names) for check, own_step, names in recorded["called"] if own_step == step},
            [
                (check, own_step)
                for check, own_step, file in recorded["checks"]
                if Path(file) in checks.check_files(step)
            ],
        )
        for step in STEPS
    }


@pytest.mark.parametrize("step", STEPS)
def test_the_map_names_exactly_the_functions_the_checks_call_on_the_reference(step, called_when_checked):
    tree = ast.parse(assemble(read(SOLUTIONS_DIR, label="solutions")))
    called, collected = called_when_checked[step]
    assert reach.reachable((step,), tree) == set().union(*called.values())
    # every check pytest collects is one the map knows, in the same order, and of this step
    assert list(dict.fromkeys(check for check, _ in collected)) == list(checks.checks_of(step))
    assert {own_step for _, own_step in collected} == {step}
    for check, names in called.items():
        assert names <= reach.reachable_from(checks.checks_of(step)[check], tree), check


def test_every_step_has_check_files_and_every_check_file_a_step():
    named = {path for step in STEPS for path in checks.check_files(step)}
    assert all(checks.check_files(step) for step in STEPS)
    assert named == set((LAB_ROOT / "checks").glob("test_*.py"))


def test_an_edit_to_an_unreachable_function_body_keeps_the_text_and_one_to_a_reachable_one_does_not():
    source = assemble(read(SOLUTIONS_DIR, label="solutions"))
    docstring = '"""Give the lease back early; the fence stays so old tokens stay invalid."""'
    assert source.count(docstring) == 1  # release's, and nothing else's
    edited = source.replace(docstring, '"""Give the lease back before it expires."""')
    assert edited != source
    # release is step 7's: the checks of step 6 cannot reach it, those of step 7 can
    assert reach.relevant_text(edited, (6,)) == reach.relevant_text(source, (6,))
    assert reach.relevant_text(edited, (7,)) != reach.relevant_text(source, (7,))


def test_an_edit_to_renew_changes_the_text_of_the_checks_that_can_call_it_and_no_other():
    source = assemble(read(SOLUTIONS_DIR, label="solutions"))
    before, after = source.split("def renew(", 1)
    edited = before + "def renew(" + after.replace("ttl must be positive", "ttl must be above 0", 1)
    assert edited != source
    changed = {
        (step, check)
        for step in STEPS
        for check in checks.checks_of(step)
        if reach.check_text(edited, step, check) != reach.check_text(source, step, check)
    }
    renews = {(5, check) for check in checks.checks_of(5)}
    generated = {(step, f"test_step_{step}_random_calls_from_arbitrary_tables_keep_the_contract") for step in (6, 7, 8)}
    assert changed == renews | generated


def test_a_check_reaches_what_the_helpers_and_fixtures_of_its_file_name():
    names = checks.checks_of(7)
    assert names["test_after_a_release_the_next_claim_gets_the_next_fence"] == {"claim", "release"}
    assert names["test_release_of_a_missing_job_is_false"] == {"release"}


def test_decorators_and_defaults_of_unreachable_functions_still_count():
    source = "def a(x=1):\n    return x\n\ndef b():\n    return 2\n"
    assert reach.relevant_text(source, (1,)) != reach.relevant_text(source.replace("x=1", "x=2"), (1,))


def keys_of_every_check(source):
    return {(step, check): reach.check_text(source, step, check) for step in STEPS for check in checks.checks_of(step)}


def unchanged_checks(before, after):
    old, new = keys_of_every_check(before), keys_of_every_check(after)
    return {name for name in old if old[name] == new[name]}


REFERENCE = assemble(read(SOLUTIONS_DIR, label="solutions"))


def test_a_body_that_the_parser_takes_but_python_cannot_compile_changes_every_checks_text():
    """`break` outside a loop parses, but the module no longer loads: no check's result stands."""
    helper = "\n\ndef _still_held(path):\n    return False\n"
    broken = helper.replace("return False", "break")
    assert unchanged_checks(REFERENCE + helper, REFERENCE + broken) == set()


def test_what_a_decorator_of_an_unreached_function_calls_runs_on_import_and_counts_for_every_check():
    source = (
        REFERENCE.replace("def release(", "@_logged\ndef release(", 1)
        + "\n\ndef _logged(function):\n    return function\n"
    )
    edited = source.replace("    return function\n", "    return None\n")
    assert unchanged_checks(source, edited) == set()


def test_every_definition_of_a_twice_defined_function_is_followed():
    source = (
        REFERENCE + "\n\ndef _tune(conn):\n    return conn\n\ndef _connect(path):\n    return _tune(path)\n"
        "\n\ndef _connect(path):\n    return path\n"
    )
    edited = source.replace("def _tune(conn):\n    return conn", "def _tune(conn):\n    return None")
    # nothing calls _connect, but each of its definitions calls what it names when it is reached
    assert reach.reachable_from(frozenset({"_connect"}), ast.parse(source)) >= {"_connect", "_tune"}
    assert unchanged_checks(source, edited) == set(keys_of_every_check(source))


def test_two_statements_on_one_line_are_two_pieces_of_module_level_code():
    source = REFERENCE + "\n\ndef _helper():\n    return 1\n\nLIMIT = 1; HELPER = _helper()\n"
    edited = source.replace("def _helper():\n    return 1", "def _helper():\n    return 2")
    assert unchanged_checks(source, edited) == set()
