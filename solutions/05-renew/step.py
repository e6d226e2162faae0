import sqlite3
from contextlib import closing


def renew(path, job_id, owner, fence, now, ttl):
    """Extend a current lease to now + ttl; anything else is refused with False."""
    if ttl <= 0:
        raise ValueError(f"ttl must be positive, got {ttl!r}")
    with closing(sqlite3.connect(path)) as conn, conn:
        cursor = conn.execute(
            "UPDATE jobs SET until=? WHERE id=? AND owner=? AND fence=? AND done=0 AND until>?", (now+ttl, job_id, owner, fence, now)
        )
    return cursor.rowcount == 1
