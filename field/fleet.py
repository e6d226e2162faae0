"""The stress run's worker processes: start them, jump the clock, SIGKILL them, restart them.

A worker asks for a clock jump when it stalls and for its SIGKILL once it stands inside a
transaction (see stress_worker.py); the parent does both at once. A killed worker is replaced by
a new process in the same slot (a new generation, the same owner name), told the job it was
killed on, until shortly before the end. Which generation offers itself to be killed, and after
how many calls, comes from the seed.
"""

import multiprocessing
import os
import random
import signal
import time
from multiprocessing.connection import wait

from field import stress_worker
from field.clock import Clock

HANG_LIMIT = 30.0  # seconds past the end before a worker that does not stop is reported hung
STARTUP_LIMIT = 120.0


class Fleet:
    def __init__(self, plan, size):
        self.plan, self.size = plan, size
        self.context = multiprocessing.get_context("spawn")
        self.clock = Clock(self.context.RawValue("d", 0.0), self.context.RawValue("d", 0.0))
        self.rng = random.Random(f"{plan.seed}/fleet")
        self.kill_budget = max(2, round(plan.seconds * 1.5))
        self.live = {}  # pipe -> [slot, generation, process, killed, the job of the killed call]
        self.started = self.jumps = self.planned = 0
        self.kills, self.problems = [], []  # kills: (owner, pid, seq); problems: (owner, (key, values))

    def spawn(self, slot, generation, resume=None):
        die_after = None
        if self.planned < self.kill_budget and self.rng.random() < 0.7:
            die_after, self.planned = self.rng.randint(8, 50), self.planned + 1
        reader, writer = self.context.Pipe(duplex=False)
        process = self.context.Process(
            target=stress_worker.run,
            args=(self.plan, slot, generation, *self.clock.cells, writer, die_after, resume),
            daemon=True,
        )
        process.start()
        writer.close()  # the worker holds the only write end: its death is an EOF here
        self.live[reader] = [slot, generation, process, False, None]
        self.started += 1

    def run(self):
        for slot in range(self.size):
            self.spawn(slot, 0)
        waiting, until = set(self.live), time.monotonic() + STARTUP_LIMIT
        while waiting and time.monotonic() < until:
            for reader in wait(list(waiting), timeout=1.0):
                self._receive(reader)
                waiting.discard(reader)
        self.clock.begin()
        end = self.clock.start + self.plan.seconds
        while self.live:
            sentinels = {entry[2].sentinel: reader for reader, entry in self.live.items()}
            for ready in wait(list(self.live) + list(sentinels), timeout=0.5):
                if ready in sentinels:
                    self._ended(sentinels[ready], end)
                elif ready in self.live:
                    self._receive(ready)
            if time.monotonic() > end + HANG_LIMIT:
                self._stop_hung()

    def _receive(self, reader):
        try:
            message = reader.recv()
        except (EOFError, OSError):
            return  # the worker died; its sentinel says how
        slot, generation, process, *_ = self.live[reader]
        if message[0] == "stall":
            self.clock.jump(self.plan.ttl * 1.01)
            self.jumps += 1
        elif message[0] == "kill":
            os.kill(process.pid, signal.SIGKILL)
            self.live[reader][3:] = [True, message[2]]
            self.kills.append((f"w{slot}.{generation}", process.pid, message[1]))

    def _ended(self, reader, end):
        slot, generation, process, killed, job = self.live.pop(reader)
        process.join()
        reader.close()  # what it still had to say ("done") no longer matters
        if killed and time.monotonic() < end - 0.25:
            self.spawn(slot, generation + 1, resume=job)
        elif not killed and process.exitcode != 0:
            self.problems.append((f"w{slot}.{generation}", ("worker_exit", {"code": process.exitcode})))

    def _stop_hung(self):
        for reader, (slot, generation, process, *_) in list(self.live.items()):
            process.kill()
            process.join()
            self.problems.append((f"w{slot}.{generation}", ("worker_hung", {})))
            self.live.pop(reader)
