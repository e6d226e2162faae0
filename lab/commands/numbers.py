"""The numbers the field verbs take, checked before any process starts: a mistake is a UsageError."""

from lab.model.implementation import UsageError
from lab.text.messages import words_of


def positive(value, option, lang):
    if not value > 0:
        raise UsageError(words_of("field", lang)("not_positive", option=option, value=value))


def counts(text, lang):
    """'1,2,4' -> (1, 2, 4): worker process counts, each at least 1."""
    try:
        found = tuple(int(part) for part in text.split(","))
    except ValueError:
        found = ()
    if not found or min(found) < 1:
        raise UsageError(words_of("field", lang)("bad_counts", text=text))
    return found
