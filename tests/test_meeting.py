"""The meeting that watches a function's calls (lab/sandbox/meeting.py), on its own: threads of a
pool call enter and leave around a short piece of work, as the stand-in for claim does.

With a lead, the calls that meet run after the lead has ended, and the lead returns after another
call: a race ends as the check chose, whatever the machine's load. Calls one after the other, or
a lead that never comes, cost the waits they cost without a lead, and no more."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed

import pytest

from lab import clock
from lab.sandbox.meeting import HOLD, Meeting

PATIENCE = 0.3


def calls(meeting, names, threads):
    """Each name a call in a pool of `threads`, submitted in order: (the events in the order they
    happened, the names in the order their futures completed)."""
    events, lock = [], threading.Lock()

    def call(name):
        leads = meeting.enter((name,))
        with lock:
            events.append(("start", name))
        time.sleep(0.005)
        with lock:
            events.append(("end", name))
        meeting.leave((name,), name, leads)
        if not leads:
            meeting.returned()
        return name

    with ThreadPoolExecutor(threads) as pool:
        futures = [pool.submit(call, name) for name in names]
        completed = [future.result() for future in as_completed(futures)]
    return events, completed


def lead_is(name):
    return lambda arguments: arguments == (name,)


NAMES = [f"n{i}" for i in range(12)]


@pytest.mark.parametrize("threads", [2, 5, len(NAMES)])
@pytest.mark.parametrize("run", range(3))
def test_the_lead_runs_first_alone_and_its_future_is_not_the_first_to_complete(waits, threads, run):
    events, completed = calls(Meeting(PATIENCE, lead_is("n0")), NAMES, threads)
    lead_ended = events.index(("end", "n0"))
    assert events[0] == ("start", "n0")
    assert all(events.index(("start", name)) > lead_ended for name in NAMES[1:])
    assert completed[0] != "n0" and sorted(completed) == sorted(NAMES)
    # no call waited its patience in vain: the lead returned once every other had, a tenth later
    assert waits == [round(PATIENCE / 10, 6)]


@pytest.fixture
def waits(monkeypatch):
    """The seconds of every wait the meeting gave up on, in order."""
    given_up, real = [], clock.wait_for

    def wait_for(condition, predicate, seconds):
        found = real(condition, predicate, seconds)
        if not found:
            given_up.append(round(seconds, 6))
        return found

    monkeypatch.setattr(clock, "wait_for", wait_for)
    return given_up


@pytest.mark.parametrize("lead", [None, "n0", "n3"])
def test_calls_one_after_the_other_wait_as_long_with_a_lead_as_without(waits, lead):
    meeting = Meeting(PATIENCE, lead_is(lead) if lead else None)
    events, completed = calls(meeting, NAMES[:5], threads=1)
    assert completed == NAMES[:5] and meeting.alone == 5 and meeting.peak == 1
    assert waits == [PATIENCE] + [round(PATIENCE / 10, 6)] * 4


def test_a_lead_that_never_comes_is_waited_for_once(waits):
    meeting = Meeting(PATIENCE, lead_is("absent"))
    events, completed = calls(meeting, NAMES, threads=4)
    assert sorted(completed) == sorted(NAMES) and meeting.peak >= 2
    assert waits.count(PATIENCE) == 1 and PATIENCE * HOLD not in waits


def test_a_connection_waits_longer_than_the_meetings_longest_hold_however_slow_the_check_clock():
    """The sockets of a watched call (the checks' Rendezvous, the learner's stand-in) give up after
    longest_wait wall seconds: more than the meeting's longest hold (the lead to come, to end, the
    others to return: HOLD + 2 patiences) on a check clock at its slowest pace, so a busy machine
    never cuts a call off that the meeting still holds (they gave up after patience + 5 s)."""
    for patience in (0.05, 0.3, 2.0):
        meeting = Meeting(patience, lead_is("n1"))
        assert meeting.longest_wait() * clock.MIN_PACE > (HOLD + 2) * patience
