"""The learner's commands: hint, progress, next, reset-step, restore-step and watch, in both languages.

Each works on a checkout of its own in tmp_path (root/steps), never on this lab's steps/.
"""

import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import time

import pytest
from learner_folders import fingerprint

from lab import commands
from lab.grading.check import check, step_results
from lab.learner import completion, watch
from lab.model.course import LAB_ROOT, Step, closing_questions, load_course
from lab.model.failing import failing_clauses
from lab.model.implementation import STEP_FILE
from lab.model.pristine import stub_text, write_stubs
from lab.model.results import Result
from lab.model.starter import lead_with
from lab.model.status import ExitStatus
from lab.text.messages import words_of

COURSE = load_course()
STEP4 = COURSE[3]


def say(key, lang, **values):
    """A text of the catalogue's [learner] table, filled in as the commands fill it in."""
    return words_of("learner", lang)(key, **values)


@pytest.fixture
def checkout(tmp_path):
    """A learner's checkout: steps 1-3 done with the reference, 4-8 still stubs."""
    steps = write_stubs(tmp_path / "steps")
    for step in COURSE[:3]:
        shutil.copy(LAB_ROOT / "solutions" / step.dir / STEP_FILE, steps / step.dir / STEP_FILE)
    return tmp_path


def lab(root, *argv, capsys):
    status = commands.main(list(argv), root=root)
    out, err = capsys.readouterr()
    return status, out, err


def _questions(step, lang):
    """(clause, its number of questions, the question's number, the question), clause by clause."""
    return [
        (clause, len(step.questions(clause, lang)), index, question)
        for clause in step.hints
        for index, question in enumerate(step.questions(clause, lang), start=1)
    ]


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_hint_gives_one_unseen_question_at_a_time_then_stays_on_the_last(checkout, capsys, lang):
    # No check recorded a failure: the questions come clause by clause, in the contract's order.
    questions = _questions(STEP4, lang)
    shown = [lab(checkout, "hint", "4", "--lang", lang, capsys=capsys)[1] for _ in range(len(questions) + 1)]
    for (clause, count, index, question), out in zip(questions, shown):
        title = STEP4.title[lang]
        assert out.splitlines()[0] == say("hint", lang, n=4, title=title, clause=clause, index=index, count=count)
        assert question in out and all(q not in out for *_, q in questions if q != question)
    assert questions[-1][-1] in shown[-1]
    assert say("hint_last", lang, n=4) in shown[-1]
    assert (checkout / ".lab" / "hints.json").is_file()


WRONG = LAB_ROOT / "tests" / "fixtures" / "independent" / "wrong"
STEP3 = COURSE[2]


@pytest.fixture
def failing_at_c3_2(checkout):
    """The checkout with an honest mistake in step 3, one that breaks C3.2 alone: an id that is not
    in the table is answered with a row at its defaults instead of None."""
    wrong = WRONG / "wrong_s3_missing_as_default_row.py"
    assert wrong.read_text(encoding="utf-8").startswith('"""breaks: C3.2\n')
    shutil.copy(wrong, checkout / "steps" / STEP3.dir / STEP_FILE)
    return checkout


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_after_a_failing_check_its_last_line_names_the_clause_and_hint_starts_with_it(failing_at_c3_2, capsys, lang):
    steps = failing_at_c3_2 / "steps"
    argv = ("check", "3", "--no-mutants", "--impl", str(steps), "--lang", lang)
    status, out, _ = lab(failing_at_c3_2, *argv, capsys=capsys)
    assert status == ExitStatus.SOME_FAIL
    assert out.rstrip().splitlines()[-1] == words_of("report", lang)("next_clause", n=3, clause="C3.2")
    questions, title = STEP3.questions("C3.2", lang), STEP3.title[lang]
    for asked in range(1, len(questions) + 2):  # one more than there are: it stays on the last
        index = min(asked, len(questions))
        lines = lab(failing_at_c3_2, "hint", "3", "--lang", lang, capsys=capsys)[1].splitlines()
        assert lines[0] == say("hint_failing", lang, clause="C3.2", n=3, title=title, index=index, count=len(questions))
        assert lines[1] == f"  {questions[index - 1]}"
    assert lines[2] == say("hint_last_clause", lang, n=3, clause="C3.2")
    # Step 2 passed in that check: its questions follow the contract's order.
    first = COURSE[1].questions("C2.1", lang)
    lines = lab(failing_at_c3_2, "hint", "2", "--lang", lang, capsys=capsys)[1].splitlines()
    assert lines[:2] == [
        say("hint", lang, n=2, title=COURSE[1].title[lang], clause="C2.1", index=1, count=len(first)),
        f"  {first[0]}",
    ]
    # Edited since: the hint still starts with the clause, and says it failed before the edit.
    edited = steps / STEP3.dir / STEP_FILE
    edited.write_text(edited.read_text(encoding="utf-8") + "\n# tried something\n", encoding="utf-8")
    lines = lab(failing_at_c3_2, "hint", "3", "--lang", lang, capsys=capsys)[1].splitlines()
    count = len(questions)
    assert lines[0] == say("hint_failed", lang, clause="C3.2", n=3, title=title, index=count, count=count)


def test_a_step_fails_at_its_own_clauses_in_the_checks_order_never_at_a_stubs():
    def result(step, clauses, status):
        return Result(f"n{clauses}", "test_x", "steps", step, clauses, status, "", 0.0)

    results = [
        result(4, ["C4.1"], "passed"),
        result(4, ["C2.1", "C4.5"], "failed"),  # a check of step 4 that leans on step 2's clause too
        result(4, ["C4.3"], "timeout"),
        result(4, ["C4.5"], "error"),
        result(3, ["C3.1"], "failed"),
        result(5, ["C5.1"], "not_implemented"),  # the stub as shipped: nothing to point a hint at
    ]
    assert failing_clauses(results, 4) == ["C4.5", "C4.3"]
    assert failing_clauses(results, 3) == ["C3.1"] and failing_clauses(results, 5) == []


def test_a_removed_contract_costs_the_report_its_clause_texts_never_a_traceback(checkout, capsys, monkeypatch):
    gone = checkout / "removed" / "CONTRACT.md"
    monkeypatch.setattr(Step, "contract_path", lambda self, lang="en", root=LAB_ROOT: gone)
    assert COURSE[0].clauses("en") == {}
    status, out, err = lab(checkout, "check", "4", "--no-mutants", "--impl", str(checkout / "steps"), capsys=capsys)
    assert status == ExitStatus.SOME_FAIL and "step 4: 0 of 12" in out and "Traceback" not in out + err, out + err
    # the self-test's stubs come with the contracts as shipped, whatever steps/ holds
    stubs = write_stubs(checkout / "stubs")
    assert "C1.1" in (stubs / COURSE[0].dir / "CONTRACT.md").read_text(encoding="utf-8")


def test_hint_all_lists_every_question_and_remembers_nothing(checkout, capsys):
    status, out, _ = lab(checkout, "hint", "4", "--all", capsys=capsys)
    assert status == 0 and all(question in out for *_, question in _questions(STEP4, "en"))
    assert all(f"\n  {clause}\n" in out for clause in STEP4.clauses())
    assert not (checkout / ".lab" / "hints.json").exists()


def test_hint_reads_a_remembered_file_that_holds_json_but_no_object_as_nothing_seen(checkout, capsys):
    (checkout / ".lab").mkdir()
    (checkout / ".lab" / "hints.json").write_text("[]", encoding="utf-8")
    status, out, err = lab(checkout, "hint", "4", capsys=capsys)
    clause, count, index, question = _questions(STEP4, "en")[0]
    assert status == 0 and question in out, out + err
    assert out.splitlines()[0] == say(
        "hint", "en", n=4, title=STEP4.title["en"], clause=clause, index=index, count=count
    )


@pytest.mark.parametrize("argv", [["hint"], ["hint", str(len(COURSE) + 1)], ["reset", "x"], ["watch", "0"]])
def test_a_mistyped_step_is_one_line_and_status_2(checkout, capsys, argv):
    status, out, err = lab(checkout, *argv, capsys=capsys)
    assert status == 2 and out == "" and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_progress_shows_each_state_and_the_next_step_then_answers_from_the_cache_in_under_a_second(
    checkout, capsys, lang
):
    broken = checkout / "steps" / STEP4.dir / STEP_FILE
    broken.write_text(
        (LAB_ROOT / "solutions" / STEP4.dir / STEP_FILE).read_text().replace("row[0] > now", "row[0] >= now")
    )
    status, first, _ = lab(checkout, "progress", "--lang", lang, capsys=capsys)
    assert status == 0
    computed = say("computed", lang, steps=say("separator", lang).join("1234"))
    assert computed in first
    assert say("passing", lang, count=len(_results_of(checkout, 1))) in first
    lines = {
        line.split()[1]: line for line in first.splitlines() if line.startswith("  ") and line.split()[1].isdigit()
    }
    assert "C4." in lines["4"] and "✘" in lines["4"]
    assert say("not_started", lang) in lines["5"]
    assert say("next_step", lang, n=4, title=STEP4.title[lang]) in first
    started = cpu_seconds()
    status, again, _ = lab(checkout, "progress", "--lang", lang, capsys=capsys)
    assert cpu_seconds() - started < 1.0  # the work it does, whatever else the machine runs meanwhile
    assert again == first.replace(computed + "\n", "")


def cpu_seconds():
    """The CPU time of this process and of the children it waited for."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def _results_of(root, number):
    return step_results(root / "steps", (number,))  # reused: progress ran them


def test_a_cached_verdict_is_never_stale_after_an_edit(checkout, capsys):
    lab(checkout, "progress", capsys=capsys)
    step2 = checkout / "steps" / COURSE[1].dir / STEP_FILE
    step2.write_text(step2.read_text().replace("INSERT OR IGNORE", "INSERT OR REPLACE"))
    _, out, _ = lab(checkout, "progress", capsys=capsys)
    assert say("computed", "en", steps="2, 3") in out or say("computed", "en", steps="2") in out
    assert "✘ 2" in out


def test_next_names_the_first_step_that_does_not_pass(checkout, capsys):
    status, out, _ = lab(checkout, "next", "--lang", "ja", capsys=capsys)
    assert status == 0 and out.strip() == say("next_step", "ja", n=4, title=STEP4.title["ja"])


def test_when_every_step_passes_the_course_is_complete_and_the_answers_file_is_kept(tmp_path, capsys):
    shutil.copytree(LAB_ROOT / "solutions", tmp_path / "steps", ignore=shutil.ignore_patterns("__pycache__"))
    _, out, _ = lab(tmp_path, "progress", capsys=capsys)
    answers = tmp_path / "steps" / completion.ANSWERS_FILE
    first, second = closing_questions()
    assert (
        say("complete", "en", count=len(load_course())) in out
        and first.question["en"] in out
        and second.question["en"] in out
    )
    assert say("unanswered", "en", count=2, file="steps/ANSWERS.md") in out
    assert say("model_answer", "en") not in out  # a model answer only after its question is answered
    assert first.question["en"] in answers.read_text() and first.question["ja"] not in answers.read_text()
    answers.write_text(
        answers.read_text().replace(say("answer_here", "en"), "Because every later step keeps running them.", 1)
    )
    _, out, _ = lab(tmp_path, "progress", "--lang", "ja", capsys=capsys)
    assert say("unanswered", "ja", count=1, file="steps/ANSWERS.md") in out
    assert first.answer["ja"].splitlines()[0] in out and second.answer["ja"].splitlines()[0] not in out
    written = answers.read_text() + "\n(and) the clock is the caller's.\n"
    answers.write_text(written)
    _, out, _ = lab(tmp_path, "progress", capsys=capsys)
    assert say("answered", "en", file="steps/ANSWERS.md") in out
    assert answers.read_text() == written  # never overwritten


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_answers_file_asks_in_the_learners_language_alone(tmp_path, lang):
    path = completion.ensure_answers_file(tmp_path, lang)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0] == f"# {say('answers_heading', lang)}"
    first = closing_questions()[0].question
    other = "en" if lang == "ja" else "ja"
    assert lines[2] == f"## 1. {first[lang]}" and first[other] not in path.read_text(encoding="utf-8")
    assert completion.unanswered(tmp_path) == 2
    path.write_text(path.read_text(encoding="utf-8").replace(say("answer_here", lang), "時計は呼び出し側のもの", 1))
    assert completion.unanswered(tmp_path) == 1


def test_an_answers_file_written_in_both_languages_still_counts_its_placeholders(tmp_path):
    """ANSWERS.md as labs before this one wrote it: both languages, the learner's first."""
    both = f"{say('answer_here', 'ja')} {say('answer_here', 'en')}"
    first, second = closing_questions()
    (tmp_path / completion.ANSWERS_FILE).write_text(
        f"# x\n\n## 1. {first.question['ja']}\n## 1. {first.question['en']}\n\n{both}\n"
        f"\n## 2. {second.question['ja']}\n## 2. {second.question['en']}\n\n時計は呼び出し側のもの\n",
        encoding="utf-8",
    )
    assert completion.unanswered(tmp_path) == 1


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_once_both_closing_questions_are_answered_progress_shows_a_model_answer_beside_each(tmp_path, capsys, lang):
    shutil.copytree(LAB_ROOT / "solutions", tmp_path / "steps", ignore=shutil.ignore_patterns("__pycache__"))
    answers = completion.ensure_answers_file(tmp_path / "steps")
    placeholder = say("answer_here", "en")
    text = (
        answers.read_text()
        .replace(placeholder, "Each step only adds a function.", 1)
        .replace(placeholder, "Side effects are not fenced.", 1)
    )
    answers.write_text(text)
    _, out, _ = lab(tmp_path, "progress", "--lang", lang, capsys=capsys)
    lines = out.splitlines()
    for number, (closing, theirs) in enumerate(
        zip(closing_questions(), ["Each step only adds a function.", "Side effects are not fenced."]), 1
    ):
        at = lines.index(f"  {number}. {closing.question[lang]}")
        mine, model = (
            lines.index(completion.INDENT + say("your_answer", lang), at),
            lines.index(completion.INDENT + say("model_answer", lang), at),
        )
        assert lines[mine + 1].strip() == theirs and mine < model
        assert [
            line.strip() for line in lines[model + 1 : model + 1 + len(closing.answer[lang].splitlines())]
        ] == closing.answer[lang].splitlines()


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_reset_saves_every_file_then_restores_the_stub_and_restore_brings_it_back(checkout, capsys, lang):
    folder = checkout / "steps" / COURSE[2].dir
    (folder / "prediction.py").write_text(
        "def test_my_prediction(lease, db):\n    assert lease.state(db, 'x') is None\n"
    )
    before = fingerprint(folder)
    status, out, _ = lab(checkout, "reset", "3", "--lang", lang, capsys=capsys)
    assert status == 0 and ".lab/backups/03-state/" in out
    assert (folder / STEP_FILE).read_text() == lead_with(stub_text(COURSE[2]), lang)  # led by the command's language
    backup = next((checkout / ".lab" / "backups" / "03-state").iterdir())
    assert {k: v for k, v in fingerprint(backup).items() if k != ".made-by"} == {
        k: v for k, v in before.items() if k in (STEP_FILE, "prediction.py")
    }
    status, out, _ = lab(checkout, "reset", "3", "--lang", lang, capsys=capsys)
    assert out.strip() == say("already_stub", lang, n=3)
    status, out, _ = lab(checkout, "restore", "3", "--lang", lang, capsys=capsys)
    assert status == 0 and fingerprint(folder) == before
    saved = sorted((checkout / ".lab" / "backups" / "03-state").iterdir())
    assert len(saved) == 2  # the stub that was in place is kept too: nothing is ever lost
    assert (saved[-1] / STEP_FILE).read_text() == lead_with(stub_text(COURSE[2]), lang)


def test_restore_without_a_backup_says_so(checkout, capsys):
    status, out, _ = lab(checkout, "restore", "5", capsys=capsys)
    assert status == 1 and "05-renew" in out


def fake_next_checks(monkeypatch):
    """Next checks that record what they were asked instead of checking: (every one started, the
    arguments of those that ran)."""
    started, runs = [], []

    class NextCheck:
        def __init__(self, arguments, root):
            self.arguments, self.state = arguments, "waiting"
            started.append(self)

        def waiting(self):
            return self.state == "waiting"

        def run(self):
            self.state = "ran"
            runs.append(self.arguments)

        def end(self):
            self.state = "ended" if self.state in ("waiting", "stale") else self.state

    monkeypatch.setattr(watch, "NextCheck", NextCheck)
    return started, runs


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_watch_runs_the_check_at_start_and_after_each_change_and_stops_cleanly_on_ctrl_c(
    checkout, monkeypatch, lang, capsys
):
    started, runs = fake_next_checks(monkeypatch)

    def changes():
        yield {("modified", "steps/04-claim/step.py")}
        yield set()  # no change for a while: nothing runs
        raise KeyboardInterrupt

    assert watch.watch(STEP4, ["--no-mutants"], lang, checkout, changes()) == 0
    out = capsys.readouterr().out
    assert len(runs) == 2 and runs[0][:3] == ["4", "--lang", lang] and "--no-mutants" in runs[0]
    assert [check.state for check in started] == ["ran", "ran", "ended"]  # the third waited, unused
    assert out.count(watch.CLEAR) == 2 and out.rstrip().endswith(say("watch_stopped", lang))
    assert "Traceback" not in out
    first, second = (screen.splitlines()[0] for screen in out.split(watch.CLEAR)[1:])
    assert re.match(r"\d\d:\d\d:\d\d · ", first) and first[8:] == say("watch_started", lang, time="", n=4)
    assert second[8:] == say("watch_saved", lang, time="", n=4, files="steps/04-claim/step.py")  # which save started it


def test_ctrl_c_while_a_next_check_starts_leaves_none_of_them_unended(checkout, monkeypatch, capsys):
    """A real Ctrl-C (SIGINT to this process) in the middle of a next check's start, after its
    process exists: the watcher stops with its one line and ends that next check too."""
    started, _ = fake_next_checks(monkeypatch)

    class InterruptedAsItStarts(watch.NextCheck):  # the stand-in fake_next_checks put in place
        def __init__(self, arguments, root):
            super().__init__(arguments, root)  # its process exists from here on
            if len(started) == 2:  # the one started after the first run
                os.kill(os.getpid(), signal.SIGINT)  # taken at once, before __init__ returns

    monkeypatch.setattr(watch, "NextCheck", InterruptedAsItStarts)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # Python's own, as in `make watch`
    try:
        assert watch.watch(STEP4, [], "en", checkout, iter(())) == 0
    finally:
        signal.signal(signal.SIGINT, previous)
    assert [check.state for check in started] == ["ran", "ended"]
    assert capsys.readouterr().out.rstrip().endswith(say("watch_stopped", "en"))


def test_watch_replaces_a_next_check_that_waited_too_long_and_runs_the_fresh_one(checkout, monkeypatch, capsys):
    started, runs = fake_next_checks(monkeypatch)

    def changes():
        yield set()  # no change for a while
        started[-1].state = "stale"  # the next check waited longer than WAITS_AT_MOST
        yield set()
        yield {("modified", "steps/04-claim/step.py")}
        raise KeyboardInterrupt

    assert watch.watch(STEP4, [], "en", checkout, changes()) == 0
    assert [check.state for check in started] == ["ran", "ended", "ran", "ended"] and len(runs) == 2


def test_watch_runs_again_for_a_save_made_during_its_first_run(checkout, monkeypatch, capsys):
    """watchfiles watches from before the first run (lab/learner/watch.py _read_ahead): a save
    made during that run starts the next one. The real watcher; the checks stand-ins."""
    _, runs = fake_next_checks(monkeypatch)
    target = checkout / "steps" / STEP4.dir / STEP_FILE

    class SavedDuringTheFirstRun(watch.NextCheck):
        def run(self):
            super().run()
            if len(runs) == 1:  # the learner saves while the first run checks
                target.write_text(target.read_text() + "\n# saved\n")
                time.sleep(1)  # the run goes on after the save
            else:
                raise KeyboardInterrupt  # Ctrl-C: the second run was started by that save

    monkeypatch.setattr(watch, "NextCheck", SavedDuringTheFirstRun)
    assert watch.watch(STEP4, [], "en", checkout) == 0
    second = capsys.readouterr().out.split(watch.CLEAR)[2].splitlines()[0]
    assert len(runs) == 2 and second[8:] == say(
        "watch_saved", "en", time="", n=4, files=f"steps/{STEP4.dir}/{STEP_FILE}"
    )


def test_watch_with_watchfiles_sees_a_real_change(checkout, monkeypatch, capsys):
    import watchfiles

    _, runs = fake_next_checks(monkeypatch)
    target = checkout / "steps" / STEP4.dir / STEP_FILE
    changes = watchfiles.watch(checkout / "steps", stop_event=None, rust_timeout=3000, yield_on_timeout=True)

    seen = []

    def one_change():
        target.write_text(target.read_text() + "\n")
        for batch in changes:
            yield batch
            if batch:
                seen.extend(path for _, path in batch)
                raise KeyboardInterrupt
            # Saved before watchfiles began to watch: its timeout's empty batch came; save again.
            target.write_text(target.read_text() + "\n")

    assert watch.watch(STEP4, [], "en", checkout, one_change()) == 0
    assert len(runs) == 2 and str(target) in seen


def test_make_knows_every_learner_target_with_a_help_line():
    listed = subprocess.run(["make", "-s", "help"], cwd=LAB_ROOT, capture_output=True, text=True).stdout
    for target in ("hint", "progress", "next", "reset-step", "restore-step", "watch"):
        assert any(line.split()[0] == target for line in listed.splitlines()), target


def test_python_m_lab_hint_prints_in_japanese(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "lab", "hint", "1", "--all", "--lang", "ja"],
        cwd=LAB_ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0 and COURSE[0].questions("C1.1", "ja")[0] in done.stdout


def test_progress_reuses_the_checks_a_check_step_ran_and_runs_those_an_edit_reaches(checkout, capsys):
    steps = checkout / "steps"
    check(steps, (1, 2), ())
    _, out, _ = lab(checkout, "progress", capsys=capsys)
    assert say("computed", "en", steps="3") in out and "✔ 2" in out
    enqueue = steps / COURSE[1].dir / STEP_FILE
    enqueue.write_text(enqueue.read_text().replace("INSERT OR IGNORE", "INSERT OR REPLACE"))
    _, out, _ = lab(checkout, "progress", capsys=capsys)
    assert say("computed", "en", steps="2, 3") in out and "✘ 2" in out


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_restore_twice_never_brings_the_stub_back_and_backups_lists_and_picks_any_one(checkout, capsys, lang):
    folder = checkout / "steps" / COURSE[2].dir
    mine = (folder / STEP_FILE).read_text() + "\n# my work\n"
    (folder / STEP_FILE).write_text(mine)
    lab(checkout, "reset", "3", "--lang", lang, capsys=capsys)
    for _ in range(2):  # the second restore must not bring back the stub the first one saved
        status, out, _ = lab(checkout, "restore", "3", "--lang", lang, capsys=capsys)
        assert status == 0 and (folder / STEP_FILE).read_text() == mine
    status, out, _ = lab(checkout, "backups", "3", "--lang", lang, capsys=capsys)
    listed = [line for line in out.splitlines() if re.match(r"\s+\d+\. ", line)]
    assert status == 0 and len(listed) == 3  # reset's and both restores': nothing is ever lost
    assert (
        say("made_by_reset", lang) in listed[-1] and say("holds_code", lang, lines=len(mine.splitlines())) in listed[-1]
    )
    assert say("made_by_restore", lang) in listed[0]
    stub_backup = next(line for line in listed if say("holds_stub", lang) in line)
    number = stub_backup.split(".")[0].strip()
    status, out, _ = lab(checkout, "restore", "3", "--at", number, "--lang", lang, capsys=capsys)
    stub = lead_with(stub_text(COURSE[2]), lang)  # as reset wrote it, in the command's language
    assert status == 0 and (folder / STEP_FILE).read_text() == stub  # AT= picks any one
    status, out, _ = lab(checkout, "restore", "3", "--at", "no-such", "--lang", lang, capsys=capsys)
    assert status == 2 and "no-such" in out and "Traceback" not in out
    assert (folder / STEP_FILE).read_text() == stub  # a mistyped AT changes nothing


def test_make_passes_at_to_restore_step():
    done = subprocess.run(["make", "-n", "restore-step", "4", "AT=2"], cwd=LAB_ROOT, capture_output=True, text=True)
    assert '--at "2"' in done.stdout and 'restore "4"' in done.stdout
    done = subprocess.run(["make", "-n", "backups", "4"], cwd=LAB_ROOT, capture_output=True, text=True)
    assert '-m lab backups "4"' in done.stdout
