"""Whether claim_many's claims run at the same time, counted where the learner's code cannot reach.

Each claim announces itself (``enter``) and then waits, up to `patience` seconds, until some claim
other than itself is running: claims in a pool of two or more threads meet at once; claims made
one after the other never do, and each of them is counted as having run alone. When the claim
ends (``leave``) its owner, now, ttl and answer are recorded.

For the lab's own code the stand-in for ``claim`` calls the meeting directly (local.py); for a
learner's, the stand-in in the learner process sends ``enter`` and ``leave`` over the channel
and waits for the checks' ``go`` (remote.py): the counts live in the checks' process, so code
under test that reaches for the stand-in finds nothing to overwrite.
"""

import threading


class Meeting:
    def __init__(self, patience):
        self.patience = patience
        self.change = threading.Condition()
        self.running = self.peak = self.alone = 0
        self.calls = []  # (owner, now, ttl, what claim returned), in the order the calls ended

    def enter(self):
        """One claim starts; returns once it met another, or waited in vain."""
        with self.change:
            self.running += 1
            self.peak = max(self.peak, self.running)
            self.change.notify_all()
            # Once one claim waited in vain, the next are counted with a short wait: one after
            # the other, forty claims would otherwise outlast the time limit.
            patience = self.patience if not self.alone else self.patience / 10
            if not self.change.wait_for(lambda: self.peak >= 2, timeout=patience):
                self.alone += 1

    def leave(self, owner, now, ttl, answer):
        with self.change:
            self.running -= 1
            if not isinstance(answer, BaseException):
                self.calls.append((owner, now, ttl, answer))
