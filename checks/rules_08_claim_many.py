"""Step 8's own rules (rules.py): claim_many's partitions, its model rule, its calls, and how its
answer, a list with one fence for any one of its owners, is compared."""

import copy

from hypothesis import strategies as st
from model import Expected
from partitions import at_defaults, now_after, now_at, now_before, ttl_refused
from sequences import AIM, OWNERS, TTL, covering_call, one_call, same

PARTITIONS = {
    "no owners": lambda args, rows: args[1] == [],
    "one owner": lambda args, rows: len(args[1]) == 1,
    "several owners": lambda args, rows: len(set(args[1])) > 1,
    "an owner named twice": lambda args, rows: len(set(args[1])) < len(args[1]),
    "ttl 0 or below": ttl_refused(3),
    "row at its defaults": at_defaults,
    "live lease": lambda args, rows: now_before(args, rows, 2),
    "expired lease": lambda args, rows: now_at(args, rows, 2) or now_after(args, rows, 2),
}


def rule(model, job_id, owners, now, ttl):
    """Expected.value is the winning fence (or None): exactly one owner gets it, the others None."""
    if not owners:
        return Expected("C8.1", None, en="[]: no owners, no claims", ja="[] (owner がいなければ claim もない)", want=[])
    single = model.claim(job_id, owners[0], now, ttl)
    if single.raises:
        return Expected(
            "C8.3",
            raises=ValueError,
            en=f"ValueError from claim (ttl={ttl!r}), passed on to the caller",
            ja=f"claim の ValueError (ttl={ttl!r}) が呼び出し側に届く",
        )
    if single.value is None:
        return Expected(
            "C8.1",
            None,
            en=f"{[None] * len(owners)}: one None per owner ({single.en})",
            ja=f"{[None] * len(owners)} (owner ごとに None。{single.ja})",
            want=[None] * len(owners),
        )
    return Expected(
        "C8.2",
        single.value,
        en=f"fence {single.value} for exactly one owner, None for the others; the stored owner is the winner",
        ja=f"ちょうど 1 人が fence {single.value} を得て、ほかは None。保存される owner は勝者",
    )


# Owners may repeat: a worker that asks twice is two claims, with two answers. Three owners
# reach every partition of claim_many (several, one named twice); each more adds a claim that
# waits on SQLite's lock (its busy handler sleeps a millisecond or more), and step 8's
# hand-written checks call it with four and with forty.
CALL = one_call("claim_many", aim=AIM, owners=st.lists(st.sampled_from(OWNERS), max_size=3), ttl=TTL)


def arguments(drawn):
    spec = drawn.spec
    ttl = 5.0 if not spec["owners"] and spec["ttl"] <= 0 else spec["ttl"]
    owners = _one_possible_winner(drawn.model, drawn.job, list(spec["owners"]), drawn.now, ttl)
    return (drawn.job, owners, drawn.now, ttl)


def _one_possible_winner(model, job, owners, now, ttl):
    """claim_many's owners as a sequence calls it. Where the job can be claimed and several claims
    race for it, the contract lets any of them win: the answers' order, the stored owner, the
    later calls that aim at the holder and the words of a counterexample would follow the race,
    so a run in parts could show another counterexample than a run in one part. There one owner
    claims, and the races are step 8's own checks (one winner and its index, a claim per owner,
    an owner named twice); where no claim can win, every owner gets None and several are called."""
    if len(owners) > 1 and ttl is not None and ttl > 0:
        if copy.deepcopy(model).claim(job, owners[0], now, ttl).value is not None:
            return owners[:1]
    return owners


def answered(sequence, got, args, expected):
    """One None per owner, or one owner's fence and None for the others; the model's row then
    holds the winner (the model's rule stores the first owner)."""
    owners = args[1]
    if not isinstance(got, list) or len(got) != len(owners):
        sequence.expect(False, got, expected, "C8.1")
    if expected.value is None:
        sequence.expect(got == [None] * len(owners), got, expected)
        return
    winners = [i for i, fence in enumerate(got) if fence is not None]
    sequence.expect(len(winners) == 1 and same(got[winners[0]], expected.value), got, expected)
    sequence.model.rows[args[0]]["owner"] = owners[winners[0]]


COVERING = [
    covering_call("c", "claim_many", owners=["A", "B"], ttl=5.0),
    covering_call("C", "claim_many", owners=[], ttl=5.0),
    covering_call("C", "claim_many", owners=["A", "A", "B"], ttl=5.0),
    covering_call("a", "claim_many", "expired", owners=["B", "b"], ttl=5.0),
    covering_call("c", "claim_many", "at expiry", owners=["zed"], ttl=5.0),
    covering_call("e", "claim_many", owners=["B"], ttl=0),
]
