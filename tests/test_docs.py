"""Every verb of the one command tree is documented: README's command list in both languages,
`make help` in both languages, its help in the catalogue, and a --help that answers (as
sqlite-utils' tests/test_docs.py does for its commands)."""

import re
import subprocess

import pytest

from lab.commands import VERBS, build_parser
from lab.model.course import LAB_ROOT
from lab.text.language import LANGUAGES
from lab.text.messages import CATALOGUE

README = (LAB_ROOT / "README.md").read_text(encoding="utf-8")
MAKEFILE = (LAB_ROOT / "Makefile").read_text(encoding="utf-8")
COMMAND_LISTS = {"en": ("\n## Every command\n", "\n## "), "ja": ("\n## すべてのコマンド\n", "\n## ")}


def command_list(lang):
    start, end = COMMAND_LISTS[lang]
    text = README[README.index(start) + len(start) :]
    return text[: text.index(end)]


def make_help(lang):
    done = subprocess.run(
        ["make", "-s", "help", f"LAB_LANG={lang}"], cwd=LAB_ROOT, capture_output=True, text=True, timeout=60
    )
    return {line.split()[0] for line in done.stdout.splitlines() if line.strip()}


@pytest.fixture(scope="module", params=LANGUAGES)
def listed(request):
    return request.param, command_list(request.param), make_help(request.param)


@pytest.mark.parametrize("verb", VERBS)
def test_every_verb_is_in_the_readmes_command_list_and_in_make_help(verb, listed):
    lang, text, targets = listed
    targets_in_readme = re.search(rf"^\| `{verb}` \| (.+?) \|", text, re.MULTILINE)
    assert targets_in_readme, f"README ({lang}) does not list {verb}"
    for target in VERBS[verb].MAKE_TARGETS:
        assert f"`{target}`" in targets_in_readme[1] and target in targets, (lang, target)


@pytest.mark.parametrize("verb", VERBS)
def test_every_verb_has_its_help_in_both_languages_and_answers_help(verb, capsys):
    assert CATALOGUE["en"][f"verbs.{verb}"] != CATALOGUE["ja"][f"verbs.{verb}"]
    for lang in LANGUAGES:
        with pytest.raises(SystemExit) as done:
            build_parser(lang).parse_args([verb, "--help"])
        assert done.value.code == 0
        assert CATALOGUE[lang][f"verbs.{verb}"].split()[0] in capsys.readouterr().out


def test_the_makefile_runs_only_verbs_of_the_tree():
    run = set(re.findall(r"-m lab ([a-z-]+)", MAKEFILE))
    assert run and run <= set(VERBS)
