"""After the SIGKILLs: nothing half-written, no lock left behind, every open job claimable again.

A process killed inside a transaction leaves its rollback journal behind and, until the kernel
drops them, its file locks; SQLite's next reader rolls the journal back. This module looks at
the database with plain sqlite3 (never through the code under test) once every worker is gone,
then asks the artifact to claim each unfinished job once more, after every lease has expired.
"""

import sqlite3
from contextlib import closing
from pathlib import Path

COLUMNS = ("id", "owner", "until", "fence", "result", "done")
WHOLE_DB = "-"
# The first bytes of a rollback journal that still holds a transaction to undo (SQLite's file
# format, section 4.1). A journal whose header is zeroed (journal_mode=PERSIST, or a process killed
# before it wrote its header) holds nothing to undo: SQLite ignores it, and so does this check.
HOT_JOURNAL = bytes.fromhex("d9d505f920a163d7")  # the job named by a violation that concerns the database as a whole


def inspect(db, found):
    """The rows by id, after checking integrity, locks and the journal; violations go to found."""
    with closing(sqlite3.connect(db, timeout=0, isolation_level=None)) as conn:
        integrity = conn.execute("PRAGMA integrity_check").fetchone()[0]
        if integrity != "ok":
            found.add(WHOLE_DB, "v_integrity", result=integrity, ops=[])
        try:
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("ROLLBACK")
        except sqlite3.OperationalError as error:
            found.add(WHOLE_DB, "v_locked", error=error, ops=[])
        rows = {row[0]: dict(zip(COLUMNS, row)) for row in conn.execute(f"SELECT {', '.join(COLUMNS)} FROM jobs")}
    journal = Path(f"{db}-journal")
    if holds_a_transaction(journal):
        found.add(WHOLE_DB, "v_journal", file=journal.name, ops=[])
    for job, row in sorted(rows.items()):
        if (
            row["done"] not in (0, 1)
            or (row["done"] and row["result"] is None)
            or ((row["owner"] is None) != (row["until"] == 0))
        ):
            found.add(job, "v_half_written", row=row, ops=[])
    return rows


def holds_a_transaction(journal):
    """Whether the rollback journal at `journal` still holds a transaction to undo."""
    try:
        with open(journal, "rb") as file:
            return file.read(len(HOT_JOURNAL)) == HOT_JOURNAL
    except FileNotFoundError:
        return False


def claim_again(db, lease, rows, now, ttl, found):
    """Claim every unfinished job once all leases have run out: each must get its next fence.
    A claim that raises is a fault of the store; a row of the wrong type is one already."""
    numbers = [row["until"] for row in rows.values() if isinstance(row["until"], int | float)]
    later = max([now, *numbers]) + ttl
    claimed = 0
    for job, row in sorted(rows.items()):
        if row["done"] or not isinstance(row["fence"], int):
            continue
        try:
            fence = lease.claim(db, job, "verifier", later, ttl)
        except Exception as error:  # noqa: BLE001 - the store's fault, reported as such
            found.fault(job, "f_raised", function="claim", error=f"{type(error).__name__}: {error}")
            continue
        if fence != row["fence"] + 1:
            found.add(job, "v_not_claimable", fence=fence, expected=row["fence"] + 1, ops=[])
        claimed += 1
    return claimed
