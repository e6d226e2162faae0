"""The machine-readable form of a check run (``--json FILE``); its schema is results.schema.json.

It follows the phases of the screen (lab/reporters/phases.py): before a step's compare phase its
mutants are labels with the clause each breaks and a prediction's verdicts are by label; the
mutants' ids and the checks that catch each (or that each still passes) come with the compare
phase. The class grader writes its files in that phase for every step, for the instructor.
"""

from dataclasses import asdict

from lab.model.mutants import load_mutants
from lab.model.results import CheckStatus, MutantStatus
from lab.reporters.phases import compare_phase, labels
from lab.text import inert

SCHEMA_VERSION = 2  # 2: the mutants' ids and catching checks only in the compare phase
OPTION = "--json"
CLASS_FILE = "learners/{name}.json"  # check-class: one per learner


def as_dict(outcome):
    named = _labels(outcome)
    return {
        "schema_version": SCHEMA_VERSION,
        "impl": outcome.impl,
        "steps": list(outcome.steps),
        "exit_status": outcome.exit_status,
        "checks": [{**asdict(result), "message": result.said(outcome.lang)} for result in outcome.results],
        "mutants": [_mutant(outcome, verdict, named) for verdict in outcome.verdicts],
        "summary": {
            str(number): {
                "passed": outcome.step_passes(number),
                "checks": len(outcome.step_results(number)),
                "checks_passed": sum(r.status == CheckStatus.PASSED for r in outcome.step_results(number)),
            }
            for number in outcome.steps
        },
        "lab_problems": outcome.lab_problems,
        "predictions": [
            {
                "step": p.step,
                "file": p.file,
                "status": p.status,
                "message": p.said(outcome.lang),
                "caught": p.caught_count,
                "mutants": _predicted(outcome, p, named),
            }
            for p in outcome.predictions
        ],
    }


def _labels(outcome):
    """The screen's labels; a prediction of a step whose mutants did not run here (a class run's)
    labels them in the course's order, as a run with them would."""
    mutants = [v.mutant for v in outcome.verdicts]
    missing = {p.step for p in outcome.predictions} - {m.step for m in mutants}
    return labels([*mutants, *(m for m in load_mutants() if m.step in missing)])


def _mutant(outcome, verdict, named):
    mutant = verdict.mutant
    entry = {
        "label": named[mutant.id],
        "step": mutant.step,
        "clause": mutant.clause,
        "worksheet": mutant.worksheet,
        "status": MutantStatus.SURVIVED if verdict.survived else MutantStatus.KILLED,
    }
    if compare_phase(outcome, mutant.step):
        entry.update(id=mutant.id, killed_by=verdict.killed_by, passed_by=verdict.passed_by)
    return entry


def _predicted(outcome, prediction, named):
    """The prediction's verdict on each mutant of its step, by label; with the id in the compare phase."""
    shown = compare_phase(outcome, prediction.step)
    return [
        {"label": label, "outcome": prediction.outcomes[mutant_id], **({"id": mutant_id} if shown else {})}
        for mutant_id, label in named.items()
        if mutant_id in prediction.outcomes
    ]


def write(outcome, path):
    with open(path, "w", encoding="utf-8", errors="backslashreplace") as handle:
        handle.write(inert.json_text(as_dict(outcome)))
        handle.write("\n")
