"""A learner who chose Japanese meets no English outside code: every learner-facing command is run
in Japanese (check-step on the stubs, on failing implementations and on the reference, hint,
progress, next, reset-step, backups, restore-step, make help, the mutation report) and what it
prints or writes is searched for English words.

What may stay as it is written is code, and the allow-list below is of code tokens, never of
English words: the names of the reference's source (functions, parameters, columns, SQL), the
checks' and mutants' ids, the Makefile's targets and variables, Python's exceptions, and the names
of the tools the lab runs. Backtick spans, quoted values, paths, identifiers with `_` or digits,
diff lines and code blocks are code by their form.
"""

import builtins
import html
import io
import re
import shutil
import subprocess
import sys
import tokenize
import tomllib
from contextlib import redirect_stderr, redirect_stdout

import pytest
from hang import HANGS_AFTER

from lab import commands
from lab.model.course import LAB_ROOT, closing_questions, load_course
from lab.model.implementation import STEP_FILE
from lab.model.mutants import load_mutants
from lab.model.pristine import write_stubs
from lab.model.results import MutantStatus
from lab.mutation import html as mutation_html
from lab.mutation import text as mutation_text
from lab.mutation.equivalents import Equivalence
from lab.mutation.model import Mutant, Report

COURSE = load_course()
JAPANESE = re.compile(r"[ぁ-んァ-ヶ一-龯]")
# The names of what the lab runs and reads: tools, formats, units and signals.
NAMES = {
    "SQLite",
    "sqlite3",
    "Python",
    "pytest",
    "Hypothesis",
    "mutmut",
    "Stryker",
    "JSON",
    "JUnit",
    "XML",
    "Exercism",
    "TOML",
    "CSV",
    "HTML",
    "CI",
    "git",
    "GitHub",
    "Classroom",
    "Canvas",
    "Moodle",
    "bubblewrap",
    "litequeue",
    "persist-queue",
    "huey",
    "Ctrl",
    "TODO",
    "WAL",
    "FULL",
    "NORMAL",
    "NULL",
    "PRAGMA",
    "SQL",
    "SIGKILL",
    "MB",
    "GiB",
    "ms",
    "pid",
    "id",
    "ID",
    "ok",
    "kill",
    "IMPL",
    "DIR",
    "SHOW",
    "VERBOSE",
    "ALL",
    "AT",
    "BUDGET",
}


def _code_tokens():
    """Every name of the code a learner reads: the reference's source and the words of its SQL, the
    checks' names, the mutants' and the ledger's ids, the Makefile's targets and variables, and
    Python's exceptions and constants."""
    tokens = set(NAMES)
    for path in sorted((LAB_ROOT / "solutions").glob("*/step.py")):
        for token in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline):
            if token.type == tokenize.NAME:
                tokens.add(token.string)
            elif token.type == tokenize.STRING and not JAPANESE.search(token.string):
                tokens.update(re.findall(r"[A-Za-z]\w*", token.string))
    for path in sorted((LAB_ROOT / "checks").glob("test_*.py")):
        tokens.update(re.findall(r"^def (test_\w+)", path.read_text(encoding="utf-8"), re.MULTILINE))
    tokens.update(path.stem for path in (LAB_ROOT / "mutants").glob("*.toml"))
    tokens.update(
        rule["id"]
        for rule in tomllib.loads((LAB_ROOT / "mutation" / "equivalents.toml").read_text(encoding="utf-8"))["rule"]
    )
    makefile = (LAB_ROOT / "Makefile").read_text(encoding="utf-8")
    tokens.update(
        re.findall(r"^([a-z][a-z-]*):", makefile, re.MULTILINE) + re.findall(r"\b([A-Z][A-Z_]+) \?=", makefile)
    )
    tokens.update(name for name in dir(builtins) if name[0].isupper())
    # The glossary keeps some terms as the code writes them (fence, owner, fencing token, UPDATE 文).
    glossary = tomllib.loads((LAB_ROOT / "lab" / "text" / "glossary.toml").read_text(encoding="utf-8"))["term"]
    tokens.update(word for term in glossary for word in re.findall(r"[A-Za-z]{2,}", term["ja"]))
    tokens.update(
        {"make", "python", "lab", "lease", "steps", "solutions", "checks", "mutants", "db", "job", "ja", "en"}
    )
    return tokens


CODE_TOKENS = _code_tokens()


def english_words(text):
    """The words of text that are English, not code: (word, the line it is in). The lab's own
    folder is a path, however many words its name holds."""
    text = text.replace(str(LAB_ROOT), "LAB_ROOT")
    text = re.sub(r"^\s*```.*?^\s*```", "", text, flags=re.MULTILINE | re.DOTALL)  # code blocks
    found = []
    for line in text.splitlines():
        if not JAPANESE.search(line) and re.match(r"\s*([-+]|@@)", line):
            continue  # a diff line, or a value the report compares: code
        prose = re.sub(r"`[^`]*`", " ", line)
        prose = re.sub(r"\"[^\"]*\"|'[^']*'", " ", prose)  # values, as repr() shows them
        for token in re.findall(r"[^\s()\[\]{}、。,;:「」『』・·×<>…]+", prose):
            token = token.rstrip(".!?*|").lstrip("*|")
            if _is_code(token):
                continue
            found += [(word, line.strip()) for word in re.findall(r"[A-Za-z]{2,}", token) if word not in CODE_TOKENS]
    return found


def _is_code(token):
    """A path, a file's extension, an option, a VARIABLE=value, an identifier with `_`, `.` or
    digits, a known hyphenated id, a number."""
    return (
        "/" in token
        or "=" in token
        or token.startswith(("-", "."))
        or token in CODE_TOKENS
        or bool(re.fullmatch(r"[A-Za-z_][\w.]*[_.\d][\w.]*", token))
        or not re.search(r"[A-Za-z]{2,}", token)
    )


def page_text(page):
    """The text a reader sees on an HTML page, code left out (source lines, diffs, code spans)."""
    page = re.sub(
        r"<style>.*?</style>|<td class=\"code\">.*?</td>|<pre.*?</pre>|<code>.*?</code>", " ", page, flags=re.DOTALL
    )
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def check(impl, step, *flags):
    done = subprocess.run(
        [sys.executable, "-m", "lab", "check", str(step), "--impl", str(impl), "--lang", "ja", *flags],
        cwd=LAB_ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return done.stdout + done.stderr


def learner(root, *argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        commands.main([*argv, "--lang", "ja"], root=root)
    return out.getvalue() + err.getvalue()


@pytest.fixture(scope="module")
def checkout(tmp_path_factory):
    """A learner's checkout: steps 1-3 done with the reference, 4-8 still the stubs."""
    root = tmp_path_factory.mktemp("checkout")
    steps = write_stubs(root / "steps")
    for step in COURSE[:3]:
        shutil.copy(LAB_ROOT / "solutions" / step.dir / STEP_FILE, steps / step.dir / STEP_FILE)
    return root


WRONG = LAB_ROOT / "tests" / "fixtures" / "independent" / "wrong"
CHECK_RUNS = {
    "check-step 1 on the stubs": lambda root: check(write_stubs(root.parent / "stubs" / "steps"), 1),
    "check-step 4, steps 1-3 done, mutants shown before the prediction": lambda root: check(root / "steps", 4),
    "check-step 2 on the reference, the compare phase": lambda root: check(LAB_ROOT / "solutions", 2),
    "check-step 3, a generated check shrunk": lambda root: check(
        WRONG / "wrong_s3_missing_as_default_row.py", 3, "--no-mutants"
    ),
    "check-step 4, claims raced across processes": lambda root: check(
        LAB_ROOT / "tests" / "field_fixtures" / "claim_under_process_lock.py", 4, "--no-mutants"
    ),
    "check-step 6, a done job overwritten": lambda root: check(
        WRONG / "wrong_s6_complete_overwrites_done.py", 6, "--no-mutants"
    ),
    "check-step 8, claims one at a time": lambda root: check(WRONG / "wrong_s8_sequential_loop.py", 8, "--no-mutants"),
}


@pytest.mark.parametrize("name", CHECK_RUNS)
def test_check_step_says_nothing_in_english(checkout, name):
    out = CHECK_RUNS[name](checkout)
    assert JAPANESE.search(out), out[-2000:]
    assert not english_words(out), english_words(out)


def test_the_learners_commands_say_nothing_in_english(checkout):
    (checkout / "steps" / COURSE[3].dir / STEP_FILE).write_text(
        "def claim(path, job_id, owner, now, ttl):\n    return None\n", encoding="utf-8"
    )
    outputs = {
        argv: learner(checkout, *argv.split())
        for argv in ("hint 4", "hint 4 --all", "progress", "next", "reset 4", "backups 4", "restore 4", "language")
    }
    assert all(JAPANESE.search(out) for out in outputs.values()), outputs
    found = {argv: english_words(out) for argv, out in outputs.items() if english_words(out)}
    assert not found, found


def test_what_the_course_shows_later_says_nothing_in_english():
    """What the runs above do not reach: every mutant's why (shown in a step's compare phase), every
    hint, and the closing questions and model answers (shown once every step passes). Code in them
    is marked as code: `DEFERRED`, `database is locked`."""
    texts = {f"mutants/{m.id}.toml": m.why["ja"] for m in load_mutants()}
    for step in COURSE:
        texts |= {f"{clause} hint": "\n".join(step.questions(clause, "ja")) for clause in step.hints}
    for number, closing in enumerate(closing_questions(), 1):
        texts[f"closing question {number}"] = closing.question["ja"] + "\n" + closing.answer["ja"]
    assert all(JAPANESE.search(text) for text in texts.values())
    found = {where: english_words(text) for where, text in texts.items() if english_words(text)}
    assert not found, found


def test_make_help_says_nothing_in_english():
    done = subprocess.run(
        ["make", "-s", "help", "LAB_LANG=ja"], cwd=LAB_ROOT, capture_output=True, text=True, timeout=HANGS_AFTER
    )
    assert done.returncode == 0 and JAPANESE.search(done.stdout)
    assert not english_words(done.stdout), english_words(done.stdout)


def test_the_mutation_report_of_the_reference_says_nothing_in_english(reference_mutation_report):
    done, out = reference_mutation_report("ja")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    written = {
        "terminal": done.stdout + done.stderr,
        "report.md": (out / "report.md").read_text(encoding="utf-8"),
        "index.html": page_text((out / "index.html").read_text(encoding="utf-8")),
    }
    found = {name: english_words(text) for name, text in written.items() if english_words(text)}
    assert not found, found


def every_status_report():
    """A report with a mutant of every status, an equivalent one with the ledger's reason and a
    survivor: what the reference's report never shows."""

    def mutant(number, status, **more):
        return Mutant(
            id=f"lease.x_claim__mutmut_{number}",
            origin="mutmut",
            step=4,
            function="claim",
            status=MutantStatus(status),
            diff="@@ -1 +1 @@\n-    if row[0] > now:\n+    if row[0] >= now:",
            file="solutions.py",
            location=(1, 1, 1, 10),
            replacement="if row[0] >= now:",
            **more,
        )

    mutants = [
        mutant(1, "killed", killed_by=["test_claim_wins_at_the_moment_the_lease_expires"]),
        mutant(2, "timeout", killed_by=["test_racing_claims_have_exactly_one_winner"]),
        mutant(3, "survived"),
        mutant(4, "no tests"),
        mutant(
            5, "not checked", equivalent=Equivalence("error-message-text", "English reason", reason_ja="日本語の理由")
        ),
    ]
    prebuilt = Mutant(
        id="m4-grace-period",
        origin="pre-built",
        step=4,
        function="claim",
        status=MutantStatus.KILLED,
        diff="-a\n+b",
        file="solutions.py",
        location=(1, 1, 1, 2),
        replacement="b",
        killed_by=["test_claim_of_a_live_lease_is_none_and_keeps_the_row"],
    )
    return Report(
        impl="solutions",
        files={"solutions.py": "if row[0] > now:\n    pass\n"},
        steps_checked=(1, 2, 3, 4),
        mutants=[*mutants, prebuilt],
        checks=[("test_claim_wins_at_the_moment_the_lease_expires", "checks/test_04_claim.py")],
        unused_ledger=["sql-letter-case"],
        matrix={
            m.id: {"test_claim_wins_at_the_moment_the_lease_expires": status}
            for m, status in zip(mutants, ("failed", "timeout", "passed", "crashed"))
        },
    )


def test_every_status_of_the_mutation_report_is_said_in_japanese():
    report = every_status_report()
    written = {
        "terminal": "\n".join(mutation_text.summary_lines(report, "ja")),
        "report.md": mutation_text.markdown(report, "ja"),
        "index.html": page_text(mutation_html.page(report, "ja")),
    }
    found = {name: english_words(text) for name, text in written.items() if english_words(text)}
    assert not found, found
    assert "日本語の理由" in written["report.md"] and "English reason" not in written["report.md"]


@pytest.mark.parametrize(
    "text",
    [
        "ステップ 4 · claim: 2 of 3 checks pass",
        "生存変異体 (1): Which input would tell these two apart?",
        "状態: survived",
        "由来: pre-built",
    ],
)
def test_the_search_finds_english_beside_japanese(text):
    assert english_words(text)


@pytest.mark.parametrize(
    "text",
    [
        "呼び出し: claim(db, job_id='job', owner='B', now=10.0, ttl=5.0)",
        "結果:     {'id': 'job', 'owner': None}",
        "`make check-step 4` で検査",
        "tests/field_fixtures/complete_by_id_alone.py の負荷試験",
        "C4.5 で不合格 (ValueError)",
        "    - row[0] > now",
        "検出した検査: test_claim_wins_at_the_moment_the_lease_expires",
        "m4-expired-counts-as-live を検出",
    ],
)
def test_the_search_leaves_code_alone(text):
    assert not english_words(text)
