"""`python -m lab lease VERB`: call one function of the artifact on a database file.

Two terminals can play worker A and worker B by hand (lab/field/lease_call.py makes the call).
"""

import argparse

from lab.commands import options

NAME = "lease"
MAKE_TARGETS = ("lease",)
EPILOG = "exit status: 0 done, 1 refused, 2 usage error, 4 busy (another process holds the write lock)"
HELP = {
    "job_id": "the job's id",
    "owner": "who calls (A, B, ...)",
    "owners": "who claim at the same time (A B C ...)",
    "fence": "the fence the owner holds",
    "result": "the result to store",
}


def add_arguments(parser):
    from lab.field.lease_call import CALLS, OPTIONS, parameters_of

    parser.epilog = EPILOG
    options.impl(parser)
    options.lang(parser)
    _options(parser)
    calls = parser.add_subparsers(dest="call", required=True, parser_class=type(parser))
    for verb, function in CALLS.items():
        names = parameters_of(function)
        call = calls.add_parser(verb, help=f"{function}({', '.join(('path', *names))})")
        _options(call, again=True)
        for name in (n for n in names if n not in OPTIONS):
            call.add_argument(
                name, type=int if name == "fence" else str, nargs="+" if name == "owners" else None, help=HELP[name]
            )
        if "ttl" in names:
            call.add_argument("--ttl", type=float, required=True, help="seconds the lease lasts from now")


def _options(parser, again=False):
    from lab.field import busy

    # Before or after the verb alike; after it, an option left out must not hide the one before.
    keep = {"default": argparse.SUPPRESS} if again else {}
    parser.add_argument("--db", metavar="FILE", **keep, help="the SQLite file")
    parser.add_argument("--now", type=float, **keep, help="the caller's clock (default: time.time())")
    parser.add_argument("--json", action="store_true", **keep, help="print the call and what it returned as JSON")
    parser.add_argument(
        "--busy-timeout",
        type=float,
        metavar="SECONDS",
        **({"default": busy.DEFAULT_SECONDS} | keep),
        help=f"how long to wait for another process's write lock (default {busy.DEFAULT_SECONDS:g}; then exit status 4)",
    )
    if again:
        parser.add_argument("--impl", **keep, help="as before the verb")
        options.lang(parser, **keep)


def run(arguments, settings):
    from lab.field.artifact import reported
    from lab.field.lease_call import run as call

    return reported(lambda: call(arguments, settings))
