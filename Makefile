# Routine tasks. Every step is incremental: a second `make demo` or `make check` with nothing
# changed rebuilds nothing. Builds take a lock so parallel callers never corrupt the generated C.
PY ?= .venv/bin/python
PIP ?= .venv/bin/pip
PYABS := $(abspath $(PY))
# the development build is what `pip install` and a wheel build (MJCORE_MARCH in setup.py): the
# kernels at the x86-64 baseline and at x86-64-v3, the best one this CPU runs loaded at import
MARCH ?= dispatch
DEBUG_TREE := build/debug-tree
DEPS := pyproject.toml setup.py

.PHONY: venv venv-test build debug-build test test-debug check demo bench proto proto-check \
	proto-baseline lint stubtest clean wheel-check

# The virtualenv and the editable install: redone only when pyproject.toml or setup.py change.
# The extensions are compiled by `make build`, in place and incrementally.
.venv/.mjcore-base: $(DEPS)
	@echo "== .venv: installing the build tools and mjcore's dependencies"
	test -x $(PY) || python3 -m venv .venv
	$(PIP) install -q --upgrade pip 'setuptools>=77' wheel 'Cython>=3.0' numpy
	MJCORE_NO_EXTENSIONS=1 $(PIP) install -q --no-build-isolation -e '.[dataset]'
	touch $@

.venv/.mjcore-test: .venv/.mjcore-base $(DEPS)
	@echo "== .venv: installing the test dependencies"
	MJCORE_NO_EXTENSIONS=1 $(PIP) install -q --no-build-isolation -e '.[test]'
	touch $@

.venv/.mjcore-lint: .venv/.mjcore-base $(DEPS)
	@echo "== .venv: installing ruff and mypy (the lint extra)"
	MJCORE_NO_EXTENSIONS=1 $(PIP) install -q --no-build-isolation -e '.[lint]'
	touch $@

venv: .venv/.mjcore-base
venv-test: .venv/.mjcore-test

build: venv
	@echo "== build: the extensions whose sources changed (release, MJCORE_MARCH=$(MARCH))"
	flock .build.lock env MJCORE_MARCH=$(MARCH) $(PY) setup.py -q build_ext --inplace -j 2

# The debug build (bounds checks, assertions, -O0 -g, the x86-64 baseline instruction set) lives
# in a copy of the source tree, so the release build in mjcore/ is never touched.
debug-build: venv-test
	@echo "== debug build in $(DEBUG_TREE) (bounds checks, -O0, x86-64 baseline); only what changed"
	$(PY) scripts/sync_tree.py $(DEBUG_TREE)
	cd $(DEBUG_TREE) && flock .build.lock env MJCORE_DEBUG=1 MJCORE_MARCH=baseline \
		$(PYABS) setup.py -q build_ext --inplace -j 2

test: build venv-test
	@echo "== the whole test suite (MJCORE_SLOW=1)"
	MJCORE_SLOW=1 $(PY) -m pytest -q tests

# Once against the debug build: the kernels' tests (the expected values' on the records up to
# shanten 1), the HTTP/2 front's compiled parts (HPACK, framing), and the baseline kernels
# compared with this machine's fast paths (test_simd_paths).
test-debug: debug-build build
	@echo "== the kernels' tests on the debug build ($(DEBUG_TREE))"
	cd $(DEBUG_TREE) && MJCORE_ORACLE_SCALE=0.05 MJCORE_EV_MAX_SHANTEN=1 MJCORE_FAST_TREE=$(CURDIR) \
		$(PYABS) -m pytest -q -x -p no:cacheprovider tests/core tests/scoring \
		tests/riichi/test_fast_paths.py tests/service/front/test_hpack.py \
		tests/service/front/test_http2_connection.py tests/riichi/test_expected.py \
		tests/riichi/test_expected_batch.py

# The wheel `pip wheel .` builds (from the build products of `make build`, which it shares),
# installed in a fresh venv and run from another directory: it loads the best level this CPU
# runs, and every level it holds answers as the tree does (tests/core/test_simd_paths.py).
WHEEL_DIR := build/wheel
wheel-check: build venv-test
	@echo "== wheel: pip wheel ., installed in a fresh venv ($(WHEEL_DIR)/venv), run elsewhere"
	rm -rf $(WHEEL_DIR) && mkdir -p $(WHEEL_DIR)
	$(PIP) wheel -q --no-deps --no-build-isolation -w $(WHEEL_DIR) .
	$(PY) -m venv $(WHEEL_DIR)/venv
	$(WHEEL_DIR)/venv/bin/pip install -q $(WHEEL_DIR)/mjcore-*.whl
	MJCORE_WHEEL_PYTHON=$(CURDIR)/$(WHEEL_DIR)/venv/bin/python $(PY) -m pytest -q \
		-p no:cacheprovider tests/core/test_simd_paths.py

# The README's two commands.
check: venv-test
	$(MAKE) lint
	$(MAKE) proto-check
	$(MAKE) test
	$(MAKE) test-debug
	$(MAKE) wheel-check

# The main job: the bundled sample hands, then the shipped Tenhou archive from records to a
# report (extract, analyse, report with charts in build/demo/plots; resumable, so a second run
# only reprints the report). Records other than the default (TENHOU=PATH) get a folder of their
# own under build/demo, named after their absolute path, since an extract folder holds the
# extract of one input.
DEFAULT_TENHOU := ../shared/data/tenhou/mjlog.tar.xz
TENHOU ?= $(DEFAULT_TENHOU)
DEMO_OUT := build/demo$(if $(filter-out $(abspath $(DEFAULT_TENHOU)),$(abspath $(TENHOU))),/$(patsubst _%,%,$(subst /,_,$(abspath $(TENHOU)))))
demo: build
	.venv/bin/mjcore analyze --file mjcore/data/sample_hands.txt
	@echo "== the Tenhou archive ($(TENHOU)): extract, analyse, report in $(DEMO_OUT)"
	.venv/bin/mjcore extract $(TENHOU) --out $(DEMO_OUT)/extract
	.venv/bin/mjcore analyze $(DEMO_OUT)/extract --out $(DEMO_OUT)/analysis
	.venv/bin/mjcore report $(DEMO_OUT)/analysis --plots $(DEMO_OUT)/plots

bench: build venv-test
	@echo "== benchmarks/ (each benchmark once)"
	$(PY) -m pytest benchmarks -q --benchmark-only --benchmark-columns=median,ops,rounds --benchmark-sort=name

proto:
	$(PY) scripts/gen_proto.py

# The API's checks: buf (installed once into build/tools from npm) lints proto/ (rules in
# proto/buf.yaml) and compares it with the committed image of v1, proto/v1-baseline.binpb, so a
# change that breaks v1 clients fails. `make proto-baseline` rewrites that image (only for a
# deliberate change while v1 is unpublished).
BUF_VERSION := 1.75.0
BUF := build/tools/node_modules/.bin/buf
BUF_STAMP := build/tools/.buf-$(BUF_VERSION)

$(BUF_STAMP):
	@echo "== installing buf $(BUF_VERSION) into build/tools (npm)"
	npm install --prefix build/tools --no-save --no-audit --no-fund @bufbuild/buf@$(BUF_VERSION)
	touch $@

proto-check: $(BUF_STAMP)
	@echo "== buf lint and buf breaking (against proto/v1-baseline.binpb)"
	cd proto && ../$(BUF) lint
	cd proto && ../$(BUF) breaking --against v1-baseline.binpb

proto-baseline: $(BUF_STAMP)
	cd proto && ../$(BUF) build -o v1-baseline.binpb

# ruff with pyproject's rule set; mypy (strict for mjcore, see pyproject.toml); stubtest: every
# hand-written .pyi against its compiled module (the generated protobuf stubs are not checked)
LINT_PATHS := mjcore service tests benchmarks scripts setup.py
STUBS = $(wildcard mjcore/*.pyi mjcore/_core/*.pyi service/front/*.pyi)

lint: build .venv/.mjcore-lint
	@echo "== lint: ruff, mypy, stubtest"
	$(PY) -m ruff check $(LINT_PATHS)
	$(PY) -m mypy $(LINT_PATHS)
	$(MAKE) stubtest

stubtest: build .venv/.mjcore-lint
	$(PY) -m mypy.stubtest --mypy-config-file scripts/stubtest.ini \
		--allowlist scripts/stubtest_allowlist.txt $(subst /,.,$(STUBS:.pyi=))

clean:
	rm -rf build mjcore/_core/*.c mjcore/_core/*.so mjcore/_core/*.bin mjcore/_core/_build_info.json \
		mjcore/_core/x86_64_v3 \
		service/front/*.c service/front/*.so .mypy_cache .ruff_cache
