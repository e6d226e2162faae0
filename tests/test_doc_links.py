"""The front page and the guides hold together: every relative link of README.md, of the guides in
docs/ and of the authors' documents at the lab's root (CONTRIBUTING, ARCHITECTURE) points to a file
that exists and, with a #fragment, to a heading of that file as GitHub names its anchors. README.md
stays a front page: short, and linking every guide in its reader's language."""

import re
import unicodedata
from urllib.parse import unquote

import pytest
from readme_parts import parts

from lab.model.course import LAB_ROOT

DOCUMENTS = sorted({*LAB_ROOT.glob("*.md"), *(LAB_ROOT / "docs").glob("*.md")})
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^\s*```")
FRONT_PAGE_LINES = 400


def prose(text, spans=False):
    """text without its code: fenced blocks, lines indented as code (four spaces or more) and, unless
    spans, inline code."""
    kept, fenced = [], False
    for line in text.split("\n"):
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced and not line.startswith("    "):
            kept.append(line if spans else re.sub(r"`[^`]*`", "", line))
    return "\n".join(kept)


def slug(heading):
    """GitHub's anchor of a heading: lower case, every character but letters, marks, digits, `_`, `-`
    and spaces dropped (backticks, colons, 、 and ・ too), spaces made hyphens."""
    kept = (c for c in heading.strip().lower() if c in "-_ " or unicodedata.category(c)[0] in "LM" or c.isdecimal())
    return "".join("-" if c == " " else c for c in kept)


def anchors(path):
    """Every anchor of a Markdown file's headings; a heading's repeat gets -1, -2..., as on GitHub."""
    seen, found = {}, set()
    for line in prose(path.read_text(encoding="utf-8"), spans=True).split("\n"):
        heading = re.match(r"#{1,6} (.+)$", line)
        if heading:
            base = slug(heading[1])
            found.add(base if base not in seen else f"{base}-{seen[base]}")
            seen[base] = seen.get(base, 0) + 1
    return found


def links(path):
    return [target for target in LINK.findall(prose(path.read_text(encoding="utf-8"))) if ":" not in target]


def test_anchors_are_githubs():
    assert slug("リースと fencing token のラボ") == "リースと-fencing-token-のラボ"
    assert slug("Your prediction: `prediction.py`") == "your-prediction-predictionpy"
    assert slug("ヒント、進み具合、やり直し、監視") == "ヒント進み具合やり直し監視"
    assert slug("予想・実装・比較: レポートがいつ何を見せるか") == "予想実装比較-レポートがいつ何を見せるか"


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: path.relative_to(LAB_ROOT).as_posix())
def test_every_relative_link_points_to_a_file_and_a_heading_that_exist(document):
    broken = []
    for target in links(document):
        name, _, fragment = target.partition("#")
        path = (document.parent / unquote(name)).resolve() if name else document
        if not path.exists():
            broken.append(f"{target}: no file {name}")
        elif fragment and path.suffix == ".md" and unquote(fragment) not in anchors(path):
            broken.append(f"{target}: no heading of {path.relative_to(LAB_ROOT).as_posix()} has the anchor #{fragment}")
    assert not broken, broken


def test_the_documents_have_links_to_check():
    # A link pattern that matched nothing would pass the test above for every document.
    assert sum(len(links(document)) for document in DOCUMENTS) >= 40
    assert all(links(document) for document in DOCUMENTS if document.parent.name == "docs")


def test_the_readme_is_a_front_page_linking_each_guide_in_its_readers_language():
    readme = (LAB_ROOT / "README.md").read_text(encoding="utf-8")
    assert readme.count("\n") <= FRONT_PAGE_LINES
    english, japanese = (set(links_of) for links_of in map(LINK.findall, parts()))
    guides = sorted(path.name for path in (LAB_ROOT / "docs").glob("*.md"))
    assert {f"docs/{name}" for name in guides if not name.endswith(".ja.md")} <= english
    assert {f"docs/{name}" for name in guides if name.endswith(".ja.md")} <= japanese
    assert {"CONTRIBUTING.md", "ARCHITECTURE.md"} <= english
    for guide in (LAB_ROOT / "docs").glob("*.md"):  # and each guide leads back to the front page
        assert any(target.partition("#")[0] == "../README.md" for target in links(guide)), guide.name
