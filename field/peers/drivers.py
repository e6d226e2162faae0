"""Each contender's driver, one class each: the artifact, litequeue, persist-queue and huey.

Imported by contender.py in the peers' venv (as a module beside it: it imports nothing of the
lab), and by the lab for its constants (TTL, SAME, ORDERS): the packages themselves are imported
only when a driver is made. Every driver has the same verbs: fill(count) makes ready items outside
any timing; take(worker) and finish(handle) are what a worker does; expire(handle) is how what A
took comes to be handed out again; row(handle) reads the item back; accepted() says whether a
stale write was taken; pair() is one take-and-finish of the bench; connection() reads back the
settings of the connection the driver works through, and files() names its database files.
"""

import importlib.util
import sqlite3
import time
from contextlib import closing
from importlib import metadata
from pathlib import Path

TTL = 0.2  # seconds: the lease, or the visibility timeout after which a taken message is handed out again
# Like for like: the durability every contender can be given (persist-queue and litequeue force WAL
# at every open), and the connection policy every queue object already has. The contract's own
# setting (rollback journal, a connection per call) is not one of them: no queue takes it.
SAME = {"journal": "wal", "synchronous": "FULL", "connection": "kept"}
ORDERS = ("late_last", "late_first")  # A's stale write after B's (the harmless order), or before it


def settings(conn):
    """The journal mode and synchronous setting a connection really has."""
    journal = conn.execute("PRAGMA journal_mode").fetchone()[0]
    synchronous = {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}[conn.execute("PRAGMA synchronous").fetchone()[0]]
    return {"journal": journal, "synchronous": synchronous}


class Kept:
    """A connection that outlives the call that opened it: close() keeps it open (the artifact's
    one connection under SAME here, the bench's kept settings in field/bench_worker.py)."""

    def __init__(self, conn):
        self._conn = conn

    def __getattr__(self, name):
        return getattr(self._conn, name)

    def __enter__(self):
        self._conn.__enter__()
        return self

    def __exit__(self, *exc):
        return self._conn.__exit__(*exc)

    def close(self):
        pass


class KeptSqlite:
    """What the artifact's module sees as `sqlite3` under SAME: connect() hands out one kept connection.

    The artifact's code is not edited: its module's global `sqlite3` is this object, which passes
    everything else through. The artifact opens its connections with `sqlite3.connect(path)` and
    `sqlite3.connect(path, isolation_level=None)`; the one kept connection takes each call's level.
    """

    def __init__(self):
        self.kept = None

    def __getattr__(self, name):
        return getattr(sqlite3, name)

    def connect(self, database, isolation_level="", **keywords):
        if self.kept is None:
            self.kept = Kept(sqlite3.connect(database, **keywords))
            self.kept.execute(f"PRAGMA synchronous={SAME['synchronous']}")
        self.kept._conn.isolation_level = isolation_level  # no transaction is open between calls
        return self.kept


class Artifact:
    """The artifact's functions: claim a named job with an owner; complete with owner and fence."""

    name = "artifact"

    def __init__(self, folder, artifact, same=False):
        spec = importlib.util.spec_from_file_location("artifact", artifact)
        self.lease = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(self.lease)
        self.db = str(Path(folder) / "artifact.db")
        self.lease.init_db(self.db)
        self.same = same
        if same:
            with closing(sqlite3.connect(self.db)) as conn:  # WAL is the database's, kept in its file
                conn.execute(f"PRAGMA journal_mode={SAME['journal']}")
            self.sqlite = self.lease.sqlite3 = KeptSqlite()
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

    def expire(self, handle):
        self.now += TTL * 1.2  # the caller's clock: the lease runs out when now passes until

    def accepted(self, returned, before, after):
        return returned is True

    def row(self, handle):
        """The job's row read with plain sqlite3, not through the code under test."""
        with closing(sqlite3.connect(self.db)) as conn:
            row = conn.execute("SELECT owner, fence, done, result FROM jobs WHERE id=?", (handle["id"],)).fetchone()
        return dict(zip(("owner", "fence", "done", "result"), row))

    def stored(self, row):
        return {key: row[key] for key in ("owner", "fence", "result")}

    def pair(self):
        handle = self.take("w")
        self.finish(handle)
        self.next_job += 1
        self.now += 1e-6

    def files(self):
        return [self.db]

    def connection(self):
        if self.same:
            self.lease.state(self.db, "job-0")  # through the artifact: its kept connection, opened if need be
            return settings(self.sqlite.kept._conn) | {"connection": "kept"}
        with closing(sqlite3.connect(self.db)) as conn:  # the artifact opens a connection per call like this
            return settings(conn) | {"connection": "per_call"}


class LiteQueue:
    """litequeue: pop() locks the next message; done(message_id) acknowledges it.

    Its visibility timeout is the documented reaper: list_locked(threshold) and retry(message_id)
    put a message locked for longer than the threshold back in the queue.
    """

    name = "litequeue"

    def __init__(self, folder, artifact, same=False):
        import litequeue

        self.module = litequeue
        self.db = str(Path(folder) / "litequeue.db")
        self.workers, self.same = {}, same

    def version(self):
        return metadata.version(self.name)

    def queue(self, worker):
        if worker not in self.workers:  # one queue object (one connection) per worker, as in its own process
            queue = self.workers[worker] = self.module.LiteQueue(self.db)
            if self.same:  # it sets synchronous=NORMAL at every open, and has no parameter for it
                queue.conn.execute(f"PRAGMA synchronous={SAME['synchronous']}")
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

    def expire(self, handle):
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

    def stored(self, row):
        return {"status": row["status"]}

    def pair(self):
        queue = self.queue("w")
        queue.done(queue.pop().message_id)

    def files(self):
        return [self.db]

    def connection(self):
        return settings(self.queue("w").conn) | {"connection": "kept"}


class PersistQueue:
    """persist-queue's SQLiteAckQueue: get() hands out the next item; ack(id=) acknowledges it.

    It has no timer: an item taken and not acknowledged goes back to the queue when a queue object
    opens the database (auto_resume, its default): what a restarted or replacing worker does.
    """

    name = "persist-queue"

    def __init__(self, folder, artifact, same=False):
        import persistqueue

        self.module = persistqueue
        self.path = str(Path(folder) / "persist-queue")
        self.workers, self.same = {}, same

    def version(self):
        return metadata.version(self.name)

    def queue(self, worker):
        if worker not in self.workers:
            queue = self.workers[worker] = self.module.SQLiteAckQueue(self.path)
            if self.same:  # it leaves synchronous to SQLite, with no parameter, on a connection with no public name
                queue._getter.execute(f"PRAGMA synchronous={SAME['synchronous']}")
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

    def expire(self, handle):
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

    def stored(self, row):
        return {"status": row["status"]}

    def pair(self):
        queue = self.queue("w")
        queue.ack(id=queue.get(block=False, raw=True)["pqid"])

    def files(self):
        return [str(Path(self.path) / "data.db")]

    def connection(self):
        # its one connection; the queue has no public name for it
        return settings(self.queue("w")._getter) | {"connection": "kept"}


def _work(number):
    """huey's task: only its id and its result matter here; no consumer runs it."""
    return number


class Huey:
    """huey's SqliteHuey (huey.storage.SqliteStorage): dequeue() takes the next task; put_result(id).

    dequeue() deletes the task's row in the same transaction: huey hands a task out once, and has no
    visibility timeout to hand out again a task whose worker went quiet. A task comes back only when
    it is enqueued again: huey's own retry enqueues the same task, with its id (Huey._requeue_task),
    and so does the story after the ttl. A worker finishes by storing the task's result under its id,
    as huey's consumer does (put_result: INSERT OR REPLACE into its kv table).
    """

    name = "huey"

    def __init__(self, folder, artifact, same=False):
        import huey

        self.module = huey
        self.db = str(Path(folder) / "huey.db")
        # journal_mode= and fsync= are its own parameters (fsync=True: synchronous=FULL); by default it
        # sets WAL and leaves synchronous to SQLite
        self.options = {"journal_mode": SAME["journal"], "fsync": True} if same else {}
        self.workers, self.taken = {}, {}

    def version(self):
        return metadata.version(self.name)

    def queue(self, worker):
        if worker not in self.workers:  # one Huey (one storage, one connection) per worker
            instance = self.module.SqliteHuey("lab", filename=self.db, **self.options)
            self.workers[worker] = (instance, instance.task(name="work")(_work))
        return self.workers[worker][0]

    def fill(self, count):
        self.queue("producer")
        work = self.workers["producer"][1]
        for number in range(count):
            work(number)  # enqueues the task (no consumer runs in this process)

    def take(self, worker):
        task = self.queue(worker).dequeue()
        self.taken[task.id] = task
        return {"id": task.id, "owner": worker}

    def finish(self, handle):
        return self.queue(handle["owner"]).put_result(handle["id"], f"{handle['owner']}'s result")

    def expire(self, handle):
        time.sleep(TTL * 1.2)  # nothing hands the task out again; it is enqueued again, as huey's retry does
        self.queue("reaper").enqueue(self.taken[handle["id"]])

    def accepted(self, returned, before, after):
        """put_result() answers None whatever it did; what it did is read back from the result store."""
        return after != before

    def row(self, handle):
        return {"result": self.queue("reader").get(handle["id"], peek=True)}

    def stored(self, row):
        return row

    def pair(self):
        instance = self.queue("w")
        instance.put_result(instance.dequeue().id, "w's result")

    def files(self):
        return [self.db]

    def connection(self):
        return settings(self.queue("w").storage.conn) | {"connection": "kept"}


CONTENDERS = (Artifact, LiteQueue, PersistQueue, Huey)
