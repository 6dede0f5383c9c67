# pt2onnx - top-level Makefile.  One library (lib/), thin tools (tools/),
# everything built into bin/.  See README.md for the targets.
#
#   make                 libraries and tools into bin/
#   make check           the fast tier: unit tests and the bats files that
#                        need neither torch nor ONNX Runtime (docs/testing.md)
#   make test            the standard tier (README's test command): build,
#                        then the unit tests and the check and standard bats
#   make test-full       every bats file, then the whole conformance suite
#   make asan            the same build with ASan+UBSan, into build/asan/bin
#   make test-asan       the tests of ASAN_TIER against that build
#   make deps            install the Debian and npm packages (needs root)
#   make install PREFIX=/usr/local
#
# Sources are found by wildcard: a new .c in lib/<part>/ joins the library,
# a new tests/unit/test_*.c becomes a unit test.

SHELL    := /bin/bash
PREFIX   ?= /usr/local
O        ?= build
BINDIR   ?= bin
CC       ?= cc
PROTOC_C ?= protoc-c
# the CUDA backend (lib/gpu/*.cu) is built when nvcc is found; NO_CUDA=1
# leaves it out (sanitizer and fuzz builds always do)
NVCC     ?= $(shell command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
# sm_80 (A100), sm_90 (H100/H200) and PTX for newer ones
NVCCFLAGS ?= -O2 -g -gencode arch=compute_80,code=sm_80 \
	     -gencode arch=compute_90,code=sm_90 \
	     -gencode arch=compute_90,code=compute_90

WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
            -Wmissing-prototypes -Wno-unused-parameter
CFLAGS   ?= -O2 -g
ALL_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) \
            $(patsubst %,-I%,$(wildcard lib/*)) -I$(O)/gen
BASE_LDLIBS := -lprotobuf-c -lmsgpackc -ljansson -lz -lopenblas -lpthread -lm -ldl
LDLIBS   := $(BASE_LDLIBS)

ALL_CFLAGS += $(EXTRA_CFLAGS)

# The tools are linked as position-dependent executables: a PIE carries a
# relative relocation for every pointer in its static tables (the operator
# and schema tables: ~20000 in lower, script and trace), which the loader
# applies at every start, copying each page it touches.  -no-pie resolves
# them at link time (issue 17: lower's no-op start 2.2 -> 1.6 ms of CPU,
# 225 -> 114 page faults).  TOOL_LDFLAGS= links PIEs again.
TOOL_LDFLAGS ?= -no-pie

ifeq ($(SANITIZE),1)
ALL_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer \
              -fno-sanitize-recover=undefined
LDFLAGS    += -fsanitize=address,undefined
endif

# --- the library ----------------------------------------------------------
GEN_C    := $(O)/gen/onnx.pb-c.c
GEN_H    := $(O)/gen/onnx.pb-c.h
LIB_SRC  := $(wildcard lib/*/*.c)
LIB_OBJ  := $(patsubst %.c,$(O)/%.o,$(LIB_SRC)) $(O)/gen/onnx.pb-c.o

CUDA_NOTE := CUDA backend not built: no nvcc
ifeq ($(SANITIZE),1)
NO_CUDA := 1
CUDA_NOTE := CUDA backend not built: sanitizer build
endif
ifneq ($(NVCC),)
ifeq ($(NO_CUDA),1)
ifneq ($(SANITIZE),1)
CUDA_NOTE := CUDA backend not built: NO_CUDA=1
endif
else
# nvcc's own tree (through symlinks), then where distributions put libcudart;
# nvcc without a libcudart to link is reported and the backend left out
CUDA_HOME := $(abspath $(dir $(realpath $(NVCC)))..)
CUDA_LIBDIR := $(patsubst %/,%,$(dir $(firstword $(wildcard \
	$(addsuffix /libcudart.so,$(CUDA_HOME)/lib64 $(CUDA_HOME)/lib \
	$(CUDA_HOME)/targets/*/lib /usr/lib/x86_64-linux-gnu /usr/lib64)))))
CUDA_SRC := $(wildcard lib/gpu/*.cu)
ifeq ($(CUDA_LIBDIR),)
CUDA_NOTE := CUDA backend not built: $(NVCC) found but no libcudart.so beside it
$(info note: $(CUDA_NOTE))
else ifneq ($(CUDA_SRC),)
CUDA_NOTE := CUDA backend built: $(NVCC), libcudart in $(CUDA_LIBDIR)
LIB_OBJ  += $(patsubst %.cu,$(O)/%.o,$(CUDA_SRC))
ALL_CFLAGS += -DPT2ONNX_HAVE_CUDA
# cuBLAS is dlopen'ed at the first matrix product (start-up stays fast)
LDLIBS   += -L$(CUDA_LIBDIR) -Wl,-rpath,$(CUDA_LIBDIR) -lcudart -ldl -lstdc++
endif
endif
endif
LIB      := $(O)/libpt2onnx.a

# --- the tools: name:directory --------------------------------------------
ALL_TOOLS := emit:emit check:check script:scripter lower:lower fold:fold \
	     trace:tracer unpt2:unpt2
# a stage whose directory has no source yet is not built
TOOLS    := $(foreach t,$(ALL_TOOLS),$(if $(wildcard tools/$(word 2,$(subst :, ,$(t)))/*.c),$(t)))
TOOL_NAMES := $(foreach t,$(TOOLS),$(word 1,$(subst :, ,$(t))))
TOOL_BINS  := $(addprefix $(BINDIR)/,$(TOOL_NAMES))
WRAPPER  := $(BINDIR)/pt2onnx

# --- tests ------------------------------------------------------------------
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(patsubst tests/unit/%.c,$(O)/tests/%,$(UNIT_SRC))

.PHONY: plugins conformance conformance-fast conformance-check script-ops bench readme fuzz fuzz-smoke banned all check test test-full unit bats asan test-asan deps install clean example schemas
.DELETE_ON_ERROR:
.SECONDARY: $(GEN_C) $(GEN_H)

all: $(TOOL_BINS) $(WRAPPER) plugins

# the example `lower` plugins (docs/plugins.md): each examples/plugins/X.c
# built on the public header alone into $(O)/examples/X.so
PLUGIN_SRC := $(wildcard examples/plugins/*.c)
PLUGINS  := $(patsubst examples/plugins/%.c,$(O)/examples/%.so,$(PLUGIN_SRC))
plugins: $(PLUGINS)

$(O)/examples/%.so: examples/plugins/%.c lib/lower/pt2onnx_plugin.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) -O2 -g -shared -fPIC -Ilib/lower -o $@ $<

$(O)/gen/onnx.pb-c.c $(O)/gen/onnx.pb-c.h: third_party/onnx/onnx.proto
	@mkdir -p $(O)/gen
	$(PROTOC_C) --proto_path=third_party/onnx --c_out=$(O)/gen $<

$(O)/gen/onnx.pb-c.o: $(GEN_C)
	$(CC) -std=c11 -O2 -g -I$(O)/gen -c -o $@ $<

$(O)/%.o: %.c $(GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(O)/%.o: %.cu lib/gpu/gpu.h lib/gpu/cuda_int.h lib/common/ir.h
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -std=c++17 -Xcompiler -fPIC,-Wall $(patsubst %,-I%,$(wildcard lib/*)) \
		-DPT2ONNX_HAVE_CUDA -c -o $@ $<

$(LIB): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

define tool_rule
$(BINDIR)/$(1): $(patsubst %.c,$(O)/%.o,$(wildcard tools/$(2)/*.c)) $(LIB)
	@mkdir -p $(BINDIR)
	$(CC) $(LDFLAGS) $(TOOL_LDFLAGS) -o $$@ $$^ $(LDLIBS)
endef
$(foreach t,$(TOOLS),$(eval $(call tool_rule,$(word 1,$(subst :, ,$(t))),$(word 2,$(subst :, ,$(t))))))

$(WRAPPER): $(patsubst %.c,$(O)/%.o,$(wildcard tools/pt2onnx/*.c)) $(LIB)
	@mkdir -p $(BINDIR)
	$(CC) $(LDFLAGS) $(TOOL_LDFLAGS) -o $@ $^ $(LDLIBS)

$(O)/tests/%: $(O)/tests/unit/%.o $(O)/tests/unit/unit.o $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

unit: $(UNIT_BIN)
	@set -e; for t in $(UNIT_BIN); do echo "== $$t"; $$t; done

bats: all $(UNIT_BIN)
	PT2ONNX_BINDIR=$(abspath $(BINDIR)) PT2ONNX_UNITDIR=$(abspath $(O))/tests bats tests/

# The tiers (docs/testing.md), each with one closing line "total: N passed,
# N failed, N skipped": check (fast), standard (`make test`), full.  A bats
# file's tier is its `# bats file_tags=tier:T` line; JOBS bats files run at
# once (GNU parallel).  TIER=full makes `make test` run every bats file.
JOBS ?= 2
TIER ?= standard
RUN_TESTS = PT2ONNX_BUILD_NOTE="$(CUDA_NOTE)" bash scripts/run-tests.sh --jobs $(JOBS)

check: all banned $(UNIT_BIN)
	@$(RUN_TESTS) --tier check $(O)/tests $(BINDIR)

test: all banned $(UNIT_BIN)
	@$(RUN_TESTS) --tier $(TIER) $(O)/tests $(BINDIR)

test-full: all banned $(UNIT_BIN)
	@$(RUN_TESTS) --tier full $(O)/tests $(BINDIR)
	$(MAKE) conformance-check

# banned functions (git's banned.h, as a grep so system headers are untouched)
banned:
	@sh scripts/check-banned.sh

# one make for the tools and the unit tests: two makes at once would both
# write build/asan/libpt2onnx.a (CI once linked a half-written one)
asan:
	$(MAKE) O=build/asan BINDIR=build/asan/bin SANITIZE=1 all \
		$(patsubst tests/unit/%.c,build/asan/tests/%,$(UNIT_SRC))

# sanitizer reports exit with codes no tool uses, so that an expected
# failure (`run -1 check ...`) can never hide one
SAN_ENV := ASAN_OPTIONS=exitcode=86:detect_leaks=1 \
	   UBSAN_OPTIONS=exitcode=87:print_stacktrace=1:halt_on_error=1

# which tier runs under ASan (CI: full); the torch fixtures under
# build/fixtures are shared with the plain build's runs (docs/testing.md)
ASAN_TIER ?= full

test-asan: asan
	$(SAN_ENV) $(MAKE) O=build/asan BINDIR=build/asan/bin SANITIZE=1 TIER=$(ASAN_TIER) test

# --- fuzzing (clang's libFuzzer): one target per reader -------------------
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN := $(patsubst tests/fuzz/%.c,build/fuzz/bin/%,$(FUZZ_SRC))
FUZZ_SECONDS ?= 30

fuzz:
	$(MAKE) O=build/fuzz CC=clang SANITIZE=1 CFLAGS="-O1 -g" \
		EXTRA_CFLAGS=-fsanitize=fuzzer-no-link build/fuzz/libpt2onnx.a
	@mkdir -p build/fuzz/bin
	@set -e; for f in $(FUZZ_SRC); do \
		n=$$(basename $$f .c); \
		echo "clang $$f -> build/fuzz/bin/$$n"; \
		clang -std=c11 -D_GNU_SOURCE -O1 -g $(patsubst %,-I%,$(wildcard lib/*)) \
			-Ibuild/fuzz/gen -fsanitize=fuzzer,address,undefined \
			-o build/fuzz/bin/$$n $$f build/fuzz/libpt2onnx.a $(BASE_LDLIBS); \
	done

# every fuzz target for FUZZ_SECONDS on its committed corpus, FUZZ_JOBS at
# once (scripts/fuzz-smoke.sh)
FUZZ_JOBS ?= 2
fuzz-smoke: fuzz
	bash scripts/fuzz-smoke.sh $(FUZZ_SECONDS) $(FUZZ_JOBS) $(FUZZ_BIN)

deps:
	sh scripts/install-deps.sh

example: all
	sh examples/run.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/libexec/pt2onnx
	install -m 755 $(TOOL_BINS) $(DESTDIR)$(PREFIX)/libexec/pt2onnx/
	install -m 755 $(WRAPPER) $(DESTDIR)$(PREFIX)/bin/pt2onnx
	install -d $(DESTDIR)$(PREFIX)/include
	install -m 644 lib/lower/pt2onnx_plugin.h $(DESTDIR)$(PREFIX)/include/

# regenerate the committed schema tables.  lib/onnx/onnx_schemas.inc is
# scripts/gen_onnx_schemas.py's output under onnx 1.23.1 (pip; opsets to
# 28, IR 14), committed with the schema JSON of the same onnx beside it
# (third_party/onnx/onnx-1.23.1-schemas.json, for scripts/onnx_op_changes.py).
# The generator needs that onnx itself (it probes onnx's C++ checker), so
# it refuses another version, e.g. Debian's python3-onnx 1.12, rather than
# overwrite the table with older schemas.
ONNX_SCHEMA_VERSION := 1.23.1
schemas:
	/usr/bin/python3 scripts/gen_onnx_schemas.py --require $(ONNX_SCHEMA_VERSION) > lib/onnx/onnx_schemas.inc.new
	mv lib/onnx/onnx_schemas.inc.new lib/onnx/onnx_schemas.inc
	/usr/bin/python3 scripts/gen_aten_schemas.py > lib/aten/aten_schemas.inc
	/usr/bin/python3 scripts/gen_aten_schemas.py --ops > lib/aten/aten_ops.inc

# --- the conformance suite and the benchmarks (tests/conformance, bench) ---
PY := /usr/bin/python3

# every model: build the set, run pt2onnx over it, regenerate docs/conformance.md
conformance: all
	$(PY) tests/conformance/generate.py
	$(PY) tests/conformance/run.py --update
	$(PY) tests/conformance/report.py

# CI's subset: fails when a model that passes in the committed results
# (tests/conformance/results.json) does not pass now; at 17 and the newer
# opsets (9 and 13 are the full run's, and the bats tiers')
FAST_OPSETS ?= 17,18,20,23,26
conformance-fast: all
	$(PY) tests/conformance/generate.py --subset fast --no-torch-export
	$(PY) tests/conformance/run.py --subset fast --check --opsets $(FAST_OPSETS)

# the full tier's conformance run: every model built (incremental), run, and
# failed when one that passes in results.json does not pass now (no update)
conformance-check: all
	$(PY) tests/conformance/generate.py
	$(PY) tests/conformance/run.py --check

# issue 4 over the conformance set: script's op sets and weights against
# torch's frozen graphs (tests/conformance/script_ops.py), into the report
script-ops: all
	$(PY) tests/conformance/script_ops.py --script $(BINDIR)/script --jobs 2 \
		--json tests/conformance/script_ops.json
	$(PY) tests/conformance/report.py

# pt2onnx against torch.onnx.export, regenerating docs/benchmarks.md;
# BENCH_ARGS=--series adds the scaling series (0.1 to 10 GB, bench/README.md)
BENCH_ARGS ?=
bench: all
	$(PY) bench/bench.py run $(BENCH_ARGS)
	$(PY) bench/bench.py report

# refresh README.md's generated sections (tool options, operator table)
readme: all
	bash scripts/gen-readme.sh $(BINDIR) > README.md.new && mv README.md.new README.md

clean:
	rm -rf build $(TOOL_BINS) $(WRAPPER)

-include $(shell find $(O) -name '*.d' 2>/dev/null)
