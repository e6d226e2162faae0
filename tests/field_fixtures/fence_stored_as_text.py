"""A broken artifact for the stress test: the fence column is TEXT.

The fence reads back as the string '0', and claim's `row[2] + 1` raises TypeError: not a
broken promise but a store that fails, which stress reports as a fault of the store, not as a
violation. Everything else is the reference.
"""

import sqlite3
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing


def init_db(path):
    """Create the jobs table unless it is already there; keep every stored row."""
    with closing(sqlite3.connect(path)) as conn:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS jobs ("
            "id TEXT PRIMARY KEY, owner TEXT, until REAL NOT NULL DEFAULT 0, "
            "fence TEXT NOT NULL DEFAULT 0, result TEXT, done INTEGER NOT NULL DEFAULT 0)"
        )


def enqueue(path, job_id):
    """Register a new job with the default state; never touch a job that exists."""
    with closing(sqlite3.connect(path)) as conn, conn:
        cursor = conn.execute("INSERT OR IGNORE INTO jobs (id) VALUES (?)", (job_id,))
    return cursor.rowcount == 1


def state(path, job_id):
    """Read one job's stored row as a dict, or None when there is no such job."""
    with closing(sqlite3.connect(path)) as conn:
        row = conn.execute("SELECT id, owner, until, fence, result, done FROM jobs WHERE id=?", (job_id,)).fetchone()
    return dict(zip(("id", "owner", "until", "fence", "result", "done"), row)) if row else None


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
        conn.execute("UPDATE jobs SET owner=?, until=?, fence=? WHERE id=?", (owner, now + ttl, fence, job_id))
        conn.execute("COMMIT")
    return fence


def renew(path, job_id, owner, fence, now, ttl):
    """Extend a current lease to now + ttl; anything else is refused with False."""
    if ttl <= 0:
        raise ValueError(f"ttl must be positive, got {ttl!r}")
    with closing(sqlite3.connect(path)) as conn, conn:
        cursor = conn.execute(
            "UPDATE jobs SET until=? WHERE id=? AND owner=? AND fence=? AND done=0 AND until>?",
            (now + ttl, job_id, owner, fence, now),
        )
    return cursor.rowcount == 1


def complete(path, job_id, owner, fence, now, result):
    """Store the result only while the caller holds the current lease."""
    with closing(sqlite3.connect(path)) as conn, conn:
        cursor = conn.execute(
            "UPDATE jobs SET result=?, done=1 WHERE id=? AND owner=? AND fence=? AND done=0 AND until>?",
            (result, job_id, owner, fence, now),
        )
    return cursor.rowcount == 1


def release(path, job_id, owner, fence):
    """Give the lease back early; the fence stays so old tokens stay invalid."""
    with closing(sqlite3.connect(path)) as conn, conn:
        cursor = conn.execute(
            "UPDATE jobs SET owner=NULL,until=0 WHERE id=? AND owner=? AND fence=? AND done=0",
            (job_id, owner, fence),
        )
    return cursor.rowcount == 1


def claim_many(path, job_id, owners, now, ttl):
    """Let every owner claim the job at the same time; results in input order."""
    with ThreadPoolExecutor(max_workers=len(owners) or 1) as pool:
        return list(pool.map(lambda owner: claim(path, job_id, owner, now, ttl), owners))
