"""What the checker says about code it could not run normally, in English and Japanese.

Loading, the recorder and the runner word a broken file, an endless loop or a dead process
through here, so that the learner reads every such message in the language of the report.
"""

MESSAGES = {
    "en": {
        "step_usage": "usage: make check-step N   (N is a step from 1 to {last}, e.g. make check-step 4; or N=4)",
        "not_a_step": "not a step: {text!r}. ",
        "no_impl": "IMPL={impl}: no such folder or .py file",
        "missing": "{file} is missing",
        "defines_no": "{file} defines no `{function}`",
        "syntax": "{file}, line {line}: {kind}: {error}",
        "raised": "{file}{where}: running the file raised {kind}: {error}",
        "where": ", line {line}",
        "load_hung": "{file}: running the file did not finish within {limit:g} s: an endless loop or a wait at the top level?",
        "load_died": "{file}: running the file ended the process (exit status {code}): sys.exit(), os._exit() or a crash at the top level?",
        "cannot_check": "step {step} cannot be checked: {problem} (needed: `{function}`)",
        "timeout": "did not finish within {limit:g} s: an endless loop, or a lock that is never released?",
        "hung": "did not finish within {limit:g} s and could not be interrupted (a deadlock?)",
        "crashed": "the process running this check ended (exit status {code}): sys.exit(), os._exit() or a crash in the code under test?",
        "locked": "the database stayed locked ({error}): does the code under test leave a transaction or a connection open?",
        "budget": "not run: this submission used up its time budget of {budget:g} s",
        "not_run_after_losses": "not run: the process already ended or hung in {count} checks of this step",
        "os_exit": "os._exit({code}) was called",
        "not_implemented": "not implemented yet: {call} raised NotImplementedError",
        "at": " (at {file}, line {line})",
        "call_raised": "called {call}; it raised {kind}: {error}",
        "not_run_after_timeouts": "not run: {count} checks of this step already ran out of time",
        "prediction_cannot_run": "your prediction could not run:\n{error}",
        "prediction_needs_lease": "{test} takes no `lease`: write it as def test_my_prediction(lease, db):",
    },
    "ja": {
        "step_usage": "使い方: make check-step N   (N は 1 から {last} までのステップ番号。例: make check-step 4、または N=4)",
        "not_a_step": "ステップ番号ではありません: {text!r}。",
        "no_impl": "IMPL={impl}: そのようなフォルダや .py ファイルはありません",
        "missing": "{file} がありません",
        "defines_no": "{file} に `{function}` が定義されていません",
        "syntax": "{file} の {line} 行目: {kind}: {error}",
        "raised": "{file}{where}: ファイルの実行中に {kind} が送出されました: {error}",
        "where": " の {line} 行目",
        "load_hung": "{file}: ファイルの実行が {limit:g} 秒以内に終わりませんでした。トップレベルに無限ループや待ち合わせがありませんか。",
        "load_died": "{file}: ファイルの実行中にプロセスが終了しました (終了コード {code})。トップレベルで sys.exit()、os._exit() を呼んでいるか、クラッシュしていませんか。",
        "cannot_check": "ステップ {step} を検査できません: {problem} (必要なもの: `{function}`)",
        "timeout": "{limit:g} 秒以内に終わりませんでした。無限ループや、解放されないロックはありませんか。",
        "hung": "{limit:g} 秒以内に終わらず、中断もできませんでした (デッドロック?)",
        "crashed": "この検査を実行していたプロセスが終了しました (終了コード {code})。検査対象のコードが sys.exit()、os._exit() を呼んでいるか、クラッシュしていませんか。",
        "locked": "データベースがロックされたままです ({error})。検査対象のコードがトランザクションや接続を開いたままにしていませんか。",
        "budget": "未実行: この提出物は持ち時間 {budget:g} 秒を使い切りました",
        "not_run_after_losses": "未実行: このステップの検査ですでに {count} 回プロセスが終了または停止しました",
        "os_exit": "os._exit({code}) が呼ばれました",
        "not_implemented": "まだ実装されていません: {call} が NotImplementedError を送出しました",
        "at": " ({file} の {line} 行目)",
        "call_raised": "呼び出し {call} が {kind} を送出しました: {error}",
        "not_run_after_timeouts": "未実行: このステップの検査ですでに {count} 件が時間切れになりました",
        "prediction_cannot_run": "予想を実行できませんでした:\n{error}",
        "prediction_needs_lease": "{test} が `lease` を受け取っていません。def test_my_prediction(lease, db): と書いてください",
    },
}


def say(key, lang="en", **values):
    return MESSAGES.get(lang, MESSAGES["en"])[key].format(**values)
