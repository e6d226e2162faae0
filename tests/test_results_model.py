"""The one results model (lab/model/results.py): statuses are enums until the edge, messages are
facts until a reporter words them, and every file reporter is registered in one list."""

import json
from pathlib import Path

from lab import reporters
from lab.commands import build_parser
from lab.model.results import CheckStatus, Joined, Phrase, Quoted, Result, Words, from_json, holds, replaced


def _message():
    called = Joined.join("\n          ", [Phrase("the table: ", "表: ") + "'a': fence=1", "claim(db, job_id='a') -> 2"])
    return Words(
        "checks.explain",
        called=called,
        got=Quoted(Phrase("no row ", "行なし ") + "'a'"),
        expected=Phrase("2", "2 (次の fence)"),
    )


def test_a_message_crosses_json_as_facts_and_is_worded_in_either_language():
    message = _message()
    again = from_json(json.loads(json.dumps(message.as_json())))
    assert again == message
    assert again.said("en") == (
        "called:   the table: 'a': fence=1\n          claim(db, job_id='a') -> 2\ngot:      \"no row 'a'\"\nexpected: 2"
    )
    assert again.said("ja") == (
        "呼び出し: 表: 'a': fence=1\n          claim(db, job_id='a') -> 2\n"
        "結果:     \"行なし 'a'\"\n期待:     2 (次の fence)"
    )


def test_a_result_read_back_has_its_enum_and_its_facts():
    result = Result("n", "test_x", "steps", 4, ["C4.5"], CheckStatus.FAILED, _message(), 0.5)
    stored = json.loads(json.dumps(result.as_json()))
    assert stored["status"] == "failed" and "key" in stored["message"]  # the words of the edge, the facts of the cache
    again = Result(**stored)
    assert again == result and again.status is CheckStatus.FAILED and not again.passed
    assert again.said("ja") != again.said("en")


def test_facts_are_found_and_paths_replaced_inside_a_message():
    budget = Words("budget", budget=2.5)
    message = Words("prediction_failed_at", file="/tmp/copy/prediction.py", line=3, source="assert x") + "\n" + budget
    assert holds(message, budget) and not holds(message, Words("budget", budget=3))
    moved = replaced(message, "/tmp/copy/", "steps/04-claim/")
    assert "steps/04-claim/prediction.py, line 3" in moved.said("en") and holds(moved, budget)


def test_every_file_reporter_is_an_option_of_check_and_of_watch():
    verbs = build_parser()._subparsers._group_actions[0].choices
    for verb in ("check", "watch"):
        options = {option for action in verbs[verb]._actions for option in action.option_strings}
        assert {reporter.OPTION for reporter in reporters.FILES} <= options, verb
    assert all(callable(reporter.write) for reporter in reporters.FILES)


def test_watch_hands_every_chosen_file_to_the_check_it_runs():
    arguments = build_parser(only="watch").parse_args(["watch", "4", "--junit", "out/checks.xml", "--json", "r.json"])
    assert reporters.forwarded(arguments) == [
        "--json",
        str(Path("r.json").resolve()),
        "--junit",
        str(Path("out/checks.xml").resolve()),
    ]
