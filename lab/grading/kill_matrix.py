"""The kill matrix: which check kills which mutant, for the pre-built mutants and mutmut's alike,
and the learner's own code checked by the same rule.

A job is a target of the runner and the text of the module its checks import. A pre-built
mutant is the reference with its one change, checked by its step
(``Target(id, (step,), mutant=id)``); a mutmut mutant is a module that lab/mutation/matrix.py
stages whole (``Target(id, steps, module_file=path)``); the learner's code is its files as read
once (``learner``: the checks run exactly the texts the keys were made of, so that an edit saved
during a run is never credited with its verdict). All run through lab.running.runner.run, in
one child process per core; the learner's code, run alone with slow checks enough, runs in two
parts at once (_parts).

Each check's results against a job are kept in the lab's cache store (lab.cache), keyed on what
decides them *as shown*: the part of the text that this one check can reach (lab.grading.reach),
with the place of every piece of it (file and line: a failure shows "at file, line N"), the
files' names as a report shows them, the checker (lab.grading.checker_digest: the checks, the
lab modules that run them, Python, SQLite, pytest, Hypothesis), the target's id and the time
limit. Not the other steps of the run: a check's results do not depend on them (a run that lost
a check is kept whole, under a key that holds its steps). Not the language: results are facts
(lab/model/results.py), a file that does not load included (lab/sandbox/loading.py), worded
only where they are shown. Not the problems the runner's probe finds first (lab/running/probe.py): they follow from the module-level
code of the files, which every check's text holds, and the time limit.

So ``make check`` reuses what ``make check-step N`` computed, ``LAB_LANG=ja`` what English did,
the mutation report what ``make check`` did, and an edit to one function recomputes only the
checks that can call it (of renew: step 5's, and the generated checks of steps 6-8), for each
mutant and for the learner's code. The mutation report and `make progress` send the learner's
code through here too.

Two kinds of verdict on the learner's code are never reused, and run again each time: a failure
of a check whose point is a race or timing (marked ``race`` in checks/, lab.model.checks.race_checks)
and a check that ran out of time. Either may be the machine's load as much as the code (claims of
a pool that did not overlap while the machine was busy, a correct call slowed past the limit), and
a reused verdict would pin it until the code changes; a real fault fails again. A race that passed
is reused like any other check, as long as nothing it reaches changed: the same code passes the
same deterministic interleavings, and a timing check passes only when the behaviour was seen. A
mutant's verdicts are all reused: a kill is what a mutant is for, and `make test` runs them fresh.

Whoever writes build/cache decides what is reused, so only the parent writes it: the checks and
the learner's code run confined, where build/ is not even seen (tests/test_verdict_reuse.py).
Unconfined (no bubblewrap), the learner's code could write it, and fool only its own author.
A class run and ``--credit`` (GitHub Classroom) never read learner verdicts from here: there a
submission's author could have written any file of the folder (lab/grading/classroom.py keeps its
own results, in the grader's output folder). ``use_cache=False`` (``FRESH=1``, ``--fresh``) reads
nothing and writes everything again.
"""

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace

from lab import cache
from lab.grading.checker_digest import checker_digest
from lab.grading.reach import check_text, relevant_text
from lab.model.checks import checks_of, race_checks, slow_checks, weight
from lab.model.defaults import TIME_LIMIT
from lab.model.implementation import assemble, display_path, placed_files, read
from lab.model.mutants import SOLUTIONS_DIR, apply
from lab.model.results import LOSSES, CheckStatus, Result
from lab.model.targets import Target
from lab.running.probe import SharedProbe
from lab.running.runner import NOT_RUN, run

NAMESPACE = "kill-matrix"
WHOLE = "every check"  # part of the key of a whole run's results (see Keys)


@dataclass(frozen=True)
class Job:
    target: Target
    text: str  # the module under test as one file: what the target's checks import
    # The files the text was assembled from: (the file as a report names it, its path, why it was
    # not read ("" when it was), the text's line that holds its line 1 (0 when not read)) each.
    files: tuple = ()
    learner: bool = False  # the learner's code: its failed races and timeouts are run again

    @property
    def starts(self):
        return tuple(line for *_, line in self.files if line) or (1,)


def job_of(target, implementation, learner=False):
    """The job of an implementation's files, checked as `target` says."""
    lines = dict(placed_files(implementation))
    files = tuple(
        (display_path(f.path), str(f.path), f.refused or ("" if f.text is not None else "missing"), lines.get(f, 0))
        for f in implementation.files
    )
    return Job(target, assemble(implementation), files, learner)


def prebuilt(mutants):
    """The jobs of pre-built mutants, each checked by its own step. A mutant that does not apply
    at exactly one place raises MutantError, naming its file."""
    reference = read(SOLUTIONS_DIR, label="solutions")
    return [job_of(Target(m.id, (m.step,), mutant=m.id), apply(m, reference)) for m in mutants]


def learner(impl_path, steps, label=None, lang="en"):
    """The job of the learner's code at impl_path on `steps`: its files read here once, and
    checked as read (the runner reads no file of it)."""
    impl = os.path.abspath(impl_path)  # the children do not run in this folder
    implementation = read(impl, label=label, lang=lang)
    files = tuple((f.steps, str(f.path), f.text, f.refused) for f in implementation.files)
    return job_of(Target(implementation.label, tuple(steps), impl=impl, files=files), implementation, learner=True)


def results(jobs, time_limit=TIME_LIMIT, use_cache=True, budget=None, looked_up=None):
    """(every job's results, in the jobs' and the checks' order; how many jobs ran, wholly or in
    part): the others came from the cache, and say so (Result.reused). budget: seconds the checks
    that run may take in all (lab.running.runner.run); a check it cuts short is a timeout, which
    is never reused for the learner, the only job with a budget. looked_up: called once the
    cache has been read, before any check runs."""
    checker = checker_digest()
    keys = {job.target.id: _keys(job, time_limit, checker) for job in jobs}
    found = {job.target.id: _cached(job, keys[job.target.id]) if use_cache else Found() for job in jobs}
    to_run = [t for job in jobs if (t := _narrowed(job.target, keys[job.target.id], found[job.target.id]))]
    if looked_up:
        looked_up()
    ran = _run_in_parallel(to_run, time_limit, budget)
    # A check of a partial run hung or crashed: that may change what the others report, run them all.
    lost = {
        t.id: replace(t, steps=_steps(keys[t.id].checks), checks=None)
        for t in to_run
        if t.checks is not None and _lossy(ran[t.id])
    }
    ran.update(_run_in_parallel(list(lost.values()), time_limit, budget))
    for target in to_run:
        target = lost.get(target.id, target)
        _store(target, ran[target.id], keys[target.id], found[target.id])
    return [r for job in jobs for r in found[job.target.id].ordered(keys[job.target.id])], len(to_run)


def pending(job, time_limit=TIME_LIMIT):
    """The steps of the job whose checks would run (see results): none when all are cached."""
    keys = _keys(job, time_limit, checker_digest())
    target = _narrowed(job.target, keys, _cached(job, keys))
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
    target, text, starts = job.target, job.text, job.starts
    common = (checker, target.id, str(float(time_limit)), *("\0".join(map(str, file[:3])) for file in job.files))
    return Keys(
        checks={
            (step, check): cache.key(*common, check, check_text(text, step, check, starts))
            for step in target.steps
            for check in checks_of(step)
        },
        whole=cache.key(*common, WHOLE, repr(target.steps), relevant_text(text, target.steps, starts)),
    )


def _cached(job, keys):
    whole = _reusable(job, _stored(keys.whole))
    if whole is not None:
        return Found(whole=whole)
    found = {name: _reusable(job, _stored(key)) for name, key in keys.checks.items()}
    return Found(checks={name: stored for name, stored in found.items() if stored is not None})


def _stored(key):
    """The results kept under key, or None."""
    try:
        return [replace(Result(**r), reused=True) for r in cache.get(NAMESPACE, key)]
    except TypeError:  # not there, or written by another version of Result
        return None


def _reusable(job, results):
    """The results, unless they are the learner's and hold a verdict that runs again each time (see
    the module's docstring): a failed race, or a check that ran out of time."""
    if results is None or not job.learner:
        return results
    again = any(r.status == CheckStatus.TIMEOUT or (not r.passed and r.check in race_checks(r.step)) for r in results)
    return None if again else results


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
    if target.checks is None and whole:
        found.checks, found.whole = {}, results
        _keep(keys.whole, results)
        return
    for name in keys.checks:
        if target.checks is None or (name[0] in target.steps and name[1] in target.checks):
            found.checks[name] = [r for r in results if (r.step, r.check) == name]
            _keep(keys.checks[name], found.checks[name])


def _keep(key, results):
    """Results are kept without what varies with the machine (the duration)."""
    cache.set(NAMESPACE, key, [replace(r, duration=0.0) for r in results])


def _steps(names):
    return tuple(sorted({step for step, _ in names}))


def _lossy(results):
    """Some check hung, crashed, or was never settled: its process was lost."""
    return any(r.status in LOSSES or r.message == NOT_RUN for r in results)


def _run_in_parallel(targets, time_limit, budget=None):
    """{target id: its results}, the targets shared out over one child process per core, each
    share as many checks as the others, as near as can be; the learner's code, when it runs alone
    with slow checks enough, is run in PARTS parts at once, one child each (see _parts), its files
    probed once for all of them."""
    alone = len(targets) == 1 and targets[0].impl  # the learner's code, its files read once, and no other target
    parts = _parts(targets[0]) if alone else []
    split = len(parts) > 1
    if split:
        found = _run_shares([[part] for part in parts], time_limit, budget, SharedProbe())
    else:
        found = _run_shares(_shared_out(targets), time_limit, budget)
    if split and len(parts[0].steps) == 1 and _lossy(found[targets[0].id]):
        # One step's checks in two children: each counted that step's timeouts and losses on its
        # own, where one run stops the step after TIMEOUT_LIMIT of them. Run it as one run does.
        found = _run_shares([targets], time_limit, budget)
    return found


def _run_shares(shares, time_limit, budget, probe=None):
    """probe: a SharedProbe when the shares are the parts of one target."""
    found = {target.id: [] for share in shares for target in share}
    with ThreadPoolExecutor(len(shares) or 1) as pool:
        for part in pool.map(lambda share: run(share, time_limit, budget, probe=probe), shares):
            for result in part:
                found[result.target].append(result)
    return {target_id: sorted(results, key=_collection_order) for target_id, results in found.items()}


def _shared_out(targets):
    """The targets in one share per core (at most one per target), the most checks first to the lightest share."""
    shares = [[] for _ in range(max(1, min(os.cpu_count() or 1, len(targets))))]
    load = [0] * len(shares)
    for target in sorted(targets, key=_checks_to_run, reverse=True):
        lightest = load.index(min(load))
        shares[lightest].append(target)
        load[lightest] += _checks_to_run(target)
    return [share for share in shares if share]


# The learner's code, run alone, is run in PARTS parts, in as many child processes at once, when it
# has at least PARTS * SLOW_PER_PART slow checks to run (lab.model.checks.slow_checks) and the lighter
# part would weigh at least MIN_PART seconds: a second child delays the first one's start by its
# share of the cores (about 0.04 s on 2 cores) and starts a learner process of its own (about as
# long), so a lighter part saves the run little or nothing. PARTS on every machine, whatever its
# cores, and the checks weighed by the table of their durations on the reference
# (lab.model.checks.weight), never by this run's clock, so that the same code is always run in the
# same parts. A part holds whole steps, so that it counts a step's timeouts and losses as one run
# does (after TIMEOUT_LIMIT and LOST_LIMIT of them the rest of the step is not run); the checks of a
# single step are shared out one by one, and run again in one part when one of them timed out or
# lost its process.
PARTS = 2
SLOW_PER_PART = 2
MIN_PART = 0.1


def _parts(target):
    """The target as one part, or as PARTS parts that take about as long: the heaviest group first,
    each to the part that weighs least so far, a group being a whole step or, when one step alone
    runs, one check (the longest-processing-time rule)."""
    names = [
        (step, check)
        for step in target.steps
        for check in checks_of(step)
        if target.checks is None or check in target.checks
    ]
    slow = [name for name in names if name[1] in slow_checks(name[0])]
    if len(slow) < PARTS * SLOW_PER_PART:
        return [target]
    steps = sorted({step for step, _ in names})
    groups = [[name] for name in names] if len(steps) == 1 else [[n for n in names if n[0] == s] for s in steps]
    weighed = sorted(((sum(weight(*name) for name in group), group) for group in groups), key=lambda wg: -wg[0])
    held, hands = [0.0] * PARTS, [set() for _ in range(PARTS)]
    for group_weight, group in weighed:  # sorted is stable: groups of equal weight in collection order
        lightest = held.index(min(held))
        held[lightest] += group_weight
        hands[lightest] |= set(group)
    if min(held) < MIN_PART:
        return [target]
    return [
        replace(target, steps=_steps(hand), checks=tuple(check for step, check in names if (step, check) in hand))
        for hand in hands
    ]


def _collection_order(result):
    """Results of parts run at once, put back in the order of one run: by step, then as collected."""
    order = list(checks_of(result.step))
    return result.step, order.index(result.check) if result.check in order else len(order)


def _checks_to_run(target):
    return len(target.checks) if target.checks is not None else sum(len(checks_of(step)) for step in target.steps)
