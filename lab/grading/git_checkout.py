"""A learner's git checkout, read from its files and never by running git, whose configuration a
learner writes: the commit HEAD names (grades.csv's commit column) and when it was committed (the
roster's lateness, lab/grading/roster.py).

Every file is read as a learner's must be: a regular file, no link, inside the checkout's own .git
folder, with every folder on the way no link either, opened without waiting (a FIFO is refused,
not waited for) and read only up to a bound, so a FIFO, a link or a ref naming a file of the
grading machine gives nothing. A commit is found loose (objects/ab/cdef…) or in a pack
(objects/pack/*.idx and *.pack, index version 2, with its deltas applied): a fresh `git clone`
keeps every object in a pack. A repository whose objects lie elsewhere (alternates) has no time.
"""

import os
import re
import stat
import struct
import zlib
from pathlib import Path

REF = re.compile(r"refs/[A-Za-z0-9._/-]{1,200}")
COMMIT_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
COMMITTER = re.compile(rb"^committer .*> (\d{1,12}) [+-]\d{4}$", re.MULTILINE)
OBJECT_LIMIT = 1 << 20  # bytes of one object (a commit, a delta, a delta's base) once inflated
PACKS_LIMIT = 100  # pack indexes looked at
DEPTH_LIMIT = 50  # deltas on deltas (git's own default --depth)
COMMIT, OFS_DELTA, REF_DELTA = 1, 6, 7  # the pack's object types that lead to a commit


def commit_of(impl):
    """The commit a git checkout's HEAD names; "" when the submission is no git checkout, or when
    what its files say is no commit id."""
    git = _git_folder(impl)
    if git is None:
        return ""
    head = _small_file(git, "HEAD").strip()
    if not head.startswith("ref: "):
        return _commit_id(head)
    ref = head[5:].strip()
    if not REF.fullmatch(ref) or ".." in ref.split("/"):
        return ""
    loose = _small_file(git, ref).strip()
    if loose:
        return _commit_id(loose)
    for line in _small_file(git, "packed-refs", limit=1 << 20).splitlines():
        if line.endswith(" " + ref):
            return _commit_id(line.split(" ")[0])
    return ""


def commit_time(impl):
    """When HEAD's commit was committed (its committer line), in seconds since the epoch; None when
    the submission is no git checkout or the commit cannot be read. Its author wrote the time, as
    git lets anyone: evidence of when the work was handed in, not proof."""
    oid = commit_of(impl)
    if not oid:
        return None
    try:
        kind, data = _object(_git_folder(impl), oid, 0)
    except (OSError, ValueError, zlib.error, struct.error, IndexError, TypeError):
        return None
    found = COMMITTER.search(data.split(b"\n\n", 1)[0]) if kind == COMMIT else None
    return int(found[1]) if found else None


def _git_folder(impl):
    for folder in (Path(impl), Path(impl).parent):
        git = folder / ".git"
        if git.is_dir() and not git.is_symlink():
            return git
    return None


def _commit_id(text):
    return text if COMMIT_ID.fullmatch(text) else ""


def _object(git, oid, depth):
    """(its pack type, its bytes) of the object oid, loose or packed."""
    if depth > DEPTH_LIMIT:
        raise ValueError("deltas too deep")
    loose = _opened(git, f"objects/{oid[:2]}/{oid[2:]}")
    if loose is not None:
        with loose:
            data = _inflated(loose)
        header, _, body = data.partition(b"\0")
        return (COMMIT if header.startswith(b"commit ") else 0), body
    for name, index in _pack_indexes(git):
        with index:
            offset = _offset_in(index, bytes.fromhex(oid))
        if offset is not None:
            pack = _opened(git, f"objects/pack/{name.removesuffix('.idx')}.pack")
            if pack is None:
                raise ValueError("a pack index without its pack")
            with pack:
                return _packed(git, pack, offset, len(oid) // 2, depth)
    raise ValueError("no such object")


def _pack_indexes(git):
    folder = git / "objects" / "pack"
    for part in (folder.parent, folder):
        if not stat.S_ISDIR(os.lstat(part).st_mode):
            return
    names = sorted(name for name in os.listdir(folder) if name.endswith(".idx"))[:PACKS_LIMIT]
    for name in names:
        index = _opened(git, f"objects/pack/{name}")
        if index is not None:
            yield name, index


def _offset_in(index, name):
    """Where the object name lies in the pack of this index (version 2), or None."""
    if index.read(8) != b"\377tOc\0\0\0\2":
        return None
    fanout = struct.unpack(">256I", index.read(1024))
    count, first = fanout[255], fanout[name[0] - 1] if name[0] else 0
    size, among = len(name), fanout[name[0]] - first
    if not 0 <= among <= count:
        return None
    index.seek(8 + 1024 + first * size)
    names = index.read(among * size)
    for at in range(0, len(names), size):
        if names[at : at + size] == name:
            position = first + at // size
            index.seek(8 + 1024 + count * (size + 4) + position * 4)
            (offset,) = struct.unpack(">I", index.read(4))
            if offset & 0x80000000:  # in the table of large offsets
                index.seek(8 + 1024 + count * (size + 8) + (offset & 0x7FFFFFFF) * 8)
                (offset,) = struct.unpack(">Q", index.read(8))
            return offset
    return None


def _packed(git, pack, offset, size, depth):
    """(type, bytes) of the pack's object at offset, its deltas applied."""
    pack.seek(offset)
    byte = pack.read(1)[0]
    kind = (byte >> 4) & 7
    while byte & 0x80:
        byte = pack.read(1)[0]
    if kind == OFS_DELTA:
        byte = pack.read(1)[0]
        back = byte & 0x7F
        while byte & 0x80:
            byte = pack.read(1)[0]
            back = ((back + 1) << 7) | (byte & 0x7F)
        delta = _inflated(pack)
        kind, base = _packed(git, pack, offset - back, size, depth + 1)
        return kind, _patched(base, delta)
    if kind == REF_DELTA:
        base_id = pack.read(size).hex()
        delta = _inflated(pack)
        kind, base = _object(git, base_id, depth + 1)
        return kind, _patched(base, delta)
    return kind, _inflated(pack)


def _inflated(handle):
    """The zlib stream that starts at handle's position, inflated; ValueError beyond OBJECT_LIMIT."""
    inflater, out = zlib.decompressobj(), bytearray()
    while not inflater.eof and len(out) <= OBJECT_LIMIT:
        data = inflater.unconsumed_tail or handle.read(1 << 16)
        if not data:
            break
        out += inflater.decompress(data, OBJECT_LIMIT + 1 - len(out))
    if not inflater.eof or len(out) > OBJECT_LIMIT:
        raise ValueError("an object cut short or too large")
    return bytes(out)


def _patched(base, delta):
    """base with git's delta applied: copies from base and inserted bytes."""
    source, at = _varint(delta, 0)
    target, at = _varint(delta, at)
    if source != len(base) or target > OBJECT_LIMIT:
        raise ValueError("a delta for another base")
    out = bytearray()
    while at < len(delta):
        op, at = delta[at], at + 1
        if op & 0x80:
            start = length = 0
            for bit in range(7):
                if op & (1 << bit):
                    value, at = delta[at], at + 1
                    if bit < 4:
                        start |= value << (8 * bit)
                    else:
                        length |= value << (8 * (bit - 4))
            length = length or 0x10000
            if start + length > len(base):
                raise ValueError("a copy beyond its base")
            out += base[start : start + length]
        elif op:
            out += delta[at : at + op]
            at += op
        else:
            raise ValueError("a delta's reserved op")
    if len(out) != target:
        raise ValueError("a delta of the wrong size")
    return bytes(out)


def _varint(data, at):
    value = shift = 0
    while True:
        byte, at = data[at], at + 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, at


def _opened(git, relative):
    """git/relative opened for reading when every folder on the way and the file itself is no link
    and the file is a regular one; None otherwise."""
    place = git
    try:
        for part in relative.split("/")[:-1]:
            place = place / part
            if not stat.S_ISDIR(os.lstat(place).st_mode):
                return None
        descriptor = os.open(place / relative.split("/")[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    handle = os.fdopen(descriptor, "rb")
    if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
        handle.close()
        return None
    return handle


def _small_file(git, relative, limit=4096):
    """The text of git/relative, read as _opened reads it, at most limit bytes; "" otherwise."""
    handle = _opened(git, relative)
    if handle is None:
        return ""
    with handle:
        return handle.read(limit).decode("utf-8", "replace")
