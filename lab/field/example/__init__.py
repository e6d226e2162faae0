"""A worker a practitioner can copy: it fences its side effect in a store outside the database.

fenced_store.py is the outside store (a second SQLite file) that keeps the highest fence it has
seen for each key and refuses a lower one; worker.py picks the next job, claims it, renews its
lease while it works, writes its side effect through the store, and completes. `make demo` plays
the A/B story with them.
"""
