import sqlite3


def claim(path, job_id, owner, now, ttl):
    """Take the lease of an expired, unfinished job; return the new fence, otherwise None.

    See CONTRACT.md (C4.1-C4.6): ttl <= 0 raises ValueError; read and update inside one
    BEGIN IMMEDIATE transaction.
    """
    # TODO(step 4): replace this line with your implementation.
    raise NotImplementedError("step 4 is not implemented yet")
