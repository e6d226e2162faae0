"""An example worker: pick the next job, claim it, renew while working, fence the effect, complete.

    lease = import_file(materialize(...))          # the artifact: every step's function
    send = functools.partial(fenced_store.write, "effects.db")
    worker = Worker(lease, "jobs.db", send, owner="host-a", ttl=30, max_attempts=3)
    done = worker.run_once(send_invoice)           # None when no job is free

`work(job, keep_alive)` does the job in steps and calls keep_alive() between them: it renews the
lease and returns False once the lease is lost (expired and claimed by another worker), and the
work should then stop. Its return value is the side effect, sent with `send(job, fence, value,
owner)` (the fenced store, or any receiver that refuses a fence lower than one it has seen); then
the job is completed with the same fence. A worker that stalled past its ttl is refused twice: by
the store (a newer fence wrote there) and by complete.

Each claim is an attempt (jobs_db.py: the fence counts them). Work that raises gives its lease
back for the next claim, or, on the last attempt, moves the job to the dead letter; so does the
first worker to find the job free with no attempt left (its last lease ran out unfinished). The
clock is the caller's, as everywhere in the lab: `clock()` gives `now`.
"""

import time
from dataclasses import dataclass

if __package__:  # field.example.worker, inside the lab
    from . import jobs_db
else:  # copied out and run as `python3 FOLDER`: the folder is first on sys.path
    import jobs_db


@dataclass
class Done:
    job: str
    fence: int
    attempt: int  # this claim's number among the job's claims since it was enqueued or re-queued
    worked: bool = False  # the work returned with the lease still held
    effect: bool = False  # send took the side effect
    completed: bool = False  # complete returned True
    error: str | None = None  # what the work raised
    dead: bool = False  # the job went to the dead letter


class Worker:
    def __init__(self, lease, db, send, owner, ttl, clock=time.time, max_attempts=3, candidates=8):
        if max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, got {max_attempts!r}")
        self.lease, self.db, self.send, self.owner, self.ttl = lease, db, send, owner, ttl
        self.clock, self.max_attempts, self.candidates = clock, max_attempts, candidates

    def run_once(self, work):
        """One turn: the first free job from claim to completion, or to the dead letter when it has no
        attempt left. A Done, or None when no job is free."""
        for job, fence, used in jobs_db.free(self.db, self.clock(), self.candidates):
            if used >= self.max_attempts:
                if jobs_db.bury(self.db, job, fence, self.clock()):
                    return Done(job, fence, used, dead=True)
            elif (claimed := self.claim(job)) is not None:
                return self.finish(*claimed, work)
        return None

    def claim(self, job):
        """(job, fence, attempt) when this worker's claim wins and is within the limit, else None."""
        fence = self.lease.claim(self.db, job, self.owner, self.clock(), self.ttl)
        if fence is None:
            return None
        attempt = fence - jobs_db.base(self.db, job)
        if attempt > self.max_attempts:
            # The list of free jobs was read before another worker took the last attempt, whose
            # lease then ran out: this claim is over the limit and is buried unrun, so the work
            # still runs at most max_attempts times.
            jobs_db.bury(self.db, job, fence, self.clock(), self.owner)
            return None
        return job, fence, attempt

    def finish(self, job, fence, attempt, work):
        """The rest of a job once it is claimed with fence (a caller may have claimed it itself)."""

        def keep_alive():
            return self.lease.renew(self.db, job, self.owner, fence, self.clock(), self.ttl)

        try:
            value = work(job, keep_alive)
        except Exception as error:  # noqa: BLE001 - whatever the work raises uses up this attempt
            return self.failed(job, fence, attempt, f"{type(error).__name__}: {error}")
        if not keep_alive():
            return Done(job, fence, attempt)
        effect = self.send(job, fence, value, self.owner)
        completed = effect and self.lease.complete(self.db, job, self.owner, fence, self.clock(), value)
        return Done(job, fence, attempt, worked=True, effect=effect, completed=bool(completed))

    def failed(self, job, fence, attempt, error):
        """The work raised: the last attempt buries the job; an earlier one releases it (the fence stays)."""
        jobs_db.note(self.db, job, error)
        if attempt >= self.max_attempts:
            dead = jobs_db.bury(self.db, job, fence, self.clock(), self.owner)
        else:
            dead = False
            self.lease.release(self.db, job, self.owner, fence)
        return Done(job, fence, attempt, error=error, dead=dead)
