"""One stress worker process: claim, renew, stall, complete, release; every call logged.

The worker imports the assembled artifact and calls it as a real queue worker would, with `now`
read from the run's shared clock (clock.py). Its schedule comes from the seed: which job it
picks, when it stalls past its ttl and still finishes, and after how many calls it offers itself
to be killed. Every `race_period` seconds all workers claim the same fresh job at the same
instant, which is where a claim that is not atomic across processes hands out a fence twice.

Owner names repeat, as they do in the field (a host name, a pool under one name, a process
restarted under the same id): the worker in slot s calls itself host-(s mod 2), and so does its
replacement after a SIGKILL. The worker's own name (w<slot>.<generation>) only labels its log.
So the owner test alone refuses nothing between two workers of one host, and a stalled worker
sometimes claims its job again under its own name and then finishes with the fence it held
before: only the fence tells the two generations apart. A stalled worker also wakes after its
lease has run out and renews at once, before anyone else could take the job: only the lease time
refuses that renewal. A released job is sometimes taken straight back, which is where a fence
set back on release is handed out a second time.

Every call is logged to the worker's own JSON-lines file, one os.write per line: a "begin" line
before the call and an "end" line after it, with worker, op, job, owner, fence, now, result, returned,
t0/t1 (time.monotonic_ns, the same clock in every process, so lines of different workers can be
ordered), the worker's sequence number and its pid. A call with a begin line and no end line was
cut short by a SIGKILL.

The worker wraps sqlite3.connect before it imports the artifact and traces every statement.
That is how it is killed in the middle of a transaction: once armed, it stops at the next COMMIT
(the write is done, its transaction still open and its lock held), asks the parent for the
SIGKILL and waits. It is also how a claim pauses between its statements, as a garbage collector
or a busy machine would pause it: before its first BEGIN or UPDATE, a few milliseconds. A claim
whose read and write are one locked transaction loses nothing by it; one whose read stands
outside the lock lets the other claimants of the same instant read the same old fence.
"""

import json
import os
import random
import sqlite3
import time
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from lab.field.artifact import import_file
from lab.field.clock import Clock

REAL_CONNECT = sqlite3.connect
PICK = (
    "SELECT id FROM jobs WHERE done=0 AND until<=? AND NOT (id LIKE 'race-%' AND fence=0) "
    "ORDER BY fence DESC, id LIMIT 4"
)


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
    opening: tuple = ("reclaim", "late_renew", "take_back")  # every worker's first jobs, whatever the rolls
    hosts: int = 2  # owner names shared by the workers: slot s runs as host-(s mod hosts)

    @property
    def rounds(self):
        return int(self.seconds / self.race_period)


class Worker:
    def __init__(self, plan, slot, generation, clock, pipe, die_after):
        self.plan, self.clock, self.pipe = plan, clock, pipe
        self.worker = f"w{slot}.{generation}"  # this process, in the logs and the report
        self.owner = f"host-{slot % plan.hosts}"  # the owner it claims as: shared, and kept on a restart
        self.rng = random.Random(f"{plan.seed}/{slot}/{generation}")
        self.pid = os.getpid()
        self.fd = os.open(Path(plan.logs) / f"{self.worker}.jsonl", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        self.seq = self.made = 0
        self.die_after, self.armed = die_after, False
        self.pause = 0.0  # seconds to wait before the next call's first BEGIN or UPDATE
        self.lease = None
        self.next_round = 0
        self.opening = list(plan.opening)  # plays done first, so that a slow machine still sees each
        self.until = 0.0  # when the lease this worker last took or renewed runs out, on the shared clock

    def traced(self, statement):
        verb = statement.split(maxsplit=1)[0].upper() if statement.strip() else ""
        if self.pause and verb in ("BEGIN", "UPDATE"):
            time.sleep(self.pause)
            self.pause = 0.0
        if self.armed and verb == "COMMIT":
            self.armed = False
            self.pipe.send(("kill", self.seq))
            time.sleep(60)  # the parent's SIGKILL ends this process here, inside the transaction

    def connect(self, *arguments, **keywords):
        conn = REAL_CONNECT(*arguments, **keywords)
        conn.set_trace_callback(self.traced)
        return conn

    def log(self, record):
        os.write(self.fd, (json.dumps(record, default=repr) + "\n").encode("utf-8"))

    def call(self, op, job, fence=None, result=None):
        now, ttl, db = self.clock.now(), self.plan.ttl, self.plan.db
        arguments = {
            "enqueue": (db, job),
            "claim": (db, job, self.owner, now, ttl),
            "renew": (db, job, self.owner, fence, now, ttl),
            "complete": (db, job, self.owner, fence, now, result),
            "release": (db, job, self.owner, fence),
        }[op]
        self.seq += 1
        record = {
            "worker": self.worker,
            "owner": self.owner,
            "pid": self.pid,
            "seq": self.seq,
            "op": op,
            "job": job,
            "fence": fence,
            "now": now,
        }
        record |= {"ttl": ttl if op in ("claim", "renew") else None, "result": result}
        self.log(record | {"phase": "begin", "t0": time.monotonic_ns()})
        if self.die_after is not None:
            self.die_after -= 1
            self.armed = self.die_after <= 0
            self.die_after = None if self.armed else self.die_after
        returned, error, t0 = None, None, time.monotonic_ns()
        try:
            returned = getattr(self.lease, op)(*arguments)
        except Exception as problem:  # noqa: BLE001 - logged and judged afterwards
            error = f"{type(problem).__name__}: {problem}"
        self.log(record | {"phase": "end", "returned": returned, "error": error, "t0": t0, "t1": time.monotonic_ns()})
        if op in ("claim", "renew") and returned not in (None, False):
            self.until = now + ttl
        return returned

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

    def hold(self, job, fence):
        """What a worker does with a fence: one of the plays, OPENING first, then by chance."""
        play = self.opening.pop(0) if self.opening else self.choose()
        if play == "stall":  # stalls; meanwhile another worker may take the job
            self.stall()
            time.sleep(self.rng.uniform(*self.plan.stall_seconds))
            self.call("renew", job, fence)
            self.finish(job, fence, release=self.rng.random() < 0.5)
        elif play == "late_renew":  # wakes after its lease ran out and renews at once
            self.stall()
            self.call("renew", job, fence)
            self.finish(job, fence)
        elif play == "reclaim":  # claims again under its own name; the old work goes on
            self.stall()
            again = self.claim(job)
            if again is not None and self.rng.random() < 0.3:
                self.call("renew", job, fence)
            self.call("complete", job, fence, result=f"{self.worker}#{self.seq + 1}")
            if again is not None:
                self.finish(job, again)
        elif play == "take_back":  # releases, and its owner takes the job straight back
            self.finish(job, fence, release=True, take_back=True)
        else:
            if self.rng.random() < 0.4:
                self.call("renew", job, fence)
            self.finish(job, fence, release=self.rng.random() < self.plan.release_chance)

    def choose(self):
        roll = self.rng.random()
        for play in ("stall", "late_renew", "reclaim"):
            chance = getattr(self.plan, f"{play}_chance")
            if roll < chance:
                return play
            roll -= chance
        return "plain"

    def finish(self, job, fence, release=False, take_back=False):
        """Complete, or release; a released job is sometimes taken straight back by its owner."""
        if not release:
            self.call("complete", job, fence, result=f"{self.worker}#{self.seq + 1}")
        elif self.call("release", job, fence) is True and (
            take_back or self.rng.random() < self.plan.reclaim_after_release
        ):
            again = self.claim(job)
            if again is not None:
                self.call("complete", job, again, result=f"{self.worker}#{self.seq + 1}")

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
        fence = self.claim(job, pause=True)
        if fence is not None:
            self.hold(job, fence)

    def claim(self, job, pause=False):
        if pause or self.rng.random() < self.plan.pause_chance:
            self.pause = self.rng.uniform(*self.plan.pause_seconds)
        fence = self.call("claim", job)
        self.pause = 0.0
        return fence

    def work(self):
        elapsed = lambda: time.monotonic() - self.clock.start  # noqa: E731
        self.next_round = max(0, int(elapsed() / self.plan.race_period))
        while elapsed() < self.plan.seconds:
            if (
                self.next_round < self.plan.rounds
                and elapsed() >= (self.next_round + 1) * self.plan.race_period - 0.015
            ):
                self.race()
                continue
            job = self.pick()
            fence = self.claim(job) if job else None
            if fence is not None:
                self.hold(job, fence)


def run(plan, slot, generation, start, offset, pipe, die_after):
    """The worker process's entry point (multiprocessing, spawn)."""
    clock = Clock(start, offset)
    worker = Worker(plan, slot, generation, clock, pipe, die_after)
    sqlite3.connect = worker.connect  # before the import, so `from sqlite3 import connect` is traced too
    worker.lease = import_file(plan.artifact)
    pipe.send(("ready", worker.pid))
    clock.wait_for_start()
    worker.work()
    os.close(worker.fd)
    pipe.send(("done", worker.seq))
