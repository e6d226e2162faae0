"""The stress run's shared clock: one `now` for every process, never decreasing.

now = (time.monotonic() - start) + offset. CLOCK_MONOTONIC is one clock for every process on the
machine, and only the parent writes `start` (once) and `offset` (only ever adding to it: a clock
jump), so readers need no lock. A lock would be a hazard here: a worker killed with SIGKILL while
holding it would stop every other worker for good.
"""

import time


class Clock:
    def __init__(self, start, offset):
        self.cells = (start, offset)  # multiprocessing RawValue('d') each, handed to every worker
        self._start = start  # 0 until the parent starts the run
        self._offset = offset  # the sum of the clock jumps so far

    @property
    def start(self):
        return self._start.value

    def now(self):
        return round(time.monotonic() - self._start.value + self._offset.value, 6)

    def wait_for_start(self):
        while self._start.value == 0.0:
            time.sleep(0.002)

    def begin(self):
        """Parent only: the run starts now, for every worker at once."""
        self._start.value = time.monotonic()

    def jump(self, seconds):
        """Parent only: move every reader's `now` forward at once."""
        self._offset.value += seconds
