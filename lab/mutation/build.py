"""Put the pieces together: stage the code, have mutmut write its mutants, run the kill matrix,
and return the Report that the renderers print and write.

A report on the reference also runs the pre-built mutants, which change the reference: their
figures are about the reference and the lab's checks, so a report on any other code leaves them out.
"""

import time
from pathlib import Path

from lab.grading.kill_matrix import killed_by
from lab.model.course import load_course
from lab.model.implementation import assemble, display_path, read
from lab.model.mutants import SOLUTIONS_DIR
from lab.mutation import clauses, equivalents, kill_runs, last_run, listing, passing, stage, variants
from lab.mutation.model import Report
from lab.mutation.places import Places
from lab.text.messages import say


def build(impl, stage_dir=stage.STAGE_DIR, progress=None, learner_ledger=None, lang="en"):
    """learner_ledger: the learner's own equivalents (default: lab.mutation.equivalents.learner_ledger)."""
    started = time.monotonic()
    progress = progress or (lambda message: print(f"[{time.monotonic() - started:5.1f} s] {message}", flush=True))
    implementation = read(impl, lang=lang)
    label = display_path(impl).rstrip("/")
    source = assemble(implementation)
    places = Places.of(implementation)

    reference = is_reference(impl)
    # The lab's ledger covers the reference; for any other code, the learner's own ledger too.
    own_ledger = learner_ledger or equivalents.learner_ledger(impl)
    ledger = equivalents.Ledger() if reference else equivalents.Ledger(equivalents.LEDGER, own_ledger)
    stage.stage(source, stage_dir)
    with stage.generating(stage_dir) as generating:  # beside the checks below, on the other core
        snapshot = None if reference else stage.snapshot(implementation, stage_dir)
        steps = _planned_steps(snapshot, label, progress, lang)
        found = variants.read_variants(stage.generated(generating, stage_dir), stage.MODULE, source)
    progress(say("mutation.mutants", lang, count=len(found)))

    mutants = listing.mutmut_mutants(found, source, places, steps, ledger)
    if reference:
        mutants += listing.prebuilt_mutants(source, places)
    results = kill_runs.run(mutants, found, source, steps, stage_dir, progress, lang)
    table = _settled(mutants, results)
    if not reference:
        _excuse_by_kind(mutants, found, ledger)
    clauses.survivors_clauses(mutants, results)
    last_run.write(stage_dir, source, mutants)  # what `make equivalent` may record
    return Report(
        impl=label,
        files=places.texts(),
        steps_checked=tuple(steps),
        mutants=mutants,
        checks=_check_order(results),
        unused_ledger=ledger.unused(found) if reference else [],
        matrix=table,
        own_ledger=None if reference else display_path(own_ledger),
    )


def is_reference(impl):
    """Whether impl is the lab's reference, whose equivalents only the lab's ledger reviews."""
    return Path(impl).resolve() == SOLUTIONS_DIR.resolve()


def _planned_steps(snapshot, label, progress, lang):
    """The steps whose checks run against the mutants: those that pass, from step 1 on, checked
    on the implementation's snapshot (None: the reference, which passes every step);
    MutmutFailed if step 1 does not pass."""
    if snapshot is None:
        steps = tuple(s.number for s in load_course())
    else:
        steps = passing.passing_steps(snapshot, label, progress, lang)
    if not steps:
        raise stage.MutmutFailed("mutation.step_1_fails", label=label)
    progress(say("mutation.mutating", lang, file=label, first=steps[0], last=steps[-1]))
    return steps


def _settled(mutants, results):
    """The matrix (mutant id -> {check: status}), with each mutant's killers filled in."""
    table = {}
    for m in mutants:
        found_results = results.get(m.id, [])
        m.killed_by = killed_by(found_results)
        table[m.id] = {r.check: r.status for r in found_results}
    return table


def _excuse_by_kind(mutants, variants_found, ledger):
    """A mutmut survivor whose change is of the same kind as a ledger entry's is equivalent too."""
    by_id = {v.name: v for v in variants_found}
    for m in mutants:
        if m.origin == "mutmut" and m.scored and not m.detected:
            m.equivalent = ledger.by_kind(by_id[m.id])


def _check_order(results):
    order = {}
    for found in results.values():
        for r in found:
            order.setdefault(r.check, (r.step, r.nodeid.split("::")[0], r.nodeid.split("[")[0]))
    return [(check, order[check][1]) for check in sorted(order, key=lambda check: order[check])]
