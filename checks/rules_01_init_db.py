"""Step 1's own rules (rules.py): init_db's partitions, its model rule and its calls."""

from hypothesis import strategies as st
from model import Expected

PARTITIONS = {
    "no table yet": lambda args, rows: rows is None,
    "an empty table": lambda args, rows: rows == {},
    "a table with rows": lambda args, rows: bool(rows),
}


def rule(model):
    return Expected("C1.3", None, en="no error, and every row exactly as it was", ja="エラーなし、すべての行がそのまま")


CALL = st.just(("init_db", {}))


def arguments(drawn):
    return ()


# init_db on the covering table: every row kept (sequences.model_check's own example of step 1
# starts without the table, and inserts a row between two calls of init_db).
COVERING = [("init_db", {})]
