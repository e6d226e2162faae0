import sqlite3
from contextlib import closing


def release(path, job_id, owner, fence):
    """Give the lease back early; the fence stays so old tokens stay invalid."""
    with closing(sqlite3.connect(path)) as conn, conn:
        cursor = conn.execute(
            "UPDATE jobs SET owner=NULL,until=0 WHERE id=? AND owner=? AND fence=? AND done=0",
            (job_id, owner, fence),
        )
    return cursor.rowcount == 1
