"""Step 5 · renew: your prediction, written before you implement (see CONTRACT.md).

Which input, exception or stored state would tell the broken change to review in CONTRACT.md
apart from correct code? Write it as the test below. `lease` is an implementation, the
reference or one broken version: a module with the eight functions (lease.init_db,
lease.enqueue, ..., lease.claim_many). `db` is the path of a fresh database file that already holds
the jobs table; for a file without it, add `new_db` and call new_db(with_table=False).
Assert what correct code must do. `make check-step 5` runs this test against the reference
and against every broken version (mutant) of step 5, never against your own code, and shows
which ones your prediction catches.

ステップ 5 · renew: 実装する前に書く予想です (CONTRACT.ja.md を参照)。

CONTRACT.ja.md のレビューする誤った変更を、正しいコードと見分ける入力・例外・保存された
状態は何でしょうか。下のテストとして書いてください。`lease` は実装で、参照実装か変異体の
1 つです: 8 つの関数 (lease.init_db、lease.enqueue、…、lease.claim_many) を持つモジュール。
`db` は jobs テーブルがすでにある新しいデータベースファイルのパスです。テーブルのない
ファイルが必要なら `new_db` を引数に加えて new_db(with_table=False) を呼びます。
正しいコードがすべきことを `assert` で書きます。`make check-step 5` がこのテストを参照実装と
ステップ 5 のすべての変異体 (わざと壊した参照実装) に対して実行し (あなた自身のコードには
実行しません)、予想がどれを検出したかを示します。
"""


def test_my_prediction(lease, db):
    # Replace the next line with your prediction. / 次の行をあなたの予想に置き換えてください。
    raise NotImplementedError("no prediction yet / まだ予想がありません")
