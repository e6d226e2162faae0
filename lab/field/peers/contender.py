"""The artifact and two SQLite queues from the package index, driven alike: run in the peers' venv.

This file imports nothing of the lab: `make bench PEERS=1` and `make demo PEERS=1` run it with
the python of .lab/peers-venv (environment.py), where litequeue and persist-queue are installed,
and it loads the artifact from its module file. The lab reads what it prints (JSON).

    python contender.py story FOLDER ARTIFACT   # the A/B story on each contender: one JSON line
    python contender.py bench FOLDER ARTIFACT   # each one's settings as one JSON line; then for each
                                                # line on stdin {"name", "seconds"}, one slice:
                                                # {"pairs", "seconds"}, take-and-finish pairs

What differs, and stays visible: the queues pop *the next* message and acknowledge it by its id;
the artifact claims *a named job* and completes it with the owner and the fence the claim gave.
Each is used as its documentation shows, with its own SQLite settings (read back, not assumed).
"""

import importlib.util
import json
import sqlite3
import sys
import time
from contextlib import closing
from importlib import metadata
from pathlib import Path

TTL = 0.2  # seconds: the lease, or the visibility timeout after which a taken message is handed out again
POOL = 200  # messages or jobs ready before a slice at least (twice what the last slice took); filled outside the timing


def settings(conn):
    """The journal mode and synchronous setting a connection really has."""
    journal = conn.execute("PRAGMA journal_mode").fetchone()[0]
    synchronous = {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}[conn.execute("PRAGMA synchronous").fetchone()[0]]
    return {"journal": journal, "synchronous": synchronous}


class Artifact:
    """The artifact's functions: claim a named job with an owner; complete with owner and fence."""

    name = "artifact"

    def __init__(self, folder, artifact):
        spec = importlib.util.spec_from_file_location("artifact", artifact)
        self.lease = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(self.lease)
        self.db = str(Path(folder) / "artifact.db")
        self.lease.init_db(self.db)
        self.now, self.next_job, self.filled = 0.0, 0, 0

    def version(self):
        """What runs: for a queue its package's version, here the artifact's module file."""
        return Path(self.lease.__file__).name

    def fill(self, count):
        """Named jobs, inserted with plain sqlite3 in one transaction: the filling is not measured."""
        ids = [(f"job-{number}",) for number in range(self.filled, self.filled + count)]
        with closing(sqlite3.connect(self.db)) as conn, conn:
            conn.executemany("INSERT INTO jobs (id) VALUES (?)", ids)
        self.filled += count

    def take(self, worker):
        job = f"job-{self.next_job}"
        return {"id": job, "owner": worker, "fence": self.lease.claim(self.db, job, worker, self.now, TTL)}

    def finish(self, handle):
        return self.lease.complete(
            self.db, handle["id"], handle["owner"], handle["fence"], self.now, f"{handle['owner']}'s result"
        )

    def expire(self):
        self.now += TTL * 1.2  # the caller's clock: the lease runs out when now passes until

    def accepted(self, returned, before, after):
        return returned is True

    def row(self, handle):
        """The job's row read with plain sqlite3, not through the code under test."""
        with closing(sqlite3.connect(self.db)) as conn:
            row = conn.execute("SELECT owner, fence, done, result FROM jobs WHERE id=?", (handle["id"],)).fetchone()
        return dict(zip(("owner", "fence", "done", "result"), row))

    def pair(self):
        handle = self.take("w")
        self.finish(handle)
        self.next_job += 1
        self.now += 1e-6

    def connection(self):
        with closing(sqlite3.connect(self.db)) as conn:  # the artifact opens a connection per call like this
            return settings(conn)


class LiteQueue:
    """litequeue: pop() locks the next message; done(message_id) acknowledges it.

    Its visibility timeout is the documented reaper: list_locked(threshold) and retry(message_id)
    put a message locked for longer than the threshold back in the queue.
    """

    name = "litequeue"

    def __init__(self, folder, artifact):
        import litequeue

        self.module = litequeue
        self.db = str(Path(folder) / "litequeue.db")
        self.workers = {}

    def version(self):
        return metadata.version(self.name)

    def queue(self, worker):
        if worker not in self.workers:  # one queue object (one connection) per worker, as in its own process
            self.workers[worker] = self.module.LiteQueue(self.db)
        return self.workers[worker]

    def fill(self, count):
        queue = self.queue("producer")
        for number in range(count):
            queue.put(f"message-{number}")

    def take(self, worker):
        message = self.queue(worker).pop()
        return {"id": message.message_id, "owner": worker}

    def finish(self, handle):
        return self.queue(handle["owner"]).done(handle["id"])

    def expire(self):
        time.sleep(TTL * 1.2)
        reaper = self.queue("reaper")
        for message in list(reaper.list_locked(threshold_seconds=TTL)):  # read whole before writing on its connection
            reaper.retry(message.message_id)

    def accepted(self, returned, before, after):
        """done() answers nothing a caller can test; what it did is read back from the row."""
        return after["done_time"] != before["done_time"]

    def row(self, handle):
        message = self.queue("reader").get(handle["id"])
        return {"status": str(self.module.MessageStatus(message.status).name), "done_time": message.done_time}

    def pair(self):
        queue = self.queue("w")
        queue.done(queue.pop().message_id)

    def connection(self):
        return settings(self.queue("w").conn)


class PersistQueue:
    """persist-queue's SQLiteAckQueue: get() hands out the next item; ack(id=) acknowledges it.

    It has no timer: an item taken and not acknowledged goes back to the queue when a queue object
    opens the database (auto_resume, its default): what a restarted or replacing worker does.
    """

    name = "persist-queue"

    def __init__(self, folder, artifact):
        import persistqueue

        self.module = persistqueue
        self.path = str(Path(folder) / "persist-queue")
        self.workers = {}

    def version(self):
        return metadata.version(self.name)

    def queue(self, worker):
        if worker not in self.workers:
            self.workers[worker] = self.module.SQLiteAckQueue(self.path)
        return self.workers[worker]

    def fill(self, count):
        queue = self.queue("producer")
        for number in range(count):
            queue.put(f"message-{number}")

    def take(self, worker):
        item = self.queue(worker).get(block=False, raw=True)
        return {"id": item["pqid"], "owner": worker}

    def finish(self, handle):
        return self.queue(handle["owner"]).ack(id=handle["id"])

    def expire(self):
        time.sleep(TTL * 1.2)  # nothing expires by itself; the next queue object to open resumes it

    def accepted(self, returned, before, after):
        return returned == after["id"]  # ack returns the id it marked, None when it found nothing

    def row(self, handle):
        """The item as queue() lists it, read by a queue object that resumes nothing."""
        reader = self.module.SQLiteAckQueue(self.path, auto_resume=False)
        status = next(item["status"] for item in reader.queue() if item["id"] == handle["id"])
        reader.close()
        names = {
            int(value): name
            for name, value in vars(self.module.sqlackqueue.AckStatus).items()
            if not name.startswith("_")
        }
        return {"id": handle["id"], "status": names[int(status)]}

    def pair(self):
        queue = self.queue("w")
        queue.ack(id=queue.get(block=False, raw=True)["pqid"])

    def connection(self):
        return settings(self.queue("w")._getter)  # its one connection; the queue has no public name for it


CONTENDERS = (Artifact, LiteQueue, PersistQueue)


def story(contender):
    """A takes, stalls past the ttl; B takes the same one and finishes; A finishes late.

    A handle is {"id": the job or message, "owner": the worker, and the artifact's "fence"}.
    """
    contender.fill(1)
    a = contender.take("A")
    contender.expire()
    b = contender.take("B")
    finished_b = contender.finish(b)
    before = contender.row(b)
    late = contender.finish(a)
    after = contender.row(a)
    return {
        "name": contender.name,
        "version": contender.version(),
        "same_taken_twice": a["id"] == b["id"],
        "a": a,
        "b": b,
        "finished_b": repr(finished_b),
        "late": repr(late),
        "late_accepted": contender.accepted(late, before, after),
        "before": before,
        "after": after,
    }


def bench(contenders):
    """Answer each slice the lab asks for; the filling is outside the timing."""
    ready, wanted = dict.fromkeys(contenders, 0), dict.fromkeys(contenders, POOL)
    print(
        json.dumps(
            {name: contender.connection() | {"version": contender.version()} for name, contender in contenders.items()}
        ),
        flush=True,
    )
    for line in sys.stdin:
        asked = json.loads(line)
        name = asked["name"]
        contender = contenders[name]
        if ready[name] < wanted[name]:
            contender.fill(wanted[name] - ready[name])
            ready[name] = wanted[name]
        pairs, start = 0, time.perf_counter()
        while pairs < ready[name] and (
            pairs < 1 or time.perf_counter() - start < asked["seconds"]
        ):  # an empty pool ends a slice early
            contender.pair()
            pairs += 1
        ready[name] -= pairs
        wanted[name] = max(POOL, 2 * pairs)
        print(json.dumps({"pairs": pairs, "seconds": time.perf_counter() - start}), flush=True)


def main(verb, folder, artifact):
    made = {}
    for kind in CONTENDERS:
        place = Path(folder) / f"{verb}-{kind.name}"
        place.mkdir(parents=True, exist_ok=True)
        made[kind.name] = kind(place, artifact)
    if verb == "story":
        print(json.dumps([story(contender) for contender in made.values()]))
    else:
        bench(made)


if __name__ == "__main__":
    main(*sys.argv[1:4])
