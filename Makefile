# pt2onnx - top-level Makefile.  One library (lib/), thin tools (tools/),
# everything built into bin/.  See README.md for the targets.
#
#   make                 libraries and tools into bin/
#   make test            build, then run the C unit tests and the bats tests
#   make asan            the same build with ASan+UBSan, into build/asan/bin
#   make test-asan       the tests against that build
#   make deps            install the Debian and npm packages (needs root)
#   make install PREFIX=/usr/local
#
# Sources are found by wildcard: a new .c in lib/<part>/ joins the library,
# a new tests/unit/test_*.c becomes a unit test.

PREFIX   ?= /usr/local
O        ?= build
BINDIR   ?= bin
CC       ?= cc
PROTOC_C ?= protoc-c
NVCC     ?= $(shell command -v nvcc 2>/dev/null)

WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
            -Wmissing-prototypes -Wno-unused-parameter
CFLAGS   ?= -O2 -g
ALL_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) \
            -Ilib/common -Ilib/onnx -Ilib/gpu -I$(O)/gen
LDLIBS   := -lprotobuf-c -lmsgpackc -lz -lm

ifeq ($(SANITIZE),1)
ALL_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer \
              -fno-sanitize-recover=undefined
LDFLAGS    += -fsanitize=address,undefined
endif

# --- the library ----------------------------------------------------------
GEN_C    := $(O)/gen/onnx.pb-c.c
GEN_H    := $(O)/gen/onnx.pb-c.h
LIB_SRC  := $(wildcard lib/common/*.c lib/onnx/*.c lib/gpu/*.c)
LIB_OBJ  := $(patsubst %.c,$(O)/%.o,$(LIB_SRC)) $(O)/gen/onnx.pb-c.o
LIB      := $(O)/libpt2onnx.a

# --- the tools: name:directory --------------------------------------------
TOOLS    := emit:emit check:check
TOOL_NAMES := $(foreach t,$(TOOLS),$(word 1,$(subst :, ,$(t))))
TOOL_BINS  := $(addprefix $(BINDIR)/,$(TOOL_NAMES))
WRAPPER  := $(BINDIR)/pt2onnx

# --- tests ------------------------------------------------------------------
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(patsubst tests/unit/%.c,$(O)/tests/%,$(UNIT_SRC))

.PHONY: banned all test unit bats asan test-asan deps install clean example schemas
.DELETE_ON_ERROR:

all: $(TOOL_BINS) $(WRAPPER)

$(O)/gen/onnx.pb-c.c $(O)/gen/onnx.pb-c.h: third_party/onnx/onnx.proto
	@mkdir -p $(O)/gen
	$(PROTOC_C) --proto_path=third_party/onnx --c_out=$(O)/gen $<

$(O)/gen/onnx.pb-c.o: $(GEN_C)
	$(CC) -std=c11 -O2 -g -I$(O)/gen -c -o $@ $<

$(O)/%.o: %.c $(GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(LIB): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

define tool_rule
$(BINDIR)/$(1): $(patsubst %.c,$(O)/%.o,$(wildcard tools/$(2)/*.c)) $(LIB)
	@mkdir -p $(BINDIR)
	$(CC) $(LDFLAGS) -o $$@ $$^ $(LDLIBS)
endef
$(foreach t,$(TOOLS),$(eval $(call tool_rule,$(word 1,$(subst :, ,$(t))),$(word 2,$(subst :, ,$(t))))))

$(WRAPPER): $(patsubst %.c,$(O)/%.o,$(wildcard tools/pt2onnx/*.c)) $(LIB)
	@mkdir -p $(BINDIR)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(O)/tests/%: $(O)/tests/unit/%.o $(O)/tests/unit/unit.o $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

unit: $(UNIT_BIN)
	@set -e; for t in $(UNIT_BIN); do echo "== $$t"; $$t; done

bats: all
	PT2ONNX_BINDIR=$(abspath $(BINDIR)) bats tests/

test: all banned unit bats

# banned functions (git's banned.h, as a grep so system headers are untouched)
banned:
	@sh scripts/check-banned.sh

asan:
	$(MAKE) O=build/asan BINDIR=build/asan/bin SANITIZE=1 all \
		build/asan/tests/.stamp

build/asan/tests/.stamp: $(UNIT_SRC)
	$(MAKE) O=build/asan BINDIR=build/asan/bin SANITIZE=1 $(patsubst tests/unit/%.c,build/asan/tests/%,$(UNIT_SRC))
	@touch $@

test-asan: asan
	$(MAKE) O=build/asan BINDIR=build/asan/bin SANITIZE=1 unit bats

deps:
	sh scripts/install-deps.sh

example: all
	sh examples/run.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/libexec/pt2onnx
	install -m 755 $(TOOL_BINS) $(DESTDIR)$(PREFIX)/libexec/pt2onnx/
	install -m 755 $(WRAPPER) $(DESTDIR)$(PREFIX)/bin/pt2onnx

# regenerate the committed ONNX operator schema table (needs python3-onnx)
schemas:
	/usr/bin/python3 scripts/gen_onnx_schemas.py > lib/onnx/onnx_schemas.inc

clean:
	rm -rf build bin/emit bin/check bin/pt2onnx

-include $(shell find $(O) -name '*.d' 2>/dev/null)
