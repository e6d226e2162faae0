"""One Settings per command: the language, the time limit and the implementation are decided
once, the same way for every verb (the three walks that went different ways before)."""

import subprocess
import sys

import pytest
from hang import HANGS_AFTER

from lab import cache, commands
from lab.commands.mutation import stage_of
from lab.grading import predictions
from lab.learner import verdicts
from lab.learner.prediction_status import prediction_line
from lab.model.course import LAB_ROOT, load_course
from lab.model.defaults import CHECK_BUDGET, CLASS_BUDGET, TIME_LIMIT
from lab.model.mutants import load_mutants
from lab.model.prediction_file import PREDICTION_FILE
from lab.model.pristine import write_stubs
from lab.model.status import ExitStatus
from lab.settings import Settings
from lab.store import Store
from lab.text.messages import words_of

STEP_4 = load_course()[3]


def lab(*arguments, cwd=LAB_ROOT, lang="ja"):
    env = {"PATH": "/usr/bin:/bin", "LAB_LANG": lang}
    return subprocess.run(
        [sys.executable, "-m", "lab", *arguments], cwd=cwd, env=env, capture_output=True, text=True, timeout=HANGS_AFTER
    )


@pytest.mark.parametrize("verb, target", [("check", "check-step"), ("hint", "hint"), ("reset", "reset-step")])
def test_lab_lang_speaks_for_every_verb_even_about_a_mistyped_step(verb, target):
    done = lab(verb, "99")
    assert done.returncode == ExitStatus.USAGE and done.stderr.count("\n") == 1
    assert f"make {target} N LAB_LANG=ja" in done.stderr and "ステップ" in done.stderr, done.stderr


def settings_of(*argv, root=LAB_ROOT):
    return Settings.of(commands.build_parser().parse_args(list(argv)), root)


@pytest.mark.parametrize("verb", ["check", "mutation", "artifact", "demo", "stress", "bench"])
def test_impl_steps_names_the_labs_own_folder_from_any_folder_for_every_verb(verb, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    settings = settings_of(verb, *(["1"] if verb == "check" else []), "--impl", "steps")
    assert settings.impl == LAB_ROOT / "steps" and settings.impl_label == "steps"


def test_the_mutation_report_stages_steps_under_the_same_name_from_any_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert stage_of(settings_of("mutation", "--impl", "steps").impl).name == "steps"


def test_an_impl_found_nowhere_is_one_line_and_status_2_for_the_mutation_report_too(tmp_path):
    done = lab("mutation", "--impl", "no/such/folder", cwd=tmp_path, lang="en")
    assert done.returncode == ExitStatus.USAGE and done.stderr.count("\n") == 1 and "no/such/folder" in done.stderr


def test_every_default_is_the_one_written_in_lab_model_defaults():
    assert settings_of("check", "1").time_limit == settings_of("watch", "1").time_limit == TIME_LIMIT
    assert settings_of("class", "x").time_limit == TIME_LIMIT
    assert settings_of("check", "1").budget == CHECK_BUDGET and settings_of("class", "x").budget == CLASS_BUDGET
    assert settings_of("check", "1", "--time-limit", "20").time_limit == 20.0


def test_progress_finds_the_prediction_a_check_ran_with_another_time_limit(tmp_path, monkeypatch):
    monkeypatch.setattr(cache, "ROOT", tmp_path / "cache")
    steps, store = write_stubs(tmp_path / "steps"), Store(tmp_path)
    (steps / STEP_4.dir / PREDICTION_FILE).write_text(
        "def test_my_prediction(lease, db):\n    lease.enqueue(db, 'job')\n    assert lease.claim(db, 'job', 'A', now=0, ttl=10) == 1\n",
        encoding="utf-8",
    )
    words = words_of("learner", "en")
    assert prediction_line(steps, STEP_4, store, "en").startswith(words("prediction_written"))
    # What `make check-step 4 TIME_LIMIT=20` does: the prediction runs, the check is recorded.
    ran = predictions.run_predictions(steps, (4,), time_limit=20)[0]
    verdicts.record_check(store, time_limit=20)
    assert verdicts.last_time_limit(store) == 20.0
    mutants = sum(m.step == 4 for m in load_mutants())
    result = words("prediction_catches", caught=ran.caught_count, count=mutants)  # at now == until=0 the lease is free
    assert prediction_line(steps, STEP_4, store, "en") == words("prediction_result", result=result)
