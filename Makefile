# The lease and fencing-token lab. `make help` lists the targets.
#   make check-step 4          check steps 1-4 of steps/, then step 4's mutants
#   make check-step N=4 IMPL=solutions MUTANTS=0 LAB_LANG=ja JSON=results.json
#   make language ja           every command in Japanese from now on (LAB_LANG=en: English, once);
#                              until a language is chosen, every command speaks the locale's
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
IMPL ?= steps
# The language of make's own lines (make help, the set-up line before Python is there): LAB_LANG for
# one command, else what `make language` stored in .lab/language, else the locale's: the first of
# LC_ALL, LC_MESSAGES, LANG that is set (POSIX's order) names Japanese when it is ja, ja_JP.UTF-8,
# ja.… or ja@…, English otherwise. Each command decides its own by the same rule, in Python
# (lab/text/language.py): the recipes pass no --lang, and make hands LAB_LANG given on its command
# line to their environment. tests/test_language_setting.py holds the two rules to one table.
LOCALE_LANG = $(if $(filter ja ja_% ja.% ja@%,$(firstword $(or $(LC_ALL),$(LC_MESSAGES),$(LANG)))),ja,en)
MAKE_LANG := $(or $(filter en ja,$(strip $(LAB_LANG))),$(filter en ja,$(shell cat .lab/language 2>/dev/null)),$(LOCALE_LANG))
MUTANTS ?= 1
OUT ?= build/lease.py
# make stress SECONDS=10 SEED=123 · make bench BENCH_TIME=1 (seconds per measurement; 48 of them) · PEERS=1 UNCHECKED=1
SECONDS ?= 3
SEED ?=
BENCH_TIME ?= 0.05

# `make check-step 4`, `make hint 4`: the word after the verb is the step, not a target of its own.
ifneq (,$(filter $(firstword $(MAKECMDGOALS)),check-step hint reset-step restore-step backups watch language equivalent))
  N ?= $(word 2,$(MAKECMDGOALS))
  $(eval $(wordlist 2,$(words $(MAKECMDGOALS)),$(MAKECMDGOALS)):;@:)
endif

CHECK_FLAGS = --impl "$(IMPL)" $(TIME_LIMIT_FLAG) $(if $(filter 0,$(MUTANTS)),--no-mutants) $(if $(JSON),--json "$(JSON)") \
  $(if $(JUNIT),--junit "$(JUNIT)") $(if $(EXERCISM),--exercism "$(EXERCISM)") $(if $(filter 1,$(STRICT)),--strict) $(if $(SHOW),--show "$(SHOW)") $(if $(filter 1,$(VERBOSE)),--verbose) $(if $(filter 1,$(FRESH)),--fresh)
# TIME_LIMIT: seconds one check may run. make check-class DIR=submissions/ [BUDGET=120] [CLASS_OUT=reports/class] [SIMILAR=0.9]
# Unset, each is left to the command, whose default is written once in lab/model/defaults.py.
TIME_LIMIT_FLAG = $(if $(TIME_LIMIT),--time-limit $(TIME_LIMIT))
CLASS_OUT ?= reports/class
# SIMILAR: check-class flags a submission when this share of its own code is found in the reference or a classmate's (default 0.9).
# ROSTER: check-class's roster (CSV: id,name,due): missing, late and not-on-the-roster learners marked; ASSIGNMENT: the
# title of canvas.csv's and moodle.csv's column. The adjustments written by hand are CLASS_OUT/adjustments.csv.
# PARTIAL=1: check-class gives a step without credit the share of its checks that pass (grades.csv, Canvas, Moodle).

# `make language ja` sets the lab up in the language just chosen.
ifeq (language,$(firstword $(MAKECMDGOALS)))
  ifneq (,$(filter en ja,$(N)))
    MAKE_LANG := $(N)
    INSTALL_LANG := --lang $(N)
  endif
endif
ifeq (ja,$(MAKE_LANG))
  SETTING_UP := $(VENV) を uv で準備しています (uv が手に入らなければ pip で。初回だけ。pyproject.toml かインストーラ lab/install.py が変わったときにもう一度)...
  TOO_OLD := このラボには Python 3.11 以上が必要です。PYTHON=python3.11 のように指定してください
else
  SETTING_UP := Setting up $(VENV) with uv, or pip where uv cannot be had (once; again only when pyproject.toml or the installer, lab/install.py, changes)...
  TOO_OLD := The lab needs Python 3.11 or newer; set PYTHON=python3.11
endif

.PHONY: help language check-step check check-class classroom-workflow artifact test test-long test-attacks clean mutation-report equivalent demo stress bench bench-loop lease dev-check hint progress next reset-step restore-step backups watch

# Each target's line ends in `## ` and its English description; the `#ja` line above it says the same in Japanese.
#ja help          ターゲットの一覧
help: ## list the targets
ifeq (ja,$(MAKE_LANG))
	@sed -n 's/^#ja \([a-z-]*\) */\1\t/p' $(MAKEFILE_LIST) | expand -t 16
else
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 16
endif

#ja language      このチェックアウトのすべてのコマンドの言語を記憶する: make language ja (または en)。LAB_LANG=en で 1 回だけ変更
language: $(STAMP) ## remember the language of every command for this checkout: make language ja (or en); LAB_LANG=… changes one command
	@$(PY) -m lab language "$(N)"

$(STAMP): pyproject.toml lab/install.py
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "$(TOO_OLD)")'
	@echo "$(SETTING_UP)"
	@$(PYTHON) -m lab.install $(INSTALL_LANG) $(VENV)
	@touch $(STAMP)

#ja check-step    あなたのコードのステップ 1..N を検査し、次にステップ N の変異体を実行: make check-step 4 (IMPL=、TIME_LIMIT=、MUTANTS=0、JSON=、JUNIT=、EXERCISM=: 結果のファイル、STRICT=1、SHOW=、VERBOSE=1、FRESH=1: すべての検査をもう一度)
check-step: $(STAMP) ## check steps 1..N of your code, then step N's mutants: make check-step 4 (IMPL=, TIME_LIMIT=, MUTANTS=0, JSON=, JUNIT=, EXERCISM=: result files, STRICT=1, SHOW=, VERBOSE=1, FRESH=1: every check again)
	@$(PY) -m lab check "$(N)" $(CHECK_FLAGS)

#ja check         すべてのステップと、すべての変異体を検査
check: $(STAMP) ## check every step and every mutant
	@$(PY) -m lab check all $(CHECK_FLAGS)

#ja hint          ステップ N のまだ見ていない次の問い: make hint 4 (ALL=1: すべての問い)
hint: $(STAMP) ## the next question of step N you have not seen yet: make hint 4 (ALL=1: all of them)
	@$(PY) -m lab hint "$(N)" $(if $(filter 1,$(ALL)),--all)

#ja progress      各ステップの状態 (未着手、不合格、合格)、予想の結果、次のステップ
progress: $(STAMP) ## every step as not started, failing or passing, your predictions, the next step
	@$(PY) -m lab progress

#ja next          次にするステップ
next: $(STAMP) ## the next step to do
	@$(PY) -m lab next

#ja reset-step    ステップ N のファイルを .lab/backups/ にバックアップし、スタブに戻す: make reset-step 4
reset-step: $(STAMP) ## save step N's files to .lab/backups/ and put the stub back: make reset-step 4
	@$(PY) -m lab reset "$(N)"

#ja restore-step  ステップ N の最新のバックアップ (restore-step が作ったもの以外) を戻す (AT=: 別のもの。いまのファイルは先にバックアップ)
restore-step: $(STAMP) ## bring back the newest backup of step N not made by restore-step (AT=: another one; the current files are saved first)
	@$(PY) -m lab restore "$(N)" $(if $(AT),--at "$(AT)")

#ja backups       ステップ N のバックアップを新しい順に一覧: 時刻、作ったコマンド、中身: make backups 4
backups: $(STAMP) ## list the backups of step N, newest first: when, what made each, what each holds: make backups 4
	@$(PY) -m lab backups "$(N)"

#ja watch         steps/ の下が変わるたびにステップ N を検査し直す (Ctrl-C で終了): make watch 4
watch: $(STAMP) ## check step N again on every change under steps/ (Ctrl-C stops): make watch 4
	@exec $(PY) -m lab watch "$(N)" $(TIME_LIMIT_FLAG) $(if $(filter 0,$(MUTANTS)),--no-mutants) $(if $(filter 1,$(VERBOSE)),--verbose)

#ja check-class   DIR の下の学習者のフォルダと zip をすべて検査: 学習者 × ステップの表、成績表、Canvas と Moodle 用の CSV、グラフ、返却用のフィードバックを CLASS_OUT に (ROSTER=: 名簿、PARTIAL=1: 部分点)
check-class: $(STAMP) ## check every learner folder and zip under DIR: table learner x step, gradebook, Canvas and Moodle files, chart and feedback to hand back in CLASS_OUT (ROSTER=: the roster, PARTIAL=1: partial credit)
	@$(PY) -m lab class "$(DIR)" --out "$(CLASS_OUT)" $(TIME_LIMIT_FLAG) $(if $(BUDGET),--budget $(BUDGET)) $(if $(filter 0,$(MUTANTS)),--no-mutants) $(if $(SIMILAR),--similar $(SIMILAR)) \
	  $(if $(ROSTER),--roster "$(ROSTER)") $(if $(ASSIGNMENT),--assignment "$(ASSIGNMENT)") $(if $(filter 1,$(PARTIAL)),--partial-credit)

#ja classroom-workflow  course.toml から GitHub Classroom の自動採点ワークフロー .github/workflows/classroom.yml を作る (ステップごとに 1 つのテスト、配点つき)
classroom-workflow: $(STAMP) ## write GitHub Classroom's autograding workflow .github/workflows/classroom.yml from course.toml (one test per step, with its points)
	@$(PY) -m lab classroom-workflow

#ja artifact      IMPL を読み込める 1 つのモジュールとして OUT に書き出す (既定 build/lease.py)
artifact: $(STAMP) ## write IMPL as one importable module to OUT (default build/lease.py)
	@$(PY) -m lab artifact --impl "$(IMPL)" --out "$(OUT)"

#ja demo          ワーカー A と B の話を、IMPL の成果物の上で 2 つのプロセスが実演 (検査に合格していること。UNCHECKED=1: 検査なしで。PEERS=1: litequeue、persist-queue、huey でも両方の順序で)
demo: $(STAMP) ## the worker A/B story, live: two processes over IMPL's artifact (its checks must pass; UNCHECKED=1: even if not; PEERS=1: also on litequeue, persist-queue, huey, in both orders)
	@$(PY) -m lab demo --impl "$(IMPL)" $(if $(filter 1,$(UNCHECKED)),--unchecked) $(if $(filter 1,$(PEERS)),--peers)

#ja stress        IMPL に対して、プロセス、停止、時計の跳躍、SIGKILL を SECONDS 秒 (3): SEED= で同じ予定を再生
stress: $(STAMP) ## processes, stalls, clock jumps and SIGKILLs over IMPL for SECONDS (3); SEED= replays a schedule
	@$(PY) -m lab stress --impl "$(IMPL)" --seconds $(SECONDS) $(if $(SEED),--seed $(SEED))

#ja bench         1〜8 プロセスでの claim/秒 と complete/秒 を素の sqlite3 と比較: 表と reports/bench/ (PEERS=1: litequeue、persist-queue、huey と同じ条件で並べて)
bench: $(STAMP) ## claims/s and completes/s with 1-8 processes against raw sqlite3: table, reports/bench/ (PEERS=1: beside litequeue, persist-queue, huey, like for like)
	@$(PY) -m lab bench --impl "$(IMPL)" --duration $(BENCH_TIME) $(if $(filter 1,$(PEERS)),--peers)

#ja bench-loop    学習者のループの時間を、温まった check-step 1 との比で 1 回の実行で測る: check-step 8 (変更なし、編集直後)、watch 8、新しいクローン (REPEAT=3、CLONE=0: クローンなし、JSON=)
bench-loop: $(STAMP) ## time the learner's loop in one run, as ratios to a warm check-step 1: check-step 8 unchanged and after edits, watch 8, a fresh clone (REPEAT=3, CLONE=0: no clone, JSON=)
	@$(PY) -m lab bench-loop $(if $(REPEAT),--repeat $(REPEAT)) $(if $(filter 0,$(CLONE)),--no-fresh-clone) $(if $(JSON),--json "$(JSON)")

#ja lease         IMPL の成果物の関数を 1 つ、データベースファイルに対して呼ぶ: make lease ARGS="--db jobs.db claim job-1 A --ttl 5"
lease: $(STAMP) ## call one function of IMPL's artifact on a database file: make lease ARGS="--db jobs.db claim job-1 A --ttl 5"
	@$(PY) -m lab lease --impl "$(IMPL)" $(ARGS)

mutation-report: IMPL = solutions
#ja mutation-report IMPL (既定 solutions) の mutmut の変異体を検査にかけ、キルマトリクスつきで: reports/mutation/
mutation-report: $(STAMP) ## mutmut's mutants of IMPL (default solutions) through the checks, with a kill matrix: reports/mutation/
	@$(PY) -m lab mutation --impl "$(IMPL)"

#ja equivalent    自分のコードの生存変異体 ID を、理由とともに IMPL のフォルダの台帳 (steps/equivalents.toml) に等価変異体として記録: make equivalent ID WHY="…"
equivalent: $(STAMP) ## record a survivor ID of your code as equivalent, with its reason, in the ledger in IMPL's folder (steps/equivalents.toml): make equivalent ID WHY="…"
	@$(PY) -m lab equivalent "$(N)" --why "$(WHY)" --impl "$(IMPL)"

#ja test          ラボ自身のテスト: 参照実装は合格、スタブは不合格、すべての変異体を検出
# Four workers on two cores: about a third of the self-test's time is spent waiting (checks that
# run out their time limit or a learner's budget on purpose, children starting), which the other
# workers fill. The long tier (tests marked long: the race repeats of the independent fixtures and
# the steps before the one each wrong fixture breaks, a ninth step in a copy of the lab, the class
# runs of odd entries, predictions, a roster and two languages, a restyled learner's mutation
# report, learner code that hangs or waits out its budget, checks beside CPU hogs, a learner
# holding every process it may start) is left out, to keep within ten minutes on two cores; make
# test-long runs it, and CI runs both.
test: $(STAMP) ## the lab's self-test: reference passes, stubs fail, every mutant is caught
	@$(PY) -m pytest -n 4 -m "not long"

#ja test-long     ラボ自身のテストのうち長いもの: 競合の繰り返し、9 番目のステップ、クラスの採点のいくつか
test-long: $(STAMP) ## the self-test's long tier: races repeated, a ninth step, more class runs
	@$(PY) -m pytest -n 4 -m long

#ja dev-check     ラボの作者向け: course.toml とファイルの木を照合し、スタブは不合格、参照実装は合格、すべての変異体を検出
dev-check: $(STAMP) ## for the lab's authors: course.toml against the tree, stubs fail, the reference passes, every mutant is caught
	@$(PY) -m lab dev check $(TIME_LIMIT_FLAG)

#ja test-attacks  クラスの採点への攻撃をすべての種類、対照と一緒に 1 回で採点
test-attacks: $(STAMP) ## every kind of attack on the class grader, graded with controls in one run
	$(PY) -m pytest tests/test_grader_attacks.py --all-attacks

#ja clean         仮想環境 (比べるキューのものも) とビルドの出力を削除
clean: ## remove the virtual environments (the peers' too) and build outputs
	rm -rf $(VENV) build reports .mutmut-stage .lab/peers-venv .lab/peers-venv.lock
