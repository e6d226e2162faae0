"""Why the lease tool's call was refused, read from the job's row after it: one reason, not three.

The row is read with plain sqlite3, as the checks observe state, so that the reason does not rest
on the code under test. The first condition the contract names that the row breaks is the reason
(no such job; done; leased to someone until after now; another owner; another fence; run out);
when the row breaks none, the refusal is the implementation's own, and the words say so. Another
process may write between the call and this read: the row shown is the one read.
"""

import sqlite3
from contextlib import closing
from pathlib import Path

from field.numbers import clock_value
from lab.text.messages import words_of

COLUMNS = ("owner", "until", "fence", "done", "result")


def read_row(db, job):
    with closing(sqlite3.connect(f"{Path(db).resolve().as_uri()}?mode=ro", uri=True)) as conn:
        row = conn.execute(f"SELECT {', '.join(COLUMNS)} FROM jobs WHERE id=?", (job,)).fetchone()
    return dict(zip(COLUMNS, row)) if row else None


def reason(db, function, asked, lang="en"):
    """The reason in words, for function (claim, renew, ...) called with asked (job_id, owner, fence, now)."""
    words = words_of("field", lang)
    row = read_row(db, asked["job_id"])
    key, values = _why(function, asked, row)
    shown = {f"row_{k}": clock_value(v) if k == "until" else v for k, v in (row or {}).items()}
    return words(key, job=asked["job_id"], **values, **shown)


def _why(function, asked, row):
    if row is None:
        return "why_no_job", {}
    if function == "enqueue":
        return "why_exists", {}
    if row["done"]:
        return "why_done", {}
    if function in ("claim", "claim_many"):
        return ("why_leased", {"now": clock_value(asked["now"])}) if row["until"] > asked["now"] else ("why_none", {})
    if row["owner"] is None:
        return ("why_released" if row["fence"] else "why_unclaimed"), {}
    if row["owner"] != asked["owner"]:
        return "why_other_owner", {"owner": asked["owner"]}
    if row["fence"] != asked["fence"]:
        return ("why_older_fence" if asked["fence"] < row["fence"] else "why_unknown_fence"), {"fence": asked["fence"]}
    if function != "release" and row["until"] <= asked["now"]:
        return "why_expired", {"now": clock_value(asked["now"])}
    return "why_none", {}
