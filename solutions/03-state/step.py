import sqlite3
from contextlib import closing


def state(path, job_id):
    """Read one job's stored row as a dict, or None when there is no such job."""
    with closing(sqlite3.connect(path)) as conn:
        row = conn.execute(
            "SELECT id, owner, until, fence, result, done FROM jobs WHERE id=?", (job_id,)
        ).fetchone()
    return dict(zip(("id", "owner", "until", "fence", "result", "done"), row)) if row else None
