import sqlite3


def init_db(path):
    """Create the ``jobs`` table in the SQLite file at ``path``; a second call changes nothing.

    See CONTRACT.md (C1.1-C1.3) for the columns, their defaults and what must survive a re-run.

    ``path`` の SQLite ファイルに ``jobs`` テーブルを作ります。2 回目の呼び出しは何も変えません。

    列、その既定値、再実行しても残るべきものは CONTRACT.ja.md (C1.1-C1.3) を参照。
    """
    # TODO(step 1): replace the raise below with your implementation.
    #               下の raise を、あなたの実装に置き換えてください。
    raise NotImplementedError("step 1 is not implemented yet / ステップ 1 はまだ実装されていません")
