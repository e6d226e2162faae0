"""Every step's own rules beside its checks (checks/rules_<NN>_<function>.py), collected through
course.toml (checks/rules.py): the model's rule of each function and its calls, each step's covering
calls run on the reference beside the model without a clause broken."""

import sys

import pytest

from lab.model.checks import rules_module
from lab.model.course import LAB_ROOT, load_course
from lab.model.implementation import load, read
from lab.model.mutants import SOLUTIONS_DIR

sys.path.insert(0, str(LAB_ROOT / "checks"))
import model
import rules
import sequences

COURSE = load_course()


def test_every_step_has_its_own_rules_file_collected_in_the_course_order():
    collected = rules.of_steps()
    assert list(collected) == [step.function for step in COURSE]
    assert [own.__file__ for own in collected.values()] == [
        str(LAB_ROOT / "checks" / f"{rules_module(step)}.py") for step in COURSE
    ]


def test_the_table_model_answers_every_function_by_its_steps_rule_and_no_other_name():
    table = model.TableModel([{"id": "a"}])
    assert [getattr(table, step.function).func for step in COURSE] == [own.rule for own in rules.of_steps().values()]
    with pytest.raises(AttributeError):
        table.no_such_function  # noqa: B018 - the lookup is what is checked


@pytest.mark.parametrize("step", COURSE, ids=lambda step: step.function)
def test_the_reference_keeps_the_model_on_each_steps_covering_calls(tmp_path, step):
    covering = rules.of(step.function).COVERING
    assert covering and {name for name, _ in covering} <= {step.function, *sequences.WRITE_CALLS}
    lease = load(read(SOLUTIONS_DIR, label="solutions")).module
    path = str(tmp_path / "jobs.db")
    lease.init_db(path)
    run = sequences.Sequence(lease, path, sequences.COVERING_TABLE)
    run.run(covering)  # a clause the reference and the model disagree on raises ClauseBroken
    assert len(run.history) == 1 + len(covering)
