import sqlite3


def complete(path, job_id, owner, fence, now, result):
    """Store ``result`` and done = 1 only while (owner, fence) holds the current lease.

    See CONTRACT.md (C6.1-C6.5): every rejected completion returns False and keeps the stored result.

    (owner, fence) が現在のリースを持っている間だけ、``result`` と done = 1 を保存します。

    CONTRACT.ja.md (C6.1-C6.5) を参照: 拒否した完了はすべて False を返し、保存済みの結果を残します。
    """
    # TODO(step 6): replace the raise below with your implementation.
    #               下の raise を、あなたの実装に置き換えてください。
    raise NotImplementedError("step 6 is not implemented yet / ステップ 6 はまだ実装されていません")
