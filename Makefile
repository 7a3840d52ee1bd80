# bonfire_sim developer tasks.  `make help` lists them.
VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip --disable-pip-version-check
# Re-install only when the packaging changes; `make clean` forces a fresh install.
STAMP := $(VENV)/.bonfire-sim-installed

# ---------------------------------------------------------------------------------------
# DEMO_CMDS: what `make demo` runs, one command per line: a narrated game, a batch of the
# recommended players (tuned in every seat, 4,000 distinct deals: rotating identical
# players would replay each deal; with a turn log), the errata sheet (reports/errata/
# errata.html: seat points and the re-priced cards planted together on fresh deals and
# verified by their intervals; 20,000 fresh games a round resolve the 4-player seats to
# about +-0.6 pp), the report whose first screen is that sheet's four answer cards (task and
# gnome details from engine forks on 300 of the games; example games linked to views), and
# one game as a page to step through in the browser.  About 6-8 minutes on 2 cores (7 min 39 s
# at load 5, 2026-11-29, with the sheet's estimate topping up every row).  The run
# resumes where an earlier demo stopped and is played afresh after an engine change.
# ---------------------------------------------------------------------------------------
define DEMO_CMDS
$(BIN)/bonfire-sim replay --seed 1 --players 4 --strategies tuned
$(BIN)/bonfire-sim run --games 4000 --players 4 --strategies tuned --turn-log all --seed 1 --jobs 2 --resume --replace-stale --out runs/demo-4p
$(BIN)/bonfire-sim errata runs/demo-4p --out reports/errata --probe-games 1500 --games 20000 --fork-games 600 --focus-games 1600 --rounds 2 --jobs 2
$(BIN)/bonfire-sim report runs/demo-4p --out reports/demo.html --probe-games 300 --errata reports/errata/errata.json --jobs 2
$(BIN)/bonfire-sim view --run runs/demo-4p --game 0 --out reports/demo-game-0.html
endef

.PHONY: help install test test-heavy demo bench lint wheel clean

help:
	@echo "make install  create $(VENV) (if missing) and install bonfire-sim[test] into it"
	@echo "make test     install, then run the test suite on 2 workers"
	@echo "make test-heavy  the full-size planted-effect checks (minutes; CI runs them too)"
	@echo "make demo     install, then run the demo commands (DEMO_CMDS)"
	@echo "make bench    run the engine benchmark"
	@echo "make lint     ruff check, then mypy (configured in pyproject.toml)"
	@echo "make wheel    a release wheel carrying the engine compiled for the generic CPU (minutes)"
	@echo "make clean    remove caches and build artefacts (keeps $(VENV))"

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q -e '.[test]'
	touch $@

test: install
	scripts/ensure-chromium
	$(BIN)/python -m pytest -q -n 2
	@echo "== the rule chapters and self-play again as plain Python (NUMBA_DISABLE_JIT=1) =="
	NUMBA_DISABLE_JIT=1 $(BIN)/python -m pytest -q -p no:cacheprovider tests/rules tests/test_selfplay.py

test-heavy: install
	$(BIN)/python -m pytest -q -m heavy -p no:cacheprovider tests/test_analysis.py tests/test_card_values.py tests/test_card_survey.py \
	    tests/test_errata_games.py::test_the_default_game_with_verified_seat_points_changes_nothing

demo: install
	$(DEMO_CMDS)

bench: install
	$(BIN)/bonfire-sim bench

lint: install
	test -x $(BIN)/ruff -a -x $(BIN)/mypy || $(PIP) install -q -e '.[test,dev]'
	$(BIN)/ruff check .
	$(BIN)/mypy

# The release wheel: compiles the engine for numba's generic CPU and ships it as package
# data, so a fresh install does not compile (scripts/build_wheel.py; not part of CI).
wheel: install
	$(BIN)/python scripts/build_wheel.py --out dist

clean:
	rm -rf build dist *.egg-info .pytest_cache .ruff_cache .mypy_cache .hypothesis $(STAMP)
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -print | xargs rm -rf
