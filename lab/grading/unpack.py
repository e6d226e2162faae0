"""A zip file handed in as a submission, unpacked safely into a temporary folder of the class run.

A zip comes from a learner, so nothing in it is trusted: a member that is a link, has an absolute
path, a drive letter or a `..` part is refused (never skipped, so what is graded is what was
handed in); the member count and the bytes actually written are bounded, whatever the zip's
directory claims; nothing is written outside the folder made for it. Paths of the unpacked files
are shown as the zip's name and the path inside it (`ada.zip/lab-main/steps/…`), never as the
temporary folder's.
"""

import os
import re
import stat
import tempfile
import time
import zipfile
from pathlib import Path, PurePosixPath

MAX_MEMBERS = 2000
MAX_BYTES = 50 * 1024 * 1024
# A member's entry in the directory is 46 bytes and its name, extra field and comment: 2000 of them
# with long names fit well in this.
MAX_DIRECTORY_BYTES = MAX_MEMBERS * 1024
CHUNK = 64 * 1024
PREFIX = "lease-lab-class-"
UNPACKED = re.compile(re.escape(tempfile.gettempdir()) + "/" + PREFIX + r"[^/\s]+/")


class Refused(Exception):
    """The zip cannot be unpacked safely: args are a message key of [class] and its fields."""


def workspace():
    """The class run's folder for unpacked zips (a TemporaryDirectory: the caller removes it)."""
    return tempfile.TemporaryDirectory(prefix=PREFIX)


def shown(text):
    """text with every unpacked folder's path put as the zip's own name and the path inside it."""
    return UNPACKED.sub("", text)


def unpack(zip_path, workspace_dir):
    """Unpack zip_path into workspace_dir/<zip's name>/ and return that folder; Refused otherwise.
    Whatever the zip holds, the answer is one of the two: no error of zipfile, zlib or the file
    system gets out of here."""
    into = Path(workspace_dir) / Path(zip_path).name
    try:
        into.mkdir()
        _refuse_a_large_directory(zip_path)
        with zipfile.ZipFile(zip_path) as archive:
            _unpack_members(archive, into)
    except Refused:
        raise
    except Exception as error:  # noqa: BLE001 - a corrupt stream, a name not in UTF-8, a file where a folder is
        raise Refused("zip_unreadable", {"error": str(error) or type(error).__name__}) from None
    return into


def _refuse_a_large_directory(zip_path):
    """Refuse a zip whose end record states more members, or a larger member directory, than any
    submission needs, before zipfile reads that directory whole (400,000 members would take seconds
    and hundreds of megabytes). zipfile reads the directory by its stated size, so both are bounded."""
    with open(zip_path, "rb") as handle:
        record = zipfile._EndRecData(handle)  # the end record, zip64's included; zipfile has no public reader of it
    if record is None:
        raise Refused("zip_unreadable", {"error": "no end of central directory record"})
    if record[zipfile._ECD_ENTRIES_TOTAL] > MAX_MEMBERS:
        raise Refused("zip_too_many", {"count": record[zipfile._ECD_ENTRIES_TOTAL], "limit": MAX_MEMBERS})
    if record[zipfile._ECD_SIZE] > MAX_DIRECTORY_BYTES:
        raise Refused(
            "zip_directory_too_big", {"size": record[zipfile._ECD_SIZE] // 1024, "limit": MAX_DIRECTORY_BYTES // 1024}
        )


def _unpack_members(archive, into):
    members = archive.infolist()
    if len(members) > MAX_MEMBERS:
        raise Refused("zip_too_many", {"count": len(members), "limit": MAX_MEMBERS})
    written = 0
    for member in members:
        if member.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            # zipfile inflates bz2 and lzma members with no bound on what one read returns: a few
            # kilobytes can fill the grader's memory before the byte limit is seen
            raise Refused("zip_method", {"member": member.filename})
        inside = _safe_path(member)
        target = into.joinpath(*inside.parts)
        if member.is_dir():
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        with archive.open(member) as source, open(target, "xb") as sink:
            while chunk := source.read(CHUNK):
                written += len(chunk)
                if written > MAX_BYTES:
                    raise Refused("zip_too_big", {"limit": MAX_BYTES // (1024 * 1024)})
                sink.write(chunk)
        stamp = _stamp(member)  # when the learner last changed it, for "who needs help first"
        os.utime(target, (stamp, stamp))


def _stamp(member):
    try:
        return time.mktime((*member.date_time, 0, 0, -1))
    except (OverflowError, ValueError):
        return 0.0


def _safe_path(member):
    name = member.filename
    mode = member.external_attr >> 16
    if stat.S_ISLNK(mode):
        raise Refused("zip_link", {"member": name})
    path = PurePosixPath(name.replace("\\", "/"))
    if path.is_absolute() or ".." in path.parts or re.match(r"^[A-Za-z]:", name) or not path.parts:
        raise Refused("zip_outside", {"member": name})
    return path
