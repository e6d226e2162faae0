"""`python -m lab lease`: call one function of the artifact on a database file (field/commands/lease.py parses it).

Two terminals can play worker A and worker B by hand. `--now` is the caller's clock (default:
the wall clock, time.time()). Exit status 0 when the call succeeded, 1 when it was refused (no
fence, False, no such job; the reason read from the row, refusal.py) or the implementation failed,
2 for a usage error: bad arguments, a missing database or one without the jobs table, 4 when
another process held the write lock for longer than --busy-timeout (busy.py).
"""

import json
import math
import sqlite3
import sys
import time
from pathlib import Path

from field import busy, refusal
from field.artifact import ArtifactBroken, import_file, materialize
from field.numbers import clock_value
from lab.model.course import load_course
from lab.model.implementation import UsageError
from lab.model.status import ExitStatus
from lab.text.messages import words_of

CALLS = {  # verb -> the function it calls; its arguments are course.toml's signature (parameters_of)
    "init": "init_db",
    "enqueue": "enqueue",
    "claim": "claim",
    "claim-many": "claim_many",
    "renew": "renew",
    "complete": "complete",
    "release": "release",
    "state": "state",
}
OPTIONS = ("now", "ttl")  # given as --now and --ttl; the others are positional


def parameters_of(function):
    """The function's arguments after the path, in the contract's order, as course.toml names them."""
    return next(step.parameters[1:] for step in load_course() if step.function == function)


def run(arguments, settings):
    lang, verb, label = settings.lang, arguments.call, settings.impl_label
    words = words_of("field", lang)
    now = arguments.now if arguments.now is not None else time.time()
    for option, value in (
        ("--now", now),
        ("--ttl", getattr(arguments, "ttl", None)),
        ("--busy-timeout", arguments.busy_timeout),
    ):
        if value is not None and not math.isfinite(value):
            raise UsageError(words("not_finite", option=option, value=value))
    if arguments.busy_timeout < 0:
        raise UsageError(words("negative", option="--busy-timeout", value=arguments.busy_timeout))
    if not arguments.db:
        raise UsageError(words("db_required"))
    if Path(arguments.db).is_dir():
        raise UsageError(words("db_is_folder", db=arguments.db, example=Path(arguments.db) / "jobs.db"))
    if verb != "init" and not Path(arguments.db).is_file():
        raise UsageError(words("no_database", db=arguments.db))
    function_name = CALLS[verb]
    names = parameters_of(function_name)
    values = [now if name == "now" else getattr(arguments, name) for name in names]
    module = import_file(materialize(settings.impl, label), lang)
    try:
        with busy.waiting_at_most(arguments.busy_timeout):
            returned = _call(module, function_name, [arguments.db, *values], label, lang)
            refused = returned is None or returned is False or (verb == "claim-many" and not any(returned))
            reason = (
                refusal.reason(arguments.db, function_name, dict(zip(names, values)), lang)
                if refused and verb not in ("init", "state")
                else None
            )
    except sqlite3.Error as error:
        if not busy.is_busy(error):
            raise UsageError(_database_error(arguments.db, error, lang)) from None
        print(words("busy", db=arguments.db, seconds=arguments.busy_timeout), file=sys.stderr)
        return ExitStatus.BUSY
    if arguments.json:
        shown = dict(zip(("path", *names), [arguments.db, *values]))
        print(
            json.dumps(
                {"call": function_name, "arguments": shown, "returned": returned}
                | ({"reason": reason} if reason else {}),
                ensure_ascii=False,
            )
        )
    else:
        print(_sentence(verb, arguments, now, returned, reason, lang))
    return ExitStatus.SOME_FAIL if refused and verb != "init" else ExitStatus.ALL_PASS


def _database_error(db, error, lang):
    words = words_of("field", lang)
    return words("db_no_table", db=db) if "no such table" in str(error) else words("db_error", db=db, error=error)


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
    except sqlite3.Error:
        raise  # the database's answer: run() tells a held lock from the rest
    except (Exception, SystemExit) as error:  # noqa: BLE001 - the learner's code: one line, no traceback
        raise ArtifactBroken(words("raised", function=name, kind=type(error).__name__, error=error)) from None


def _sentence(verb, a, now, returned, reason, lang):
    words = words_of("field", lang)
    if verb == "init":
        return words("cli_init", db=a.db)
    if verb == "state":
        if returned is None:
            return words("cli_no_job", job=a.job_id)
        return words("cli_state", **{k: returned.get(k) for k in ("id", "owner", "until", "fence", "done", "result")})
    function = CALLS[verb]
    key = f"cli_{function}_{'refused' if reason else 'ok'}"
    values = {"job": a.job_id, "now": clock_value(now), "reason": reason} | {
        k: getattr(a, k, None) for k in ("owner", "fence", "result")
    }
    if verb == "claim" and returned is not None:
        values["fence"] = returned
    if verb == "claim-many":
        won = [
            words("cli_won", owner=owner, fence=fence) for owner, fence in zip(a.owners, returned) if fence is not None
        ]
        lost = [owner for owner, fence in zip(a.owners, returned) if fence is None]
        values |= {"owners": ", ".join(a.owners), "won": ", ".join(won), "lost": ", ".join(lost) or "-"}
    until = clock_value(now + a.ttl) if verb in ("claim", "renew", "claim-many") else None
    return words(key, **values, until=until)
