"""The kill matrix: which check kills which mutant, for the pre-built mutants and mutmut's alike.

A mutant is a Job: a target of the runner and the text of the module its checks import. A
pre-built mutant is the reference with its one change, checked by its step
(``Target(id, (step,), mutant=id)``); a mutmut mutant is a module that lab/mutation/matrix.py
stages whole (``Target(id, steps, module_file=path)``). Both run through lab.running.runner.run, in one child process
per core.

Each check's results against a mutant are kept in the lab's cache store (lab.cache), keyed on
what decides them: the part of the text that this one check can reach (lab.grading.reach), the
checker (lab.grading.checker_digest), the mutant's id, steps and the time limit. Not the
language: the messages are kept as facts (lab/model/results.py), worded only where they are
shown. ``make check`` reuses what ``make check-step N`` computed, ``LAB_LANG=ja`` what English
did, the mutation report what ``make check`` did, and an edit to one function recomputes only
the checks that can call it (of renew: step 5's, and the generated checks of steps 6-8), for
each mutant. The mutation report sends the implementation itself through here too
(lab.mutation.passing).
"""

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace

from lab import cache
from lab.grading.checker_digest import checker_digest
from lab.grading.reach import check_text, relevant_text
from lab.model.checks import checks_of
from lab.model.defaults import TIME_LIMIT
from lab.model.implementation import assemble, read
from lab.model.mutants import SOLUTIONS_DIR, apply
from lab.model.results import LOSSES, Result
from lab.model.targets import Target
from lab.running.runner import NOT_RUN, run

NAMESPACE = "kill-matrix"
WHOLE = "every check"  # part of the key of a whole run's results (see Keys)


@dataclass(frozen=True)
class Job:
    target: Target
    text: str  # the module under test as one file: what the target's checks import


def prebuilt(mutants):
    """The jobs of pre-built mutants, each checked by its own step. A mutant that does not apply
    at exactly one place raises MutantError, naming its file."""
    reference = read(SOLUTIONS_DIR, label="solutions")
    return [Job(Target(m.id, (m.step,), mutant=m.id), assemble(apply(m, reference))) for m in mutants]


def results(jobs, time_limit=TIME_LIMIT, lang="en", use_cache=True):
    """(every job's results, in the jobs' and the checks' order; how many jobs ran, wholly or in
    part): the others came from the cache."""
    checker = checker_digest()
    keys = {job.target.id: _keys(job, time_limit, checker) for job in jobs}
    found = {job.target.id: _cached(keys[job.target.id]) if use_cache else Found() for job in jobs}
    to_run = [t for job in jobs if (t := _narrowed(job.target, keys[job.target.id], found[job.target.id]))]
    ran = _run_in_parallel(to_run, time_limit, lang)
    # A check of a partial run hung or crashed: that may change what the others report, run them all.
    lost = {
        t.id: replace(t, steps=_steps(keys[t.id].checks), checks=None)
        for t in to_run
        if t.checks is not None and _lossy(ran[t.id])
    }
    ran.update(_run_in_parallel(list(lost.values()), time_limit, lang))
    for target in to_run:
        target = lost.get(target.id, target)
        _store(target, ran[target.id], keys[target.id], found[target.id])
    return [r for job in jobs for r in found[job.target.id].ordered(keys[job.target.id])], len(to_run)


def pending(job, time_limit=TIME_LIMIT):
    """The steps of the job whose checks would run (see results): none when all are cached."""
    keys = _keys(job, time_limit, checker_digest())
    target = _narrowed(job.target, keys, _cached(keys))
    return target.steps if target else ()


def killed_by(results):
    """The names of the checks that fail against a mutant, each once, in the order they ran."""
    return list(dict.fromkeys(r.check for r in results if not r.passed))


@dataclass(frozen=True)
class Keys:
    """Where a job's results are kept in the cache store.

    A check's results depend on the text that it can reach, except in a run where some check
    hung or crashed: its process was replaced and, after LOST_LIMIT losses, the rest of its step
    was not run. Such a run is kept whole, keyed on the text that every check can reach."""

    checks: dict  # (step, check) -> the key of that check's results, in collection order
    whole: str  # the key of a whole run's results


@dataclass
class Found:
    """A job's results known so far: by check, or a whole run's."""

    checks: dict = field(default_factory=dict)  # (step, check) -> its results
    whole: list | None = None

    def missing(self, keys):
        return [] if self.whole is not None else [name for name in keys.checks if name not in self.checks]

    def ordered(self, keys):
        """Every result in collection order: the keys' order, or the whole run's."""
        if self.whole is not None:
            return self.whole
        return [r for name in keys.checks if name in self.checks for r in self.checks[name]]


def _keys(job, time_limit, checker):
    target, text = job.target, job.text
    common = (checker, target.id, repr(target.steps), str(float(time_limit)))
    return Keys(
        checks={
            (step, check): cache.key(*common, check, check_text(text, step, check))
            for step in target.steps
            for check in checks_of(step)
        },
        whole=cache.key(*common, WHOLE, relevant_text(text, target.steps)),
    )


def _cached(keys):
    whole = _stored(keys.whole)
    if whole is not None:
        return Found(whole=whole)
    return Found(checks={name: stored for name, key in keys.checks.items() if (stored := _stored(key)) is not None})


def _stored(key):
    try:
        return [Result(**r) for r in cache.get(NAMESPACE, key)]
    except TypeError:  # not there, or written by another version of Result
        return None


def _narrowed(target, keys, found):
    """The target with only its checks not found (every check when none is), or None when all are."""
    missing = found.missing(keys)
    if not missing:
        return None
    if len(missing) == len(keys.checks):
        return target
    return replace(target, steps=_steps(missing), checks=tuple(check for _, check in missing))


def _store(target, results, keys, found):
    """Keep what the target's run found: each check's results under its own key, or the whole
    run's when it ran every check and lost one (or ran one that lab.model.checks does not know,
    which no check's key covers)."""
    whole = _lossy(results) or any((r.step, r.check) not in keys.checks for r in results)
    results = [_quiet(r) for r in results]
    if target.checks is None and whole:
        found.checks, found.whole = {}, results
        cache.set(NAMESPACE, keys.whole, [r.as_json() for r in results])
        return
    for name in keys.checks:
        if target.checks is None or (name[0] in target.steps and name[1] in target.checks):
            found.checks[name] = [r for r in results if (r.step, r.check) == name]
            cache.set(NAMESPACE, keys.checks[name], [r.as_json() for r in found.checks[name]])


def _steps(names):
    return tuple(sorted({step for step, _ in names}))


def _lossy(results):
    """Some check hung, crashed, or was never settled: its process was lost."""
    return any(r.status in LOSSES or r.message == NOT_RUN for r in results)


def _quiet(result):
    """Without what varies with the machine: the duration."""
    return replace(result, duration=0.0)


def _run_in_parallel(targets, time_limit, lang):
    """{target id: its results}, the targets shared out over one child process per core, each
    share as many checks as the others, as near as can be."""
    shares = [[] for _ in range(max(1, min(os.cpu_count() or 1, len(targets))))]
    load = [0] * len(shares)
    for target in sorted(targets, key=_checks_to_run, reverse=True):
        lightest = load.index(min(load))
        shares[lightest].append(target)
        load[lightest] += _checks_to_run(target)
    found = {target.id: [] for target in targets}
    with ThreadPoolExecutor(len(shares)) as pool:
        for part in pool.map(lambda share: run(share, time_limit, lang), [share for share in shares if share]):
            for result in part:
                found[result.target].append(result)
    return found


def _checks_to_run(target):
    return len(target.checks) if target.checks is not None else sum(len(checks_of(step)) for step in target.steps)
