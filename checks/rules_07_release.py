"""Step 7's own rules (rules.py): release's partitions, its model rule and its calls."""

from model import Expected, differs, stale
from partitions import FENCES, ROW_KINDS, owner_none
from sequences import AIM, COVERING_ROWS, REFUSED_AIMS, covering_call, one_call

PARTITIONS = {**ROW_KINDS, **FENCES, "owner None": owner_none}


def rule(model, job_id, owner, fence):
    row = model.rows.get(job_id)
    if row is None or row["done"]:
        return Expected(
            "C7.4",
            False,
            en=f"False: {job_id!r} is missing or done; nothing stored",
            ja=f"False ({job_id!r} はないか完了済み。何も保存しない)",
        )
    if differs(row, owner, fence):
        return stale("C7.3", row, owner, fence)
    row.update(owner=None, until=0.0)
    return Expected(
        "C7.1",
        True,
        en=f"True: owner NULL, until 0, fence {fence} kept",
        ja=f"True (owner NULL、until 0、fence {fence} はそのまま)",
        column_clauses={"fence": "C7.2"},
    )


CALL = one_call("release", aim=AIM)


def arguments(drawn):
    return (drawn.job, drawn.owner, drawn.fence)


COVERING = [
    *(covering_call("c", "release", aim) for aim in REFUSED_AIMS),
    *(covering_call(j, "release") for j in COVERING_ROWS),
    covering_call("e", "release", "no owner"),
    covering_call("a", "release"),
    covering_call("c", "release"),
]
