"""Every step, generated: arbitrary tables and arbitrary sequences of calls to the functions of
steps 1..N, each call's answer and the whole stored table compared with a plain model of the
contract (model.py) after every call. A failure shrinks to a short sequence, printed as the
calls that led to it, and names the clause that the first differing call breaks.
"""

import pytest
from hypothesis import given, settings
from sequences import CALLS, TABLES, Sequence, calls

from lab.course import load_course

EXAMPLES = 30


def _functions(step):
    return [s.function for s in load_course()[:step]]


@pytest.mark.clause("C1.1", "C1.2", "C1.3")
@given(script=calls(["init_db", "insert", "update"], "insert"))
@settings(max_examples=EXAMPLES)
def test_step_1_random_inserts_and_restarts_keep_the_contract(lease, new_db, script):
    run = Sequence(lease, new_db(with_table=False), [], seed_table=False)
    run.run([("init_db", {}), *script])


def _model_check(step, *clauses):
    """The generated check of `step`: its own function drawn most, every earlier one beside it."""
    names = [*_functions(step), "update"]

    @pytest.mark.clause(*clauses)
    @given(rows=TABLES, script=calls(names, _functions(step)[-1]))
    @settings(max_examples=EXAMPLES)
    def check(lease, new_db, rows, script):
        Sequence(lease, new_db(), rows).run(script)

    return check


test_step_2_random_calls_from_arbitrary_tables_keep_the_contract = _model_check(2, "C2.1", "C2.2", "C2.3")
test_step_3_random_calls_from_arbitrary_tables_keep_the_contract = _model_check(3, "C3.1", "C3.2", "C3.3")
test_step_4_random_calls_from_arbitrary_tables_keep_the_contract = _model_check(4, "C4.1", "C4.2", "C4.3", "C4.4", "C4.5")
test_step_5_random_calls_from_arbitrary_tables_keep_the_contract = _model_check(5, "C5.1", "C5.2", "C5.3", "C5.4", "C5.5")
test_step_6_random_calls_from_arbitrary_tables_keep_the_contract = _model_check(6, "C6.1", "C6.2", "C6.3", "C6.4")
test_step_7_random_calls_from_arbitrary_tables_keep_the_contract = _model_check(7, "C7.1", "C7.2", "C7.3", "C7.4")
test_step_8_random_calls_from_arbitrary_tables_keep_the_contract = _model_check(8, "C8.1", "C8.2")
