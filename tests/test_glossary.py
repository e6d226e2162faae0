"""One vocabulary: every Japanese text a learner meets uses, for each concept, the one term of
lab/text/glossary.toml, never a term it lists to avoid (仕事 for a job, ミュータント or 誤った版 for a
mutant, 古いトークン for a stale fence, 更新 for renew...); a term the glossary says a guide explains
is explained there where the guide first uses it. And one voice per kind of text: each mutant's why
is plain (である調), as a report's line; the hints ask politely (です・ます調), as the contracts speak."""

import ast
import re
import tomllib

import pytest
from readme_parts import japanese_texts

from lab.model.course import LAB_ROOT, closing_questions, load_course
from lab.model.pristine import prediction_text, stub_text
from lab.text.messages import CATALOGUE

GLOSSARY = tomllib.loads((LAB_ROOT / "lab" / "text" / "glossary.toml").read_text(encoding="utf-8"))["term"]
JAPANESE = re.compile(r"[ぁ-んァ-ヶ一-龯]")


def _japanese_literals(path):
    """Every string literal of a Python file that holds Japanese (an f-string's literal parts joined)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.JoinedStr):
            text = "{}".join(part.value for part in node.values if isinstance(part, ast.Constant))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
        else:
            continue
        if JAPANESE.search(text):
            yield text


def _japanese_texts():
    """(where, text) for every Japanese text a learner reads."""
    for key, text in CATALOGUE["ja"].items():
        yield f"ja.toml {key}", text
    for path in sorted((LAB_ROOT / "checks").glob("*.py")):
        for text in _japanese_literals(path):
            yield f"checks/{path.name}", text
    for path in sorted((LAB_ROOT / "mutants").glob("*.toml")):
        yield f"mutants/{path.name}", tomllib.loads(path.read_text(encoding="utf-8"))["why"]["ja"]
    for step in load_course():
        # as shipped: the learner's own words in steps/ are theirs to choose
        yield f"steps/{step.dir}/step.py", stub_text(step)
        yield f"steps/{step.dir}/prediction.py", prediction_text(step)
        yield f"course.toml step {step.number} title", step.title["ja"]
        for clause in step.hints:
            for index, hint in enumerate(step.questions(clause, "ja"), 1):
                yield f"course.toml {clause} hint {index}", hint
        yield f"{step.dir}/CONTRACT.ja.md", step.contract_path("ja").read_text(encoding="utf-8")
    for number, closing in enumerate(closing_questions(), 1):
        yield f"course.toml closing question {number}", closing.question["ja"]
        yield f"course.toml closing question {number}, model answer", closing.answer["ja"]
    yield from japanese_texts()  # README.md's Japanese part and the Japanese guides
    makefile = (LAB_ROOT / "Makefile").read_text(encoding="utf-8")
    yield "Makefile #ja", "\n".join(re.findall(r"^#ja .+$", makefile, re.MULTILINE))


TEXTS = list(_japanese_texts())


def test_the_glossary_names_each_concept_once():
    english = [term["en"] for term in GLOSSARY]
    assert len(english) == len(set(english))
    assert all(term["ja"] and term["avoid"] for term in GLOSSARY)


@pytest.mark.parametrize("term", GLOSSARY, ids=lambda term: term["en"])
def test_no_japanese_text_uses_a_word_the_glossary_avoids(term):
    found = [
        f"{where}: {match.group(0)!r} in …{text[max(0, match.start() - 15) : match.end() + 15]}…"
        for where, text in TEXTS
        for pattern in term["avoid"]
        for match in re.finditer(pattern, text)
    ]
    assert not found, f"say {term['ja']} for {term['en']}:\n" + "\n".join(found)


@pytest.mark.parametrize("term", GLOSSARY, ids=lambda term: term["en"])
def test_the_chosen_term_is_the_one_in_use(term):
    chosen = re.split(r" \(|, ", term["ja"])[0]
    assert any(chosen in text for _, text in TEXTS), chosen


def test_a_japanese_step_title_says_what_its_english_title_says():
    titles = {step.function: step.title["ja"] for step in load_course()}
    assert titles["enqueue"] == "ジョブを 1 回だけ登録する"  # a job only once, not "only the first job"
    assert "遅れた完了" in titles["complete"] and "延長" in titles["renew"] and "勝者は 1 人" in titles["claim_many"]


@pytest.mark.parametrize("term", [t for t in GLOSSARY if "explained_in" in t], ids=lambda term: term["en"])
def test_a_term_is_explained_where_its_guide_first_uses_it(term):
    """The guide's first use of the term is its explanation: the term in bold, "**保持者** と言うのは…"."""
    guide = (LAB_ROOT / term["explained_in"]).read_text(encoding="utf-8")
    chosen = re.split(r" \(|, ", term["ja"])[0]
    assert f"**{chosen}**" in guide, f"{term['explained_in']} never explains {chosen}"
    assert guide.index(f"**{chosen}**") + 2 == guide.index(chosen), (
        f"{term['explained_in']} uses {chosen} before it explains it"
    )


# A sentence ends, or turns at が、, in the polite form (です・ます調) or in the plain one.
POLITE = re.compile(r"(です|ます|ません|ました|でした|でしょう|ください)(か)?(。|が、|ので|$)")
MUTANT_WHYS = [(where, text) for where, text in TEXTS if where.startswith("mutants/")]
HINTS = [(where, text) for where, text in TEXTS if re.match(r"course\.toml C\d+\.\d+ hint", where)]


def test_every_mutants_why_is_plain_as_a_reports_line():
    assert len(MUTANT_WHYS) == len(list((LAB_ROOT / "mutants").glob("*.toml")))
    polite = [f"{where}: {text}" for where, text in MUTANT_WHYS if POLITE.search(text)]
    assert not polite, "say it plainly (である調), as the other mutants do:\n" + "\n".join(polite)


def test_every_hint_asks_politely_as_the_contracts_speak():
    sentences = [(where, part) for where, text in HINTS for part in re.findall(r"[^。]+。", text)]
    assert len(sentences) >= len(HINTS) > 0
    plain = [f"{where}: {sentence}" for where, sentence in sentences if not POLITE.search(sentence)]
    assert not plain, "ask politely (です・ます調), as the other hints do:\n" + "\n".join(plain)


# Japanese prose lists with 、, never an ASCII comma. Code and values keep theirs: a call's
# arguments (`now=10.0, ttl=5.0`), a repr, and the form of a tuple written in parentheses
# (`(A の答え, B の答え, 保存される行)`), which is the shape of the value shown beside it.
COLUMN_LISTED = re.compile(r"\b(?:owner|until|fence|result|done) [^\s,=()]+, (?:owner|until|fence|result|done)\b")
TOUCHING_JAPANESE = re.compile(r"[ぁ-んァ-ヶ一-龯ー]\s*,|,\s*[ぁ-んァ-ヶ一-龯ー]")
TUPLE_FORM = re.compile(r"\([^()、。]*, [^()、。]*\)")


def prose_commas(text):
    """The ASCII commas of a Japanese text where its prose has a comma."""
    prose = re.sub(r"`[^`]*`", "``", text)
    listed = [m.group(0) for m in COLUMN_LISTED.finditer(prose)]  # columns listed with their values
    return listed + [m.group(0) for m in TOUCHING_JAPANESE.finditer(TUPLE_FORM.sub("()", prose))]


def test_japanese_prose_in_the_catalogue_and_the_checks_messages_lists_with_the_japanese_comma():
    """The catalogue and the checks' ja= texts (every file of checks/: the steps' checks and rules,
    support.py, the model)."""
    owned = [(where, text) for where, text in TEXTS if where.startswith(("ja.toml", "checks/"))]
    every_step = {f"checks/{path.name}" for path in (LAB_ROOT / "checks").glob("test_*.py")}
    assert len(every_step) == len(load_course()) and every_step <= {where for where, _ in owned}
    found = [f"{where}: {comma!r} in {text!r}" for where, text in owned for comma in prose_commas(text)]
    assert not found, "\n".join(found)


@pytest.mark.parametrize(
    ("text", "commas"),
    [
        ("コミット済みの行: owner NULL, until 0, fence 0", ["owner NULL, until"]),
        ("owner 'B', until 15, fence 2 が保存される", ["owner 'B', until"]),
        ("ジョブがない, 完了済み", ["い,"]),
        ("(owner NULL, until 0, fence はそのまま)", ["owner NULL, until"]),
        ("コミット済みの行: owner NULL、until 0、fence 0", []),
        ("別の接続が owner='B', until=30 をコミットしたあとで", []),
        ("(A の答え, B の答え, 保存される行) が 2 つの順序のどちらかと同じ", []),
        ("`def test_my_prediction(lease, db):` と書いてください", []),
    ],
)
def test_the_prose_comma_search_finds_prose_and_leaves_code_and_values_alone(text, commas):
    assert prose_commas(text) == commas
