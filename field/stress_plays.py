"""What a stress worker does with a job: the plays, each a move of the contract a real worker makes.

A worker takes a job (claim, or claim_many for three owners of its own), then plays one of these
with it. Each worker opens with every play once, whatever the dice say (a play whose claim loses
is made on the next job), in Plan.opening's order but each slot from another place in it, so
that even on a slow machine every play is made early in the run; after that the dice choose.

- plain: renews sometimes, then completes, or releases (a released job is sometimes taken
  straight back by its owner);
- stall: the clock jumps past the ttl, so every live lease expires at once; the worker sleeps a
  little (another worker may take the job) and renews, completes and maybe releases anyway;
- late_renew: wakes at once after the jump and renews its expired lease before anyone could take it;
- reclaim: claims the job again under its own name after the jump, then completes with the fence
  it held before, as a retry loop would;
- take_back: releases, and its owner takes the job straight back (a fence set back on release
  is handed out a second time there);
- boundary: ttl=0 for renew and claim (ValueError, nothing stored); after the jump, at now ==
  until exactly: a renew and a completion (both refused: the lease has expired) and a claim (it
  wins the next fence: the job may be taken at that very instant);
- retries: on a lease that outlives any clock jump, the duplicate calls of a retry loop: a second
  claim of its own live lease (None), enqueue and state of the job, completion, the completion
  again, then renew, release and claim of the done job (all refused);
- stranger: on such a lease, a worker of the other host's name releases and renews with the
  right fence, and its own owner releases with a fence never handed out (all refused);
- many: the job is taken with claim_many for three owners of the worker's own (one wins, its
  index names the stored owner), and completed under the winner's name.

A worker started after a SIGKILL keeps its slot's owner name: it calls init_db again (every row
must stay), enqueues again the job its predecessor was killed on, and claims it under the old name.
"""

import time

LIVE = ("retries", "stranger")  # claimed with Plan.long_ttl: the play needs the lease alive throughout
ROLLED = ("stall", "late_renew", "reclaim", "boundary", "retries", "stranger", "many")


def take(worker, job, pause=False):
    """Claim job and play with it: the next opening play, else the dice's."""
    opening = bool(worker.opening)
    play = worker.opening.pop(0) if opening else choose(worker)
    won = many(worker, job) if play == "many" else _claimed(worker, job, play, pause)
    if not won and opening:
        worker.opening.insert(0, play)  # lost the job to another worker: open with it on the next one


def _claimed(worker, job, play, pause):
    fence = worker.claim(job, pause=pause, ttl=worker.plan.long_ttl if play in LIVE else None)
    if fence is not None:
        hold(worker, job, fence, play)
    return fence is not None


def choose(worker):
    roll = worker.rng.random()
    for play in ROLLED:
        chance = getattr(worker.plan, f"{play}_chance")
        if roll < chance:
            return play
        roll -= chance
    return "plain"


def hold(worker, job, fence, play=None):
    """What a worker does with a fence: play (default: the next opening play, else the dice's)."""
    play = play or (worker.opening.pop(0) if worker.opening else choose(worker))
    if play == "many":
        play = "plain"  # the job is taken already: claim_many is a way to take it
    PLAYS[play](worker, job, fence)


def plain(worker, job, fence):
    if worker.rng.random() < 0.4:
        worker.call("renew", job, fence)
    finish(worker, job, fence, release=worker.rng.random() < worker.plan.release_chance)


def stall(worker, job, fence):  # stalls; meanwhile another worker may take the job
    worker.stall()
    time.sleep(worker.rng.uniform(*worker.plan.stall_seconds))
    worker.call("renew", job, fence)
    finish(worker, job, fence, release=worker.rng.random() < 0.5)


def late_renew(worker, job, fence):  # wakes after its lease ran out and renews at once
    worker.stall()
    worker.call("renew", job, fence)
    finish(worker, job, fence)


def reclaim(worker, job, fence):  # claims again under its own name; the old work goes on
    worker.stall()
    again = worker.claim(job)
    if again is not None and worker.rng.random() < 0.3:
        worker.call("renew", job, fence)
    worker.call("complete", job, fence, result=worker.result())
    if again is not None:
        finish(worker, job, again)


def take_back(worker, job, fence):  # releases, and its owner takes the job straight back
    finish(worker, job, fence, release=True, take_back=True)


def boundary(worker, job, fence):
    worker.call("renew", job, fence, ttl=0)  # C5.1
    worker.call("claim", job, ttl=0)  # C4.1
    worker.stall()
    until = worker.until  # this worker's lease, as the store must have stored it: now + ttl
    worker.call("renew", job, fence, now=until)  # C5.3: at now == until the lease has expired
    worker.call("complete", job, fence, now=until, result=worker.result())  # C6.2
    again = worker.claim(job, now=until)  # C4.5: and the job may be claimed at that instant
    if again is not None:
        finish(worker, job, again)


def retries(worker, job, fence):
    worker.claim(job)  # C4.4: its own lease is live
    worker.call("enqueue", job)  # C2.2, C2.3
    worker.call("state", job)  # C3.1
    worker.call("complete", job, fence, result=worker.result())  # C6.1
    worker.call("complete", job, fence, result=worker.result())  # C6.4: a retry after a lost answer
    worker.call("renew", job, fence)  # C5.5
    worker.call("release", job, fence)  # C7.4
    worker.claim(job)  # C4.3


def stranger(worker, job, fence):
    worker.call("release", job, fence, owner=worker.stranger)  # C7.3: another owner, the right fence
    worker.call("renew", job, fence, owner=worker.stranger)  # C5.4
    worker.call("release", job, fence + 1)  # C7.3: a fence never handed out
    finish(worker, job, fence)


def many(worker, job):
    """Take job with claim_many for three owners; the winner, if one, completes it. Whether the play
    was made: not when every owner lost the job to another worker (it is then made on another)."""
    owners = [f"{worker.owner}/{n}" for n in range(3)]
    got = worker.claim_many(job, owners)
    winners = [(i, g) for i, g in enumerate(got) if isinstance(g, int)] if isinstance(got, list) else []
    if len(winners) == 1:
        index, fence = winners[0]
        worker.call("complete", job, fence, result=worker.result(), owner=owners[index])
    return got != [None] * len(owners)


def finish(worker, job, fence, release=False, take_back=False):
    """Complete, or release; a released job is sometimes taken straight back by its owner."""
    if not release:
        worker.call("complete", job, fence, result=worker.result())
    elif worker.call("release", job, fence) is True and (
        take_back or worker.rng.random() < worker.plan.reclaim_after_release
    ):
        again = worker.claim(job)
        if again is not None:
            worker.call("complete", job, again, result=worker.result())


def restart(worker, job):
    """A worker started after a SIGKILL, under its predecessor's owner name."""
    worker.call("init_db", None)  # C1.3
    if job is not None:
        worker.call("enqueue", job)  # C2.2: the job is there
        fence = worker.claim(job)
        if fence is not None:
            hold(worker, job, fence, "plain")


PLAYS = {
    "plain": plain,
    "stall": stall,
    "late_renew": late_renew,
    "reclaim": reclaim,
    "take_back": take_back,
    "boundary": boundary,
    "retries": retries,
    "stranger": stranger,
}
