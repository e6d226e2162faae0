"""Step 5's own rules (rules.py): renew's partitions, its model rule and its calls."""

from model import Expected, differs, stale
from partitions import FENCES, ROW_KINDS, clock, leased, owner_none, target, times, ttl_refused
from sequences import AIM, COVERING_ROWS, REFUSED_AIMS, TTL, covering_call, one_call


def _shorter_lease(args, rows):
    """A renewal of a leased row whose now + ttl (ttl accepted) lies before the stored until."""
    now, ttl = args[3], args[4]
    return leased(args, rows) and ttl > 0 and now + ttl < target(args, rows)["until"]


PARTITIONS = {
    "ttl 0 or below": ttl_refused(4),
    "now + ttl before the stored until (a shorter lease)": _shorter_lease,
    **ROW_KINDS,
    **FENCES,
    **times(3),
    **clock(3),
    "owner None": owner_none,
}


def rule(model, job_id, owner, fence, now, ttl):
    if ttl <= 0:
        return Expected(
            "C5.1",
            raises=ValueError,
            en=f"ValueError for ttl={ttl!r}, nothing stored",
            ja=f"ttl={ttl!r} なので ValueError、何も保存しない",
        )
    row = model.rows.get(job_id)
    if row is None or row["done"]:
        return Expected(
            "C5.5",
            False,
            en=f"False: {job_id!r} is missing or done; nothing stored",
            ja=f"False ({job_id!r} はないか完了済み。何も保存しない)",
        )
    if differs(row, owner, fence):
        return stale("C5.4", row, owner, fence)
    if row["until"] <= now:
        return Expected(
            "C5.3",
            False,
            en=f"False: the lease expired at until={row['until']} <= now={now}; the row unchanged",
            ja=f"False (リースは until={row['until']} <= now={now} で切れている。行は変わらない)",
        )
    row["until"] = now + ttl
    return Expected(
        "C5.2",
        True,
        en=f"True: the lease is current; until = now + ttl = {now + ttl}, the rest unchanged",
        ja=f"True (リースは有効。until = now + ttl = {now + ttl}、ほかは変わらない)",
    )


CALL = one_call("renew", aim=AIM, ttl=TTL)


def arguments(drawn):
    return (drawn.job, drawn.owner, drawn.fence, drawn.now, drawn.spec["ttl"])


COVERING = [
    *(covering_call("c", "renew", aim, ttl=5.0) for aim in (*REFUSED_AIMS, "at expiry", "expired")),
    *(covering_call(j, "renew", ttl=5.0) for j in COVERING_ROWS),
    covering_call("e", "renew", "no owner", ttl=5.0),
    covering_call("c", "renew", ttl=5.0),
    covering_call("a", "renew", ttl=5.0),
    covering_call("c", "renew", ttl=-1.0),
]
