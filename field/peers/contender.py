"""The artifact and three SQLite queues from the package index, driven alike: run in the peers' venv.

This file imports nothing of the lab: `make bench PEERS=1` and `make demo PEERS=1` run it with
the python of .lab/peers-venv (environment.py), where litequeue, persist-queue and huey are
installed, and it loads the artifact from its module file. The lab reads what it prints (JSON).

    python contender.py story FOLDER ARTIFACT   # the A/B story on each contender, in both orders:
                                                # one JSON line
    python contender.py bench FOLDER ARTIFACT   # each variant's settings as one JSON line; then for
                                                # each line on stdin {"name", "seconds"}, one slice:
                                                # {"pairs", "seconds", "opened"}; at the end of
                                                # stdin, the settings read back again

What differs, and stays visible: the queues take *the next* message and acknowledge it by its id
(huey stores the task's result under its id); the artifact claims *a named job* and completes it
with the owner and the fence the claim gave. Each contender runs twice in the bench: as it ships,
with its own SQLite settings, and like for like (SAME: WAL, synchronous=FULL, one connection per
worker kept open), set from outside where the library has no parameter for it. Every setting is
read back from the connection the contender works through, and every connection opened is
counted (sqlite3.connect is wrapped for the whole process), never assumed.
"""

import json
import os
import sqlite3
import sys
import time
from collections import Counter
from pathlib import Path

from drivers import CONTENDERS, ORDERS  # beside this file: python puts the script's folder on sys.path

POOL = 200  # messages or jobs ready before a slice at least (twice what the last slice took); filled outside the timing
REAL_CONNECT = sqlite3.connect
OPENED = Counter()  # real connections opened, per database file, by any library in this process


def _counted_connect(database, *arguments, **keywords):
    OPENED[os.path.realpath(database) if isinstance(database, str | os.PathLike) else database] += 1
    return REAL_CONNECT(database, *arguments, **keywords)


def story(contender, order):
    """A takes, stalls past the ttl; B takes the same one; A's stale write and B's, in the order given.

    late_last: B finishes, then A finishes late (the order every queue's documentation pictures);
    late_first: A, back before B is done, writes first, then B. A handle is {"id": the job or
    message, "owner": the worker, and the artifact's "fence"}.
    """
    contender.fill(1)
    a = contender.take("A")
    contender.expire(a)
    b = contender.take("B")
    if order == "late_last":
        finished_b = contender.finish(b)
    before = contender.row(a)
    late = contender.finish(a)
    after = contender.row(a)
    if order == "late_first":
        finished_b = contender.finish(b)
    end = contender.row(b)
    return {
        "name": contender.name,
        "version": contender.version(),
        "order": order,
        "same_taken_twice": a["id"] == b["id"],
        "a": a,
        "b": b,
        "finished_b": repr(finished_b),
        "late": repr(late),
        "late_accepted": contender.accepted(late, before, after),
        "before": before,
        "after": after,
        "end": end,
        "stored": contender.stored(end),
    }


def read_back(contenders):
    """Each variant's settings, read from the connection it works through, and its database files."""
    return {
        key: contender.connection()
        | {"name": contender.name, "version": contender.version(), "files": contender.files()}
        for key, contender in contenders.items()
    }


def bench(contenders):
    """Answer each slice the lab asks for; the filling is outside the timing."""
    ready, wanted = dict.fromkeys(contenders, 0), dict.fromkeys(contenders, POOL)
    print(json.dumps(read_back(contenders)), flush=True)
    for line in sys.stdin:
        asked = json.loads(line)
        name = asked["name"]
        contender = contenders[name]
        if ready[name] < wanted[name]:
            contender.fill(wanted[name] - ready[name])
            ready[name] = wanted[name]
        files = [os.path.realpath(file) for file in contender.files()]
        opened = sum(OPENED[file] for file in files)
        pairs, start = 0, time.perf_counter()
        while pairs < ready[name] and (
            pairs < 1 or time.perf_counter() - start < asked["seconds"]
        ):  # an empty pool ends a slice early
            contender.pair()
            pairs += 1
        seconds = time.perf_counter() - start
        ready[name] -= pairs
        wanted[name] = max(POOL, 2 * pairs)
        opened = sum(OPENED[file] for file in files) - opened
        print(json.dumps({"pairs": pairs, "seconds": seconds, "opened": opened}), flush=True)
    print(json.dumps(read_back(contenders)), flush=True)  # the settings still in force after every slice


def main(verb, folder, artifact):
    sqlite3.connect = _counted_connect  # before any library opens a connection: every one is counted
    if verb == "story":
        stories = []
        for order in ORDERS:
            for kind in CONTENDERS:
                place = Path(folder) / f"story-{order}-{kind.name}"
                place.mkdir(parents=True, exist_ok=True)
                stories.append(story(kind(place, artifact), order))
        print(json.dumps(stories))
        return
    made = {}
    for same in (True, False):
        for kind in CONTENDERS:
            key = f"{kind.name}@{'same' if same else 'own'}"
            place = Path(folder) / f"bench-{key}"
            place.mkdir(parents=True, exist_ok=True)
            made[key] = kind(place, artifact, same)
    bench(made)


if __name__ == "__main__":
    main(*sys.argv[1:4])
