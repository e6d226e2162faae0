import sqlite3
from contextlib import closing


def claim(path, job_id, owner, now, ttl):
    """Take the job's lease when it has expired; return the new fence, or None."""
    if ttl <= 0:
        raise ValueError(f"ttl must be positive, got {ttl!r}")
    with closing(sqlite3.connect(path, isolation_level=None)) as conn:
        conn.execute("BEGIN IMMEDIATE")
        row = conn.execute("SELECT until, done, fence FROM jobs WHERE id=?", (job_id,)).fetchone()
        if row is None or row[1] or row[0] > now:
            conn.execute("ROLLBACK")
            return None
        fence = row[2] + 1
        conn.execute(
            "UPDATE jobs SET owner=?, until=?, fence=? WHERE id=?", (owner, now + ttl, fence, job_id)
        )
        conn.execute("COMMIT")
    return fence
