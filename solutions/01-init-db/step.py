import sqlite3
from contextlib import closing


def init_db(path):
    """Create the jobs table unless it is already there; keep every stored row."""
    with closing(sqlite3.connect(path)) as conn:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS jobs ("
            "id TEXT PRIMARY KEY, owner TEXT, until REAL NOT NULL DEFAULT 0, "
            "fence INTEGER NOT NULL DEFAULT 0, result TEXT, done INTEGER NOT NULL DEFAULT 0)"
        )
