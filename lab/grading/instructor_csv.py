"""The CSV files an instructor writes by hand (the roster, the adjustments), read one way: UTF-8
with or without a byte-order mark (Excel's "CSV UTF-8" writes one), a header row that names the
columns in any order (case and spaces around a name do not count; other columns are ignored),
blank lines skipped. Whatever is wrong is one FileProblem naming the file, the line and the
problem, which the command says in one line of its language (never a traceback)."""

import csv
import io
import unicodedata
from pathlib import Path

from lab.text.messages import say

SIZE_LIMIT = 10 << 20  # bytes: a roster of a whole school is far less


class FileProblem(Exception):
    """A hand-written file the run cannot use: where (line 0: the file as a whole) and what."""

    def __init__(self, path, line, key, **values):
        super().__init__(f"{path}:{line}: {key}")
        self.path, self.line, self.key, self.values = Path(path), line, key, values

    def said(self, lang="en"):
        problem = say(self.key, lang, **self.values)
        if not self.line:
            return say("class.file_problem_whole", lang, file=self.path, problem=problem)
        return say("class.file_problem", lang, file=self.path, line=self.line, problem=problem)


def rows(path, columns, optional=()):
    """(line, {column: its text, stripped and composed (NFC)}) for each row of the file under its
    header, which must name every one of columns; an optional column it does not name is ""."""
    text = _text(Path(path))
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    header, line = None, 1
    try:
        for row in reader:
            if any(cell.strip() for cell in row):
                if header is None:
                    header = _header(path, line, row, columns, optional)
                else:
                    yield line, _cells(path, line, row, header)
            line = reader.line_num + 1  # where the next row starts (a quoted cell may span lines)
    except csv.Error as error:
        raise FileProblem(path, reader.line_num or line, "class.csv_unreadable", error=error) from None
    if header is None:
        raise FileProblem(path, 1, "class.csv_no_header", columns=", ".join(columns))


def _text(path):
    try:
        with open(path, "rb") as handle:
            data = handle.read(SIZE_LIMIT + 1)
    except FileNotFoundError:
        raise FileProblem(path, 0, "class.file_missing") from None
    except OSError as error:
        raise FileProblem(path, 0, "class.file_unreadable", error=error.strerror or error) from None
    if len(data) > SIZE_LIMIT:
        raise FileProblem(path, 0, "class.file_too_big", limit=SIZE_LIMIT >> 20)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise FileProblem(path, data[: error.start].count(b"\n") + 1, "class.csv_not_utf8") from None


def _header(path, line, row, columns, optional):
    names = [unicodedata.normalize("NFC", cell).strip().lower() for cell in row]
    for column in columns:
        if column not in names:
            raise FileProblem(path, line, "class.csv_no_column", column=column, columns=", ".join(columns))
    named = [*columns, *(column for column in optional if column in names)]
    return {column: names.index(column) for column in named}, len(row), optional


def _cells(path, line, row, header):
    where, count, optional = header
    if len(row) != count:
        raise FileProblem(path, line, "class.csv_cells", count=len(row), expected=count)
    return {column: "" for column in optional} | {
        column: unicodedata.normalize("NFC", row[at]).strip() for column, at in where.items()
    }
