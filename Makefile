# Routine tasks. Builds take a lock so parallel callers never corrupt the generated C.
PY ?= .venv/bin/python
PIP ?= .venv/bin/pip

.PHONY: venv venv-test build-release build debug-build test test-debug check demo bench proto lint clean

venv:
	test -x $(PY) || python3 -m venv .venv
	$(PIP) install -q --upgrade pip 'setuptools>=77' wheel 'Cython>=3.0' numpy
	$(PIP) install -q -e .

venv-test:
	test -x $(PY) || python3 -m venv .venv
	$(PIP) install -q --upgrade pip 'setuptools>=77' wheel 'Cython>=3.0' numpy
	$(PIP) install -q -e '.[test]'

build:
	flock .build.lock $(PY) setup.py -q build_ext --inplace -j 2

debug-build:
	flock .build.lock env MJCORE_DEBUG=1 $(PY) setup.py -q build_ext --inplace --force -j 2

test: build
	MJCORE_SLOW=1 $(PY) -m pytest -q tests

# Once against a debug build (bounds checks, assertions, -O0): the kernels' tests and the HTTP/2
# front's compiled parts (HPACK, framing), then back to the release build.
test-debug: debug-build
	MJCORE_ORACLE_SCALE=0.05 $(PY) -m pytest -q -x tests/core tests/scoring tests/engine/test_fast_paths.py \
		tests/service/test_hpack.py tests/service/test_http2_connection.py
	$(MAKE) build-release

build-release:
	flock .build.lock $(PY) setup.py -q build_ext --inplace --force -j 2

# The README's two commands.
check: venv-test
	$(MAKE) test
	$(MAKE) test-debug

demo: venv
	.venv/bin/mjcore analyze --file mjcore/data/sample_hands.txt

bench: build
	$(PY) -m pytest benchmarks -q --benchmark-only --benchmark-columns=median,ops,rounds --benchmark-sort=name

proto:
	$(PY) scripts/gen_proto.py

lint:
	$(PY) -m ruff check mjcore service tests benchmarks scripts setup.py
	$(PY) -m mypy mjcore benchmarks

clean:
	rm -rf build mjcore/_core/*.c mjcore/_core/*.so mjcore/_core/*.bin
