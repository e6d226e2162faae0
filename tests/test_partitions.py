"""Every kind of input and stored state a function's clauses tell apart (the PARTITIONS of its
step's rules file, checks/rules_<NN>_<function>.py, collected by checks/partitions.py) is reached by
the checks of that function's own step: counted from the calls the checks make to the reference,
recorded as they are made, never read from the checks' code."""

import json
import sys

import pytest

from lab.grading.check import every_step
from lab.model.course import LAB_ROOT, load_course
from lab.model.mutants import SOLUTIONS_DIR
from lab.model.targets import Target
from lab.running.runner import run

sys.path.insert(0, str(LAB_ROOT / "checks"))
from partitions import RECORD_VARIABLE, declared, partitions

COURSE = load_course()


@pytest.fixture(scope="module")
def reached(tmp_path_factory):
    """step -> the partitions of its own function that its checks reached, on the reference."""
    record = tmp_path_factory.mktemp("partitions") / "calls.jsonl"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(RECORD_VARIABLE, str(record))
        # Unconfined: the recording is written from the checks' process, which, confined, writes
        # nothing outside its own memory folders; what the checks reach is the same either way.
        results = run([Target("solutions", every_step(), impl=str(SOLUTIONS_DIR))], confined=False)
    assert results and all(r.status == "passed" for r in results), [
        (r.check, r.status) for r in results if r.status != "passed"
    ]
    found = {step.number: set() for step in COURSE}
    for line in record.read_text(encoding="utf-8").splitlines():
        call = json.loads(line)
        if COURSE[call["step"] - 1].function == call["function"]:
            found[call["step"]].update(call["partitions"])
    return found


def test_every_function_declares_its_partitions():
    declared_by = partitions()
    assert list(declared_by) == [step.function for step in COURSE]
    assert all(len(kinds) >= 3 for kinds in declared_by.values()), {f: len(k) for f, k in declared_by.items()}


@pytest.mark.parametrize("step", COURSE, ids=lambda step: step.function)
def test_the_checks_of_a_step_reach_every_partition_of_its_function(reached, step):
    missing = [kind for kind in declared(step.function) if kind not in reached[step.number]]
    assert not missing, f"step {step.number} ({step.function}): no check reaches {missing}"
