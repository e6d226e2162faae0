"""The worker as a command, with the standard library alone: `python3 FOLDER COMMAND`.

    cp -r field/example myworker
    make artifact IMPL=solutions OUT=myworker/lease.py    # the eight functions in one file
    python3 myworker init
    python3 myworker enqueue job-1 job-2 job-3
    python3 myworker run --owner host-a --drain           # in as many terminals as you like
    python3 myworker dead                                 # the jobs with no attempt left
    python3 myworker requeue job-2

The job's work is work.py's work(): replace it with yours.
"""

import argparse
import importlib.util
import socket
import sys
import time
from functools import partial
from pathlib import Path

if __package__:  # python -m field.example, inside the lab
    from . import fenced_store, jobs_db, work, worker
else:  # python3 FOLDER: the folder is first on sys.path
    import fenced_store
    import jobs_db
    import work
    import worker


def load_lease(path):
    """The artifact at path (`make artifact OUT=...`), imported as a module named lease."""
    spec = importlib.util.spec_from_file_location("lease", path)
    lease = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(lease)
    return lease


def run(arguments, lease):
    send = partial(fenced_store.write, arguments.store)
    taker = worker.Worker(
        lease, arguments.db, send, arguments.owner, arguments.ttl, max_attempts=arguments.max_attempts
    )
    while True:
        done = taker.run_once(work.work)
        if done is None:
            if arguments.drain:
                return 0
            time.sleep(arguments.poll)  # nothing free: look again later
        else:
            print(f"{arguments.owner}: {done.job} {outcome(done, arguments.max_attempts)}", flush=True)


def outcome(done, max_attempts):
    """What became of one turn, in a few words."""
    if done.completed:
        return f"done (attempt {done.attempt}, fence {done.fence})"
    if done.error:
        moved = ", moved to the dead letter" if done.dead else ""
        return f"failed (attempt {done.attempt} of {max_attempts}, fence {done.fence}): {done.error}{moved}"
    if done.dead:
        return f"moved to the dead letter: the lease of its last attempt ({done.attempt}) ran out"
    return f"refused (attempt {done.attempt}, fence {done.fence}): the lease was lost"


def dead(arguments, lease):
    for job in jobs_db.dead_letters(arguments.db):
        print(f"{job['id']}: {job['attempts']} attempts, fence {job['fence']}, last error: {job['error']}")
    return 0


def requeue(arguments, lease):
    missing = [job for job in arguments.jobs if not jobs_db.requeue(arguments.db, job)]
    for job in missing:
        print(f"{job} is not in the dead letter", file=sys.stderr)
    return 1 if missing else 0


def init(arguments, lease):
    jobs_db.setup(lease, arguments.db)
    fenced_store.create(arguments.store)
    return 0


def enqueue(arguments, lease):
    for job in arguments.jobs:
        if not lease.enqueue(arguments.db, job):
            print(f"{job} is already there, left as it is", file=sys.stderr)
    return 0


def parser():
    here = Path(__file__).resolve().parent
    top = argparse.ArgumentParser(prog=f"python3 {here.name}", description=__doc__.splitlines()[0])
    top.add_argument("--db", default="jobs.db", help="the jobs database (default jobs.db)")
    top.add_argument("--store", default="effects.db", help="the fenced store of side effects (default effects.db)")
    top.add_argument("--lease", default=here / "lease.py", help="the artifact (default: lease.py in this folder)")
    commands = top.add_subparsers(dest="command", required=True)
    commands.add_parser("init", help="create the tables, the index and the store").set_defaults(do=init)
    for name, do, text in (("enqueue", enqueue, "add jobs"), ("requeue", requeue, "give dead jobs new attempts")):
        commands.add_parser(name, help=text).set_defaults(do=do)
        commands.choices[name].add_argument("jobs", nargs="+")
    commands.add_parser("dead", help="list the dead letter").set_defaults(do=dead)
    runs = commands.add_parser("run", help="take jobs and do them")
    runs.set_defaults(do=run)
    runs.add_argument("--owner", default=socket.gethostname(), help="this worker's name (default: the host's)")
    runs.add_argument("--ttl", type=float, default=30.0, help="seconds a lease lasts unless renewed (default 30)")
    runs.add_argument("--max-attempts", type=int, default=3, help="claims of a job before the dead letter (3)")
    runs.add_argument("--drain", action="store_true", help="stop when no job is free instead of waiting")
    runs.add_argument("--poll", type=float, default=1.0, help="seconds to wait when no job is free (default 1)")
    return top


def main(argv=None):
    arguments = parser().parse_args(argv)
    if not Path(arguments.lease).is_file():
        sys.exit(f"no artifact at {arguments.lease}: make artifact OUT={arguments.lease}")
    return arguments.do(arguments, load_lease(arguments.lease))


if __name__ == "__main__":
    sys.exit(main())
