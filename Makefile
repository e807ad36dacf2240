# vtbench — plain Makefile.  `make V=1` shows commands; `make SAN=1
# BUILD=build/asan` builds the ASan+UBSan variant (agent dynamic);
# `make fuzz` builds the libFuzzer targets with clang (build/fuzz) and
# runs them.
# Every library's flags come from pkg-config.

BUILD   ?= build
PREFIX  ?= /usr/local
DESTDIR ?=
CC      ?= gcc
SAN     ?= 0

ifeq ($(V),1)
Q :=
else
Q := @
endif

VERSION := $(shell git describe --always --dirty --tags 2>/dev/null || echo unknown)

HARNESS_PKGS := libvirt hwloc libcpuid sqlite3 libcurl libxml-2.0 jansson gsl libcrypto
AGENT_PKGS   := libcpuid jansson
TEST_PKGS    := criterion

PKG_CFLAGS  := $(shell pkg-config --cflags $(HARNESS_PKGS) $(TEST_PKGS) 2>/dev/null)
HARNESS_LIBS := $(shell pkg-config --libs $(HARNESS_PKGS) 2>/dev/null) -lm -pthread
AGENT_LIBS  := $(shell pkg-config --static --libs $(AGENT_PKGS) 2>/dev/null) -lm -pthread
TEST_LIBS   := $(shell pkg-config --libs $(TEST_PKGS) 2>/dev/null)

WARN := -Wall -Wextra -Wstrict-prototypes -Wmissing-prototypes -Wvla \
	-Wwrite-strings -Wformat=2 -Wno-format-nonliteral
ifeq ($(CI),true)
WERROR ?= -Werror
endif
WERROR ?=

CFLAGS ?= -O2 -g
ALL_CFLAGS := -std=c17 -D_GNU_SOURCE -DVTB_VERSION='"$(VERSION)"' $(WARN) $(WERROR) \
	$(CFLAGS) $(PKG_CFLAGS) -MMD -MP
LDFLAGS ?=

ifeq ($(SAN),1)
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
ALL_CFLAGS += $(SANFLAGS)
LDFLAGS += $(SANFLAGS)
AGENT_STATIC :=
else
AGENT_STATIC := -static
endif
# FUZZ=1 (with CC=clang SAN=1): every object carries libFuzzer's coverage
ifeq ($(FUZZ),1)
ALL_CFLAGS += -fsanitize=fuzzer-no-link
endif

# common/: what both binaries share; workloads/: the agent's workloads;
# harness/PART/, reports/ and topologies/ (the presets): the harness (DESIGN.md section 2).
WL_SRC      := $(sort $(wildcard common/*.c) $(filter-out workloads/agent.c,$(wildcard workloads/*.c)))
HARNESS_SRC := $(sort $(filter-out harness/cli/main.c,$(wildcard harness/*/*.c reports/*.c topologies/*.c)))
TEST_SRC    := $(sort $(wildcard tests/unit/test_*.c))

OBJ = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
WL_OBJ      := $(call OBJ,$(WL_SRC))
# the HTML report's stylesheet, compiled in (rule below)
CSS_OBJ     := $(BUILD)/obj/gen/report-css.o
HARNESS_OBJ := $(call OBJ,$(HARNESS_SRC)) $(CSS_OBJ)
TEST_BIN    := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(TEST_SRC))
# Test tools: small drivers the CLI test scripts run (tests/tools/NAME.c).
TOOL_SRC    := $(sort $(wildcard tests/tools/*.c))
TOOL_BIN    := $(patsubst tests/tools/%.c,$(BUILD)/tests/tools/%,$(TOOL_SRC))
# libFuzzer targets (tests/fuzz/fuzz_NAME.c), built in FUZZ_BUILD.
FUZZ_SRC    := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN    := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz-bin/%,$(FUZZ_SRC))
FUZZ_BUILD  ?= build/fuzz
FUZZ_TIME   ?= 600
FUZZ_SMOKE  ?= 30

BINS := $(BUILD)/vtbench $(BUILD)/vtbench-agent
# Manual pages, written by the binaries from their option tables (the ones
# --help and --help-matrix print), so they never drift.
MAN1 := $(BUILD)/man/vtbench.1 $(BUILD)/man/vtbench-agent.1
MAN5 := $(BUILD)/man/vtbench-matrix.5
MANS := $(MAN1) $(MAN5)
# Shell completion scripts, written by vtbench from the same tables.
COMPS := $(BUILD)/completion/vtbench.bash $(BUILD)/completion/_vtbench \
	$(BUILD)/completion/vtbench.fish
# The guest image needs the static agent: not built in the ASan variant.
GUEST := $(if $(filter 1,$(SAN)),,$(BUILD)/guest/initramfs.cpio.gz)

.PHONY: completion all check check-unit check-cli check-asan demo bench bench-workloads install clean format deps tests guest fuzz fuzz-smoke fuzz-build fuzz-bins man
all: $(BINS) $(GUEST) $(MANS) $(COMPS)
man: $(MANS)
completion: $(COMPS)
guest: $(GUEST)
tests: $(TEST_BIN) $(TOOL_BIN)

# STREAM's kernels must stay plain loops with regular stores: stop gcc from
# turning the copy loop into memcpy (glibc switches to non-temporal stores
# on large copies).
# (gcc's flag; clang builds only the fuzz variant, whose figures don't count)
$(BUILD)/obj/workloads/membw.o: ALL_CFLAGS += $(if $(findstring clang,$(CC)),,-fno-tree-loop-distribute-patterns)

# Objects that embed the version are rebuilt when `git describe` changes.
VERSION_STAMP := $(BUILD)/VERSION
$(shell mkdir -p $(BUILD) && (echo '$(VERSION)' | cmp -s - $(VERSION_STAMP) || echo '$(VERSION)' > $(VERSION_STAMP)))
$(call OBJ,harness/cli/main.c harness/boot/runner.c workloads/agent.c): $(VERSION_STAMP)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

# reports/report.css as the C array vtb_report_css (NUL-terminated), its
# line breaks dropped: the page carries it on one line.  Plain od and sed,
# so gcc, clang and the sanitizer builds compile the same file.
$(BUILD)/gen/report-css.c: reports/report.css
	@mkdir -p $(@D)
	@$(if $(Q),echo "  GEN     $@")
	$(Q){ printf '/* generated from reports/report.css by make */\nextern const char vtb_report_css[];\nconst char vtb_report_css[] = {\n'; \
	tr -d '\n' <$< | od -An -v -tx1 | sed 's/[0-9a-f][0-9a-f]/0x&,/g'; \
	printf '0x00 };\n'; } >$@.tmp && mv $@.tmp $@

$(CSS_OBJ): $(BUILD)/gen/report-css.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/libvtbwl.a: $(WL_OBJ)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/libvtbh.a: $(HARNESS_OBJ)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/vtbench: $(call OBJ,harness/cli/main.c) $(BUILD)/libvtbh.a $(BUILD)/libvtbwl.a
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(HARNESS_LIBS)

$(BUILD)/vtbench-agent: $(call OBJ,workloads/agent.c) $(BUILD)/libvtbwl.a
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) $(AGENT_STATIC) -o $@ $^ $(AGENT_LIBS)

$(BUILD)/tests/%: $(call OBJ,tests/unit/%.c) $(BUILD)/libvtbh.a $(BUILD)/libvtbwl.a
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(TEST_LIBS) $(HARNESS_LIBS)

$(BUILD)/tests/tools/%: $(call OBJ,tests/tools/%.c) $(BUILD)/libvtbh.a $(BUILD)/libvtbwl.a
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(HARNESS_LIBS)

# clang's libFuzzer main; the objects are built with FUZZ=1
$(BUILD)/fuzz-bin/%: $(call OBJ,tests/fuzz/%.c) $(BUILD)/libvtbh.a $(BUILD)/libvtbwl.a
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -fsanitize=fuzzer -o $@ $^ $(HARNESS_LIBS)

fuzz-bins: $(FUZZ_BIN)

# The fuzz variant: clang, ASan+UBSan, libFuzzer coverage.
fuzz-build:
	$(Q)$(MAKE) --no-print-directory CC=clang SAN=1 FUZZ=1 BUILD=$(FUZZ_BUILD) fuzz-bins

# Each target for FUZZ_TIME seconds (all at once), new inputs kept in
# FUZZ_BUILD/corpus; a finding stops its target and names the reproducer.
fuzz: fuzz-build
	$(Q)sh scripts/fuzz.sh $(FUZZ_BUILD) $(FUZZ_TIME) keep

# make check's smoke: each target FUZZ_SMOKE seconds from the committed
# corpus (tests/fuzz/corpus, regression inputs included); fails on any
# finding.
fuzz-smoke: fuzz-build
	$(Q)sh scripts/fuzz.sh $(FUZZ_BUILD) $(FUZZ_SMOKE)

# Live drivers against a real libvirt daemon (tests/live/NAME.c): built on
# demand, not part of `make check`.
$(BUILD)/tests/live/%: $(call OBJ,tests/live/%.c) $(BUILD)/libvtbh.a $(BUILD)/libvtbwl.a
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(HARNESS_LIBS)

$(BUILD)/man/vtbench.1 $(BUILD)/man/vtbench-matrix.5: $(BUILD)/vtbench
	@mkdir -p $(@D)
	@$(if $(Q),echo "  MAN     $@")
	$(Q)$< --man $(basename $(@F)) >$@.tmp && mv $@.tmp $@

$(BUILD)/completion/vtbench.bash $(BUILD)/completion/_vtbench $(BUILD)/completion/vtbench.fish: $(BUILD)/vtbench
	@mkdir -p $(@D)
	@$(if $(Q),echo "  GEN     $@")
	$(Q)$< --completion $(if $(filter %.bash,$@),bash,$(if $(filter %.fish,$@),fish,zsh)) >$@.tmp && mv $@.tmp $@

$(BUILD)/man/vtbench-agent.1: $(BUILD)/vtbench-agent
	@mkdir -p $(@D)
	@$(if $(Q),echo "  MAN     $@")
	$(Q)$< --man >$@.tmp && mv $@.tmp $@

$(BUILD)/guest/initramfs.cpio.gz: $(BUILD)/vtbench-agent scripts/mkinitramfs.sh
	@$(if $(Q),echo "  CPIO    $@")
	$(Q)sh scripts/mkinitramfs.sh $< $@

deps:
	$(Q)sh scripts/install-deps.sh

# Unit tests, CLI golden tests and the end-to-end runner tests; then the
# unit and CLI tests again under ASan+UBSan; and every fuzz target for
# FUZZ_SMOKE seconds (all at once) from the committed corpus (tests/run.sh
# builds the fuzz variant in its first lane, after the guests).
# tests/run.sh prints the closing "N passed, N failed" line.
# make check and make demo build on every CPU (a plain `make` inside a
# recipe would build one file at a time: half the machine idle for minutes)
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

check: deps
	$(Q)$(MAKE) --no-print-directory -j$(JOBS) all tests
	$(Q)$(MAKE) --no-print-directory -j$(JOBS) SAN=1 BUILD=$(BUILD)/asan all tests
	$(Q)FUZZ_SMOKE=$(FUZZ_SMOKE) sh tests/run.sh $(BUILD) $(BUILD)/asan $(BUILD)/fuzz

demo: deps
	$(Q)$(MAKE) --no-print-directory -j$(JOBS) all
	$(Q)sh scripts/demo.sh $(BUILD)

bench: all $(TOOL_BIN)
	$(Q)sh scripts/bench-plan.sh $(BUILD)
	$(Q)sh scripts/bench-parser.sh $(BUILD)
	$(Q)sh scripts/bench-stats.sh $(BUILD)
	$(Q)sh scripts/bench.sh $(BUILD)
	$(Q)sh scripts/bench-vm.sh $(BUILD)
	$(Q)sh scripts/bench-evidence.sh $(BUILD)
	$(Q)sh scripts/bench-workloads.sh $(BUILD)
	$(Q)sh scripts/bench-compare.sh $(BUILD)
	$(Q)sh scripts/bench-calibrate.sh $(BUILD)
	$(Q)sh scripts/bench-race.sh $(BUILD)

# Each workload beside its reference tool (REPS=10 by default).
bench-workloads: all
	$(Q)sh scripts/bench-workloads.sh $(BUILD)

# The guest image is not built in the ASan variant (SAN=1): installed
# where there is one.
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/vtbench/examples
	install -m 0755 $(BUILD)/vtbench $(BUILD)/vtbench-agent $(DESTDIR)$(PREFIX)/bin/
	install -m 0644 examples/*.conf $(DESTDIR)$(PREFIX)/share/vtbench/examples/
	install -d $(DESTDIR)$(PREFIX)/share/vtbench/docs
	install -m 0644 README.md $(DESTDIR)$(PREFIX)/share/vtbench/
	install -m 0644 docs/*.md $(DESTDIR)$(PREFIX)/share/vtbench/docs/
	install -d $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man5
	install -m 0644 $(MAN1) $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 0644 $(MAN5) $(DESTDIR)$(PREFIX)/share/man/man5/
	install -d $(DESTDIR)$(PREFIX)/share/vtbench/topologies/hosts
	install -m 0644 topologies/hosts/* $(DESTDIR)$(PREFIX)/share/vtbench/topologies/hosts/
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
		$(DESTDIR)$(PREFIX)/share/zsh/vendor-completions \
		$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 0644 $(BUILD)/completion/vtbench.bash \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/vtbench
	install -m 0644 $(BUILD)/completion/_vtbench $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions/
	install -m 0644 $(BUILD)/completion/vtbench.fish \
		$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/
ifneq ($(GUEST),)
	install -d $(DESTDIR)$(PREFIX)/share/vtbench/guest/kernel/boot
	install -m 0644 $(GUEST) $(DESTDIR)$(PREFIX)/share/vtbench/guest/
	for k in $(wildcard $(BUILD)/guest/kernel/boot/vmlinuz-*); do \
		install -m 0644 $$k $(DESTDIR)$(PREFIX)/share/vtbench/guest/kernel/boot/; done
endif

format:
	clang-format -i $(wildcard harness/*/*.[ch] reports/*.[ch] common/*.[ch] workloads/*.[ch] tests/unit/*.[ch] tests/live/*.c tests/tools/*.c)

clean:
	rm -rf $(BUILD)

.SECONDARY:

-include $(shell find $(BUILD) -name '*.d' -type f 2>/dev/null)
