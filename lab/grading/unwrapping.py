"""Code a learner's file hides in its strings, for the similarity check (lab/grading/similarity.py).

A copy of the reference wrapped as `exec(base64.b64decode("..."))` shares no token run with the
reference: the tokenizer sees one string. So every long string literal of a step file is tried as
a wrapped payload: decoded as base64, base32, base85 or hex, or taken as it is, then decompressed
with zlib, bz2 or lzma when it is compressed, and kept when the result parses as Python; a payload
is unwrapped again, a few layers deep; the literal source of `exec("...")` is a payload too. The
similarity check fingerprints the payloads beside the file. A file also counts as wrapped when it
names `exec`, `eval` or `compile` at all (called, aliased, through `builtins`, or as a string):
code built at run time, rot13 or a string cut in pieces, no decoding sees through, and no step of
this course needs them. The class view says so, and the instructor reads the file.
"""

import ast
import base64
import binascii
import bz2
import lzma
import zlib
from dataclasses import dataclass, field

MIN_LENGTH = 40  # characters: shorter strings are messages and SQL, not programs
MAX_PAYLOAD = 1 << 20  # bytes a decoded or decompressed payload may take
MAX_TRIED = 64  # long literals of one file tried as payloads: the grader's work stays bounded
DEPTH = 3
RUNNERS = {"exec", "eval", "compile"}
DECODERS = (
    lambda text: base64.b64decode(text, validate=True),
    lambda text: base64.b64decode(text, altchars=b"-_", validate=True),
    base64.b32decode,
    base64.b85decode,
    bytes.fromhex,
    lambda text: text if isinstance(text, bytes) else text.encode("utf-8"),  # compressed bytes, as they are
)


def _decompressed(data):
    """data decompressed, at most MAX_PAYLOAD bytes of it (a bomb is cut, never inflated whole)."""
    for decompress in (
        lambda: zlib.decompressobj().decompress(data, MAX_PAYLOAD),
        lambda: bz2.BZ2Decompressor().decompress(data, max_length=MAX_PAYLOAD),
        lambda: lzma.LZMADecompressor().decompress(data, max_length=MAX_PAYLOAD),
    ):
        try:
            return decompress()
        except (zlib.error, OSError, ValueError, lzma.LZMAError, EOFError):
            continue
    return data


@dataclass
class Unwrapped:
    payloads: list = field(default_factory=list)  # Python source found inside string literals
    runs_built_code: bool = False  # it names exec, eval or compile: it can run code built at run time

    @property
    def wrapped(self):
        return bool(self.payloads) or self.runs_built_code


def unwrap(text, depth=DEPTH):
    """What text hides: the Python payloads in its strings, and whether it runs code it builds."""
    found = Unwrapped()
    try:
        tree = ast.parse(text)
        nodes = list(ast.walk(tree))
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # a sum of 3000 terms is deeper than the stack
        return found
    tried = 0
    for node in nodes:
        if _names_a_runner(node):  # exec, eval or compile by any name: a call, an alias, builtins.exec, "exec"
            found.runs_built_code = True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in RUNNERS and node.args:
            code = node.args[0]
            if isinstance(code, ast.Constant) and isinstance(code.value, str):  # exec("def claim(...): ...")
                found.payloads.append(code.value)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str | bytes) and len(node.value) >= MIN_LENGTH:
            tried += 1
            if tried > MAX_TRIED:
                continue
            payload = _payload(node.value)
            if payload is not None:
                found.payloads.append(payload)
                if depth > 1:
                    inner = unwrap(payload, depth - 1)
                    found.payloads += inner.payloads
                    found.runs_built_code |= inner.runs_built_code
    return found


def _names_a_runner(node):
    """exec, eval or compile named at all: called, aliased, as an attribute, or as a string."""
    if isinstance(node, ast.Name):
        return node.id in RUNNERS
    if isinstance(node, ast.Attribute):  # builtins.exec; not re.compile
        return (
            node.attr in RUNNERS and isinstance(node.value, ast.Name) and node.value.id in ("builtins", "__builtins__")
        )
    return isinstance(node, ast.Constant) and node.value in RUNNERS  # getattr(builtins, "exec")


def _payload(value):
    """The Python source value decodes to, or None."""
    for decode in DECODERS:
        try:
            data = _decompressed(decode(value))
            source = data.decode("utf-8")
            if source == value:
                continue
            tree = ast.parse(source)
        except (
            binascii.Error,
            ValueError,
            TypeError,
            UnicodeError,
            SyntaxError,
            MemoryError,
            RecursionError,
            EOFError,
        ):
            continue
        if any(isinstance(node, PROGRAM) for node in tree.body):
            return source
    return None


# What a payload holds to be a program, not a word that happens to decode: a definition, an
# assignment or an import at its top.
PROGRAM = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Assign, ast.Import, ast.ImportFrom)
