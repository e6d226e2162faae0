"""Step 2's own rules (rules.py): enqueue's partitions, its model rule and its calls."""

from model import COLUMNS, DEFAULTS, Expected
from partitions import at_defaults, done, leased, missing_between
from sequences import covering_call, one_call

PARTITIONS = {
    "new id, stored ids on either side": missing_between,
    "id stored at its defaults": at_defaults,
    "id stored and leased": leased,
    "id stored and done": done,
}


def rule(model, job_id):
    if job_id in model.rows:
        return Expected(
            "C2.2",
            False,
            en=f"False: {job_id!r} is already in the table, and its row stays exactly as it was",
            ja=f"False ({job_id!r} はすでにテーブルにあり、行はそのまま)",
            column_clauses=dict.fromkeys(COLUMNS, "C2.3"),
        )
    model.rows[job_id] = {"id": job_id, **DEFAULTS}
    return Expected(
        "C2.1",
        True,
        en=f"True, and a new row {job_id!r} with the default state",
        ja=f"True (既定の状態の新しい行 {job_id!r})",
    )


CALL = one_call("enqueue")


def arguments(drawn):
    return (drawn.job,)


COVERING = [covering_call(j, "enqueue") for j in ("C", "c", "f", "b")]
