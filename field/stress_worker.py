"""One stress worker process: takes jobs and plays with them (stress_plays.py); every call logged.

The worker imports the assembled artifact and calls it as a real queue worker would, with `now`
read from the run's shared clock (clock.py). Its schedule comes from the seed: which job it
picks, which play it makes with it, when it stalls past its ttl, and after how many calls it
offers itself to be killed. Every `race_period` seconds all workers claim the same fresh job at
the same instant, which is where a claim that is not atomic across processes hands out a fence
twice.

Owner names repeat, as they do in the field (a host name, a pool under one name, a process
restarted under the same id): the worker in slot s calls itself host-(s mod 2), and so does its
replacement after a SIGKILL. The worker's own name (w<slot>.<generation>) only labels its log.
So the owner test alone refuses nothing between two workers of one host: only the fence tells
their generations apart.

Every call is logged to the worker's own JSON-lines file, one os.write per line: a "begin" line
before the call and an "end" line after it, with worker, op, job, owner, fence, now, ttl, result,
returned, t0/t1 (time.monotonic_ns, the same clock in every process, so lines of different
workers can be ordered), the worker's sequence number and its pid. A call with a begin line and
no end line was cut short by a SIGKILL. Right after each call the worker reads the job's row with
plain sqlite3, never through the code under test, and logs it (`observed`, read by `t2`);
around init_db it reads how many rows and done jobs the table holds.

The worker wraps sqlite3.connect before it imports the artifact. Every connection it opens calls
the worker before each statement, in Python, outside SQLite: that is how a claim pauses between
its statements, as a garbage collector or a busy machine would pause it: before its first BEGIN
or UPDATE, a few milliseconds. A claim whose read and write are one locked transaction loses
nothing by it; one whose read stands outside the lock lets the other claimants of the same
instant read the same old fence. claim_many's threads pause before each of theirs: if they share
one connection, they meet inside its one transaction.

A connection opened while a kill is armed is also traced by SQLite: that is how the worker is
killed in the middle of a transaction. It stops at the next COMMIT (the write is done, its
transaction still open and its lock held), asks the parent for the SIGKILL and waits. Only then,
and never inside claim_many: SQLite calls its trace with the connection's lock held, and a trace
that needs Python's lock while another thread holds it, waiting for that connection (claim_many's
threads may share one), never returns.
"""

import json
import os
import random
import sqlite3
import time
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from field import stress_plays as plays
from field.artifact import import_file
from field.clock import Clock

REAL_CONNECT = sqlite3.connect
PICK = (
    "SELECT id FROM jobs WHERE done=0 AND until<=? AND NOT (id LIKE 'race-%' AND fence=0) "
    "ORDER BY fence DESC, id LIMIT 4"
)
ROW = "SELECT owner, until, fence, result, done FROM jobs WHERE id=?"
FIGURES = "SELECT count(*), coalesce(sum(done), 0) FROM jobs"
TIMED = ("claim", "renew", "claim_many")  # the calls that take a ttl


@dataclass(frozen=True)
class Plan:
    """Everything a worker needs to know about the run; the same for every worker."""

    artifact: str
    db: str
    logs: str
    seed: int
    seconds: float
    ttl: float = 0.2  # in clock seconds; a stall makes the parent jump the clock past it
    race_period: float = 0.06
    stall_chance: float = 0.12
    stall_seconds: tuple = (0.02, 0.05)
    pause_chance: float = 0.2  # of a claim outside the race rounds; every race claim pauses
    pause_seconds: tuple = (0.002, 0.008)
    late_renew_chance: float = 0.08  # wakes once its lease has expired and renews at once
    reclaim_chance: float = 0.1  # wakes, claims again under its own name, then uses the old fence
    release_chance: float = 0.15  # of a job held without a stall: released instead of completed
    reclaim_after_release: float = 0.5  # of a release: the same owner takes the job straight back
    boundary_chance: float = 0.06  # at now == until: renew and complete refused, claim wins
    retries_chance: float = 0.04  # a retry loop's duplicate calls, on a done job at the end
    stranger_chance: float = 0.04  # a worker of another name releases and renews with the right fence
    many_chance: float = 0.08  # the job is taken with claim_many for three owners
    long_ttl: float = 5.0  # the lease of retries and stranger: it outlives the clock jumps of their few calls
    # every worker's first plays, whatever the rolls (stress_plays.py)
    opening: tuple = ("many", "boundary", "retries", "stranger", "reclaim", "late_renew", "take_back")
    hosts: int = 2  # owner names shared by the workers: slot s runs as host-(s mod hosts)

    @property
    def rounds(self):
        return int(self.seconds / self.race_period)


class Worker:
    def __init__(self, plan, slot, generation, clock, pipe, die_after):
        self.plan, self.clock, self.pipe = plan, clock, pipe
        self.worker = f"w{slot}.{generation}"  # this process, in the logs and the report
        self.generation = generation  # 0, or how many times a SIGKILL replaced its slot's process
        self.owner = f"host-{slot % plan.hosts}"  # the owner it claims as: shared, and kept on a restart
        self.stranger = f"host-{(slot + 1) % plan.hosts}"  # another host's name
        self.rng = random.Random(f"{plan.seed}/{slot}/{generation}")
        self.pid = os.getpid()
        self.fd = os.open(Path(plan.logs) / f"{self.worker}.jsonl", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        self.seq = self.made = 0
        self.die_after, self.armed = die_after, False
        self.pause = 0.0  # seconds to wait before the next call's first BEGIN or UPDATE
        self.pause_each = 0.0  # seconds to wait before each BEGIN or UPDATE (claim_many: each thread's)
        self.lease = None
        self.job = None  # the job of the call under way: a kill inside it names it to the parent
        self.threads = False  # whether the call under way runs threads (claim_many): no kill inside it
        self.next_round = 0
        turn = 2 * slot % len(plan.opening) if plan.opening else 0  # each slot starts elsewhere in it:
        self.opening = list(plan.opening[turn:] + plan.opening[:turn])  # early on, every play is made
        self.until = 0.0  # when the lease this worker last took or renewed runs out, on the shared clock
        self.paused = _paused(self.before)

    def before(self, statement):
        """Called before each statement the artifact runs, outside SQLite: a pause before the first
        BEGIN or UPDATE of a call holds no lock of SQLite's (a connection shared by threads goes on
        serving the others meanwhile)."""
        verb = statement.split(maxsplit=1)[0].upper() if isinstance(statement, str) and statement.strip() else ""
        if verb in ("BEGIN", "UPDATE") and (self.pause or self.pause_each):
            pause, self.pause = self.pause_each or self.pause, 0.0
            time.sleep(pause)

    def traced(self, statement):
        """SQLite's trace of a connection opened while a kill is armed: at its COMMIT, the SIGKILL."""
        if self.armed and statement.strip().upper().startswith("COMMIT"):
            self.armed = False
            self.pipe.send(("kill", self.seq, self.job))
            time.sleep(60)  # the parent's SIGKILL ends this process here, inside the transaction

    def connect(self, *arguments, **keywords):
        if "factory" not in keywords and len(arguments) < 5:
            keywords["factory"] = self.paused
        conn = REAL_CONNECT(*arguments, **keywords)
        if self.armed and not self.threads:  # see the module's docstring: a trace can hang threads
            conn.set_trace_callback(self.traced)
        return conn

    def log(self, record):
        os.write(self.fd, (json.dumps(record, default=repr) + "\n").encode("utf-8"))

    def call(self, op, job, fence=None, result=None, owner=None, now=None, ttl=None, owners=None):
        """One call of the artifact, logged before and after, and the job's row read right after it."""
        now = self.clock.now() if now is None else now
        ttl = (self.plan.ttl if ttl is None else ttl) if op in TIMED else None
        owner, db = self.owner if owner is None else owner, self.plan.db
        arguments = {
            "init_db": (db,),
            "enqueue": (db, job),
            "state": (db, job),
            "claim": (db, job, owner, now, ttl),
            "claim_many": (db, job, owners, now, ttl),
            "renew": (db, job, owner, fence, now, ttl),
            "complete": (db, job, owner, fence, now, result),
            "release": (db, job, owner, fence),
        }[op]
        self.seq += 1
        record = {"worker": self.worker, "owner": owner, "pid": self.pid, "seq": self.seq, "op": op, "job": job}
        record |= {"fence": fence, "now": now, "ttl": ttl, "result": result}
        record |= {"owners": owners} if owners is not None else {}
        record |= {"seen": self.figures()} if op == "init_db" else {}
        self.log(record | {"phase": "begin", "t0": time.monotonic_ns()})
        if self.die_after is not None:
            self.die_after -= 1
            self.armed = self.die_after <= 0
            self.die_after = None if self.armed else self.die_after
        returned, error, self.job, self.threads, t0 = None, None, job, op == "claim_many", time.monotonic_ns()
        try:
            returned = getattr(self.lease, op)(*arguments)
        except Exception as problem:  # noqa: BLE001 - logged and judged afterwards
            error = f"{type(problem).__name__}: {problem}"
        t1 = time.monotonic_ns()
        observed = {"table": self.figures()} if op == "init_db" else self.row(job)
        ended = {"phase": "end", "returned": returned, "error": error, "t0": t0, "t1": t1}
        self.log(record | ended | {"observed": observed, "t2": time.monotonic_ns()})
        if op in ("claim", "renew") and returned not in (None, False) and not error:
            self.until = now + ttl
        return returned

    def row(self, job):
        """The job's row as stored now, read with plain sqlite3; None when it cannot be read."""
        try:
            with closing(REAL_CONNECT(self.plan.db, timeout=10)) as conn:
                row = conn.execute(ROW, (job,)).fetchone()
        except sqlite3.Error:
            return None
        return {"row": list(row) if row else None}

    def figures(self):
        """How many rows and done jobs the table holds: init_db may change neither."""
        try:
            with closing(REAL_CONNECT(self.plan.db, timeout=10)) as conn:
                return list(conn.execute(FIGURES).fetchone())
        except sqlite3.Error:
            return None

    def result(self):
        """The result the next call stores: who wrote it, at which call."""
        return f"{self.worker}#{self.seq + 1}"

    def pick(self):
        """A job to try: an expired lease first (the stalled worker's), else a new job."""
        try:
            with closing(REAL_CONNECT(self.plan.db, timeout=10)) as conn:
                found = [row[0] for row in conn.execute(PICK, (self.clock.now(),))]
        except sqlite3.Error:
            found = []
        if found:
            return self.rng.choice(found)
        self.made += 1
        job = f"job-{self.worker}-{self.made}"
        return job if self.call("enqueue", job) is not None else None

    def hold(self, job, fence, play=None):
        plays.hold(self, job, fence, play)

    def stall(self):
        """Ask the parent to jump the clock past the ttl; wait until this worker's lease has expired."""
        self.pipe.send(("stall", self.seq))  # the parent jumps the clock: every live lease expires
        give_up = time.monotonic() + 1.0
        while self.clock.now() < self.until and time.monotonic() < give_up:
            time.sleep(0.0005)

    def race(self):
        """Claim this round's fresh job at the same instant as every other worker."""
        go = self.clock.start + (self.next_round + 1) * self.plan.race_period
        job = f"race-{self.next_round}"
        self.next_round += 1
        if time.monotonic() > go + 0.002:
            return  # too late for this round (a stall, a restart): no instant to share
        time.sleep(max(0.0, go - time.monotonic() - 0.002))
        while time.monotonic() < go:
            pass  # spin the last two milliseconds, so that the claims start together
        plays.take(self, job, pause=True)

    def claim(self, job, pause=False, ttl=None, now=None):
        if pause or self.rng.random() < self.plan.pause_chance:
            self.pause = self.rng.uniform(*self.plan.pause_seconds)
        fence = self.call("claim", job, ttl=ttl, now=now)
        self.pause = 0.0
        return fence

    def claim_many(self, job, owners):
        self.pause_each = self.rng.uniform(*self.plan.pause_seconds)  # each thread: they meet in the pauses
        got = self.call("claim_many", job, owners=owners)
        self.pause_each = 0.0
        return got

    def work(self, resume=None):
        elapsed = lambda: time.monotonic() - self.clock.start  # noqa: E731
        if self.generation:
            plays.restart(self, resume)
        self.next_round = max(0, int(elapsed() / self.plan.race_period))
        while elapsed() < self.plan.seconds:
            if (
                self.next_round < self.plan.rounds
                and elapsed() >= (self.next_round + 1) * self.plan.race_period - 0.015
            ):
                self.race()
                continue
            job = self.pick()
            if job:
                plays.take(self, job)


def _paused(before):
    """A connection class whose execute, executemany and cursors call before(statement) first."""

    class Cursor(sqlite3.Cursor):
        def execute(self, statement, *arguments):
            before(statement)
            return super().execute(statement, *arguments)

        def executemany(self, statement, *arguments):
            before(statement)
            return super().executemany(statement, *arguments)

    class Connection(sqlite3.Connection):
        def cursor(self, factory=Cursor):
            return super().cursor(factory)

        def execute(self, statement, *arguments):
            before(statement)
            return super().execute(statement, *arguments)

        def executemany(self, statement, *arguments):
            before(statement)
            return super().executemany(statement, *arguments)

    return Connection


def run(plan, slot, generation, start, offset, pipe, die_after, resume=None):
    """The worker process's entry point (multiprocessing, spawn); resume: the job a kill cut its predecessor short on."""
    clock = Clock(start, offset)
    worker = Worker(plan, slot, generation, clock, pipe, die_after)
    sqlite3.connect = worker.connect  # before the import, so `from sqlite3 import connect` is traced too
    worker.lease = import_file(plan.artifact)
    pipe.send(("ready", worker.pid))
    clock.wait_for_start()
    worker.work(resume)
    os.close(worker.fd)
    pipe.send(("done", worker.seq))
