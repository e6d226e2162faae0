"""One benchmark process: claims or completes as fast as it can, through the artifact or raw.

The floor is the least the same work can cost with sqlite3 on this machine: connect,
BEGIN IMMEDIATE, the UPDATE the reference runs, COMMIT, close. The artifact's connections are
changed only from outside, by wrapping sqlite3.connect before the artifact is imported: a
PRAGMA synchronous=NORMAL on each new connection, or one connection kept for the process (its
close() does nothing). The artifact's code is never edited.
"""

import sqlite3
import time
from contextlib import closing

from lab.field.artifact import import_file

REAL_CONNECT = sqlite3.connect
CLAIM = "UPDATE jobs SET owner=?, until=?, fence=fence+1 WHERE id=?"
COMPLETE = "UPDATE jobs SET result=?, done=1 WHERE id=? AND owner=? AND fence=? AND done=0 AND until>?"
TTL, CLAIM_AT, COMPLETE_AT = 1e9, 1.0, 2.0


class Kept:
    """A connection that outlives the call that opened it: close() keeps it open."""

    def __init__(self, conn):
        self._conn = conn

    def __getattr__(self, name):
        return getattr(self._conn, name)

    def __enter__(self):
        self._conn.__enter__()
        return self

    def __exit__(self, *exc):
        return self._conn.__exit__(*exc)

    def close(self):
        pass


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


def floor_claim(connections, db, job, owner):
    conn = connections.connect(db, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    conn.execute(CLAIM, (owner, CLAIM_AT + TTL, job))
    conn.execute("COMMIT")
    conn.close()
    return 1


def floor_complete(connections, db, job, owner, fence):
    conn = connections.connect(db, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    cursor = conn.execute(COMPLETE, ("done", job, owner, fence, COMPLETE_AT))
    conn.execute("COMMIT")
    conn.close()
    return cursor.rowcount == 1


def measure(lease, connections, task, held):
    """Run one slice of a measurement; (calls that succeeded, seconds).

    A measurement is cut into slices that alternate with the floor's, so that a slow moment of
    the disk or of the machine weighs on both alike; each slice goes on where the last stopped.
    """
    db, kind, path, prefix, capacity, owner, seconds = task
    cursor = held.setdefault((db, path, prefix), {"next": 0, "claimed": [], "completed": 0})
    start, count = time.perf_counter(), 0
    while time.perf_counter() - start < seconds:
        if kind == "claim":
            if cursor["next"] >= capacity:
                break
            job, cursor["next"] = f"{prefix}-{cursor['next']}", cursor["next"] + 1
            fence = lease.claim(db, job, owner, CLAIM_AT, TTL) if path == "artifact" else floor_claim(connections, db, job, owner)
            if fence is not None:
                cursor["claimed"].append((job, fence))
                count += 1
        else:
            if cursor["completed"] >= len(cursor["claimed"]):
                break
            (job, fence), cursor["completed"] = cursor["claimed"][cursor["completed"]], cursor["completed"] + 1
            ok = lease.complete(db, job, owner, fence, COMPLETE_AT, "done") if path == "artifact" else floor_complete(connections, db, job, owner, fence)
            count += ok is True
    return count, time.perf_counter() - start


def run(artifact, conn, barriers):
    """The process's entry point: measure each task the parent sends, after its barrier."""
    connections = Connections()
    sqlite3.connect = connections.connect  # before the import, so the artifact's connections are ours
    lease = import_file(artifact)
    held = {}
    conn.send("ready")
    while (message := conn.recv()) is not None:
        size, synchronous, kept, task = message
        connections.set(synchronous, kept)
        barriers[size].wait()
        conn.send(measure(lease, connections, task, held))
    connections.set(None, False)
    with closing(conn):
        pass
