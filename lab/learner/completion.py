"""The end of the course: the completion message and the worksheet's two closing questions.

The learner answers in `steps/ANSWERS.md`, created from a template with the questions when it
is missing and never overwritten; a question counts as answered when text other than the
template's placeholder follows its heading.
"""

from pathlib import Path

from lab.learner.store import shown
from lab.text.messages import words_of

ANSWERS_FILE = "ANSWERS.md"
QUESTIONS = ("question_1", "question_2")


def answers_path(steps_dir):
    return Path(steps_dir) / ANSWERS_FILE


def template(lang="en"):
    """Both languages' questions, the learner's language first, each heading followed by the
    placeholder to replace."""
    first, second = (words_of("learner", code) for code in _in_order(lang))
    parts = [f"# {first('answers_heading')} · {second('answers_heading')}\n"]
    for number, key in enumerate(QUESTIONS, start=1):
        parts.append(f"\n## {number}. {first(key)}\n## {number}. {second(key)}\n\n")
        parts.append(f"{_placeholder(lang)}\n")
    return "".join(parts)


def _in_order(lang):
    return ("ja", "en") if lang == "ja" else ("en", "ja")


def _placeholder(lang="en"):
    """What stands where an answer goes until the learner writes one, in both languages."""
    return " ".join(words_of("learner", code)("answer_here") for code in _in_order(lang))


def ensure_answers_file(steps_dir, lang="en"):
    path = answers_path(steps_dir)
    if not path.exists():
        path.write_text(template(lang), encoding="utf-8")
    return path


def unanswered(steps_dir):
    """How many closing questions still have no answer in the file (2 when it is missing)."""
    path = answers_path(steps_dir)
    if not path.is_file():
        return len(QUESTIONS)
    sections, current = {}, None
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith("## ") and line[3:4].isdigit():
            current = line[3:4]
            sections.setdefault(current, [])
            continue
        if current and line.strip():
            sections[current].append(line.strip())
    placeholders = {_placeholder(lang) for lang in ("en", "ja")}
    answered = sum(any(text not in placeholders for text in sections.get(str(n), [])) for n in range(1, len(QUESTIONS) + 1))
    return len(QUESTIONS) - answered


def completion_lines(steps_dir, lang="en", root=None):
    """The lines that close the course: congratulations, the questions, where the answers go."""
    path = ensure_answers_file(steps_dir, lang)
    file = shown(path, root) if root else str(path)
    missing = unanswered(steps_dir)
    words = words_of("learner", lang)
    lines = [words("complete")]
    if not missing:
        return lines + [words("answered", file=file)]
    lines.append(words("closing", file=file))
    lines += [f"  {n}. {words(key)}" for n, key in enumerate(QUESTIONS, start=1)]
    return lines + [words("unanswered", count=missing, file=file)]
