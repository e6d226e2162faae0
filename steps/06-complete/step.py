import sqlite3


def complete(path, job_id, owner, fence, now, result):
    """Store ``result`` and done = 1 only while (owner, fence) holds the current lease.

    See CONTRACT.md (C6.1-C6.4): every rejected completion returns False and keeps the stored result.
    """
    # TODO(step 6): replace this line with your implementation.
    raise NotImplementedError("step 6 is not implemented yet")
