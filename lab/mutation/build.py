"""Put the pieces together: stage and run mutmut, read its mutants, run the kill matrix, and
return the Report that the renderers print and write."""

import ast
import difflib
import time
from pathlib import Path

from lab.model.course import load_course
from lab.model.implementation import assemble, display_path, read
from lab.grading.kill_matrix import killed_by
from lab.model.mutants import SOLUTIONS_DIR, load_mutants
from lab.mutation import equivalents, matrix, passing, reach, stage, variants
from lab.mutation.model import DETECTED, Mutant, Report, change_location, text_location

REFERENCE_FILE = "solutions.py"


def build(impl, stage_dir=stage.STAGE_DIR, echo=False, progress=None, learner_ledger=equivalents.LEARNER_LEDGER):
    started = time.monotonic()
    progress = progress or (lambda message: print(f"[{time.monotonic() - started:5.1f} s] {message}", flush=True))
    implementation = read(impl)
    label = display_path(impl).rstrip("/")
    source = assemble(implementation)
    file_name = label if label.endswith(".py") else f"{label}.py"
    course = load_course()
    function_step = {s.function: s.number for s in course}

    stage.stage(source, stage_dir)
    generating = stage.start_generating(stage_dir)  # beside the checks below, on the other core
    steps = _passing_steps(impl, label, source, progress)
    if not steps:
        generating.communicate()
        raise stage.MutmutFailed(f"{label}: step 1 does not pass its checks yet, so there is nothing to mutate")
    progress(f"mutmut: mutating {file_name}, checked by steps {steps[0]}-{steps[-1]} ...")
    stage.plan(steps, stage_dir)
    is_reference = Path(impl).resolve() == SOLUTIONS_DIR.resolve()
    # The lab's ledger covers the reference; for any other code, the learner's own ledger too.
    ledger = equivalents.Ledger() if is_reference else equivalents.Ledger(equivalents.LEDGER, learner_ledger)
    running = None
    if stage.generated(generating, stage_dir):
        found = variants.read_variants(stage.mutated_source(stage_dir), stage.MODULE, source)
        known = stage.results(stage_dir)
        # Equivalent mutants survive every check by definition and cost the most (each runs every
        # check of its function to the end), so mutmut skips them; it keeps the results of
        # functions whose text did not change, so it tests only the rest. It runs beside the
        # kill matrix, which needs only the mutants' text.
        to_test = [v.name for v in found if not ledger.match(v) and known.get(v.name, "not checked") == "not checked"]
        if to_test:
            running = stage.start_mutmut(to_test, stage_dir, echo=echo)
    else:  # this mutmut cannot only generate: let it run everything first
        stage.finish(stage.start_mutmut((), stage_dir, echo=echo), stage_dir)
        found = variants.read_variants(stage.mutated_source(stage_dir), stage.MODULE, source)
        known, to_test = stage.results(stage_dir), []
    progress(f"mutmut: {len(found)} mutants; {'testing ' + str(len(to_test)) if running else 'nothing new to test'}")
    first_lines = _first_lines(source)

    step_of = _step_of_function(source, function_step, steps)
    mutants = []
    for v in found:
        location, replacement = change_location(v.original, v.mutated, first_lines[v.function])
        equivalence = ledger.match(v)
        mutants.append(Mutant(
            id=v.name, origin="mutmut", step=step_of(v.function), function=v.function,
            status="equivalent" if equivalence else "not checked", diff=v.diff(),
            file=file_name, location=location, replacement=replacement, equivalent=equivalence,
        ))
    reference = assemble(read(SOLUTIONS_DIR, label="solutions"))
    prebuilt_file = file_name if label == "solutions" else REFERENCE_FILE
    for m in load_mutants():
        mutants.append(Mutant(
            id=m.id, origin="pre-built", step=m.step, function=course[m.edits_step - 1].function,
            status="not checked", diff=_prebuilt_diff(m), file=prebuilt_file,
            location=text_location(reference, m.find), replacement=m.replace, clause=m.clause,
        ))

    by_id = {v.name: v for v in found}
    jobs = []
    for m in mutants:
        if m.origin == "mutmut" and m.step in steps and not m.equivalent:
            jobs.append((m.id, (m.step,), by_id[m.id].module(source), None))
        elif m.origin == "pre-built":
            jobs.append((m.id, (m.step,), None, m.id))

    def later(m):
        """Its run with the later steps too; its own id keeps its cache entry beside the first."""
        return (f"{m.id} with later steps", tuple(s for s in steps if s >= m.step), by_id[m.id].module(source), None)

    def needs_later(m, own, status):
        """mutmut saw it killed, only by a later step's check (claim_many calls claim): run it
        again with the later steps, so that its killers are named too."""
        return (
            m.origin == "mutmut" and not m.equivalent and own is not None and status in DETECTED
            and not killed_by(own) and any(s > m.step for s in steps)
        )

    # Where both are known already (mutmut keeps the verdicts of functions it does not re-test;
    # the matrix cache has the first run), that second run joins the first instead of waiting.
    cached, testing = matrix.peek(jobs), set(to_test)
    early = [later(m) for m in mutants if m.id not in testing and needs_later(m, cached.get(m.id), known.get(m.id))]
    progress(f"kill matrix: {len(jobs)} mutants through the checker ...")
    results, ran = matrix.kill_matrix(jobs + early, stage_dir)
    if running:
        stage.finish(running, stage_dir)
    statuses = stage.results(stage_dir)
    progress("mutmut: done")
    for m in mutants:
        if m.origin == "mutmut" and not m.equivalent:
            m.status = statuses.get(m.id, "not checked")
    again = {m.id: later(m) for m in mutants if needs_later(m, results.get(m.id), m.status)}
    late = [job for job in again.values() if job[0] not in results]
    if late:
        more, ran_late = matrix.kill_matrix(late, stage_dir)
        results.update(more)
        ran += ran_late
    progress(f"kill matrix: {ran} mutants ran, {len(jobs) + len(early) + len(late) - ran} from the cache")
    # the later-steps results replace the first ones; early runs no longer needed are dropped
    everything, later_ids = results, {job[0] for job in early + late}
    results = {target: found for target, found in everything.items() if target not in later_ids}
    results.update({m_id: everything[job[0]] for m_id, job in again.items()})

    table = {}
    for m in mutants:
        found_results = results.get(m.id, [])
        m.killed_by = killed_by(found_results)
        table[m.id] = {r.check: r.status for r in found_results}
        if m.origin == "pre-built":
            m.status = _checker_status(found_results)
        elif m.id in results:
            m.note = _disagreement(m)
    checks = _check_order(results)
    files = {file_name: source}
    if prebuilt_file != file_name:
        files[prebuilt_file] = reference
    return Report(
        impl=label, files=files, steps_checked=tuple(steps), mutants=mutants, checks=checks,
        unused_ledger=ledger.unused(found) if is_reference else [], matrix=table,
    )


def _passing_steps(impl, label, source, progress):
    """The steps mutmut may use: those whose checks pass, from step 1 on (the reference passes all)."""
    if Path(impl).resolve() == SOLUTIONS_DIR.resolve():
        return tuple(s.number for s in load_course())
    return passing.passing_steps(impl, label, source, progress)


def _step_of_function(source, function_step, steps):
    """The step a function's mutants belong to: its own for a course function; for a helper
    (a `_connect(path)` that several functions share), the first step whose checks reach it,
    whose checks then run against its mutants (and the later steps' too, as for claim)."""
    tree = ast.parse(source)
    reached = {n: reach.reachable((n,), tree) for n in steps}

    def step_of(function):
        if function in function_step:
            return function_step[function]
        return next((n for n in steps if function in reached[n]), steps[-1])

    return step_of


def _first_lines(source):
    tree = ast.parse(source)
    return {
        node.name: (node.decorator_list[0].lineno if node.decorator_list else node.lineno)
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }


def _prebuilt_diff(mutant):
    old, new = mutant.find.splitlines() or [""], mutant.replace.splitlines() or [""]
    return "\n".join(list(difflib.unified_diff(old, new, lineterm="", n=0))[2:])


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
