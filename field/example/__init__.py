"""A worker a practitioner can copy: it fences its side effect in a store outside the database.

Copied out of the lab, the folder runs with the standard library alone (`python3 FOLDER --help`,
__main__.py) beside the artifact as lease.py. worker.py picks the next job, claims it, renews its
lease while it works, writes its side effect through the store, and completes, within a limit of
attempts; jobs_db.py keeps the attempts, the dead letter and the index for picking; fenced_store.py
is the outside store (a second SQLite file) that keeps the highest fence it has seen for each key
and refuses a lower one; work.py is the job's own work, to replace. `make demo` plays the A/B
story with the store.
"""
