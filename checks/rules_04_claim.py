"""Step 4's own rules (rules.py): claim's partitions, its model rule and its calls."""

from model import Expected
from partitions import ROW_KINDS, clock, times, ttl_refused
from sequences import AIM, COVERING_ROWS, TTL, covering_call, one_call

PARTITIONS = {
    "ttl 0 or below": ttl_refused(3),
    **ROW_KINDS,
    **times(2),
    **clock(2),
}


def rule(model, job_id, owner, now, ttl):
    if ttl <= 0:
        return Expected(
            "C4.1",
            raises=ValueError,
            en=f"ValueError for ttl={ttl!r}, nothing stored",
            ja=f"ttl={ttl!r} なので ValueError、何も保存しない",
        )
    row = model.rows.get(job_id)
    if row is None:
        return Expected(
            "C4.2",
            None,
            en=f"None: there is no job {job_id!r}, and no row is created",
            ja=f"None (ジョブ {job_id!r} はなく、行も作らない)",
        )
    if row["done"]:
        return Expected(
            "C4.3",
            None,
            en=f"None: {job_id!r} is done, its row unchanged",
            ja=f"None ({job_id!r} は完了済み。行は変わらない)",
        )
    if row["until"] > now:
        return Expected(
            "C4.4",
            None,
            en=f"None: the lease of {job_id!r} runs until {row['until']} > now={now}, the row unchanged",
            ja=f"None ({job_id!r} のリースは until={row['until']} > now={now} で有効。行は変わらない)",
        )
    fence, expired = row["fence"] + 1, row["until"]
    row.update(owner=owner, until=now + ttl, fence=fence)
    return Expected(
        "C4.5",
        fence,
        en=f"{fence}: the lease expired (until={expired} <= now={now}), so {owner!r} wins fence {fence}, until={now + ttl}",
        ja=f"{fence} (until={expired} <= now={now} でリースは切れているので、{owner!r} が fence {fence} を得る。until={now + ttl})",
    )


CALL = one_call("claim", aim=AIM, ttl=TTL)


def arguments(drawn):
    return (drawn.job, drawn.owner, drawn.now, drawn.spec["ttl"])


COVERING = [
    covering_call("c", "claim", ttl=5.0),
    *(covering_call(j, "claim", ttl=5.0) for j in COVERING_ROWS),
    covering_call("a", "claim", "expired", ttl=5.0),
    covering_call("f", "claim", "expired", ttl=5.0),
    covering_call("c", "claim", "at expiry", ttl=5.0),
    covering_call("c", "claim", ttl=0),
]
