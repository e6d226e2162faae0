import sqlite3


def claim(path, job_id, owner, now, ttl):
    """Take the lease of an expired, unfinished job; return the new fence, otherwise None.

    See CONTRACT.md (C4.1-C4.7): ttl <= 0 raises ValueError; read and update inside one
    BEGIN IMMEDIATE transaction.

    期限切れで未完了のジョブのリースを取得し、新しい fence を返します。取得できなければ None。

    CONTRACT.ja.md (C4.1-C4.7) を参照: ttl <= 0 なら ValueError。読み取りと書き込みは
    1 つの BEGIN IMMEDIATE トランザクションの中で行います。
    """
    # TODO(step 4): replace the raise below with your implementation.
    #               下の raise を、あなたの実装に置き換えてください。
    raise NotImplementedError("step 4 is not implemented yet / ステップ 4 はまだ実装されていません")
