"""`python -m lab lease VERB`: call one function of the artifact on a database file.

Two terminals can play worker A and worker B by hand (field/lease_call.py makes the call).
"""

import argparse

from lab.commands import options

NAME = "lease"
MAKE_TARGETS = ("lease",)


def add_arguments(parser):
    from field.lease_call import CALLS, OPTIONS, parameters_of

    parser.epilog = parser.text("epilog")
    options.impl(parser)
    options.lang(parser)
    _options(parser)
    calls = parser.add_subparsers(dest="call", required=True)
    for verb, function in CALLS.items():
        names = parameters_of(function)
        call = calls.add_parser(verb, help=f"{function}({', '.join(('path', *names))})")
        _options(call, again=True)
        for name in (n for n in names if n not in OPTIONS):
            call.add_argument(name, type=int if name == "fence" else str, nargs="+" if name == "owners" else None)
        if "ttl" in names:
            call.add_argument("--ttl", type=float, required=True)


def _options(parser, again=False):
    from field import busy

    # Before or after the verb alike; after it, an option left out must not hide the one before.
    keep = {"default": argparse.SUPPRESS} if again else {}
    parser.add_argument("--db", metavar="FILE", **keep)
    parser.add_argument("--now", type=float, **keep)
    parser.add_argument("--json", action="store_true", **keep)
    parser.add_argument(
        "--busy-timeout",
        type=float,
        metavar="SECONDS",
        **({"default": busy.DEFAULT_SECONDS} | keep),
        help=parser.text("busy_timeout", default=f"{busy.DEFAULT_SECONDS:g}"),  # shown after the verb too
    )
    if again:
        parser.add_argument("--impl", **keep, help=parser.text("impl_again"))
        options.lang(parser, **keep)


def run(arguments, settings):
    from field.artifact import reported
    from field.lease_call import run as call

    return reported(lambda: call(arguments, settings))
