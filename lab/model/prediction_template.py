"""A step's prediction file as the lab ships it, made from course.toml: `dev check` holds every
shipped steps/NN-name/prediction.py to it byte for byte, and `dev new-step` writes a new step's."""

from __future__ import annotations

from lab.model.course import Step, load_course

NUMBER_WORDS = {n: w for n, w in enumerate("one two three four five six seven eight nine ten eleven twelve".split(), 1)}

TEMPLATE = '''"""Step {n} · {function}: your prediction, written before you implement (see CONTRACT.md).

Which input, exception or stored state would tell the broken change to review in CONTRACT.md
apart from correct code? Write it as the test below. `lease` is an implementation, the
reference or one broken version: a module with the {count_word} functions (lease.{first},
lease.{second}, ..., lease.{last}). `db` is the path of a fresh database file that already holds
the jobs table; for a file without it, add `new_db` and call new_db(with_table=False).
Assert what correct code must do. `make check-step {n}` runs this test against the reference
and against every broken version (mutant) of step {n}, never against your own code, and shows
which ones your prediction catches.

ステップ {n} · {function}: 実装する前に書く予想です (CONTRACT.ja.md を参照)。

CONTRACT.ja.md のレビューする誤った変更を、正しいコードと見分ける入力・例外・保存された
状態は何でしょうか。下のテストとして書いてください。`lease` は実装で、参照実装か変異体の
1 つです: {count} つの関数 (lease.{first}、lease.{second}、…、lease.{last}) を持つモジュール。
`db` は jobs テーブルがすでにある新しいデータベースファイルのパスです。テーブルのない
ファイルが必要なら `new_db` を引数に加えて new_db(with_table=False) を呼びます。
正しいコードがすべきことを `assert` で書きます。`make check-step {n}` がこのテストを参照実装と
ステップ {n} のすべての変異体 (わざと壊した参照実装) に対して実行し (あなた自身のコードには
実行しません)、予想がどれを検出したかを示します。
"""


def test_my_prediction(lease, db):
    # Replace the next line with your prediction. / 次の行をあなたの予想に置き換えてください。
    raise NotImplementedError("no prediction yet / まだ予想がありません")
'''


def prediction_template(step: Step, course: tuple[Step, ...] | None = None) -> str:
    """The text of step's prediction.py before the learner writes in it."""
    course = course or load_course()
    count = len(course)
    return TEMPLATE.format(
        n=step.number,
        function=step.function,
        count=count,
        count_word=NUMBER_WORDS.get(count, str(count)),
        first=course[0].function,
        second=course[1].function,
        last=course[-1].function,
    )
