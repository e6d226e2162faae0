"""The host of a prediction run: ``python -m lab.running.prediction_host PLAN EVENTS_FD FILES…``.

A prediction is the learner's own test, so it runs as learner code runs: in a pytest child inside
a sandbox like a learner process's, which sees the lab's package, the checks' fixtures, the
virtual environment, its own files and the scratch folder, and nothing else (no reference, no
mutant, no plan that names them). That child runs each target's tests in a process forked for
that target alone (lab/running/prediction_launcher.py), which knows its target only by a label
drawn at random for this run and holds a channel of its own to this host: a socket for its calls,
a pipe for its events. The host serves a channel as its one target, whatever a request names, in
that target's own learner process; calls come back as values, exceptions and stored rows, without
where in a file an exception was raised. This host runs in the verdict sandbox, keeps the labels
to itself, and relays the events to the runner one target after the other, each label turned back
into the target's id; an event that names another label than its pipe's is dropped, and so is
anything but what was collected from the first child, which has no channel. So a prediction
tells the reference from a mutant by what it observes of the one target it is given, or not at all.

The targets' channels go to the child one at a time, over a control socket (SCM_RIGHTS), each once
the run before it is over here: its events relayed to the end of its pipe and its learner process
gone. A run whose pipe ends in the middle of a test (its process died) ends the whole child there,
as the end of a single process did: the runner then runs that test once more by itself
(lab/running/runner.py).
"""

import json
import os
import queue
import random
import secrets
import socket
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, replace
from pathlib import Path

from lab.model.course import LAB_ROOT
from lab.model.targets import Plan, Target
from lab.process import TESTS, spawn
from lab.running.prediction_targets import Targets
from lab.sandbox import confinement
from lab.sandbox.channel import end_all

BROKER = "LEASE_LAB_BROKER"  # the control socket's descriptor, in the prediction child's environment
LAUNCHER = "lab.running.prediction_launcher"  # the child's plugin that forks a process per target
CALLS_AT_ONCE = 32  # calls of one prediction in flight; more wait their turn
MAX_REQUEST = 1 << 20  # bytes of one request of the prediction child
# The prediction child's own writable folders, each a size-limited memory folder: its working
# folder first, and /dev/shm (POSIX shared memory); with the scratch folder, all it may write.
EMPTIED = (confinement.HOME_INSIDE, "/dev/shm")
LABEL_BYTES = 8  # a label is "t" and this many random bytes in hex: never guessed, and no use if it were


class Channel:
    """One target's channel, this host's ends: its calls (a socket) and its events (a pipe); the
    child's ends are handed over once (handed), then closed here."""

    def __init__(self):
        self.calls, child_calls = socket.socketpair()
        self.events, child_events = os.pipe()
        self.child = [child_calls.detach(), child_events]
        self.writing = threading.Lock()

    def handed(self):
        for fd in self.child:
            os.close(fd)

    def requests(self):
        """The child's requests, one JSON line each, until it closes its end or the run is over."""
        try:
            with self.calls.makefile("rb") as incoming:
                yield from iter(lambda: incoming.readline(MAX_REQUEST + 1), b"")
        except (OSError, ValueError):  # closed here, the run over before this was read
            return

    def reply(self, data):
        with self.writing:
            try:
                self.calls.sendall(data)
            except OSError:
                pass  # its process ended, or its run is over

    def close(self):
        try:
            self.calls.shutdown(socket.SHUT_RDWR)  # a reply stuck writing, and the reader, stop now
        except OSError:
            pass
        with self.writing:
            self.calls.close()
        os.close(self.events)


def serve(channels, targets):
    """Answer each target's requests, the channels one after the other as `channels` (a queue)
    hands them, until None."""
    with ThreadPoolExecutor(CALLS_AT_ONCE) as pool:
        while (given := channels.get()) is not None:
            label, channel = given
            for line in channel.requests():
                pool.submit(_answer, targets, label, line, channel)


def _answer(targets, label, line, channel):
    try:
        request = json.loads(line)
        ident = request["id"]
        kwargs = {str(key): value for key, value in dict(request.get("kwargs", {})).items()}
        answer = targets.call(label, request["name"], list(request["args"]), kwargs)
    except (ValueError, KeyError, TypeError):
        return  # not a request this host makes sense of: the call waits, and times out
    except Exception as error:  # noqa: BLE001 - the target's process could not serve: the call fails
        answer = {
            "raised": {
                "mro": [["builtins", "RuntimeError"]],
                "message": f"the target could not answer ({type(error).__name__})",
            }
        }
    channel.reply((json.dumps({"id": ident, **answer}) + "\n").encode())


def relay(events, out, labels, kinds=("collected", "start", "result")):
    """The events of one pipe, to its end, each label turned back into its target's id; others
    dropped. Whether a test started and never ended: the process running it died."""
    pending, running = b"", None
    while chunk := os.read(events, 1 << 16):
        lines = (pending + chunk).split(b"\n")
        pending = lines.pop()
        if len(pending) > MAX_REQUEST:  # no event is that long: a flood, dropped
            pending = b""
        for line in lines:
            event = _translated(line, labels, kinds)
            if event is None:
                continue
            if event["event"] != "collected":
                running = event["nodeid"] if event["event"] == "start" else None
            os.write(out, (json.dumps(event) + "\n").encode())
    return running is not None


def _translated(line, labels, kinds):
    try:
        event = json.loads(line)
        if event["event"] not in kinds:
            return None
        if event["event"] == "collected":
            return {**event, "items": [_named(item, labels) for item in event["items"]]}
        return _named(event, labels)
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def _named(item, labels):
    """One item or event with its label replaced by the target's id (KeyError: no such label)."""
    label = item["nodeid"].rsplit("[", 1)[1].rstrip("]")
    found = {**item, "nodeid": item["nodeid"].replace(f"[{label}]", f"[{labels[label].id}]")}
    if "target" in item:
        if item["target"] != label:
            raise KeyError(label)
        found["target"] = labels[label].id
    return found


def child_command(plan_path, files, confined):
    """The prediction child's command line: pytest over the prediction files with their plugin."""
    python = confinement.lab_python("lab.running.child")
    # No conftest.py, and no collection, above the files' own folder: each target's child collects
    # again, and would list every entry of its parents (of /tmp, without bubblewrap) each time.
    confcut = ["--confcutdir", os.path.dirname(files[0])] if files else []
    arguments = ["--assert=rewrite", "-p", "lab.running.prediction_plugin", "-p", LAUNCHER, *confcut, *files]
    if not confined:
        return [*python, str(plan_path), "{events}", *arguments]
    checks = LAB_ROOT / "checks"
    readable = [
        (plan_path, confinement.PLAN_INSIDE),
        LAB_ROOT / "lab",
        LAB_ROOT / "course.toml",
        sys.prefix,
        *(checks / name for name in ("conftest.py", "support.py", "pytest.ini")),
        *{os.path.dirname(f) for f in files},
    ]
    sandbox = confinement.bwrap(
        writable=[confinement.SCRATCH_INSIDE],
        readable=readable,
        quota=[*EMPTIED],
        working=confinement.HOME_INSIDE,
    )
    # Nothing else writable: what a target's run could leave for the next one is in EMPTIED, which
    # the launcher empties between them (lab/sandbox/apart.py).
    read_only = [part for folder in ("/", "/run", "/dev", "/tmp") for part in ("--remount-ro", folder)]
    return [*sandbox, *read_only, *python, confinement.PLAN_INSIDE, "{events}", *arguments]


def main(plan_path, out, files):
    plan = Plan.from_file(plan_path)
    labels = _labels(plan.targets)
    ids = {target.id: label for label, target in labels.items()}
    home = Path(os.environ.get("TMPDIR") or "/tmp")
    child_plan = replace(
        plan,
        targets=[asdict(Target(label, target.steps)) for label, target in labels.items()],
        skip=[_relabelled(nodeid, ids) for nodeid in plan.skip],
    )
    child_plan_path = home / "prediction-plan.json"
    child_plan.dump(child_plan_path)
    collected = os.pipe()  # the first child's events: what it collected, against every target
    control, handing = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    command = [
        part.replace("{events}", str(collected[1])) for part in child_command(child_plan_path, files, plan.confined)
    ]
    env = {**_needed(os.environ), "HOME": str(home), BROKER: str(handing.fileno())}
    # Limited as a learner process is, with the memory pytest and Hypothesis need.
    child = spawn(
        command,
        TESTS,
        session=False,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        cwd=home,
        env=env,
        pass_fds=(collected[1], handing.fileno()),
    )
    os.close(collected[1])
    handing.close()
    targets, channels = Targets(plan, labels), queue.Queue()
    threading.Thread(target=serve, args=(channels, targets), daemon=True).start()
    order = list(labels)
    for first in order[:1]:  # its learner process starts while the files are collected
        targets.prepare(first)
    relay(collected[0], out, labels, ("collected",))
    os.close(collected[0])
    for index, label in enumerate(order):
        for following in order[index + 1 : index + 2]:  # starts while this one runs
            targets.prepare(following)
        channel = Channel()
        try:
            socket.send_fds(control, [label.encode()], channel.child)
        except OSError:  # the child is gone: the runs left are not run
            channel.close()
            break
        finally:
            channel.handed()
        channels.put((label, channel))
        lost = relay(channel.events, out, {label: labels[label]})
        targets.end(label)
        channel.close()
        if lost:  # the run ends where that test did, as the end of one process ended it
            child.end()
            break
    channels.put(None)
    return child.wait()


def _labels(targets):
    """label -> target, in an order drawn at random, each label drawn at random."""
    labels = []
    while len(labels) < len(targets):
        label = f"t{secrets.token_hex(LABEL_BYTES)}"
        labels += [label] if label not in labels else []
    return dict(zip(labels, random.SystemRandom().sample(targets, len(targets)), strict=True))


# The variables a prediction child needs; the grader's others (its tokens, HOME, the lab's path)
# are never the learner's to read.
NEEDED = {"PATH", "TMPDIR", "LANG", "LC_ALL", "LC_CTYPE", "LAB_LANG", "PYTEST_DISABLE_PLUGIN_AUTOLOAD"}


def _needed(environment):
    return {name: value for name, value in environment.items() if name in NEEDED}


def _relabelled(nodeid, ids):
    target = nodeid.rsplit("[", 1)[-1].rstrip("]")
    return nodeid.replace(f"[{target}]", f"[{ids.get(target, target)}]")


if __name__ == "__main__":
    status = main(sys.argv[1], int(sys.argv[2]), sys.argv[3:])
    end_all()
    os._exit(status if status in (0, 1) else 1)
