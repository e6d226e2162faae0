"""The lab's documents and the structure each has: README.md's two parts, English then Japanese,
and each guide of docs/ (NAME.md) with its Japanese twin (NAME.ja.md); their headings, tables and
code blocks, in order (tests/test_readme_languages.py compares them); and where a section now lives."""

import re
from dataclasses import dataclass

from lab.dev.readme import documents
from lab.model.course import LAB_ROOT

JAPANESE_TITLE = "# リースと fencing token のラボ"
# A learner types these: the lines of a shell block, or those after a prompt (`$ `, `A$ `, `B$ `).
PROMPT = re.compile(r"^(?:[AB]?\$) ")
HEADING = re.compile(r"^(#{1,6}) ")


def parts():
    """(the English part, the Japanese part) of README.md."""
    readme = (LAB_ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index(f"\n{JAPANESE_TITLE}\n") + 1
    return readme[:start], readme[start:]


def twins():
    """{NAME.md: NAME.ja.md} for every Markdown file of the lab, at its root or in docs/, that has a
    Japanese twin, as paths relative to the lab."""
    found = {}
    for folder in (LAB_ROOT, LAB_ROOT / "docs"):
        for japanese in sorted(folder.glob("*.ja.md")):
            english = japanese.with_name(japanese.name.removesuffix(".ja.md") + ".md")
            found[english.relative_to(LAB_ROOT).as_posix()] = japanese.relative_to(LAB_ROOT).as_posix()
    return found


def pairs():
    """(name, English text, Japanese text): README.md's two parts, then each document and its twin."""
    yield ("README.md", *parts())
    for english, japanese in twins().items():
        yield english, *((LAB_ROOT / name).read_text(encoding="utf-8") for name in (english, japanese))


def japanese_texts():
    """(name, text) of every Japanese document a reader meets: README.md's Japanese part and each twin."""
    yield "README.md 日本語", parts()[1]
    for japanese in twins().values():
        yield japanese, (LAB_ROOT / japanese).read_text(encoding="utf-8")


def section(heading):
    """(the document that holds heading, as a path relative to the lab, and the section's text: from
    the heading line to the next heading of any level). README.md and the guides are searched: a
    promise made in a section is held wherever the section lives."""
    for path in documents(LAB_ROOT):
        lines = path.read_text(encoding="utf-8").split("\n")
        if heading in lines:
            start = lines.index(heading)
            end = next((i for i in range(start + 1, len(lines)) if HEADING.match(lines[i])), len(lines))
            return path.relative_to(LAB_ROOT).as_posix(), "\n".join(lines[start:end])
    raise LookupError(f"no document has the heading {heading!r}")


@dataclass
class Block:
    kind: str  # "heading", "table", "code"
    lines: list

    @property
    def level(self):
        return len(self.lines[0]) - len(self.lines[0].lstrip("#"))

    @property
    def shape(self):
        """A table's (columns, rows, header row included)."""
        return (self.lines[0].count("|") - 1, len(self.lines) - 1)

    def typed(self):
        """What a learner types or copies from a code block, without its comments: the commands of a
        transcript, every line of a shell block, the code of a Python example; None for output alone."""
        fence = self.lines[0] if self.lines[0].startswith("```") else None
        body = self.lines[1:-1] if fence else [line[4:] for line in self.lines]
        if fence == "```sh":
            chosen = body
        elif any(PROMPT.match(line) for line in body):
            chosen = [line for line in body if PROMPT.match(line)]
        elif body and body[0].startswith("def "):
            chosen = body
        else:
            return None
        return [re.sub(r"\s+# .*$", "", line).rstrip() for line in chosen]


def structure(text):
    """Every heading, table and code block (fenced, or indented by four spaces) of a part, in order."""
    blocks, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            end = lines.index("```", i + 1)
            blocks.append(Block("code", lines[i : end + 1]))
            i = end + 1
        elif line.startswith("    ") and (i == 0 or not lines[i - 1].strip()):
            end = i
            while end < len(lines) and (
                lines[end].startswith("    ")
                or not lines[end].strip()
                and end + 1 < len(lines)
                and lines[end + 1].startswith("    ")
            ):
                end += 1
            blocks.append(Block("code", lines[i:end]))
            i = end
        elif line.startswith("|"):
            end = i
            while end < len(lines) and lines[end].startswith("|"):
                end += 1
            blocks.append(Block("table", lines[i:end]))
            i = end
        else:
            if re.match(r"#{1,6} ", line):
                blocks.append(Block("heading", [line]))
            i += 1
    return blocks
