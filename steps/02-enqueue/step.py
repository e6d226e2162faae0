import sqlite3


def enqueue(path, job_id):
    """Insert ``job_id`` with the default state and return True; an existing id returns False.

    See CONTRACT.md (C2.1-C2.3): an existing row must be left exactly as it was.

    ``job_id`` を既定の状態で登録して True を返します。すでにある id なら False を返します。

    CONTRACT.ja.md (C2.1-C2.3) を参照: すでにある行は、そのまま残さなければなりません。
    """
    # TODO(step 2): replace the raise below with your implementation.
    #               下の raise を、あなたの実装に置き換えてください。
    raise NotImplementedError("step 2 is not implemented yet / ステップ 2 はまだ実装されていません")
