"""What stands in for a function of the learner's module while a check watches its calls, and the
routing that brings every call of that function to it: through the module's name, and through any
other name the learner's code holds the function by (a default argument ``_claim=claim``, an alias,
a list), which replacing the module's attribute alone would miss."""

from __future__ import annotations

import json
import types

from lab.sandbox.learner.plain import plain

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see server.py)
if TYPE_CHECKING:
    from collections.abc import Callable
    from io import BufferedRWPair

ROUTED = "__lease_lab_routed__"  # the global through which a routed function's own code reaches its stand-in


class StandIn:
    """Stands in for a function of the module while a check watches it (the course says which:
    claim_many's checks watch claim), reached through any name the function is held by
    (route_calls): each call connects to the checks' socket, says its
    arguments, waits there for their go, runs the real function and tells them what it returned.
    The counting is theirs (lab/sandbox/meeting.py): they see the connections."""

    def __init__(self, real: Callable[..., object], socket_path: str, wait: float) -> None:
        self.real, self.socket_path, self.wait = real, socket_path, wait

    def __call__(self, *args: object, **kwargs: object) -> object:
        import socket  # here: only a watched check's process needs it, not every start (6 ms)

        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as meeting:
            meeting.settimeout(self.wait)
            meeting.connect(self.socket_path)
            lines = meeting.makefile("rwb")
            called = {"arguments": plain(in_order(self.real, args, kwargs))}
            lines.write((json.dumps(called) + "\n").encode())
            lines.flush()
            lines.readline()  # the checks' go
            try:
                answer = self.real(*args, **kwargs)
            except BaseException:
                self._ended(lines, {"raised": True})
                raise
            self._ended(lines, {"value": plain(answer)})
            return answer

    @staticmethod
    def _ended(lines: BufferedRWPair, said: dict[str, object]) -> None:
        """Tell the checks how the call ended, and wait until they have counted it: the next
        call of a loop must not connect before this one is counted out."""
        lines.write((json.dumps(said) + "\n").encode())
        lines.flush()
        lines.readline()


def in_order(function: Callable[..., object], args: tuple[object, ...], kwargs: dict[str, object]) -> list[object]:
    """A call's arguments in the order of the function's parameters, defaults filled in, however
    they were passed (by position or by name); as passed where they do not fit its signature."""
    import inspect  # only where a check watches a function: the server starts without it

    try:
        bound = inspect.signature(function).bind(*args, **kwargs)
    except (TypeError, ValueError):
        return [*args, *kwargs.values()]
    bound.apply_defaults()
    return list(bound.arguments.values())


def kept_copy(function: Callable[..., object]) -> Callable[..., object]:
    """A function that runs what `function` runs now, whatever route_calls does to it later: its
    code, globals, defaults and closure, and its attributes (a wrapper's ``__wrapped__``, which
    tells in_order its signature)."""
    if not isinstance(function, types.FunctionType):
        return function
    copy = types.FunctionType(
        function.__code__, function.__globals__, function.__name__, function.__defaults__, function.__closure__
    )
    copy.__kwdefaults__, copy.__qualname__, copy.__doc__ = (
        function.__kwdefaults__,
        function.__qualname__,
        function.__doc__,
    )
    copy.__dict__.update(function.__dict__)
    return copy


def stand_in_for(module: types.ModuleType, name: str, to: Callable[..., object]) -> Callable[[], None]:
    """Every call of the module's function `name` becomes a call of `to`: routed where the function
    can take other code (route_calls), else through the module's attribute alone; returns the undo."""
    function = getattr(module, name)
    undo = route_calls(function, to)
    if undo is not None:
        return undo
    setattr(module, name, to)
    return lambda: setattr(module, name, function)


def route_calls(function: Callable[..., object], to: Callable[..., object]) -> Callable[[], None] | None:
    """Make every call of `function`, whoever holds it, a call of `to`; returns the undo. None
    where it cannot: a function with a closure cannot take other code (nor can what is not a
    function), and is then watched through the module's attribute alone."""
    if not isinstance(function, types.FunctionType) or function.__code__.co_freevars:
        return None

    def routed(*args: object, **kwargs: object) -> object:
        return globals()["__lease_lab_routed__"](*args, **kwargs)  # ROUTED: runs as `function`, in its globals

    own = function.__code__
    function.__globals__[ROUTED] = to
    function.__code__ = routed.__code__.replace(co_name=own.co_name, co_qualname=own.co_qualname)

    def undo() -> None:
        function.__code__ = own
        function.__globals__.pop(ROUTED, None)

    return undo
