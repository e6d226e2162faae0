"""`python -m lab lease`: call one function of the artifact on a database file (lab/commands/lease.py parses it).

Two terminals can play worker A and worker B by hand. `--now` is the caller's clock (default:
the wall clock, time.time()). Exit status 0 when the call succeeded, 1 when it was refused (no
fence, False, no such job) or the implementation failed, 2 for a usage error: bad arguments, a
missing database or one without the jobs table.
"""

import json
import math
import sqlite3
import time
from pathlib import Path

from lab.field.artifact import ArtifactBroken, import_file, materialize
from lab.model.implementation import UsageError
from lab.model.status import ExitStatus
from lab.text.messages import words_of

CALLS = {  # verb -> (function, its arguments after the path, in the contract's order)
    "init": ("init_db", ()),
    "enqueue": ("enqueue", ("job",)),
    "claim": ("claim", ("job", "owner", "now", "ttl")),
    "renew": ("renew", ("job", "owner", "fence", "now", "ttl")),
    "complete": ("complete", ("job", "owner", "fence", "now", "result")),
    "release": ("release", ("job", "owner", "fence")),
    "state": ("state", ("job",)),
}
OPTIONS = ("now", "ttl")  # given as --now and --ttl; the others are positional


def run(arguments, settings):
    lang, verb, label = settings.lang, arguments.call, settings.impl_label
    words = words_of("field", lang)
    if not arguments.db:
        raise UsageError(words("db_required"))
    if verb != "init" and not Path(arguments.db).is_file():
        raise UsageError(words("no_database", db=arguments.db))
    now = arguments.now if arguments.now is not None else time.time()
    for option, value in (("--now", now), ("--ttl", getattr(arguments, "ttl", None))):
        if value is not None and not math.isfinite(value):
            raise UsageError(words("not_finite", option=option, value=value))
    function_name, names = CALLS[verb]
    values = [now if name == "now" else getattr(arguments, name) for name in names]
    module = import_file(materialize(settings.impl, label), lang)
    returned = _call(module, function_name, [arguments.db, *values], label, lang)
    if arguments.json:
        shown = dict(zip(("path", *names), [arguments.db, *values]))
        print(json.dumps({"call": function_name, "arguments": shown, "returned": returned}, ensure_ascii=False))
    else:
        print(_sentence(verb, arguments, now, returned, lang))
    refused = returned is None or returned is False
    return ExitStatus.SOME_FAIL if refused and verb != "init" else ExitStatus.ALL_PASS


def _call(module, name, values, label, lang):
    words = words_of("field", lang)
    function = getattr(module, name, None)
    if not callable(function):
        raise ArtifactBroken(words("lacks", impl=label, function=name))
    try:
        return function(*values)
    except NotImplementedError:
        raise ArtifactBroken(words("not_implemented", impl=label, function=name)) from None
    except ValueError as error:
        raise UsageError(f"{name}: {error}") from None
    except sqlite3.Error as error:
        raise UsageError(words("db_error", db=values[0], error=error)) from None
    except (Exception, SystemExit) as error:  # noqa: BLE001 - the learner's code: one line, no traceback
        raise ArtifactBroken(words("raised", function=name, kind=type(error).__name__, error=error)) from None


def _sentence(verb, a, now, returned, lang):
    words = words_of("field", lang)
    if verb == "init":
        return words("cli_init", db=a.db)
    if verb == "state":
        if returned is None:
            return words("cli_no_job", job=a.job)
        return words("cli_state", **{k: returned.get(k) for k in ("id", "owner", "until", "fence", "done", "result")})
    key = f"cli_{verb}_{'refused' if returned is None or returned is False else 'ok'}"
    values = {"job": a.job, "now": _number(now)} | {k: getattr(a, k, None) for k in ("owner", "fence", "result")}
    if verb == "claim" and returned is not None:
        values["fence"] = returned
    until = _number(now + a.ttl) if verb in ("claim", "renew") else None
    return words(key, **values, until=until)


def _number(value):
    """A clock value as a person reads it: 5, 12.5, 1712345678.123."""
    return f"{value:.3f}".rstrip("0").rstrip(".")
