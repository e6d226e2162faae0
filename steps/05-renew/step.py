import sqlite3


def renew(path, job_id, owner, fence, now, ttl):
    """Extend a current lease to until = now + ttl and return True; otherwise return False.

    See CONTRACT.md (C5.1-C5.6): ttl <= 0 raises ValueError; at now == until the lease has expired.

    現在のリースを until = now + ttl まで延長して True を返します。それ以外は False。

    CONTRACT.ja.md (C5.1-C5.6) を参照: ttl <= 0 なら ValueError。now == until でリースは期限切れです。
    """
    # TODO(step 5): replace the raise below with your implementation.
    #               下の raise を、あなたの実装に置き換えてください。
    raise NotImplementedError("step 5 is not implemented yet / ステップ 5 はまだ実装されていません")
