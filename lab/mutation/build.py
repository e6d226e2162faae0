"""Put the pieces together: stage the code, have mutmut write its mutants, run the kill matrix,
and return the Report that the renderers print and write."""

import time
from pathlib import Path

from lab.model.implementation import assemble, display_path, read
from lab.grading.kill_matrix import killed_by
from lab.model.course import load_course
from lab.model.mutants import SOLUTIONS_DIR
from lab.mutation import equivalents, kill_runs, listing, passing, stage, variants
from lab.mutation.model import Report
from lab.text.messages import say

REFERENCE_FILE = "solutions.py"


def build(impl, stage_dir=stage.STAGE_DIR, progress=None, learner_ledger=equivalents.LEARNER_LEDGER, lang="en"):
    started = time.monotonic()
    progress = progress or (lambda message: print(f"[{time.monotonic() - started:5.1f} s] {message}", flush=True))
    implementation = read(impl, lang=lang)
    label = display_path(impl).rstrip("/")
    source = assemble(implementation)
    file_name = label if label.endswith(".py") else f"{label}.py"

    is_reference = Path(impl).resolve() == SOLUTIONS_DIR.resolve()
    # The lab's ledger covers the reference; for any other code, the learner's own ledger too.
    ledger = equivalents.Ledger() if is_reference else equivalents.Ledger(equivalents.LEDGER, learner_ledger)
    stage.stage(source, stage_dir)
    with stage.generating(stage_dir) as generating:  # beside the checks below, on the other core
        snapshot = None if is_reference else stage.snapshot(implementation, stage_dir)
        steps = _planned_steps(snapshot, label, source, file_name, progress, lang)
        found = variants.read_variants(stage.generated(generating, stage_dir), stage.MODULE, source)
    progress(say("mutation.mutants", lang, count=len(found)))

    reference = assemble(read(SOLUTIONS_DIR, label="solutions"))
    prebuilt_file = file_name if label == "solutions" else REFERENCE_FILE
    mutants = [
        *listing.mutmut_mutants(found, source, file_name, steps, ledger),
        *listing.prebuilt_mutants(reference, prebuilt_file),
    ]
    results = kill_runs.run(mutants, found, source, steps, stage_dir, progress, lang)
    table = _settled(mutants, results)
    files = {file_name: source}
    if prebuilt_file != file_name:
        files[prebuilt_file] = reference
    return Report(
        impl=label, files=files, steps_checked=tuple(steps), mutants=mutants, checks=_check_order(results),
        unused_ledger=ledger.unused(found) if is_reference else [], matrix=table,
    )


def _planned_steps(snapshot, label, source, file_name, progress, lang):
    """The steps whose checks run against the mutants: those that pass, from step 1 on, checked
    on the implementation's snapshot (None: the reference, which passes every step);
    MutmutFailed if step 1 does not pass."""
    if snapshot is None:
        steps = tuple(s.number for s in load_course())
    else:
        steps = passing.passing_steps(snapshot, label, source, progress, lang)
    if not steps:
        raise stage.MutmutFailed("mutation.step_1_fails", label=label)
    progress(say("mutation.mutating", lang, file=file_name, first=steps[0], last=steps[-1]))
    return steps


def _settled(mutants, results):
    """The matrix (mutant id -> {check: status}), with each mutant's killers filled in."""
    table = {}
    for m in mutants:
        found_results = results.get(m.id, [])
        m.killed_by = killed_by(found_results)
        table[m.id] = {r.check: r.status for r in found_results}
    return table


def _check_order(results):
    order = {}
    for found in results.values():
        for r in found:
            order.setdefault(r.check, (r.step, r.nodeid.split("::")[0], r.nodeid.split("[")[0]))
    return [(check, order[check][1]) for check in sorted(order, key=lambda check: order[check])]
