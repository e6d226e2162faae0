"""What the worker keeps in the jobs database beside the artifact's table: attempts, the dead letter,
and the index that makes picking the next job cheap.

Attempts are not counted by the worker. claim increments a job's fence by one and nothing else
changes it, so the fence already counts the claims, inside claim's own transaction: a worker that
crashes right after claiming has still used an attempt. The worker keeps only `base`, the fence
at the job's last re-queue by hand: attempts used = fence - base.

A job in the dead letter keeps its row with owner NULL and until = +inf. The artifact's own claim
then refuses it (until > now), however stale a worker's list of free jobs is, and no renew,
complete or release matches a NULL owner. Moving a job there and back writes owner and until
only, and only while the row still holds the fence the caller read (the compare-and-set of a
release); the fence itself is never written here, so it keeps growing and old tokens stay refused.
"""

import sqlite3
from contextlib import closing

DEAD = float("inf")  # a dead job's until: later than any now

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS attempts (id TEXT PRIMARY KEY, base INTEGER NOT NULL DEFAULT 0, error TEXT)",
    # FREE filters on done = 0 and until <= now and orders by (until, id): one search of this
    # partial index, which holds no done job, instead of a scan of every job and a sort
    "CREATE INDEX IF NOT EXISTS jobs_free ON jobs (until, id) WHERE done = 0",
)
FREE = (
    "SELECT j.id, j.fence, j.fence - COALESCE(a.base, 0) FROM jobs j LEFT JOIN attempts a ON a.id = j.id "
    "WHERE j.done = 0 AND j.until <= ? ORDER BY j.until, j.id LIMIT ?"
)


def setup(lease, db):
    """The artifact's jobs table (its init_db), the attempts table and the index; idempotent."""
    lease.init_db(db)
    with closing(sqlite3.connect(db)) as conn, conn:
        for statement in SCHEMA:
            conn.execute(statement)


def free(db, now, limit):
    """[(job, fence, attempts used)] of up to limit jobs free at now, the longest free first."""
    with closing(sqlite3.connect(db)) as conn:
        return conn.execute(FREE, (now, limit)).fetchall()


def base(db, job):
    """The job's fence when it was last re-queued (0 if never): attempts used = fence - base."""
    with closing(sqlite3.connect(db)) as conn:
        row = conn.execute("SELECT base FROM attempts WHERE id = ?", (job,)).fetchone()
    return row[0] if row else 0


def note(db, job, error):
    """Keep the last error the job's work raised: the dead letter shows it."""
    with closing(sqlite3.connect(db)) as conn, conn:
        conn.execute(
            "INSERT INTO attempts (id, error) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET error = excluded.error",
            (job, error),
        )


def bury(db, job, fence, now, owner=None):
    """Move job to the dead letter while it still holds fence and its lease ran out at now or owner
    holds it; True when moved."""
    with closing(sqlite3.connect(db)) as conn, conn:
        moved = conn.execute(
            "UPDATE jobs SET owner = NULL, until = ? WHERE id = ? AND fence = ? AND done = 0 AND (until <= ? OR owner = ?)",
            (DEAD, job, fence, now, owner),
        )
    return moved.rowcount == 1


def dead_letters(db):
    """Every job in the dead letter: [{"id", "attempts", "fence", "error"}], by id."""
    with closing(sqlite3.connect(db)) as conn:
        rows = conn.execute(
            "SELECT j.id, j.fence - COALESCE(a.base, 0), j.fence, a.error FROM jobs j "
            "LEFT JOIN attempts a ON a.id = j.id WHERE j.done = 0 AND j.until = ? ORDER BY j.id",
            (DEAD,),
        ).fetchall()
    return [dict(zip(("id", "attempts", "fence", "error"), row)) for row in rows]


def requeue(db, job):
    """Hand a dead job out again with its attempts counted from zero; True, or False when job is
    not in the dead letter. Its fence is kept: only a claim moves it, and only upwards."""
    with closing(sqlite3.connect(db, isolation_level=None)) as conn:
        conn.execute("BEGIN IMMEDIATE")
        if conn.execute("UPDATE jobs SET until = 0 WHERE id = ? AND done = 0 AND until = ?", (job, DEAD)).rowcount:
            conn.execute(
                "INSERT INTO attempts (id, base) SELECT id, fence FROM jobs WHERE id = ? "
                "ON CONFLICT(id) DO UPDATE SET base = excluded.base, error = NULL",
                (job,),
            )
            conn.execute("COMMIT")
            return True
        conn.execute("ROLLBACK")
        return False
