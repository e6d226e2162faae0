"""A gradebook for the whole term: the roster joined to the submissions (not handed in, not on the
roster, late by the last commit's time or by the newest file's; tests/test_git_checkout.py reads
that time), the adjustments written by hand and applied on every run, one clear line for a file
that is wrong, and canvas.csv and moodle.csv as Canvas and Moodle import them."""

import os
import shutil
import subprocess
import sys
from datetime import UTC, datetime

import pytest
from hang import HANGS_AFTER
from learner_folders import make_learner
from test_classroom import read_csv, run_class
from test_git_checkout import committed, needs_git

from lab.grading import adjustments, class_table, class_view, lms_exports, roster
from lab.grading.classroom import ClassRun
from lab.grading.instructor_csv import FileProblem
from lab.grading.submission import find_submissions
from lab.model.course import load_course
from lab.model.status import ExitStatus
from lab.text.messages import say

DUE = "2026-12-06 18:00 UTC"
DUE_AT = datetime(2026, 12, 6, 18, tzinfo=UTC).timestamp()
LAST = len(load_course())


def touched(steps, moment):
    """Every file under steps (step files, predictions) changed last at moment (seconds since the epoch)."""
    for path in steps.rglob("*"):
        os.utime(path, (moment, moment))


def written(path, text, encoding="utf-8"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode(encoding))
    return path


# The roster's due dates: a date alone is due by the end of that day; a zone by name or offset.


def test_a_due_date_reads_as_the_moment_it_names():
    def due(text):
        return roster.due_date("roster.csv", 2, text).isoformat()

    assert due("2026-12-06 Asia/Tokyo") == "2026-12-06T23:59:59+09:00"
    assert due("2026-12-06 18:00 Asia/Tokyo") == "2026-12-06T18:00:00+09:00"
    assert due("2026-12-06T18:00+09:00") == "2026-12-06T18:00:00+09:00"
    assert due("2026-12-06T09:00Z") == "2026-12-06T09:00:00+00:00"
    assert roster.due_date("roster.csv", 2, "2026-12-06 18:00") == datetime(2026, 12, 6, 18).astimezone()
    assert roster.due_date("roster.csv", 2, "") is None  # no due date: never late


# A file that is wrong: one line naming the file, the line and the problem; never a traceback.

WRONG_FILES = {
    "a cell with a comma and no quotes": (
        "roster.csv",
        "id,name,due\nada,Ada Lovelace,2026-12-06\nben,Ito, Ben,2026-12-06\n",
        3,
        "4 cells where the header has 3",
    ),
    "an id twice": (
        "roster.csv",
        "id,name,due\nada,Ada,\nben,Ben,\nada,Ada L.,\n",
        4,
        "the id ada is on line 2 already",
    ),
    "an id that is a path": ("roster.csv", "id,name,due\nada,Ada,\n../ben,Ben,\n", 3, "the id ../ben cannot be"),
    "an empty id": ("roster.csv", "id,name,due\n,Ada,2026-12-06\n", 2, "the id is empty"),
    "a folder twice": (
        "roster.csv",
        "id,folder,name,due\ns1,lab3-ada,Ada,\ns2,lab3-ada,Ben,\n",
        3,
        "the folder lab3-ada is on line 2 already",
    ),
    "a folder that is a path": (
        "roster.csv",
        "id,folder,name,due\nada@uni.example,../lab3-ada,Ada,\n",
        2,
        "the folder ../lab3-ada cannot be",
    ),
    "a zone nobody knows": (
        "roster.csv",
        "id,name,due\nada,Ada,2026-12-06 18:00 Mars/Olympus\n",
        2,
        "Mars/Olympus is no",
    ),
    "no header at all": ("roster.csv", "\n\n", 1, "no header row: the first line names the columns id, name, due"),
    "points that are words": (
        "adjustments.csv",
        "learner,points,comment,by\nada,ten,Bonus,Kato\n",
        2,
        "ten is not a number of points",
    ),
    "an adjustment nobody wrote": (
        "adjustments.csv",
        "learner,points,comment,by\nada,1,Bonus,\n",
        2,
        "the by is empty",
    ),
    "an adjustment without its why": (
        "adjustments.csv",
        "Learner , Points,Comment,By\nada,1,,Kato\n",
        2,
        "the comment is empty",
    ),
}


@pytest.mark.parametrize("case", sorted(WRONG_FILES))
def test_a_wrong_file_is_one_problem_naming_its_line(tmp_path, case):
    name, text, line, said = WRONG_FILES[case]
    path = written(tmp_path / name, text)
    with pytest.raises(FileProblem) as found:
        (roster.load if name == "roster.csv" else adjustments.load)(path)
    assert found.value.line == line
    assert found.value.said("en").startswith(f"{path}, line {line}: ") and said in found.value.said("en")


def test_a_file_that_is_not_there_is_named_whole(tmp_path):
    with pytest.raises(FileProblem) as found:
        roster.load(tmp_path / "nowhere.csv")
    assert found.value.said("en") == f"{tmp_path / 'nowhere.csv'}: no such file"
    assert found.value.said("ja") == f"{tmp_path / 'nowhere.csv'}: そのようなファイルはありません"


# What the command says, in each language, for a roster or an adjustments file that is wrong.
SAID = {
    "due": (
        "roster.csv",
        "id,name,due\nada,Ada,2026-12-06\nben,Ben,2026-13-01\n",
        "roster.csv, line 3: 2026-13-01 is not a due date: write 2026-12-06,",
        "roster.csv の 3 行目: 2026-13-01 は締め切りとして読めません。",
    ),
    "column": (
        "roster.csv",
        "id,name\nada,Ada\n",
        "roster.csv, line 1: the header has no column due (the file needs id, name, due)",
        "roster.csv の 1 行目: 見出しに列 due がありません (必要な列: id, name, due)",
    ),
    "encoding": (
        "roster.csv",
        "id,name,due\nada,Ada,2026-12-06\nsato,佐藤,2026-12-06\n",  # as Excel saves plain CSV in Japan
        "roster.csv, line 3: not UTF-8 text: save it as CSV UTF-8",
        "roster.csv の 3 行目: UTF-8 のテキストではありません。CSV UTF-8 で保存してください",
    ),
    "points": (
        "adjustments.csv",
        "learner,points,comment,by\nada,+1,Bonus,Kato\nben,1,5,Late,Kato\n",
        "adjustments.csv, line 3: 5 cells where the header has 4",
        "adjustments.csv の 3 行目: セルが 5 個ありますが、見出しは 4 個です。",
    ),
}


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("case", sorted(SAID))
def test_the_command_says_a_wrong_file_in_one_line_and_grades_nobody(tmp_path, case, lang):
    name, text, english, japanese = SAID[case]
    (tmp_path / "class").mkdir()
    out = tmp_path / "out"
    path = written(
        (tmp_path if name == "roster.csv" else out) / name, text, "shift_jis" if case == "encoding" else "utf-8"
    )
    arguments = ["class", str(tmp_path / "class"), "--out", str(out), "--lang", lang]
    if name == "roster.csv":
        arguments += ["--roster", str(path)]
    done = subprocess.run(
        [sys.executable, "-m", "lab", *arguments], cwd=tmp_path, capture_output=True, text=True, timeout=HANGS_AFTER
    )
    assert done.returncode == ExitStatus.USAGE and done.stdout == "", done
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith(str(path)), done.stderr  # the file as the instructor named it
    assert (english if lang == "en" else japanese) in done.stderr, done.stderr
    assert path.read_bytes() == text.encode("shift_jis" if case == "encoding" else "utf-8")  # never written over


# The join, without grading anyone.


@needs_git
def test_the_roster_marks_missing_not_on_the_roster_and_late_by_commit_or_by_files(tmp_path):
    root = tmp_path / "class"
    committed(make_learner(root / "ada", "stubs").parent, "2026-12-07T10:00:00+09:00")  # 1 h after, by its commit
    touched(make_learner(root / "ben", "stubs", checkout=False), DUE_AT - 3600)  # an hour early
    touched(make_learner(root / "eve", "stubs", checkout=False), DUE_AT + 2 * 86400 + 90)  # 2 days late
    make_learner(root / "dan", "stubs", checkout=False)  # not on the roster
    learners = roster.load(
        written(
            tmp_path / "roster.csv",
            "\ufeffID,Name,Due,Section\n"  # a byte-order mark, names in any case, a column of its own
            f"ada,Ada Lovelace,2026-12-07 09:00 Asia/Tokyo,A\nben,Ben Ito,{DUE},A\n\ncho,Cho Sato,{DUE},B\n"
            f"eve,Eve Abe,{DUE},B\n",
        )
    )
    joined = {s.name: s for s in roster.join(find_submissions(root), learners)}
    assert list(joined) == ["ada", "ben", "dan", "eve", "cho"]  # the one not handed in comes last
    held = {name: s.standing for name, s in joined.items()}
    assert {name: h.status for name, h in held.items()} == {
        "ada": "on_roster",
        "ben": "on_roster",
        "dan": "not_on_roster",
        "eve": "on_roster",
        "cho": "missing",
    }
    assert (held["ada"].handed_in_by, held["ada"].late_seconds) == ("commit", 3600)
    assert (held["ben"].handed_in_by, held["ben"].late_seconds) == ("files", -3600)
    assert (held["eve"].handed_in_by, held["eve"].late_seconds) == ("files", 2 * 86400 + 90)
    assert held["dan"].due is None and held["dan"].late_seconds is None
    assert held["cho"].name == "Cho Sato" and held["cho"].handed_in is None and joined["cho"].impl is None
    assert roster.is_missing(joined["cho"]) and not roster.is_missing(joined["dan"])


def test_a_folder_column_maps_each_entry_to_its_lms_id_and_the_ones_left_out_are_named(tmp_path):
    """GitHub Classroom names each clone after the assignment and the learner's GitHub username:
    the roster's folder column maps it to the LMS id the exports give; an entry the roster does
    not name is graded, but has no id to give, and class.md names it, in the class's language."""
    root = tmp_path / "class"
    for name in ("lab3-octocat", "lab3-hubber", "lab3-stranger"):
        make_learner(root / name, "stubs", checkout=False)
    learners = roster.load(
        written(
            tmp_path / "roster.csv",
            "id,name,due,folder\ns1024@uni.example,Ada Lovelace,,lab3-octocat\n"
            "s2048@uni.example,Ben Ito,,lab3-hubber\ncho,Cho Sato,,\n",  # no folder: named by its id
        )
    )
    assert [(learner.id, learner.folder) for learner in learners.values()] == [
        ("s1024@uni.example", "lab3-octocat"),
        ("s2048@uni.example", "lab3-hubber"),
        ("cho", "cho"),
    ]
    outcome = ClassRun(root, roster.join(find_submissions(root), learners), [], 0.0, roster=learners)
    assert {s.name: s.standing.status for s in outcome.submissions} == {
        "lab3-octocat": "on_roster",
        "lab3-hubber": "on_roster",
        "lab3-stranger": "not_on_roster",
        "cho": "missing",
    }
    assert lms_exports.moodle_rows(outcome, TITLE)[1:] == [
        ["s1024@uni.example", "Ada Lovelace", 0],
        ["s2048@uni.example", "Ben Ito", 0],
        ["cho", "Cho Sato", 0],
    ]
    assert [row[2] for row in lms_exports.canvas_rows(outcome, TITLE)[2:]] == [
        "s1024@uni.example",
        "s2048@uni.example",
        "cho",
    ]
    assert lms_exports.left_out(outcome) == ["lab3-stranger"]
    for lang in ("en", "ja"):
        view = class_view.markdown(outcome, class_table.table(outcome, lang), lang)
        assert f"**{say('class.lms_left_out', lang, learners='lab3-stranger')}**" in view.splitlines()


def test_a_class_whose_entries_are_all_on_the_roster_says_nobody_is_left_out(tmp_path):
    make_learner(tmp_path / "class" / "ada", "stubs", checkout=False)
    learners = roster.load(written(tmp_path / "roster.csv", "id,name,due\nada,Ada,\n"))  # no folder column
    joined = roster.join(find_submissions(tmp_path / "class"), learners)
    outcome = ClassRun(tmp_path / "class", joined, [], 0.0, roster=learners)
    assert lms_exports.left_out(outcome) == [] and lms_exports.moodle_rows(outcome, TITLE)[1:] == [["ada", "Ada", 0]]
    assert say("class.lms_left_out", "en", learners="")[:20] not in class_view.markdown(
        outcome, class_table.table(outcome)
    )


# A small class, graded for real: two learners on the roster (one late by its commit, one by its
# files), one who handed in nothing and one not on the roster; the adjustments written between runs.

ROSTER = f'id,name,due\nada,Ada Lovelace,{DUE}\nben,"Ito, Ben",{DUE}\ncho,+Cho Sato,{DUE}\n'
ADJUSTMENTS = (
    "learner,points,comment,by\n"
    'ada,-1,"Late: a day, as the syllabus says",Kato (TA)\n'
    "cho,+2,Showed the work in class,Sato\n"
    "ben,+0.5,Found a real bug in the checks,Sato\n"
    "zed,1,Nobody by that name,Kato (TA)\n"
)
TITLE = "Lab 3 (1234)"


@pytest.fixture(scope="module")
def term(tmp_path_factory):
    if shutil.which("git") is None:
        pytest.skip("git makes the checkout this class reads")
    base = tmp_path_factory.mktemp("term")
    root, out = base / "class", base / "out"
    committed(make_learner(root / "ada", "complete").parent, "2026-12-07T12:00:00+09:00")  # 9 h late
    touched(make_learner(root / "ben", "boundary_bug", checkout=False), DUE_AT + 300)  # 5 min late
    make_learner(root / "dan", "complete", checkout=False)
    path = written(base / "roster.csv", ROSTER)
    first = run_class(root, out, "--roster", str(path), "--assignment", TITLE, "--regrade-all")
    template = (out / "adjustments.csv").read_bytes()
    (out / "adjustments.csv").write_text(ADJUSTMENTS, encoding="utf-8")
    again = run_class(root, out, "--roster", str(path), "--assignment", TITLE)
    japanese = run_class(root, out, "--roster", str(path), "--assignment", TITLE, "--lang", "ja")
    return first, again, japanese, template, out


def gradebook(out):
    header, *rows = read_csv(out / "grades.csv")
    return {row[1]: dict(zip(header, row)) for row in rows}


@pytest.mark.long
def test_the_first_run_leaves_the_shape_of_the_adjustments_file_to_fill_in(term):
    first, _, _, template, _ = term
    assert first.returncode == ExitStatus.ALL_PASS, first.stdout + first.stderr
    assert template == b"\xef\xbb\xbflearner,points,comment,by\r\n"


@pytest.mark.long
def test_the_gradebook_joins_the_roster_and_says_who_is_late_by_what(term):
    _, again, _, _, out = term
    assert again.returncode == ExitStatus.ALL_PASS, again.stdout + again.stderr
    book = gradebook(out)
    assert list(book) == ["ada", "ben", "dan", "cho"]
    columns = ("roster", "roster_name", "handed_in_by", "late", "late_seconds", "points", "adjustment", "final")
    assert {name: tuple(row[c] for c in columns) for name, row in book.items()} == {
        "ada": ("on_roster", "Ada Lovelace", "commit", "yes", str(9 * 3600), str(LAST), "-1", str(LAST - 1)),
        "ben": ("on_roster", "Ito, Ben", "files", "yes", "300", str(LAST - 1), "0.5", str(LAST - 0.5)),
        "dan": ("not_on_roster", "", "files", "", "", str(LAST), "0", str(LAST)),
        "cho": ("missing", "'+Cho Sato", "", "", "", "0", "2", "2"),  # a formula's sign, made inert
    }
    assert book["ada"]["due"].startswith("2026-12-06T") and book["cho"]["problem"].startswith(
        "未提出: cho"
    )  # the last run's words
    said = dict(
        line.split(": ", 1) for line in again.stdout.splitlines() if line.startswith(("ada:", "ben:", "cho:", "dan:"))
    )
    assert said["ada"].endswith("; late by 9 h (by the last commit's time)")
    assert said["ben"].endswith("; late by 5 min (by the newest file's time)")
    assert said["dan"].endswith("; not on the roster")
    assert (
        said["cho"] == "not handed in: cho is on the roster, but the class folder holds no folder or zip of that name"
    )
    rows = {row[0]: row for row in read_csv(out / "class.csv")}  # the last run's, in Japanese
    assert rows["cho"][1 : LAST + 1] == ["未提出"] * LAST and rows["ada"][-1].endswith(
        "。9 時間遅れて提出 (最後のコミットの時刻による)"
    )


@pytest.mark.long
def test_adjustments_are_applied_on_every_run_and_the_file_is_never_written(term):
    _, again, japanese, _, out = term
    assert (out / "adjustments.csv").read_text(encoding="utf-8") == ADJUSTMENTS
    assert "adjustments.csv, line 5: no learner zed in this run" in again.stdout
    assert "adjustments.csv の 5 行目: この実行に学習者 zed はいません" in japanese.stdout
    assert "Checked in this run: 0 of 3 learners" in again.stdout  # the adjustments need no grading
    assert gradebook(out)["ada"]["final"] == str(LAST - 1)  # the last run, in Japanese, applied them too


@pytest.mark.long
def test_the_feedback_shows_the_hand_in_time_and_each_adjustment_in_its_language(term):
    _, _, japanese, _, out = term
    assert japanese.returncode == ExitStatus.ALL_PASS, japanese.stdout + japanese.stderr
    ada = (out / "feedback" / "ada.md").read_text(encoding="utf-8")
    assert (
        "(最後のコミットの時刻による)。締め切り 2026-12-0" in ada and "から 9 時間遅れています: **遅れた提出**。" in ada
    )
    assert "| 点数 | コメント | 書いた人 |" in ada and "| -1 | Late: a day, as the syllabus says | Kato (TA) |" in ada
    assert f"**最終: {LAST} 点中 {LAST - 1} 点** (得点のあるステップで {LAST} 点、上の調整を加えて)。" in ada
    cho = (out / "feedback" / "cho.md").read_text(encoding="utf-8")
    assert "未提出: cho は名簿にありますが" in cho and "| +2 | Showed the work in class | Sato |" in cho
    assert "Late: a day" not in cho  # only their own


@pytest.mark.long
def test_canvas_csv_is_the_shape_canvas_imports(term):
    _, _, _, _, out = term
    assert not (out / "canvas.csv").read_bytes().startswith(b"\xef\xbb\xbf")
    assert read_csv(out / "canvas.csv") == [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", TITLE],
        ["Points Possible", "", "", "", "", str(LAST)],
        ["Ada Lovelace", "", "ada", "ada", "", str(LAST - 1)],
        ["Ito, Ben", "", "ben", "ben", "", str(LAST - 0.5)],
        ["'+Cho Sato", "", "cho", "cho", "", "2"],
    ]  # the roster's learners in its order: dan, whom Canvas does not know, is left out
    first, again, japanese, _, _ = term
    for done, lang in ((first, "en"), (again, "en"), (japanese, "ja")):  # and the run says so
        assert say("class.lms_left_out", lang, learners="dan") in done.stdout.splitlines(), done.stdout
    assert f"**{say('class.lms_left_out', 'ja', learners='dan')}**" in (out / "class.md").read_text(encoding="utf-8")


@pytest.mark.long
def test_moodle_csv_is_the_shape_moodle_imports(term):
    _, _, _, _, out = term
    assert read_csv(out / "moodle.csv") == [
        ["ID number", "Full name", TITLE],
        ["ada", "Ada Lovelace", str(LAST - 1)],
        ["ben", "Ito, Ben", str(LAST - 0.5)],
        ["cho", "'+Cho Sato", "2"],
    ]
    assert (out / "runs").is_dir() and (out / "latest" / "moodle.csv").read_bytes() == (out / "moodle.csv").read_bytes()


@pytest.mark.long
def test_partial_credit_gives_a_step_without_credit_the_share_of_its_checks_that_pass(term, tmp_path):
    """--partial-credit: ben's step 4 (a claim refused at the lease's end) earns its point times
    the share of its own checks that pass, in points, final and the LMS files; the credit column
    stays whole steps. A re-run with the graded class's outputs: nobody is checked again."""
    *_, out = term
    shutil.copytree(out, tmp_path / "out")
    root = out.parent / "class"
    path = out.parent / "roster.csv"
    done = run_class(root, tmp_path / "out", "--roster", str(path), "--assignment", TITLE, "--partial-credit")
    assert done.returncode == ExitStatus.ALL_PASS, done.stdout + done.stderr
    assert "Checked in this run: 0 of 3 learners" in done.stdout
    feedback = (tmp_path / "out" / "feedback" / "ben.md").read_text(encoding="utf-8")
    after = feedback.split("## Partial credit\n", 1)[1]
    table = next(chunk for chunk in after.split("\n\n") if chunk.startswith("| "))  # after the rule
    (row,) = [line for line in table.splitlines() if line.startswith("| 4 | ")]
    _, _, checks, share, _ = row.split("|")
    passed, total = map(int, checks.split("/"))
    assert 0 < passed < total and float(share) == round(passed / total, 2)
    book, whole = gradebook(tmp_path / "out"), gradebook(out)
    assert float(book["ben"]["points"]) == LAST - 1 + float(share)
    assert float(book["ben"]["final"]) == LAST - 0.5 + float(share)  # the adjustment of +0.5 still applies
    assert (
        book["ben"]["step4_credit"] == whole["ben"]["step4_credit"] == "0"
        and book["ada"]["points"] == whole["ada"]["points"]
    )
    canvas = {row[2]: row for row in read_csv(tmp_path / "out" / "canvas.csv")}
    assert float(canvas["ben"][-1]) == float(book["ben"]["final"])
