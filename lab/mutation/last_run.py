"""What the last mutation report of a code found of each of mutmut's mutants: its status and the
checks that catch it, kept in the report's stage (lab.mutation.stage) for `make equivalent`,
which records only a survivor: a mutant that some check catches is not equivalent, whatever the
learner believes.

The file names the source it was found on: a report cut short after a new text was staged leaves
the old findings, which then name no mutant of the staged text.
"""

import json
from pathlib import Path

from lab import cache
from lab.model.results import MutantStatus

FILE = "last-report.json"


def write(stage_dir, source, mutants):
    """Keep the status and killers of each of mutmut's mutants of source."""
    found = {m.id: {"status": str(m.status), "killed_by": list(m.killed_by)} for m in mutants if m.origin == "mutmut"}
    text = json.dumps({"source": cache.key(source), "mutants": found}, ensure_ascii=False, indent=1)
    (Path(stage_dir) / FILE).write_text(text + "\n", encoding="utf-8")


def finding(stage_dir, source, mutant_id):
    """(status, the checks that catch it) of mutant_id in the last report of source; None when that
    report did not finish (or was never made) or did not hold the mutant."""
    try:
        kept = json.loads((Path(stage_dir) / FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if kept.get("source") != cache.key(source) or mutant_id not in kept.get("mutants", {}):
        return None
    found = kept["mutants"][mutant_id]
    return MutantStatus(found["status"]), found["killed_by"]
