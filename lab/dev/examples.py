"""The example outputs of the learner's guides, made from the lab's own runs.

docs/learner.md and docs/learner.ja.md show what `make check-step 4` and `make progress` print. Typed
by hand, such an example goes stale when the course changes (it once showed 7 mutants and 11 checks
of step 4 when the lab had 8 and 12). Here each one is the output of a real run, in each language:
a learner's checkout in a scratch folder, steps 1-3 the reference, step 4 the reference with the
broken change to review, a prediction for step 4; then `check 4` (the implement phase), `progress`,
and, step 4 fixed, `check 4` twice (the compare phase, then a later run). Each run is a child
process (`python -m lab` with the scratch folder as its checkout) with every check run afresh, so
the same lab prints the same words.

In a guide, a line `<!-- example: NAME -->` stands before the block that EXAMPLES[NAME] makes: a
transcript keeps its `$` lines (and their comments) as written and the output under each is the
run's, cut to the lines the example needs and to WIDTH columns. `dev update` writes them; `dev
check` (which runs the course; not `--no-run`) holds the guides to them. The runs' outputs are kept in the lab's
cache store, keyed on every file of the lab they depend on, so a second update costs nothing.
"""

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unicodedata
from pathlib import Path

from lab import cache
from lab.dev import readme
from lab.model.course import LAB_ROOT, load_course
from lab.model.implementation import STEP_FILE
from lab.model.mutants import SOLUTIONS_DIR, load_mutants
from lab.model.prediction_file import PREDICTION_FILE
from lab.model.prediction_template import prediction_template
from lab.model.pristine import write_stubs
from lab.model.status import ExitStatus
from lab.running.runner import LabBroken
from lab.text.language import remember

MARKER = re.compile(r"^<!-- example: ([a-z0-9-]+) -->$")
WIDTH = 120  # columns of a line in an example; a longer one is cut at a space, outside code, and ends in " …"
STEP = 4
# A learner's prediction for step 4, written before the code: at now == until the lease has expired.
PREDICTION = """def test_my_prediction(lease, db):
    lease.enqueue(db, "job")
    assert lease.claim(db, "job", "A", now=0.0, ttl=10.0) == 1
    assert lease.claim(db, "job", "B", now=10.0, ttl=5.0) == 2
"""
NAMESPACE = "doc-examples"
# What the runs depend on: the lab's code and words, the course, its checks, reference and mutants.
SOURCES = ("lab", "checks", "solutions", "mutants", "course.toml")


def runs(lang):
    """{run name: its output's lines} for lang: the scenario of the module's docstring."""
    key = cache.key(lang, _digest())
    kept = cache.get(NAMESPACE, key)
    if kept is not None:
        return kept
    course = load_course()
    with tempfile.TemporaryDirectory(prefix="lease-lab-examples-") as scratch:
        root = Path(scratch)
        remember(lang, root)  # the learner chose the language: `make language ja`
        steps = write_stubs(root / "steps")
        for step in course:
            (steps / step.dir / PREDICTION_FILE).write_text(prediction_template(step, course), encoding="utf-8")
        for step in course[:STEP]:
            shutil.copy(SOLUTIONS_DIR / step.dir / STEP_FILE, steps / step.dir / STEP_FILE)
        claim = steps / course[STEP - 1].dir / STEP_FILE
        fixed = claim.read_text(encoding="utf-8")
        review = next(m for m in load_mutants() if m.step == STEP and m.worksheet)
        claim.write_text(fixed.replace(review.find, review.replace, 1), encoding="utf-8")
        (claim.parent / PREDICTION_FILE).write_text(PREDICTION, encoding="utf-8")
        found = {"implement": _run(root, lang, "check", str(STEP), "--fresh")}
        found["progress"] = _run(root, lang, "progress")
        claim.write_text(fixed, encoding="utf-8")
        found["compare"] = _run(root, lang, "check", str(STEP), "--fresh")
        found["later"] = _run(root, lang, "check", str(STEP), "--fresh")
    cache.set(NAMESPACE, key, found)
    return found


# A learner's command in a child whose checkout is root (its steps/, its .lab/ and the language chosen there).
CHILD = """import sys
from pathlib import Path
from lab.text import language
language.ROOT = Path(sys.argv[1])
from lab import commands
sys.exit(commands.main(sys.argv[2:], root=language.ROOT))
"""


def _run(root, lang, *argv):
    """The lines a learner's command prints on its standard output, run in a child with root as its checkout."""
    impl = ("--impl", str(root / "steps")) if argv[0] == "check" else ()
    environment = {name: value for name, value in os.environ.items() if name != "LAB_LANG"}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(root), *argv, *impl, "--lang", lang],
        cwd=LAB_ROOT,
        env=environment,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=900,
    )
    if done.returncode not in (ExitStatus.ALL_PASS, ExitStatus.SOME_FAIL):  # never an example, never kept
        said = (done.stderr.strip().splitlines() or [""])[-1]
        raise LabBroken(f"the guides' example run `{' '.join(argv)}` ended with status {done.returncode}: {said}")
    return done.stdout.splitlines()


def _digest():
    files = sorted(
        [
            *(
                path
                for name in SOURCES
                for path in ([LAB_ROOT / name] if (LAB_ROOT / name).is_file() else (LAB_ROOT / name).rglob("*"))
                if path.is_file() and "__pycache__" not in path.parts
            ),
            *(LAB_ROOT / "steps").glob("*/CONTRACT*.md"),  # the clauses the report quotes
        ]
    )
    return cache.key(
        *(f"{path.relative_to(LAB_ROOT)} {hashlib.sha256(path.read_bytes()).hexdigest()}" for path in files)
    )


# The lines of each example: a function of the runs' lines.
def _from_heading(lines):
    """From the line that heads step 4 (`Step 4 · claim`, `ステップ 4 · claim`) on."""
    function = load_course()[STEP - 1].function
    start = next(i for i, line in enumerate(lines) if f"{STEP} · {function}:" in line)
    return lines[start:]


def _up_to(lines, stop, keep_stop=False):
    """lines before the first one after the first that `stop` matches (or through it)."""
    for i, line in enumerate(lines[1:], start=1):
        if stop(line):
            return lines[: i + 1] if keep_stop else lines[:i]
    return lines


def implement(found):
    """The implement phase: step 4's mutants by label, the checks' count, the first failure's name."""
    lines = _up_to(_from_heading(found["implement"]), lambda line: line.startswith("  ✘ "), keep_stop=True)
    return lines + ["      …"]


MUTANT_LINE = re.compile(r"^    \S+\s+\d+-[a-z]+ · ")  # "    caught  4-c · m4-…", "    検出  4-c · m4-…"


def compare(found):
    """The compare phase: step 4 passing, then the broken change to review as a diff of the reference,
    why it breaks its clause and the checks that catch it."""
    lines = _from_heading(found["compare"])
    review = next(m for m in load_mutants() if m.step == STEP and m.worksheet)
    first = next(i for i, line in enumerate(lines) if MUTANT_LINE.match(line))
    at = next(i for i, line in enumerate(lines) if MUTANT_LINE.match(line) and f" · {review.id}" in line)
    mutant = _up_to(lines[at:], lambda line: bool(MUTANT_LINE.match(line)) or not line.startswith("    "))
    return lines[:first] + (["    …"] if at > first else []) + mutant + ["    …"]


def later(found):
    """A later run: step 4 and its mutants folded to a line each."""
    return _up_to(_from_heading(found["later"]), lambda line: not line.startswith(" "))


def failure(found):
    """The report's first failure of step 4, under the step's heading."""
    lines = _from_heading(found["implement"])
    start = next(i for i, line in enumerate(lines) if line.startswith("  ✘ "))
    return [lines[0], *_up_to(lines[start:], lambda line: line.startswith("  ✘ ") or not line.startswith("  "))]


def progress(found):
    """make progress, whole."""
    return found["progress"]


# name -> (the runs' lines -> the block's output under each `$` line, in order; the columns of a line)
EXAMPLES = {
    "check-step-phases": ((implement, compare, later), WIDTH),
    "check-step-failure": ((failure,), WIDTH),
    "progress": ((progress,), None),  # every line whole: each step on one
}


def clipped(line, width=WIDTH):
    """line cut at a space to at most width columns (a wide character counts two), ending in ' …'."""
    columns = [2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line]
    if sum(columns) <= width:
        return line
    used, end = 0, 0
    while used + columns[end] <= width - 2:  # room for " …"
        used += columns[end]
        end += 1
    cut = line.rfind(" ", 0, end + 1)
    while cut > 0 and line.count("`", 0, cut) % 2:  # inside a `code span`: before it
        cut = line.rfind(" ", 0, line.rfind("`", 0, cut))
    return line[: cut if cut > len(line) - len(line.lstrip()) else end].rstrip() + " …"


def made(text, lang):
    """text with every example block under a marker made from the runs in lang."""
    lines, found, i = text.split("\n"), None, 0
    out = []
    while i < len(lines):
        marker = MARKER.match(lines[i])
        out.append(lines[i])
        i += 1
        if not marker or marker[1] not in EXAMPLES:
            continue
        found = found or runs(lang)
        while i < len(lines) and not lines[i].strip():
            out.append(lines[i])
            i += 1
        end = i
        while end < len(lines) and (
            lines[end].startswith("    ")
            or not lines[end].strip()
            and end + 1 < len(lines)
            and lines[end + 1].startswith("    ")
        ):
            end += 1
        prompts = [line for line in lines[i:end] if line.startswith("    $ ")]
        parts, width = EXAMPLES[marker[1]]
        for index, part in enumerate(parts):
            if prompts:
                out.append(prompts[index] if index < len(prompts) else prompts[-1])
            out += [("    " + (clipped(line, width) if width else line)).rstrip() for line in part(found)]
        i = end
    return "\n".join(out)


def guides(root):
    """Each guide of root (README.md and docs/) that has an example marker, with its language."""
    return [
        (path, "ja" if path.name.endswith(".ja.md") else "en")
        for path in readme.documents(root)
        if path.is_file() and any(MARKER.match(line) for line in path.read_text(encoding="utf-8").split("\n"))
    ]


def update(root):
    """Write every example of root's guides from the runs; the paths written."""
    written = []
    for path, lang in guides(root):
        text = path.read_text(encoding="utf-8")
        if (new := made(text, lang)) != text:
            path.write_text(new, encoding="utf-8")
            written.append(path)
    return written


def problems(root):
    """Each guide whose examples are not the runs' output: one sentence each, with the command that mends it."""
    return [
        f"{path.relative_to(root).as_posix()}: its examples are not the lab's own output (python -m lab dev update writes them)"
        for path, lang in guides(root)
        if made(path.read_text(encoding="utf-8"), lang) != path.read_text(encoding="utf-8")
    ]
