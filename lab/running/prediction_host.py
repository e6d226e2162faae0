"""The host of a prediction run: ``python -m lab.running.prediction_host PLAN EVENTS_FD FILES…``.

A prediction is the learner's own test, so it runs as learner code runs: in a pytest child inside
a sandbox like a learner process's, which sees the lab's package, the checks' fixtures, the
virtual environment, its own files and the scratch folder, and nothing else (no reference, no
mutant, no plan that names them). Its ``lease`` is a target it knows only by a label drawn at
random for this run; each call goes through this host to the target's own learner process and
comes back as values, exceptions and stored rows, without where in a file an exception was
raised. This host runs in the verdict sandbox, keeps the labels to itself, and relays the
child's events to the runner with each label turned back into the target's id; an event that
names no label of the run is dropped. So a prediction tells the reference from a mutant by what
it observes, or not at all.
"""

import json
import os
import random
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, replace
from pathlib import Path

from lab.model.course import LAB_ROOT, load_course
from lab.model.targets import Plan, Target, implementation_of
from lab.process import TESTS, spawn
from lab.sandbox import confinement
from lab.sandbox.channel import REPLY_GRACE, ChannelLost, LearnerProcess, Stalled, end_all
from lab.sandbox.loading import load

BROKER = "LEASE_LAB_BROKER"  # "REQUESTS_FD,REPLIES_FD" in the prediction child's environment
CALLS_AT_ONCE = 32  # calls of one prediction in flight; more wait their turn
MAX_REQUEST = 1 << 20  # bytes of one request of the prediction child
TIMEOUT_RAISED = {
    "mro": [["builtins", "TimeoutError"], ["builtins", "OSError"], ["builtins", "Exception"]],
    "message": "",
}


class Targets:
    """The targets of the run by label, each served by a learner process of its own, started
    when first called; those of other steps end then, so one step's are alive at a time."""

    def __init__(self, plan, labels):
        self.plan, self.labels = plan, labels  # label -> Target
        self.serving, self.lock = {}, threading.Lock()
        self.functions = {step.function for step in load_course()}

    def call(self, label, name, args, kwargs):
        """What the target's name(*args, **kwargs) gave, as its process sent it (no location)."""
        target = self.labels[label]
        if name not in self.functions:
            raise KeyError(name)
        process = self._process(label, target)
        try:
            reply = process.ask("call", self.plan.time_limit + REPLY_GRACE, name=name, args=args, kwargs=kwargs)
        except (Stalled, ChannelLost):
            self._end(label)
            return {"raised": {**TIMEOUT_RAISED, "message": f"no answer within {self.plan.time_limit:g} s"}}
        if "raised" in reply:
            return {"raised": {key: value for key, value in reply["raised"].items() if key != "where"}}
        return {"value": reply["value"]}

    def _process(self, label, target):
        with self.lock:
            for other in [k for k in self.serving if self.labels[k].steps != target.steps]:
                self._end(other)
            if label not in self.serving or not self.serving[label].alive:
                process = LearnerProcess(self.plan.scratch, self.plan.confined)
                load(process, implementation_of(target), {}, self.plan)
                self.serving[label] = process
            return self.serving[label]

    def _end(self, label):
        process = self.serving.pop(label, None)
        if process:
            process.kill()


def serve(targets, requests, replies):
    """Answer the child's requests (one JSON line each) until it closes its end."""
    writing = threading.Lock()
    with ThreadPoolExecutor(CALLS_AT_ONCE) as pool, os.fdopen(requests, "rb") as incoming:
        for line in iter(lambda: incoming.readline(MAX_REQUEST + 1), b""):
            pool.submit(_answer, targets, line, replies, writing)


def _answer(targets, line, replies, writing):
    try:
        request = json.loads(line)
        ident = request["id"]
        kwargs = {str(key): value for key, value in dict(request.get("kwargs", {})).items()}
        answer = targets.call(request["target"], request["name"], list(request["args"]), kwargs)
    except (ValueError, KeyError, TypeError):
        return  # not a request this host makes sense of: the call waits, and times out
    except Exception as error:  # noqa: BLE001 - the target's process could not serve: the call fails
        answer = {
            "raised": {
                "mro": [["builtins", "RuntimeError"]],
                "message": f"the target could not answer ({type(error).__name__})",
            }
        }
    data = (json.dumps({"id": ident, **answer}) + "\n").encode()
    with writing:
        while data:
            data = data[os.write(replies, data) :]


def relay(events, out, labels):
    """The child's events, each label turned back into its target's id; others dropped."""
    pending = b""
    while chunk := os.read(events, 1 << 16):
        lines = (pending + chunk).split(b"\n")
        pending = lines.pop()
        if len(pending) > MAX_REQUEST:  # no event is that long: a flood, dropped
            pending = b""
        for line in lines:
            event = _translated(line, labels)
            if event is not None:
                os.write(out, (json.dumps(event) + "\n").encode())


def _translated(line, labels):
    try:
        event = json.loads(line)
        if event["event"] == "collected":
            return {**event, "items": [_named(item, labels) for item in event["items"]]}
        return _named(event, labels) if event["event"] in ("start", "result") else None
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
    arguments = ["--assert=rewrite", "-p", "lab.running.prediction_plugin", *files]
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
        quota=[confinement.HOME_INSIDE],
        working=confinement.HOME_INSIDE,
    )
    return [*sandbox, *python, confinement.PLAN_INSIDE, "{events}", *arguments]


def main(plan_path, out, files):
    plan = Plan.from_file(plan_path)
    shuffled = random.SystemRandom().sample(plan.targets, len(plan.targets))
    labels = {f"t{n}": target for n, target in enumerate(shuffled, 1)}
    ids = {target.id: label for label, target in labels.items()}
    home = Path(os.environ.get("TMPDIR") or "/tmp")
    child_plan = replace(
        plan,
        targets=[asdict(Target(label, target.steps)) for label, target in labels.items()],
        skip=[_relabelled(nodeid, ids) for nodeid in plan.skip],
    )
    child_plan_path = home / "prediction-plan.json"
    child_plan.dump(child_plan_path)
    events, (requests, to_host), (from_host, replies) = os.pipe(), os.pipe(), os.pipe()
    command = [
        part.replace("{events}", str(events[1])) for part in child_command(child_plan_path, files, plan.confined)
    ]
    env = {**_needed(os.environ), "HOME": str(home), BROKER: f"{to_host},{from_host}"}
    # Limited as a learner process is, with the memory pytest and Hypothesis need.
    child = spawn(
        command,
        TESTS,
        session=False,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        cwd=home,
        env=env,
        pass_fds=(events[1], to_host, from_host),
    )
    for fd in (events[1], to_host, from_host):
        os.close(fd)
    threading.Thread(target=serve, args=(Targets(plan, labels), requests, replies), daemon=True).start()
    relay(events[0], out, labels)
    return child.wait()


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
