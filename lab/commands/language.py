"""`python -m lab language ja`: remember the language of every command for this checkout."""

from lab.commands import options

NAME = "language"
MAKE_TARGETS = ("language",)


def add_arguments(parser):
    parser.add_argument("choice", nargs="?", default="")
    options.lang(parser)


def run(arguments, settings):
    from lab.model.implementation import UsageError
    from lab.model.status import ExitStatus
    from lab.text.language import LANGUAGES, remember
    from lab.text.messages import words_of

    choice = arguments.choice.strip()
    if choice not in LANGUAGES:
        if choice:
            raise UsageError(words_of("learner", settings.lang)("language_usage", choice=choice))
        # Nothing chosen yet: the locale's language, and the two commands that settle it.
        print(words_of("learner", settings.lang)("language_from_locale" if settings.guessed else "language_now"))
        return ExitStatus.ALL_PASS
    from lab.model.starter import follow

    remember(choice, settings.root)
    print(words_of("learner", choice)("language_set"))
    led = follow(settings.root / "steps", choice)  # only the files the learner has not changed
    if led:
        print(words_of("learner", choice)("starters_led", count=len(led)))
    return ExitStatus.ALL_PASS
