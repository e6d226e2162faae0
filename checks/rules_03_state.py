"""Step 3's own rules (rules.py): state's partitions, its model rule and its calls."""

from model import Expected
from partitions import REPLACED, ROW_KINDS
from sequences import covering_call, one_call

PARTITIONS = dict(ROW_KINDS)
ACROSS_CALLS = (REPLACED,)


def rule(model, job_id):
    if job_id not in model.rows:
        return Expected("C3.2", None, en=f"None: there is no row {job_id!r}", ja=f"None ({job_id!r} の行はない)")
    row = dict(model.rows[job_id])
    # Changed since the last state() of this job: a stale answer is a copy kept from then.
    clause = "C3.3" if model.read.get(job_id, row) != row else "C3.1"
    model.read[job_id] = row
    return Expected(clause, row, en=f"{row}: the row as stored now", ja=f"{row} (今保存されている行)")


CALL = one_call("state")


def arguments(drawn):
    return (drawn.job,)


COVERING = [covering_call(j, "state") for j in ("b", "C", "a", "e", "f")]
