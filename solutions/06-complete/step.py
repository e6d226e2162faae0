import sqlite3
from contextlib import closing


def complete(path, job_id, owner, fence, now, result):
    """Store the result only while the caller holds the current lease."""
    with closing(sqlite3.connect(path)) as conn, conn:
        cursor = conn.execute(
            "UPDATE jobs SET result=?, done=1 WHERE id=? AND owner=? AND fence=? AND done=0 AND until>?", (result, job_id, owner, fence, now)
        )
    return cursor.rowcount == 1
