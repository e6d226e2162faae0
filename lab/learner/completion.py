"""The end of the course: the completion message and the worksheet's two closing questions.

The learner answers in `steps/ANSWERS.md`, created from a template with the questions when it
is missing and never overwritten; a question counts as answered when text other than the
template's placeholder follows its heading.
"""

from pathlib import Path

from lab.learner.store import shown
from lab.model.course import LAB_ROOT, load_course
from lab.text.messages import words_of

ANSWERS_FILE = "ANSWERS.md"
QUESTIONS = ("question_1", "question_2")


def answers_path(steps_dir):
    return Path(steps_dir) / ANSWERS_FILE


def template():
    """Both languages' questions, each heading followed by the placeholder to replace."""
    en, ja = words_of("learner", "en"), words_of("learner", "ja")
    parts = [f"# {en('answers_heading')} · {ja('answers_heading')}\n"]
    for number, key in enumerate(QUESTIONS, start=1):
        parts.append(f"\n## {number}. {en(key)}\n## {number}. {ja(key)}\n\n")
        parts.append(f"{_placeholder()}\n")
    return "".join(parts)


def _placeholder():
    """What stands where an answer goes until the learner writes one, in both languages."""
    return f"{words_of('learner', 'en')('answer_here')} {words_of('learner', 'ja')('answer_here')}"


def ensure_answers_file(steps_dir):
    path = answers_path(steps_dir)
    if not path.exists():
        path.write_text(template(), encoding="utf-8")
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
    placeholder = _placeholder()
    answered = sum(any(text != placeholder for text in sections.get(str(n), [])) for n in range(1, len(QUESTIONS) + 1))
    return len(QUESTIONS) - answered


def completion_lines(steps_dir, lang="en", root=None):
    """The lines that close the course: congratulations, the questions, where the answers go."""
    path = ensure_answers_file(steps_dir)
    file = shown(path, root) if root else str(path)
    missing = unanswered(steps_dir)
    words = words_of("learner", lang)
    lines = [words("complete")]
    if not missing:
        return lines + [words("answered", file=file)]
    lines.append(words("closing", file=file))
    lines += [f"  {n}. {words(key)}" for n, key in enumerate(QUESTIONS, start=1)]
    return lines + [words("unanswered", count=missing, file=file)]


def closing_lines(outcome, lang="en", root=LAB_ROOT):
    """After a check of the learner's own steps/ that passes every step of the course: the lines
    that end it (the answers file is written first when it is missing); otherwise none."""
    steps_dir = root / "steps"
    if len(outcome.steps) != len(load_course()) or (root / outcome.impl).resolve() != steps_dir.resolve():
        return []
    if not all(outcome.step_passes(number) for number in outcome.steps):
        return []
    return completion_lines(steps_dir, lang, root)
