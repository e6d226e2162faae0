"""The mutation report in the learner's language: `--lang ja` words the terminal summary,
report.md and index.html from the catalogue's [mutation] table (statuses and the ledger's reasons
included), mutation.json (Stryker's schema) is the same as in English, and a language the lab has
no text in is refused in one line."""

import re
import subprocess
import sys
import tomllib

import pytest

from lab.model.course import LAB_ROOT
from lab.mutation.equivalents import LEDGER
from lab.text.messages import say


def mutation_report(out, stage, *args):
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "lab",
            "mutation",
            "--impl",
            "solutions",
            "--out",
            str(out),
            "--stage",
            str(stage),
            *args,
        ],
        cwd=LAB_ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )


@pytest.fixture(scope="module")
def both_languages(reference_mutation_report):
    """The reference's report in English and in Japanese, on one stage (the second run reuses it)."""
    runs = {lang: reference_mutation_report(lang) for lang in ("en", "ja")}
    for done, _ in runs.values():
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return runs


def test_lang_ja_writes_the_summary_and_report_md_in_japanese(both_languages):
    done, out = both_languages["ja"]
    report = (out / "report.md").read_text(encoding="utf-8")
    assert report.startswith("# 変異レポート: solutions\n")
    assert f"## {say('mutation.score')}" not in report and f"## {say('mutation.score', 'ja')}" in report
    assert say("mutation.no_survivors", "ja") in report
    assert f"## {say('mutation.every_mutant', 'ja')}" in report
    # statuses and origins in Japanese; the question once, in Japanese
    assert "| mutmut が生成 | 1 | `init_db` | 検出 |" in report and "| 等価 |" in report
    assert "| killed |" not in report and "| equivalent |" not in report
    assert say("mutation.question", "en") not in report
    # an equivalent's reason is the ledger's Japanese one
    assert "`sql-letter-case`: 名前を使うだけの文です。" in report
    assert say("mutation.score_heading", "ja", impl="solutions") in done.stdout
    assert "Mutation score of" not in done.stdout
    assert "キルマトリクス" in done.stdout and "kill matrix:" not in done.stdout
    assert "Traceback" not in done.stdout + done.stderr


def test_lang_ja_makes_a_japanese_page_and_the_same_mutation_json(both_languages):
    (_, english), (_, japanese) = both_languages["en"], both_languages["ja"]
    page = (japanese / "index.html").read_text(encoding="utf-8")
    assert '<html lang="ja">' in page and say("mutation.matrix", "ja") in page
    assert '<html lang="en">' in (english / "index.html").read_text(encoding="utf-8")
    # the status shown is Japanese, data-status (for tools) the status itself
    assert re.search(r'data-status="killed"[^>]*><summary><code>[^<]+</code> <span class="status">検出</span>', page)
    assert '<span class="status">killed</span>' not in page and 'title="failed"' not in page
    # a font stack that covers Japanese on macOS, Linux and Windows, before the generic family
    assert re.search(
        r'body \{ font: [^;]*"Hiragino Sans"[^;]*"Noto Sans CJK JP"[^;]*"Yu Gothic"[^;]*Meiryo, sans-serif;', page
    )
    assert (japanese / "mutation.json").read_bytes() == (english / "mutation.json").read_bytes()


def test_an_unknown_language_is_one_line_and_status_2(tmp_path):
    done = mutation_report(tmp_path / "out", tmp_path / "stage", "--lang", "xx")
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert (
        line.startswith("python -m lab mutation: argument --lang: 'xx' is not one of") and "en" in line and "ja" in line
    )
    assert done.stdout == "" and not (tmp_path / "out").exists()


def test_every_reason_of_the_labs_ledger_has_its_japanese_text():
    ledger = tomllib.loads(LEDGER.read_text(encoding="utf-8"))
    entries = ledger["rule"] + ledger["mutant"]
    assert entries and all(re.search(r"[ぁ-んァ-ン一-龯]", entry.get("reason_ja", "")) for entry in entries)


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_new_ledger_of_the_learners_starts_with_toml_comments_in_their_language(lang):
    header = say("mutation.ledger_header", lang)
    assert tomllib.loads(header) == {} and all(line.startswith("# ") for line in header.splitlines())
    assert bool(re.search(r"[ぁ-んァ-ヶ一-龯]", header)) == (lang == "ja")
    assert "make equivalent" in header and "[[mutant]]" in header
