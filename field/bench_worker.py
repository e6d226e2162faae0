"""One benchmark process: claims or completes for one short slice, through the artifact or raw.

The floor is the work the contract demands, written with plain sqlite3 and nothing else:
- a claim: connect, BEGIN IMMEDIATE, SELECT until, done, fence of the job, the check (there, not
  done, until <= now), UPDATE owner, until and fence = the fence read + 1, COMMIT, close;
- a completion: connect, one UPDATE of result and done WHERE id, owner, fence, done=0 and
  until > now (in the transaction sqlite3 opens for it), COMMIT, close.
Those are the statements the reference runs, so floor/artifact is what the artifact's Python
costs on top of them: the function call, the ttl check, the `with` blocks.

The artifact's connections are changed only from outside, by wrapping sqlite3.connect before the
artifact is imported: a PRAGMA synchronous on each new connection, or one connection kept for
the process (its close() does nothing). The artifact's code is never edited.

Each process has a pool of POOL jobs of its own in each database. A claim slice walks through
the pool with a `now` that moves on by LAP at every pass, so a job claimed on the last pass has
expired on this one; a completion slice needs a current lease on each job, so before it the
process arms the pool (owner, fence 1, a lease that never ends, not done): outside the timing.
"""

import sqlite3
import time
from contextlib import closing

from field.artifact import import_file
from field.peers.drivers import Kept  # a connection that outlives the call that opened it

REAL_CONNECT = sqlite3.connect
POOL = 4000  # jobs per process in each database
MIN_CALLS = 1  # per slice and process: a slice on a starved machine still measures something
LAP, TTL, COMPLETE_AT, NEVER = 10.0, 5.0, 2.0, 1e18
SELECT = "SELECT until, done, fence FROM jobs WHERE id=?"
CLAIM = "UPDATE jobs SET owner=?, until=?, fence=? WHERE id=?"
COMPLETE = "UPDATE jobs SET result=?, done=1 WHERE id=? AND owner=? AND fence=? AND done=0 AND until>?"


def job_id(process, number):
    return f"p{process}-{number:05d}"


class Connections:
    """sqlite3.connect as the current setting wants it, for the artifact and the floor alike."""

    def __init__(self):
        self.synchronous, self.kept, self.cache = None, False, {}

    def set(self, synchronous, kept):
        for conn in self.cache.values():
            conn._conn.close()
        self.synchronous, self.kept, self.cache = synchronous, kept, {}

    def connect(self, *arguments, **keywords):
        key = (arguments, tuple(sorted(keywords.items())))
        if self.kept and key in self.cache:
            return self.cache[key]
        conn = REAL_CONNECT(*arguments, **keywords)
        if self.synchronous:
            conn.execute(f"PRAGMA synchronous={self.synchronous}")
        if self.kept:
            conn = self.cache[key] = Kept(conn)
        return conn


def floor_claim(connections, db, job, owner, now, ttl):
    conn = connections.connect(db, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        row = conn.execute(SELECT, (job,)).fetchone()
        if row is None or row[1] or row[0] > now:
            conn.execute("ROLLBACK")
            return None
        conn.execute(CLAIM, (owner, now + ttl, row[2] + 1, job))
        conn.execute("COMMIT")
        return row[2] + 1
    finally:
        conn.close()


def floor_complete(connections, db, job, owner, fence, now, result):
    conn = connections.connect(db)
    try:
        with conn:
            cursor = conn.execute(COMPLETE, (result, job, owner, fence, now))
        return cursor.rowcount == 1
    finally:
        conn.close()


class Pool:
    """Where this process is in its jobs of one database: the next job, the pass through them."""

    def __init__(self, db, kind):
        self.db, self.kind, self.next, self.lap = db, kind, 0, 1


def _update_pool(db, process, sets, values):
    with closing(REAL_CONNECT(db, timeout=60)) as conn, conn:
        conn.execute(
            f"UPDATE jobs SET {sets} WHERE id BETWEEN ? AND ?", (*values, job_id(process, 0), job_id(process, POOL - 1))
        )


def prepare(db, kind, process, pool):
    """Before a slice, untimed: the pool as the slice needs it; the pool to use.

    At the first slice of a measurement the jobs are set back: open and unleased for claims, or
    leased to this process with fence 1 for completions (re-armed whenever half of them are done).
    """
    if pool is None or (pool.db, pool.kind) != (db, kind):
        pool = Pool(db, kind)
        if kind == "claim":
            _update_pool(db, process, "owner=NULL, until=0, done=0, result=NULL", ())
    if kind == "complete" and (pool.next == 0 or pool.next > POOL // 2):
        _update_pool(db, process, "owner=?, until=?, fence=1, done=0, result=NULL", (f"p{process}", NEVER))
        pool.next = 0
    return pool


def measure(lease, connections, db, kind, path, process, pool, seconds):
    """Run one slice: (calls that succeeded, seconds). It ends at the end of a call, so the rate
    is exact for the calls it made."""
    owner = f"p{process}"
    start, count, calls = time.perf_counter(), 0, 0
    while calls < MIN_CALLS or time.perf_counter() - start < seconds:
        calls += 1
        if kind == "claim":
            if pool.next >= POOL:
                pool.next, pool.lap = 0, pool.lap + 1
            now = pool.lap * LAP
            job = job_id(process, pool.next)
            pool.next += 1
            if path == "artifact":
                fence = lease.claim(db, job, owner, now, TTL)
            else:
                fence = floor_claim(connections, db, job, owner, now, TTL)
            count += fence is not None
        else:
            if pool.next >= POOL:
                break  # prepare() arms the pool before it runs out; this only bounds a slow slice
            job = job_id(process, pool.next)
            pool.next += 1
            if path == "artifact":
                ok = lease.complete(db, job, owner, 1, COMPLETE_AT, "done")
            else:
                ok = floor_complete(connections, db, job, owner, 1, COMPLETE_AT, "done")
            count += ok is True
    return count, time.perf_counter() - start


def run(artifact, conn, barriers, process):
    """The process's entry point: measure each slice the parent sends, after its barrier."""
    connections = Connections()
    sqlite3.connect = connections.connect  # before the import, so the artifact's connections are ours
    lease = import_file(artifact)
    pool = None
    conn.send("ready")
    while (message := conn.recv()) is not None:
        size, synchronous, kept, (db, kind, path, seconds) = message
        pool = prepare(db, kind, process, pool)
        connections.set(synchronous, kept)
        barriers[size].wait()
        conn.send(measure(lease, connections, db, kind, path, process, pool, seconds))
    connections.set(None, False)
    with closing(conn):
        pass
