"""The artifact beside two SQLite queues from the package index: litequeue and persist-queue.

`make demo PEERS=1` plays the A/B story on each (a late worker's acknowledgement: accepted by
the queues, refused by the artifact); `make bench PEERS=1` measures a take-and-finish pair on
each in the same run. The queues are installed into a venv of their own (environment.py), never
the lab's; contender.py drives all three alike in that venv's python and prints JSON, which
story.py and bench.py read.
"""
