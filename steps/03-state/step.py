import sqlite3


def state(path, job_id):
    """Return the stored row as a dict (id, owner, until, fence, result, done), or None.

    See CONTRACT.md (C3.1-C3.3): read through a connection of your own on every call.

    保存された行を dict (id, owner, until, fence, result, done) で返します。行がなければ None。

    CONTRACT.ja.md (C3.1-C3.3) を参照: 呼び出しのたびに自分の接続で読みます。
    """
    # TODO(step 3): replace the raise below with your implementation.
    #               下の raise を、あなたの実装に置き換えてください。
    raise NotImplementedError("step 3 is not implemented yet / ステップ 3 はまだ実装されていません")
