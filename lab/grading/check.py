"""One run of the checker: the learner's checks and the mutants' kill matrix, side by side."""

import functools
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from lab.grading import credit, kill_matrix, predictions
from lab.model.course import load_course
from lab.model.defaults import TIME_LIMIT
from lab.model.implementation import read
from lab.model.mutants import SOLUTIONS_DIR, load_mutants
from lab.model.results import MutantVerdict
from lab.model.status import ExitStatus
from lab.running import spare
from lab.running.runner import run
from lab.text.messages import say


@dataclass
class CheckRun:
    steps: tuple  # the steps whose checks ran against the learner's code
    impl: str
    results: list  # results.Result, one per check of the learner's code
    verdicts: list = field(default_factory=list)
    lab_problems: list = field(default_factory=list)
    kill_matrix_cached: bool = False  # the mutants' results came from build/cache/
    predictions: list = field(default_factory=list)  # predictions.Prediction, one per step whose mutants ran
    strict: bool = False  # a prediction that does not catch its step's snippet fails the run
    show_all: bool = False  # SHOW=all, the class's files: every mutant's id, diff and catching checks at once
    lang: str = "en"  # the language of the command: every reporter words the results' facts in it

    def predictions_fall_short(self):
        """The predictions that do not catch the broken change to review (for --strict)."""
        mutants = [v.mutant for v in self.verdicts]
        return [p for p in self.predictions if not p.catches_the_snippet(mutants)]

    def step_results(self, number):
        return [r for r in self.results if r.step == number]

    def step_passes(self, number):
        found = self.step_results(number)
        return bool(found) and all(r.passed for r in found)

    @property
    def exit_status(self):
        if self.lab_problems or any(v.survived for v in self.verdicts):
            return ExitStatus.LAB_BROKEN
        if self.strict and self.predictions_fall_short():
            return ExitStatus.SOME_FAIL
        return ExitStatus.ALL_PASS if all(self.step_passes(n) for n in self.steps) else ExitStatus.SOME_FAIL


def check(
    impl_path,
    steps,
    mutant_steps,
    time_limit=TIME_LIMIT,
    lang="en",
    impl_label=None,
    use_cache=True,
    strict=False,
    budget=None,
    credit_only=False,
):
    """Check the implementation at impl_path on `steps`, and the mutants of `mutant_steps`.

    budget: seconds the learner's checks may take in all (the rest is reported as not run).
    credit_only: each step's own checks only, the reference standing in for every other step
    (lab/grading/credit.py), as a class run gives credit and GitHub Classroom gives points.
    use_cache: the learner's checks, the mutants and the predictions reuse what an earlier run
    found for the same code and checks (lab/grading/kill_matrix.py); False runs all of them, and
    keeps what they find. Credit never reuses a verdict on the learner's code: it grades, and a
    submission's folder may hold any cache its author wrote.

    Both run at once, each in its own child process: the learner's code never shares a process
    with the mutants, so nothing it does can change the kill matrix.
    """
    if credit_only:
        implementation = read(impl_path, label=impl_label, lang=lang)
        label = implementation.label
        targets = credit.targets(label, impl_path, implementation, steps)
        learner_run = functools.partial(_credit_results, targets, label, time_limit, budget)
    else:
        job = kill_matrix.learner(impl_path, steps, impl_label, lang)
        label = job.target.id
        learner_run = functools.partial(_course_results, job, time_limit, use_cache, budget)
    mutants = [m for m in load_mutants() if m.step in mutant_steps]
    # The mutants and the predictions wait until the learner's verdicts are looked up: most often
    # found in the cache, they are work of this process's own, which would hold back the start of
    # the learner's checks; they are looked up while those run instead.
    learner_looked_up = threading.Event()
    with ThreadPoolExecutor(3) as pool:
        results = pool.submit(learner_run, learner_looked_up.set)
        mutant_run = pool.submit(_after, learner_looked_up, mutant_verdicts, mutants, time_limit, use_cache)
        # The learner's predictions meet the same mutants, in children of their own.
        predicted = pool.submit(
            _after,
            learner_looked_up,
            predictions.run_predictions,
            impl_path,
            tuple(mutant_steps),
            time_limit,
            use_cache,
        )
        verdicts, matrix_cached = mutant_run.result()
        outcome = CheckRun(
            tuple(steps),
            label,
            results.result(),
            verdicts,
            kill_matrix_cached=matrix_cached,
            predictions=predicted.result(),
            strict=strict,
            lang=lang,
        )
    spare.discard()  # a child started ahead for a part no run needed (make watch's): none outlives its run
    if Path(impl_path).resolve() == SOLUTIONS_DIR.resolve() and outcome.exit_status == ExitStatus.SOME_FAIL:
        outcome.lab_problems.append(say("reference_fails", lang))
    return outcome


def _after(event, function, *arguments):
    """function(*arguments), once event is set."""
    event.wait()
    return function(*arguments)


def _course_results(job, time_limit, use_cache, budget, looked_up):
    """The learner's checks of the course, each reused when nothing it can reach changed."""
    try:
        return kill_matrix.results([job], time_limit, use_cache, budget, looked_up)[0]
    finally:
        looked_up()  # when the look-up itself failed: the mutants need not wait for ever


def _credit_results(targets, label, time_limit, budget, looked_up):
    """Each step's own checks, the reference standing in for the other steps: never reused."""
    looked_up()
    results = run(targets, time_limit, budget)
    return [r for own in credit.split(results, label)[1].values() for r in own]


def mutant_verdicts(mutants, time_limit=TIME_LIMIT, use_cache=True):
    """Each mutant's verdict from the kill matrix, and whether the matrix came from the cache.

    A mutant that does not apply at exactly one place stops the run here, with its file named.
    """
    results, ran = kill_matrix.results(kill_matrix.prebuilt(mutants), time_limit, use_cache)
    return [_verdict(m, results) for m in mutants], not ran


def _verdict(mutant, results):
    own = [r for r in results if r.target == mutant.id]
    return MutantVerdict(mutant, killed_by=kill_matrix.killed_by(own), passed_by=[r.check for r in own if r.passed])


def step_results(impl_path, steps, time_limit=TIME_LIMIT):
    """The checks of `steps` against the implementation at impl_path, without mutants or
    predictions (make progress): one Result per check, reused where `make check-step` ran it."""
    results, _ = kill_matrix.results([kill_matrix.learner(impl_path, steps)], time_limit)
    return results


def every_step():
    return tuple(step.number for step in load_course())
