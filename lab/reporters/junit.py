"""The learner's checks as JUnit XML (``--junit FILE``): one test case per check, one suite per
step, so that any CI system shows them; each named in the run's language (titles.py)."""

import xml.etree.ElementTree as ET

from lab.model.course import load_course
from lab.model.results import CheckStatus
from lab.reporters.terminal import span
from lab.reporters.titles import check_titles, step_title
from lab.text import inert
from lab.text.messages import say

OPTION = "--junit"
CLASS_FILE = "junit/{name}.xml"  # check-class: one per learner

# JUnit knows three outcomes besides passing: a failed assertion, an error, a skipped test.
KIND = {
    CheckStatus.FAILED: "failure",
    CheckStatus.ERROR: "error",
    CheckStatus.TIMEOUT: "error",
    CheckStatus.CRASHED: "error",
    CheckStatus.NOT_IMPLEMENTED: "skipped",
}


def as_tree(outcome):
    course = load_course()
    title = check_titles(outcome, course)
    heading = "report.heading_steps" if len(outcome.steps) > 1 else "report.heading"  # as the terminal's first line
    named = say(heading, outcome.lang, steps=span(outcome.steps), impl=outcome.impl)
    root = ET.Element("testsuites", name=inert.xml(named))
    for number in outcome.steps:
        results = outcome.step_results(number)
        step = course[number - 1]
        suite = ET.SubElement(
            root,
            "testsuite",
            name=step_title(step, outcome.lang),
            tests=str(len(results)),
            failures=str(sum(KIND.get(r.status) == "failure" for r in results)),
            errors=str(sum(KIND.get(r.status) == "error" for r in results)),
            skipped=str(sum(KIND.get(r.status) == "skipped" for r in results)),
            time=f"{sum(r.duration for r in results):.3f}",
        )
        for result in results:
            case = ET.SubElement(
                suite,
                "testcase",
                classname=f"step{number:02d}.{step.function}",
                name=title(result),
                time=f"{result.duration:.3f}",
            )
            kind = KIND.get(result.status)
            if kind:
                message = inert.xml(result.said(outcome.lang))
                headline = message.splitlines()[0] if message else result.status
                ET.SubElement(case, kind, message=headline, type=result.status).text = message
    ET.indent(root)
    return ET.ElementTree(root)


def write(outcome, path):
    as_tree(outcome).write(path, encoding="utf-8", xml_declaration=True)
