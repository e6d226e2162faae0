"""reports/mutation/mutation.json in Stryker's mutation-testing-report-schema (lab/schemas/)."""

import json

from lab.model.course import LAB_ROOT
from lab.model.results import MutantStatus

SCHEMA_PATH = LAB_ROOT / "lab" / "schemas" / "mutation-testing-report-schema.json"
SCHEMA_VERSION = "1.0"

STATUS = {
    MutantStatus.KILLED: "Killed",
    MutantStatus.SURVIVED: "Survived",
    MutantStatus.TIMEOUT: "Timeout",
    MutantStatus.NO_TESTS: "NoCoverage",
    MutantStatus.NOT_CHECKED: "Pending",
}


def as_dict(report):
    files = {name: {"language": "python", "source": source, "mutants": []} for name, source in report.files.items()}
    for m in report.mutants:
        (line, column, end_line, end_column) = m.location
        entry = {
            "id": m.id,
            "mutatorName": "mutmut" if m.origin == "mutmut" else f"pre-built {m.clause}",
            "location": {"start": {"line": line, "column": column}, "end": {"line": end_line, "column": end_column}},
            "replacement": m.replacement,
            "status": "Ignored" if m.equivalent else STATUS.get(m.status, "RuntimeError"),
            "killedBy": m.killed_by,
            "coveredBy": sorted(report.matrix.get(m.id, {})),
            "description": f"step {m.step}, {m.function}",
        }
        if m.equivalent:
            entry["statusReason"] = f"equivalent ({m.equivalent.id}): {m.equivalent.reason}"
        files[m.file]["mutants"].append(entry)
    tests = {}
    for check, file in report.checks:
        tests.setdefault(file, {"tests": []})["tests"].append({"id": check, "name": check})
    return {
        "schemaVersion": SCHEMA_VERSION,
        "thresholds": {"high": 100, "low": 90},
        "projectRoot": ".",
        "files": files,
        "testFiles": tests,
    }


def write(report, path):
    path.write_text(json.dumps(as_dict(report), indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
