"""The artifact beside three SQLite queues from the package index: litequeue, persist-queue, huey.

`make demo PEERS=1` plays the A/B story on each, in both orders of the two writes (a late worker's
stale write: accepted by the queues, refused by the artifact); `make bench PEERS=1` measures a
take-and-finish pair on each in the same run, like for like and as each ships. The queues are
installed into a venv of their own (environment.py), never the lab's; contender.py drives all four
alike (drivers.py, one class each) in that venv's python and prints JSON, which story.py and
bench.py read.
"""
