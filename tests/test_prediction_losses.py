"""A prediction is never judged from a lost run: a run of it that ends without its results is
run once more in a new child, and when that is lost too the prediction is "not judged", which no
total counts and the cache store never keeps (lab/running/runner.py, lab/cache.py)."""

import dataclasses
import functools

import pytest

from lab import cache
from lab.grading import predictions
from lab.model.course import load_course
from lab.model.mutants import load_mutants
from lab.model.prediction_file import PREDICTION_FILE
from lab.model.results import PredictionStatus, Result, Words
from lab.running import runner
from lab.sandbox import confinement

STEP_4 = load_course()[3]
SNIPPET = "m4-expired-counts-as-live"  # the broken change to review of step 4
CATCHES = """
def test_my_prediction(lease, db):
    lease.enqueue(db, "job")
    assert lease.claim(db, "job", "A", now=0, ttl=10) == 1
    assert lease.claim(db, "job", "B", now=10, ttl=5) == 2  # at now == until the lease has expired
"""
# Learner code the grader must survive: the test ends its own pytest process (os._exit is
# refused while a test runs, lab/running/recorder.py; a signal is not).
KILLS_ITSELF = """
import os
import signal


def test_my_prediction(lease, db):
    os.kill(os.getpid(), signal.SIGKILL)
"""
# The same, on its first run only: the scratch folder (the parent of each database's folder)
# outlives a child only where the run is not confined, where it is one folder of the run's own.
KILLS_ITSELF_ONCE = """
import os
import signal
from pathlib import Path


def test_my_prediction(lease, db):
    ran_before = Path(db).parent.parent / "ran-before"
    if not ran_before.exists():
        ran_before.touch()
        os.kill(os.getpid(), signal.SIGKILL)
""" + CATCHES.split("\n", 2)[2]


@pytest.fixture
def store(tmp_path, monkeypatch):
    """A cache store of the test's own, empty."""
    monkeypatch.setattr(cache, "ROOT", tmp_path / "cache")
    return tmp_path / "cache"


class Children(list):
    """The prediction runs' children: each call of the runner's run_child, with what it returned.
    lose(n): the machine loses the first n children (None: all) as if it killed each in its first
    test, an honest prediction's run among them: their events end at the start of that test."""

    losing = 0

    def lose(self, count):
        self.losing = count

    def run_child(self, real, *arguments):
        outcome = real(*arguments)
        if self.losing is None or len(self) < self.losing:
            events = []
            for event in outcome.events:
                events.append(event)
                if event.get("event") == "start":
                    break
            outcome = dataclasses.replace(outcome, events=events, returncode=1)
        self.append(outcome)
        return outcome


@pytest.fixture
def children(monkeypatch):
    started = Children()
    monkeypatch.setattr(runner, "run_child", functools.partial(started.run_child, runner.run_child))
    return started


def prediction(tmp_path, text, name="steps"):
    folder = tmp_path / name
    (folder / STEP_4.dir).mkdir(parents=True)
    (folder / STEP_4.dir / PREDICTION_FILE).write_text(text, encoding="utf-8")
    return folder


def kept(store):
    return sorted(path.name for path in (store / predictions.NAMESPACE).glob("*.json"))


def test_a_prediction_that_kills_its_own_process_is_run_again_then_not_judged_and_never_kept(tmp_path, store, children):
    folder = prediction(tmp_path, KILLS_ITSELF)
    (found,) = predictions.run_predictions(folder, (4,), time_limit=10)
    assert found.status == PredictionStatus.NOT_JUDGED and not found.complete
    assert found.message == Words("lost_run") and "not judged" in found.said("en") and "判定せず" in found.said("ja")
    assert found.caught_count == 0 and not found.catches_the_snippet(load_mutants())
    # Each of two targets lost twice (its run, then its run again), then the prediction's other
    # targets are given up: no third child dies for the same news.
    assert len(children) == 2 * runner.LOST_LIMIT
    assert kept(store) == []
    again = len(children)
    (second,) = predictions.run_predictions(folder, (4,), time_limit=10)
    assert len(children) > again and not second.cached  # run again, nothing served


def test_a_prediction_that_kills_its_process_once_is_judged_on_its_second_run(tmp_path, store, children, monkeypatch):
    monkeypatch.setattr(confinement, "available", lambda: False)  # so that ran-before outlives a child
    (found,) = predictions.run_predictions(prediction(tmp_path, KILLS_ITSELF_ONCE), (4,), time_limit=10)
    assert found.status == PredictionStatus.WRITTEN and found.caught(SNIPPET), found.said("en")
    assert len(children) == 3 and kept(store) != []  # the lost run, its run alone, the others


def test_a_run_the_machine_loses_twice_is_not_judged_and_the_same_text_is_judged_afresh(tmp_path, store, children):
    """An honest prediction, the machine at fault: if the loss had been kept, the same text would
    be served it again (as 'rejects correct code' used to be); it is judged anew instead."""
    folder = prediction(tmp_path, CATCHES)
    children.lose(None)
    (lost,) = predictions.run_predictions(folder, (4,), time_limit=10)
    assert lost.status == PredictionStatus.NOT_JUDGED and kept(store) == []
    children.lose(1)  # the first child only: the retry judges it
    children.clear()
    (found,) = predictions.run_predictions(prediction(tmp_path, CATCHES, "same-text"), (4,), time_limit=10)
    assert found.status == PredictionStatus.WRITTEN and found.caught(SNIPPET) and not found.cached
    assert len(children) == 3 and len(kept(store)) == 1  # the lost run, its run alone, the others
    (served,) = predictions.run_predictions(folder, (4,), time_limit=10)
    assert served.cached and served.outcomes == found.outcomes and len(children) == 3


def test_the_store_refuses_a_value_that_holds_an_incomplete_result_whatever_its_namespace(store):
    complete = Result("n", "test_x", "t", 4, [], "passed", "", 0.0)
    incomplete = dataclasses.replace(complete, status="crashed", message=Words("lost_run"), complete=False)
    not_judged = predictions.Prediction(4, "", PredictionStatus.NOT_JUDGED, Words("lost_run"))
    assert cache.set("kill-matrix", "a", [complete]) and cache.get("kill-matrix", "a")[0]["status"] == "passed"
    for namespace, value in (
        ("kill-matrix", [complete, incomplete]),
        ("predictions", [incomplete]),
        ("class-results", {"results": [complete], "predictions": [not_judged]}),
    ):
        assert cache.set(namespace, "b", value) is False and cache.get(namespace, "b") is None
    with pytest.raises(TypeError):
        cache.set("predictions", "c", [object()])
