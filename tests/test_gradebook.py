"""grades.csv, row by row: the learner's id whatever form their name was typed in, and the time
graded in the instructor's own time zone."""

import subprocess
import sys
import unicodedata
from zoneinfo import ZoneInfo

from learner_folders import make_learner

from lab.grading import gradebook
from lab.grading.submission import find_submissions
from lab.model.course import LAB_ROOT

TYPED = "がっこう José"  # as a keyboard types it (composed, NFC)
FROM_A_MAC = unicodedata.normalize("NFD", TYPED)  # as macOS names a folder: が as か and a combining mark


def test_a_name_from_a_mac_and_the_same_name_typed_get_one_id(tmp_path):
    assert FROM_A_MAC != TYPED
    assert gradebook.learner_id(FROM_A_MAC) == gradebook.learner_id(TYPED)
    make_learner(tmp_path / FROM_A_MAC, "stubs", checkout=False)
    (submission,) = find_submissions(tmp_path)
    assert submission.name == TYPED  # the learner's column and output files: one name, composed
    assert gradebook.row(submission, [1], "")[:2] == [gradebook.learner_id(TYPED), TYPED]


def test_two_folders_whose_names_differ_only_in_their_form_stay_two_learners(tmp_path):
    for name in (TYPED, FROM_A_MAC):
        make_learner(tmp_path / name, "stubs", checkout=False)
    names = [s.name for s in find_submissions(tmp_path)]
    assert len(names) == 2 and names[0] == TYPED and names[1].startswith(TYPED + "~")


def test_graded_at_is_the_instructors_local_time_with_its_offset():
    moment = 1796537045  # 2026-12-06 06:04:05 UTC
    code = f"from lab.grading.gradebook import timestamp; print(timestamp({moment}))"
    shown = {
        zone: subprocess.run(
            [sys.executable, "-c", code], cwd=LAB_ROOT, env={"TZ": zone}, capture_output=True, text=True, check=True
        ).stdout.strip()
        for zone in ("Asia/Tokyo", "America/New_York", "UTC")
    }
    assert shown == {
        "Asia/Tokyo": "2026-12-06T15:04:05+09:00",
        "America/New_York": "2026-12-06T01:04:05-05:00",
        "UTC": "2026-12-06T06:04:05+00:00",
    }
    assert gradebook.timestamp(moment, ZoneInfo("Asia/Kolkata")) == "2026-12-06T11:34:05+05:30"
