"""The machine-readable form of a check run (``--json FILE``); its schema is results.schema.json."""

from dataclasses import asdict

from lab.model.results import CheckStatus, MutantStatus
from lab.text import inert

SCHEMA_VERSION = 1
OPTION = "--json"
CLASS_FILE = "learners/{name}.json"  # check-class: one per learner


def as_dict(outcome):
    return {
        "schema_version": SCHEMA_VERSION,
        "impl": outcome.impl,
        "steps": list(outcome.steps),
        "exit_status": outcome.exit_status,
        "checks": [{**asdict(result), "message": result.said(outcome.lang)} for result in outcome.results],
        "mutants": [
            {
                "id": v.mutant.id,
                "step": v.mutant.step,
                "clause": v.mutant.clause,
                "worksheet": v.mutant.worksheet,
                "status": MutantStatus.SURVIVED if v.survived else MutantStatus.KILLED,
                "killed_by": v.killed_by,
                "passed_by": v.passed_by,
            }
            for v in outcome.verdicts
        ],
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
                "mutants": [{"id": mutant_id, "outcome": result} for mutant_id, result in p.outcomes.items()],
            }
            for p in outcome.predictions
        ],
    }


def write(outcome, path):
    with open(path, "w", encoding="utf-8", errors="backslashreplace") as handle:
        handle.write(inert.json_text(as_dict(outcome)))
        handle.write("\n")
