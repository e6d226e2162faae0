"""The targets a prediction host serves (lab/running/prediction_host.py), each in a learner process
of its own: started before its run (``prepare``, while the run before it goes on), ended with its
run (``end``) and gone before the next run begins, so that none outlives the run it served.
"""

import threading
from concurrent.futures import ThreadPoolExecutor

from lab.model.course import load_course
from lab.model.targets import implementation_of
from lab.sandbox.channel import REPLY_GRACE, ChannelLost, LearnerProcess, Stalled
from lab.sandbox.loading import load

TIMEOUT_RAISED = {
    "mro": [["builtins", "TimeoutError"], ["builtins", "OSError"], ["builtins", "Exception"]],
    "message": "",
}


class Targets:
    """The targets of the run by label (label -> Target); one's learner process is alive while it
    is called, and the next one's starts meanwhile."""

    def __init__(self, plan, labels):
        self.plan, self.labels = plan, labels
        self.serving, self.starting, self.ended, self.lock = {}, {}, set(), threading.Lock()
        self.starter = ThreadPoolExecutor(1)
        self.functions = {step.function for step in load_course()}

    def call(self, label, name, args, kwargs):
        """What the target's name(*args, **kwargs) gave, as its process sent it (no location)."""
        if name not in self.functions:
            raise KeyError(name)
        process = self._process(label)
        try:
            reply = process.ask("call", self.plan.time_limit + REPLY_GRACE, name=name, args=args, kwargs=kwargs)
        except (Stalled, ChannelLost):
            self._drop(label, process)
            return {"raised": {**TIMEOUT_RAISED, "message": f"no answer within {self.plan.time_limit:g} s"}}
        if "raised" in reply:
            return {"raised": {key: value for key, value in reply["raised"].items() if key != "where"}}
        return {"value": reply["value"]}

    def prepare(self, label):
        """Start the target's learner process now, its files loaded, for its run's first call."""
        with self.lock:
            if label not in self.starting and label not in self.serving and label not in self.ended:
                self.starting[label] = self.starter.submit(self._start, label)

    def _start(self, label):
        process = LearnerProcess(self.plan.scratch, self.plan.confined)
        try:
            load(process, implementation_of(self.labels[label]), {}, self.plan)
        except BaseException:
            process.kill()
            raise
        return process

    def _process(self, label):
        with self.lock:
            if label in self.ended:  # a call its run left behind
                raise KeyError(label)
            process = self.serving.get(label)
            if process is None or not process.alive:
                started = self.starting.pop(label, None)
                process = started.result() if started else None
                if process is None or not process.alive:
                    process = self._start(label)
                self.serving[label] = process
            return process

    def _drop(self, label, process):
        with self.lock:
            if self.serving.get(label) is process:
                del self.serving[label]
        process.kill()

    def end(self, label):
        """The target's run is over: its learner process ended, and gone (its channel closed: a
        write of it cannot land in the scratch folder after the launcher emptied it), and no
        call of it is served any more."""
        with self.lock:
            self.ended.add(label)
            process = self.serving.pop(label, None)
            started = self.starting.pop(label, None)
        if started:  # never called: ended once it has started
            started.add_done_callback(lambda done: done.exception() or done.result().kill())
        if process:
            process.kill()
            with process.arrived:
                process.arrived.wait_for(lambda: process.lost is not None, timeout=REPLY_GRACE)
