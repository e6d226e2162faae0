"""An example worker: pick the next job, claim it, renew while working, fence the effect, complete.

    lease = import_file(materialize(...))          # the artifact: every step's function
    worker = Worker(lease, "jobs.db", "effects.db", owner="host-a", ttl=30)
    done = worker.run_once(send_invoice)           # None when no job is free

`work(job, keep_alive)` does the job in steps and calls keep_alive() between them: it renews the
lease and returns False once the lease is lost (expired and claimed by another worker), and the
work should then stop. Its return value is the side effect, written to the fenced store under
the job's id with the worker's fence; then the job is completed with the same fence. A worker that
stalled past its ttl is refused twice: by the store (a newer fence wrote there) and by complete.

Which job is next is read from the jobs table (the artifact has no "next job"): the
oldest few whose lease has expired and that are not done; claim decides, atomically, who gets
one. The clock is the caller's, as everywhere in the lab: `clock()` gives `now`.
"""

import sqlite3
import time
from contextlib import closing
from dataclasses import dataclass

from lab.field.example import fenced_store

CANDIDATES = "SELECT id FROM jobs WHERE done=0 AND until<=? ORDER BY id LIMIT ?"


@dataclass
class Done:
    job: str
    fence: int
    worked: bool  # False: the lease was lost while working, nothing was written
    effect: bool  # the store took the side effect
    completed: bool  # complete returned True


class Worker:
    def __init__(self, lease, db, store, owner, ttl, clock=time.time, candidates=8):
        self.lease, self.db, self.store, self.owner, self.ttl = lease, db, store, owner, ttl
        self.clock, self.candidates = clock, candidates

    def next_job(self):
        """(job, fence) of the first free job this worker claims, or None when none is free."""
        with closing(sqlite3.connect(self.db)) as conn:
            free = [row[0] for row in conn.execute(CANDIDATES, (self.clock(), self.candidates))]
        for job in free:
            fence = self.lease.claim(self.db, job, self.owner, self.clock(), self.ttl)
            if fence is not None:
                return job, fence
        return None

    def run_once(self, work):
        """Do one job from claim to completion; a Done, or None when no job was free."""
        picked = self.next_job()
        if picked is None:
            return None
        job, fence = picked
        return self.finish(job, fence, work)

    def finish(self, job, fence, work):
        """The rest of a job once it is claimed with fence (a caller may have claimed it itself)."""

        def keep_alive():
            return self.lease.renew(self.db, job, self.owner, fence, self.clock(), self.ttl)

        value = work(job, keep_alive)
        if not keep_alive():
            return Done(job, fence, worked=False, effect=False, completed=False)
        effect = fenced_store.write(self.store, job, fence, value, writer=self.owner)
        completed = effect and self.lease.complete(self.db, job, self.owner, fence, self.clock(), value)
        return Done(job, fence, worked=True, effect=effect, completed=bool(completed))
