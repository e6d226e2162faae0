import sqlite3


def release(path, job_id, owner, fence):
    """Give the lease back: owner = NULL, until = 0, the fence kept; True only for the holder.

    See CONTRACT.md (C7.1-C7.5).

    リースを返却します: owner = NULL、until = 0、fence はそのまま。True を返すのは保持者だけです。

    CONTRACT.ja.md (C7.1-C7.5) を参照。
    """
    # TODO(step 7): replace the raise below with your implementation.
    #               下の raise を、あなたの実装に置き換えてください。
    raise NotImplementedError("step 7 is not implemented yet / ステップ 7 はまだ実装されていません")
