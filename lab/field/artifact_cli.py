"""`python -m lab lease`: call one function of the artifact on a database file.

Two terminals can play worker A and worker B by hand. `--now` is the caller's clock (default:
the wall clock, time.time()). Exit status 0 when the call succeeded, 1 when it was refused (no
fence, False, no such job) or the implementation failed, 2 for a usage error: bad arguments, a
missing database or one without the jobs table.
"""

import argparse
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
HELP = {"job": "the job's id", "owner": "who calls (A, B, ...)", "fence": "the fence the owner holds", "result": "the result to store"}


def add_parser(verbs, help_text, common):
    lease = verbs.add_parser("lease", help=help_text, description=help_text, epilog="exit status: 0 done, 1 refused, 2 usage error")
    common(lease)
    _options(lease, default=None)
    calls = lease.add_subparsers(dest="call", required=True, parser_class=type(lease))
    for verb, (function, names) in CALLS.items():
        call = calls.add_parser(verb, help=f"{function}({', '.join(('path', *names))})")
        _options(call, default=None, again=True)
        for name in (n for n in names if n not in OPTIONS):
            call.add_argument(name, type=int if name == "fence" else str, help=HELP[name])
        if verb in ("claim", "renew"):
            call.add_argument("--ttl", type=float, required=True, help="seconds the lease lasts from now")


def _options(parser, default, again=False):
    # Before or after the verb alike; after it, an option left out must not hide the one before.
    keep = {"default": argparse.SUPPRESS} if again else {}
    parser.add_argument("--db", metavar="FILE", **({"default": default} | keep), help="the SQLite file")
    parser.add_argument("--now", type=float, **({"default": default} | keep), help="the caller's clock (default: time.time())")
    parser.add_argument("--json", action="store_true", **keep, help="print the call and what it returned as JSON")
    if again:
        parser.add_argument("--impl", **keep, help="as before the verb")
        parser.add_argument("--lang", choices=("en", "ja"), **keep, help="as before the verb")


def run(arguments, impl_path, label):
    lang, verb = arguments.lang, arguments.call
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
    module = import_file(materialize(impl_path, label), lang)
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
