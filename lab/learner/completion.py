"""The end of the course: the completion message, the worksheet's two closing questions and, for
each question answered, the model answer beside the learner's (both from course.toml).

The learner answers in `steps/ANSWERS.md`, created from a template with the questions when it
is missing and never overwritten; a question counts as answered when text other than the
template's placeholder follows its heading. A model answer is shown only after its question is
answered, so that it never takes the place of the learner's own thinking.
"""

from pathlib import Path

from lab.model.course import LAB_ROOT, closing_questions, load_course
from lab.store import shown
from lab.text.messages import words_of

ANSWERS_FILE = "ANSWERS.md"
INDENT = "       "  # under "  1. ", the answers' lines


def answers_path(steps_dir):
    return Path(steps_dir) / ANSWERS_FILE


def template(lang="en"):
    """The closing questions in the learner's language, each heading followed by the placeholder
    to replace."""
    words = words_of("learner", lang)
    parts = [f"# {words('answers_heading')}\n"]
    for number, closing in enumerate(closing_questions(), start=1):
        parts.append(f"\n## {number}. {closing.question[lang]}\n\n{_placeholder(lang)}\n")
    return "".join(parts)


def _placeholder(lang="en"):
    """What stands where an answer goes until the learner writes one."""
    return words_of("learner", lang)("answer_here")


def ensure_answers_file(steps_dir, lang="en"):
    path = answers_path(steps_dir)
    if not path.exists():
        path.write_text(template(lang), encoding="utf-8")
    return path


def answers(steps_dir):
    """The learner's answer to each closing question, in order: its lines, or None when the file
    is missing or holds only the placeholder there."""
    path = answers_path(steps_dir)
    # each language's placeholder, and both in either order (the files of labs before 2026-12)
    one = [_placeholder(lang) for lang in ("en", "ja")]
    sections, placeholders = {}, {*one, " ".join(one), " ".join(reversed(one))}
    if path.is_file():
        current = None
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("## ") and line[3:4].isdigit():
                current = line[3:4]
                sections.setdefault(current, [])
            elif current and line.strip() and line.strip() not in placeholders:
                sections[current].append(line.strip())
    return [sections.get(str(n)) or None for n in range(1, len(closing_questions()) + 1)]


def unanswered(steps_dir):
    """How many closing questions still have no answer in the file (all of them when it is missing)."""
    return sum(answer is None for answer in answers(steps_dir))


def completion_lines(steps_dir, lang="en", root=None):
    """The lines that close the course: congratulations, the questions, where the answers go;
    under each question answered, the learner's answer and the model answer."""
    path = ensure_answers_file(steps_dir, lang)
    file = shown(path, root) if root else str(path)
    given = answers(steps_dir)
    missing = sum(answer is None for answer in given)
    words = words_of("learner", lang)
    lines = [
        words("complete", count=len(load_course())),
        words("answered", file=file) if not missing else words("closing", file=file),
    ]
    for number, (closing, answer) in enumerate(zip(closing_questions(), given), start=1):
        lines.append(f"  {number}. {closing.question[lang]}")
        if answer:
            lines += [INDENT + words("your_answer")] + [INDENT + "  " + line for line in answer]
            lines += [INDENT + words("model_answer")] + [
                INDENT + "  " + line for line in closing.answer[lang].splitlines()
            ]
    return lines + ([words("unanswered", count=missing, file=file)] if missing else [])


def closing_lines(outcome, lang="en", root=LAB_ROOT):
    """After a check of the learner's own steps/ that passes every step of the course: the lines
    that end it (the answers file is written first when it is missing); otherwise none."""
    steps_dir = root / "steps"
    if len(outcome.steps) != len(load_course()) or (root / outcome.impl).resolve() != steps_dir.resolve():
        return []
    if not all(outcome.step_passes(number) for number in outcome.steps):
        return []
    return completion_lines(steps_dir, lang, root)
