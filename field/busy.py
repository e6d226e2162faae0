"""The lease tool's patience with another process's write lock: --busy-timeout, and telling it apart.

The artifact opens its own connections (sqlite3.connect(path), whose timeout is 5 s unless the code
says otherwise). waiting_at_most() gives every connection opened during one call the tool's
timeout, from outside, as the benchmark sets its PRAGMAs: the artifact's code is not edited. A
call that still finds the lock taken raises SQLITE_BUSY, which is_busy() recognises by its code,
not by the words of the message.
"""

import sqlite3
from contextlib import contextmanager

DEFAULT_SECONDS = 5.0  # sqlite3.connect's own


@contextmanager
def waiting_at_most(seconds):
    """Every sqlite3.connect() in the block waits at most seconds for a lock (a code's own timeout too)."""
    real = sqlite3.connect

    def connect(database, *arguments, **options):
        if arguments:  # the timeout is the second argument by position
            return real(database, seconds, *arguments[1:], **options)
        return real(database, **(options | {"timeout": seconds}))

    sqlite3.connect = connect
    try:
        yield
    finally:
        sqlite3.connect = real


def is_busy(error):
    """The database's lock was held by another connection for longer than the timeout."""
    return (
        isinstance(error, sqlite3.OperationalError)
        and (getattr(error, "sqlite_errorcode", 0) & 0xFF) == sqlite3.SQLITE_BUSY
    )
