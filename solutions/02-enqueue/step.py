import sqlite3
from contextlib import closing


def enqueue(path, job_id):
    """Register a new job with the default state; never touch a job that exists."""
    with closing(sqlite3.connect(path)) as conn, conn:
        cursor = conn.execute("INSERT OR IGNORE INTO jobs (id) VALUES (?)", (job_id,))
    return cursor.rowcount == 1
