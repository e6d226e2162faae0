"""A store outside the jobs database that checks the fence itself.

The jobs table refuses a stale completion, but the work a stale worker does elsewhere (an e-mail,
a file, a payment) is not in that table. Here the receiver of the side effect keeps, for each
key, the highest fence it has seen, and refuses a write that carries a lower one: a worker that
stalled and lost its lease is refused here too, even if it never asks the jobs table again. The
same fence may write again (a retry of the same generation is not stale).

It is a second SQLite file, decided in one BEGIN IMMEDIATE transaction like the artifact's
writes; a file store, a key-value store or a service can keep the same rule with its own
compare-and-set.
"""

import sqlite3
from contextlib import closing

SCHEMA = "CREATE TABLE IF NOT EXISTS effects (key TEXT PRIMARY KEY, fence INTEGER NOT NULL, value TEXT, writer TEXT)"


def create(path):
    with closing(sqlite3.connect(path)) as conn:
        conn.execute(SCHEMA)


def write(path, key, fence, value, writer=None):
    """Store value under key when fence is at least the highest seen for key; True, else False."""
    with closing(sqlite3.connect(path, isolation_level=None)) as conn:
        conn.execute("BEGIN IMMEDIATE")
        row = conn.execute("SELECT fence FROM effects WHERE key=?", (key,)).fetchone()
        if row is not None and fence < row[0]:
            conn.execute("ROLLBACK")
            return False
        conn.execute(
            "INSERT INTO effects (key, fence, value, writer) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(key) DO UPDATE SET fence=excluded.fence, value=excluded.value, writer=excluded.writer",
            (key, fence, value, writer),
        )
        conn.execute("COMMIT")
    return True


def read(path, key):
    """What the store holds for key: {"fence", "value", "writer"}, or None."""
    with closing(sqlite3.connect(path)) as conn:
        row = conn.execute("SELECT fence, value, writer FROM effects WHERE key=?", (key,)).fetchone()
    return dict(zip(("fence", "value", "writer"), row)) if row else None
