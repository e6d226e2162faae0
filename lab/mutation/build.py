"""Put the pieces together: stage and run mutmut, read its mutants, run the kill matrix, and
return the Report that the renderers print and write."""

import time
from dataclasses import dataclass
from pathlib import Path

from lab.model.implementation import assemble, display_path, read
from lab.grading.kill_matrix import killed_by
from lab.model.course import load_course
from lab.model.mutants import SOLUTIONS_DIR
from lab.mutation import equivalents, kill_runs, listing, passing, stage, variants
from lab.mutation.model import Report

REFERENCE_FILE = "solutions.py"


def build(impl, stage_dir=stage.STAGE_DIR, echo=False, progress=None, learner_ledger=equivalents.LEARNER_LEDGER):
    started = time.monotonic()
    progress = progress or (lambda message: print(f"[{time.monotonic() - started:5.1f} s] {message}", flush=True))
    implementation = read(impl)
    label = display_path(impl).rstrip("/")
    source = assemble(implementation)
    file_name = label if label.endswith(".py") else f"{label}.py"

    stage.stage(source, stage_dir)
    generating = stage.start_generating(stage_dir)  # beside the checks below, on the other core
    steps = _planned_steps(impl, label, source, file_name, generating, stage_dir, progress)
    is_reference = Path(impl).resolve() == SOLUTIONS_DIR.resolve()
    # The lab's ledger covers the reference; for any other code, the learner's own ledger too.
    ledger = equivalents.Ledger() if is_reference else equivalents.Ledger(equivalents.LEDGER, learner_ledger)
    mutmut = _start_mutmut(generating, source, ledger, stage_dir, echo, progress)

    reference = assemble(read(SOLUTIONS_DIR, label="solutions"))
    prebuilt_file = file_name if label == "solutions" else REFERENCE_FILE
    mutants = [
        *listing.mutmut_mutants(mutmut.variants, source, file_name, steps, ledger),
        *listing.prebuilt_mutants(reference, prebuilt_file),
    ]
    results = kill_runs.run(mutants, mutmut, source, steps, stage_dir, progress)
    table = _settled(mutants, results)
    files = {file_name: source}
    if prebuilt_file != file_name:
        files[prebuilt_file] = reference
    return Report(
        impl=label, files=files, steps_checked=tuple(steps), mutants=mutants, checks=_check_order(results),
        unused_ledger=ledger.unused(mutmut.variants) if is_reference else [], matrix=table,
    )


def _planned_steps(impl, label, source, file_name, generating, stage_dir, progress):
    """The steps whose checks mutmut runs, written to the stage; MutmutFailed if step 1 does not pass."""
    steps = _passing_steps(impl, label, source, progress)
    if not steps:
        generating.communicate()
        raise stage.MutmutFailed(f"{label}: step 1 does not pass its checks yet, so there is nothing to mutate")
    progress(f"mutmut: mutating {file_name}, checked by steps {steps[0]}-{steps[-1]} ...")
    stage.plan(steps, stage_dir)
    return steps


def _passing_steps(impl, label, source, progress):
    """The steps mutmut may use: those whose checks pass, from step 1 on (the reference passes all)."""
    if Path(impl).resolve() == SOLUTIONS_DIR.resolve():
        return tuple(s.number for s in load_course())
    return passing.passing_steps(impl, label, source, progress)


@dataclass
class MutmutRun:
    """mutmut's mutants of the staged module, and its run testing those it has no verdict for yet."""

    variants: list
    known: dict  # mutant id -> mutmut's verdict before this run
    testing: set  # the ids of the mutants this run tests
    process: object  # this run, or None when there is nothing to test
    stage_dir: Path

    def verdicts(self):
        """mutmut's verdicts by mutant id, once its run has ended."""
        if self.process:
            stage.finish(self.process, self.stage_dir)
        return stage.results(self.stage_dir)


def _start_mutmut(generating, source, ledger, stage_dir, echo, progress):
    """mutmut's mutants, once it has generated them, and its run over those still to test."""
    if stage.generated(generating, stage_dir):
        found = variants.read_variants(stage.mutated_source(stage_dir), stage.MODULE, source)
        known = stage.results(stage_dir)
        # Equivalent mutants survive every check by definition and cost the most (each runs every
        # check of its function to the end), so mutmut skips them; it keeps the results of
        # functions whose text did not change, so it tests only the rest. It runs beside the
        # kill matrix, which needs only the mutants' text.
        to_test = [v.name for v in found if not ledger.match(v) and known.get(v.name, "not checked") == "not checked"]
        process = stage.start_mutmut(to_test, stage_dir, echo=echo) if to_test else None
    else:  # this mutmut cannot only generate: let it run everything first
        stage.finish(stage.start_mutmut((), stage_dir, echo=echo), stage_dir)
        found = variants.read_variants(stage.mutated_source(stage_dir), stage.MODULE, source)
        known, to_test, process = stage.results(stage_dir), [], None
    progress(f"mutmut: {len(found)} mutants; {'testing ' + str(len(to_test)) if process else 'nothing new to test'}")
    return MutmutRun(found, known, set(to_test), process, stage_dir)


def _settled(mutants, results):
    """The matrix (mutant id -> {check: status}), with each mutant's killers, a pre-built one's
    status and, where mutmut and the checker disagree, a note filled in."""
    table = {}
    for m in mutants:
        found_results = results.get(m.id, [])
        m.killed_by = killed_by(found_results)
        table[m.id] = {r.check: r.status for r in found_results}
        if m.origin == "pre-built":
            m.status = _checker_status(found_results)
        elif m.id in results:
            m.note = _disagreement(m)
    return table


def _checker_status(results):
    if not results:
        return "not checked"
    statuses = {r.status for r in results}
    if statuses == {"passed"}:
        return "survived"
    if statuses & {"failed", "error", "crashed", "not_implemented"}:
        return "killed"
    return "timeout"


def _disagreement(mutant):
    if mutant.detected and not mutant.killed_by:
        return "mutmut saw a check fail, but in the checker every check passes: a flaky check?"
    if mutant.status == "survived" and mutant.killed_by:
        return "mutmut saw every check pass, but in the checker some fail: a flaky check?"
    return ""


def _check_order(results):
    order = {}
    for found in results.values():
        for r in found:
            order.setdefault(r.check, (r.step, r.nodeid.split("::")[0], r.nodeid.split("[")[0]))
    return [(check, order[check][1]) for check in sorted(order, key=lambda check: order[check])]
