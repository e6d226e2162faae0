"""The mutation report of the reference: score at least the recorded baseline, valid Stryker JSON,
a self-contained HTML page naming the killing checks, and the same report on a second run."""

import json
import tomllib
from html.parser import HTMLParser

import jsonschema
import pytest

from lab.model.course import LAB_ROOT
from lab.mutation.stryker import SCHEMA_PATH

BASELINE = tomllib.loads((LAB_ROOT / "mutation" / "baseline.toml").read_text(encoding="utf-8"))
OUTPUTS = ("report.md", "mutation.json", "index.html")


def outputs(run):
    done, out = run
    assert done.returncode in (0, 1), done.stdout + done.stderr
    return {name: (out / name).read_text(encoding="utf-8") for name in OUTPUTS}


@pytest.fixture(scope="module")
def reports(reference_mutation_report):
    return outputs(reference_mutation_report("en")), outputs(reference_mutation_report("en", run=2))


@pytest.fixture(scope="module")
def report(reports):
    return json.loads(reports[0]["mutation.json"])


def mutmut_mutants(report):
    return [m for f in report["files"].values() for m in f["mutants"] if m["mutatorName"] == "mutmut"]


def test_the_score_of_the_reference_is_at_least_the_baseline(report):
    scored = [m for m in mutmut_mutants(report) if m["status"] != "Ignored"]
    detected = [m for m in scored if m["status"] in ("Killed", "Timeout")]
    score = 100.0 * len(detected) / len(scored)
    survivors = sorted(m["id"] for m in scored if m not in detected)
    assert score >= BASELINE["score_percent"], (
        f"score {score:.1f}% < baseline {BASELINE['score_percent']}%; survivors: {survivors}"
    )


def test_the_json_is_valid_against_strykers_schema(report):
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.validate(report, schema)
    assert mutmut_mutants(report), "no mutmut mutant in the report"
    assert any(m["mutatorName"].startswith("pre-built") for f in report["files"].values() for m in f["mutants"])


def test_every_equivalent_mutant_gives_the_ledgers_reason(report):
    ignored = [m for m in mutmut_mutants(report) if m["status"] == "Ignored"]
    assert ignored and all(m.get("statusReason", "").startswith("equivalent (") for m in ignored)


class Page(HTMLParser):
    """What the checks need from index.html: the mutants, the matrix rows, anything that loads."""

    def __init__(self):
        super().__init__()
        self.mutants, self.matrix_rows, self.loads = {}, [], []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "details" and "mutant" in attrs.get("class", ""):
            self.mutants[attrs["id"]] = (attrs["data-status"], attrs["data-killed-by"].split())
        if tag == "tr" and "data-check" in attrs:
            self.matrix_rows.append(attrs["data-check"])
        if tag in ("script", "link", "img", "iframe") or any(k in attrs for k in ("src", "href")):
            self.loads.append((tag, attrs))


def test_the_html_page_names_the_killing_checks_of_every_killed_mutant(reports, report):
    page = Page()
    page.feed(reports[0]["index.html"])
    every = {m["id"] for f in report["files"].values() for m in f["mutants"]}
    assert set(page.mutants) == every
    killed = {i: checks for i, (status, checks) in page.mutants.items() if status == "killed"}
    assert killed and all(killed.values()), [i for i, checks in killed.items() if not checks]
    assert page.matrix_rows, "no kill matrix in the page"
    assert not page.loads, f"the page must be self-contained, but loads {page.loads}"


def test_two_runs_give_the_same_report(reports):
    first, second = reports
    for name in OUTPUTS:
        assert first[name] == second[name], f"{name} differs between two runs on the same code"
