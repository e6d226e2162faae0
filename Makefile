# The lease and fencing-token lab. `make help` lists the targets.
#   make check-step 4          check steps 1-4 of steps/, then step 4's mutants
#   make check-step N=4 IMPL=solutions MUTANTS=0 LAB_LANG=ja JSON=results.json
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
IMPL ?= steps
LAB_LANG ?= en
MUTANTS ?= 1
OUT ?= build/lease.py
# make stress SECONDS=10 SEED=123 · make bench BENCH_TIME=1 (seconds per measurement; 48 of them)
SECONDS ?= 3
SEED ?=
BENCH_TIME ?= 0.05

# `make check-step 4`, `make hint 4`: the word after the verb is the step, not a target of its own.
ifneq (,$(filter $(firstword $(MAKECMDGOALS)),check-step hint reset-step restore-step backups watch))
  N ?= $(word 2,$(MAKECMDGOALS))
  $(eval $(wordlist 2,$(words $(MAKECMDGOALS)),$(MAKECMDGOALS)):;@:)
endif

CHECK_FLAGS = --impl "$(IMPL)" --lang $(LAB_LANG) --time-limit $(TIME_LIMIT) $(if $(filter 0,$(MUTANTS)),--no-mutants) $(if $(JSON),--json "$(JSON)") \
  $(if $(JUNIT),--junit "$(JUNIT)") $(if $(EXERCISM),--exercism "$(EXERCISM)") $(if $(filter 1,$(STRICT)),--strict) $(if $(SHOW),--show "$(SHOW)") $(if $(filter 1,$(VERBOSE)),--verbose)
# TIME_LIMIT: seconds one check may run. make check-class DIR=submissions/ [BUDGET=120] [CLASS_OUT=reports/class]
TIME_LIMIT ?= 10
BUDGET ?= 120
CLASS_OUT ?= reports/class

.PHONY: help check-step check check-class artifact test test-attacks clean mutation-report demo stress bench hint progress next reset-step restore-step backups watch

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 16

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "The lab needs Python 3.11 or newer; set PYTHON=python3.11")'
	@echo "Setting up $(VENV) (once; again only when pyproject.toml changes)..."
	@$(PYTHON) -m venv $(VENV)
	@$(PY) -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@touch $(STAMP)

check-step: $(STAMP) ## check steps 1..N of your code, then step N's mutants: make check-step 4
	@$(PY) -m lab check "$(N)" $(CHECK_FLAGS)

check: $(STAMP) ## check all eight steps and all mutants
	@$(PY) -m lab check all $(CHECK_FLAGS)

hint: $(STAMP) ## the next question of step N you have not seen yet: make hint 4 (ALL=1: all of them)
	@$(PY) -m lab hint "$(N)" --lang $(LAB_LANG) $(if $(filter 1,$(ALL)),--all)

progress: $(STAMP) ## every step as not started, failing or passing, your predictions, the next step
	@$(PY) -m lab progress --lang $(LAB_LANG)

next: $(STAMP) ## the next step to do
	@$(PY) -m lab next --lang $(LAB_LANG)

reset-step: $(STAMP) ## save step N's files to .lab/backups/ and put the stub back: make reset-step 4
	@$(PY) -m lab reset "$(N)" --lang $(LAB_LANG)

restore-step: $(STAMP) ## bring back the newest backup of step N not made by restore-step (AT=: another one; the current files are saved first)
	@$(PY) -m lab restore "$(N)" --lang $(LAB_LANG) $(if $(AT),--at "$(AT)")

backups: $(STAMP) ## list the backups of step N, newest first: when, what made each, what each holds: make backups 4
	@$(PY) -m lab backups "$(N)" --lang $(LAB_LANG)

watch: $(STAMP) ## check step N again on every change under steps/ (Ctrl-C stops): make watch 4
	@exec $(PY) -m lab watch "$(N)" --lang $(LAB_LANG) --time-limit $(TIME_LIMIT) $(if $(filter 0,$(MUTANTS)),--no-mutants) $(if $(filter 1,$(VERBOSE)),--verbose)

check-class: $(STAMP) ## check every learner folder under DIR: table learner x step in CLASS_OUT (.md, .csv)
	@$(PY) -m lab class "$(DIR)" --out "$(CLASS_OUT)" --lang $(LAB_LANG) --time-limit $(TIME_LIMIT) --budget $(BUDGET) $(if $(filter 0,$(MUTANTS)),--no-mutants)

artifact: $(STAMP) ## write IMPL as one importable module to OUT (default build/lease.py)
	@$(PY) -m lab artifact --impl "$(IMPL)" --out "$(OUT)"

demo: $(STAMP) ## the worker A/B story, live: two processes over IMPL's artifact (its checks must pass)
	@$(PY) -m lab demo --impl "$(IMPL)" --lang $(LAB_LANG)

stress: $(STAMP) ## processes, stalls, clock jumps and SIGKILLs over IMPL for SECONDS (3); SEED= replays a schedule
	@$(PY) -m lab stress --impl "$(IMPL)" --seconds $(SECONDS) $(if $(SEED),--seed $(SEED)) --lang $(LAB_LANG)

bench: $(STAMP) ## claims/s and completes/s with 1-8 processes against raw sqlite3: table, reports/bench/
	@$(PY) -m lab bench --impl "$(IMPL)" --duration $(BENCH_TIME) --lang $(LAB_LANG)

mutation-report: IMPL = solutions
mutation-report: $(STAMP) ## mutmut's mutants of IMPL (default solutions) through the checks, with a kill matrix: reports/mutation/
	@$(PY) -m lab mutation --impl "$(IMPL)" --lang $(LAB_LANG)

test: $(STAMP) ## the lab's self-test: reference passes, stubs fail, every mutant is caught
	@$(PY) -m pytest

test-attacks: $(STAMP) ## every kind of attack on the class grader, graded with controls in one run
	$(PY) -m pytest tests/test_grader_attacks.py --all-attacks

clean: ## remove the virtual environment and build outputs
	rm -rf $(VENV) build reports .mutmut-stage
