"""Step 6's own rules (rules.py): complete's partitions, its model rule and its calls."""

from model import Expected, differs, stale
from partitions import FENCES, ROW_KINDS, clock, owner_none, times
from sequences import AIM, COVERING_ROWS, REFUSED_AIMS, covering_call, one_call

PARTITIONS = {**ROW_KINDS, **FENCES, **times(3), **clock(3), "owner None": owner_none}


def rule(model, job_id, owner, fence, now, result):
    row = model.rows.get(job_id)
    if row is None or row["done"]:
        return Expected(
            "C6.4",
            False,
            en=f"False: {job_id!r} is missing or already done; its result kept",
            ja=f"False ({job_id!r} はないか、すでに完了。result はそのまま)",
        )
    if differs(row, owner, fence):
        return stale("C6.3", row, owner, fence)
    if row["until"] <= now:
        return Expected(
            "C6.2",
            False,
            en=f"False: the lease expired at until={row['until']} <= now={now}; result and done unchanged",
            ja=f"False (リースは until={row['until']} <= now={now} で切れている。result と done は変わらない)",
        )
    row.update(result=result, done=1)
    return Expected(
        "C6.1",
        True,
        en=f"True: the lease is current; result={result!r}, done=1 stored",
        ja=f"True (リースは有効。result={result!r}, done=1 を保存)",
    )


CALL = one_call("complete", aim=AIM)


def arguments(drawn):
    return (drawn.job, drawn.owner, drawn.fence, drawn.now, f"r{drawn.serial}")


COVERING = [
    *(covering_call("c", "complete", aim) for aim in (*REFUSED_AIMS, "at expiry", "expired")),
    *(covering_call(j, "complete") for j in COVERING_ROWS),
    covering_call("e", "complete", "no owner"),
    covering_call("c", "complete"),
    covering_call("a", "complete"),
]
