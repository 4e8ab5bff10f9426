# SPDX-License-Identifier: MIT
# sbx build. Features are switched in config.mk (CONFIG_X=y|n); each one adds
# its objects and libraries in the obj-$(CONFIG_X) / libs-$(CONFIG_X) style.
include config.mk

CC ?= gcc
# ARCH=arm64: the cross build (docs/development.md): a static-pie aarch64 sbx
# and libsbx from the same sources, with aarch64-linux-gnu-gcc against the
# arm64 -dev packages, into build/arm64/ so that it and the native build
# share one tree. Programs the build runs (the filter and table generators)
# are built for this machine into build/arm64/host/ and generate for the
# target. Any other ARCH, or none, is this machine's own build.
HOST_ARCH := $(shell uname -m)
ifneq ($(filter arm64 aarch64,$(ARCH)),)
ifneq ($(HOST_ARCH),aarch64)
CROSS_COMPILE ?= aarch64-linux-gnu-
CC := $(CROSS_COMPILE)gcc
AR := $(CROSS_COMPILE)ar
HOSTCC ?= gcc
O := build/arm64/
HOST_O := $(O)host/
# what seccomp_gen compiles the errno rules for (libseccomp's name)
SECCOMP_TARGET := aarch64
endif
endif
HOSTCC ?= $(CC)
ifneq ($(O),)
ifneq ($(filter-out all check-arm64 clean $(O)%,$(MAKECMDGOALS)),)
$(error ARCH=arm64 builds sbx, libsbx and check-arm64's helpers; the test suites run on this machine's own build)
endif
ifeq ($(filter clean check-arm64,$(MAKECMDGOALS))$(shell command -v $(CC)),)
$(error ARCH=arm64: no $(CC) here (scripts/deps.sh arm64 installs the cross build's packages))
endif
endif
# The version lives in one place: the file VERSION (sbx --version, the JSON
# results, serve's initialize, sbx.pc).
SBX_VERSION := $(shell cat VERSION)
PREFIX ?= /usr/local
DESTDIR ?=
LIBDIR ?= lib

WARN := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wno-format-nonliteral
HARDEN := -D_FORTIFY_SOURCE=2 -fstack-protector-strong -fPIE -fstack-clash-protection
OPT ?= -O2 -g
# launcher/ is layered, calls running down only: front (CLI, serve, mcp) ->
# engine (one run) -> supervisor, protect, output (the syscall supervisor, the
# protected paths, output collection) -> runners (namespace, landlock) ->
# kernel (mechanisms). scripts/layers.py checks it on the built objects.
LAUNCHER_DIRS := launcher/front launcher/engine launcher/supervisor launcher/protect \
	launcher/output launcher/runners launcher/kernel
CPPFLAGS += -D_GNU_SOURCE -Iinclude $(addprefix -I,$(LAUNCHER_DIRS)) -Iclassify -Ipolicy
CFLAGS := -std=gnu11 $(OPT) $(WARN) $(HARDEN) $(CFLAGS_EXTRA)
LDFLAGS := -pie -Wl,-z,relro,-z,now $(LDFLAGS_EXTRA)
# The shared library: its own position-independent objects (*.pic.o), every
# symbol hidden but what include/sbx.h declares (a visibility pragma there),
# and libsbx.map as a second fence. The static archive and the sbx binary
# keep their own -fPIE objects, untouched by this.
SO_MAJOR := 0
SONAME := libsbx.so.$(SO_MAJOR)
SO_REAL := libsbx.so.$(SBX_VERSION)
PIC_CFLAGS := $(filter-out -fPIE,$(CFLAGS)) -fPIC -fvisibility=hidden
SO_LDFLAGS := -shared -Wl,-soname,$(SONAME) -Wl,--version-script=libsbx.map \
	-Wl,-z,defs -Wl,-z,relro,-z,now $(LDFLAGS_EXTRA)

# ---- features ----
defs-$(CONFIG_IO_URING) += -DCONFIG_IO_URING
defs-$(CONFIG_RUNNER_NAMESPACE) += -DCONFIG_RUNNER_NAMESPACE
defs-$(CONFIG_RUNNER_LANDLOCK) += -DCONFIG_RUNNER_LANDLOCK
defs-$(CONFIG_SECCOMP) += -DCONFIG_SECCOMP
defs-$(CONFIG_NETNS) += -DCONFIG_NETNS
defs-$(CONFIG_SUPERVISOR) += -DCONFIG_SUPERVISOR
defs-$(CONFIG_STATIC) += -DCONFIG_STATIC
CPPFLAGS += $(defs-y) -DSBX_VERSION='"$(SBX_VERSION)"'
# Rebuild everything when the feature set changes (e.g. `make CONFIG_IO_URING=n`).
$(shell mkdir -p ./$(O) && (echo '$(defs-y)' | cmp -s - $(O).config.stamp || echo '$(defs-y)' > $(O).config.stamp))
# Written above, after make may have listed this directory: a rule of its own,
# so the pattern rules below apply on a fresh tree (else make takes the stamp
# for missing and unmakeable, and falls back on its built-in %.o rule).
$(O).config.stamp: ;
# (not the default goal, which the stamp would be in the cross build)
.DEFAULT_GOAL := all

# pure parts: every file in policy/ and classify/
obj-y := $(patsubst %.c,%.o,$(wildcard policy/*.c classify/*.c))
# the launcher core
obj-y += $(addprefix launcher/engine/,version.o error.o env.o env_cache.o statedir.o view_prepare.o \
	 spawn.o tree.o run.o run_builder.o run_pick.o run_finish.o result.o privilege.o \
	 writable.o probe.o run_limits.o limit_hit.o catalog_files.o locale_dialect.o root_pin.o \
	 run_supervise.o run_named.o reap.o probe_causes.o probe_userns.o exit_watch.o process.o host_check.o)
obj-y += $(patsubst %.c,%.o,$(wildcard launcher/protect/*.c))
obj-y += $(patsubst %.c,%.o,$(filter-out %/loop_uring.c,$(wildcard launcher/output/*.c)))
obj-y += $(addprefix launcher/runners/,child.o runners.o runner_filter.o deadman.o opener.o keeper.o pidns_init.o)
obj-y += $(addprefix launcher/kernel/,child_status.o landlock.o landlock_ruleset.o landlock_scope.o \
	 caps.o userns.o userns_host.o keyring.o rlimits.o nproc_count.o cgroup.o cgroup_parse.o syscall_table.o \
	 syscall_numbers.o syscalls_as_of.o fds.o bpf_eval.o pty_pool.o inflight.o mount_aliases.o)
obj-y += $(addprefix launcher/front/,serve_main.o serve_session.o spawner.o serve_run.o serve_out.o \
	jsonrpc_msg.o jsonrpc_params.o jsonrpc_server.o work_session.o work_tasks.o work_answers.o \
	work_spill.o mcp_main.o mcp_call.o mcp_tools.o)
obj-$(CONFIG_IO_URING) += launcher/output/loop_uring.o
obj-$(CONFIG_RUNNER_NAMESPACE) += $(addprefix launcher/runners/,runner_namespace.o ns_view.o \
	ns_readonly.o ns_mounts.o ns_dev.o ns_proc.o ns_hide.o ns_rebuild.o ns_place.o)
obj-$(CONFIG_RUNNER_LANDLOCK) += launcher/runners/runner_landlock.o launcher/runners/landlock_cache.o
obj-$(CONFIG_SECCOMP) += launcher/kernel/seccomp.o launcher/kernel/seccomp_filters.o
obj-$(CONFIG_SUPERVISOR) += launcher/kernel/seccomp_notify.o launcher/kernel/scope_thread.o \
	$(patsubst %.c,%.o,$(wildcard launcher/supervisor/*.c))

# CONFIG_STATIC=y (the default): sbx is one static-pie file (glibc and every
# library inside), to copy into any image; each launch skips the dynamic
# loader (measured: docs/performance.md). libmnl (--net none's netlink) has
# no static archive in Debian: scripts/deps-mnl.sh builds one from Debian's
# own source package into deps/ when that source is reachable, and then the
# static sbx speaks netlink through libmnl as every other build does. Where
# it is not (a mirror of binary packages only, as here), the static sbx has
# no netlink at all: its one use, setting `lo` up in --net none's namespace,
# is the SIOCSIFFLAGS ioctl (netns_ioctl.c). CONFIG_STATIC=n keeps the
# dynamic glibc and libmnl. Test programs link everything the ordinary way.
MNL_A := $(firstword $(if $(O),,$(wildcard deps/lib/libmnl.a)) \
	$(shell f=$$($(CC) -print-file-name=libmnl.a); [ -f "$$f" ] && echo "$$f"))
ifeq ($(CONFIG_STATIC)$(CONFIG_NETNS),yy)
netns-obj := $(if $(MNL_A),netns.o,netns_ioctl.o)
mnl-lib := $(MNL_A)
else
netns-obj := netns.o
mnl-lib := -lmnl
endif
obj-$(CONFIG_NETNS) += launcher/kernel/$(netns-obj)
static-libs-y := -ljansson
static-libs-$(CONFIG_IO_URING) += -luring
netlink-libs-$(CONFIG_NETNS) := $(if $(filter netns.o,$(netns-obj)),$(mnl-lib))
libs-y := $(static-libs-y) $(netlink-libs-y)
# What sbx.pc's Requires.private lists for `pkg-config --static`: the
# archive's dependencies, by their own pkg-config names.
pc-requires-y := jansson
pc-requires-$(CONFIG_IO_URING) += liburing
pc-requires-$(CONFIG_NETNS) += $(if $(filter netns.o,$(netns-obj)),libmnl)
ifeq ($(CONFIG_STATIC),y)
sbx-ldflags := -static-pie -Wl,-z,relro,-z,now $(LDFLAGS_EXTRA)
sbx-libs := $(libs-y)
else
sbx-ldflags := $(LDFLAGS)
sbx-libs := -Wl,-Bstatic $(static-libs-y) -Wl,-Bdynamic $(netlink-libs-y)
endif

CLI_OBJ := $(addprefix launcher/front/,cli_main.o cli_common.o cli_run.o cli_options.o cli_probe.o \
	   cli_serve.o cli_mcp.o cli_signals.o)
# The cross build's objects live under $(O) (empty: the native build's, in place).
obj-y := $(addprefix $(O),$(obj-y))
CLI_OBJ := $(addprefix $(O),$(CLI_OBJ))

UNIT_SRC := $(wildcard tests/unit/*.c)
E2E_SRC := $(wildcard tests/e2e/test_*.c)
E2E_COMMON := tests/e2e/common.o
HELPERS := tests/helpers/nofeature tests/helpers/ttyinject tests/helpers/hopper tests/helpers/forkloop \
	   tests/helpers/sidedoor tests/helpers/sockserver tests/helpers/symrace tests/helpers/abi32 \
	   tests/helpers/syscallprobe tests/helpers/ptinject tests/helpers/cloneparent \
	tests/helpers/lingerclose tests/helpers/lingerpass tests/helpers/inflighthog tests/helpers/fdbatch \
	tests/helpers/lingernproc tests/helpers/blockedpass tests/helpers/lingermany \
	tests/helpers/abstractd tests/helpers/inodeioctl

UNIT_BIN := $(UNIT_SRC:.c=)
E2E_BIN := $(E2E_SRC:.c=)

# keep the shared e2e fixture object between test binaries
.SECONDARY: $(E2E_COMMON)

.PHONY: all test-programs check check-fast check-layers check-mutants check-full check-minimal check-kernels \
	check-vm check-arm64 check-realwork unit e2e examples mcp deps deps-run demo clean install \
	install-strip fuzz
all: $(O)sbx $(O)libsbx.a $(O)$(SO_REAL)

$(O)libsbx.a: $(obj-y)
	@rm -f $@
	@echo "  AR      $@"
	@$(AR) rcs $@ $^

PIC_OBJ := $(obj-y:.o=.pic.o)

$(O)$(SO_REAL): $(PIC_OBJ) libsbx.map
	@echo "  LD      $@"
	@$(CC) $(SO_LDFLAGS) -o $@ $(PIC_OBJ) $(libs-y)
	@ln -sf $(SO_REAL) $(O)$(SONAME)
	@ln -sf $(SONAME) $(O)libsbx.so

$(O)sbx: $(CLI_OBJ) $(O)libsbx.a
	$(CC) $(sbx-ldflags) -o $@ $(CLI_OBJ) $(O)libsbx.a $(sbx-libs)

HEADERS := $(wildcard include/*.h launcher/*/*.h classify/*.h policy/*.h)

$(O)%.o: %.c $(HEADERS) config.mk $(O).config.stamp VERSION
	@mkdir -p $(@D)
	@echo "  CC      $@"
	@$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(O)%.pic.o: %.c $(HEADERS) config.mk $(O).config.stamp VERSION
	@mkdir -p $(@D)
	@echo "  CC      $@"
	@$(CC) $(CPPFLAGS) $(PIC_CFLAGS) -c -o $@ $<

# Sources the build generates (below), compiled from where they were made.
GENERATED_C := $(O)launcher/kernel/seccomp_filters.c $(O)launcher/kernel/syscall_numbers.c
$(GENERATED_C:.c=.o): %.o: %.c $(HEADERS) config.mk $(O).config.stamp VERSION
	@echo "  CC      $@"
	@$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<
$(GENERATED_C:.c=.pic.o): %.pic.o: %.c $(HEADERS) config.mk $(O).config.stamp VERSION
	@echo "  CC      $@"
	@$(CC) $(CPPFLAGS) $(PIC_CFLAGS) -c -o $@ $<

# Programs the build runs: for this machine, whatever sbx is built for.
ifneq ($(HOST_O),)
$(HOST_O)%.o: %.c $(HEADERS) config.mk $(O).config.stamp VERSION
	@mkdir -p $(@D)
	@echo "  HOSTCC  $@"
	@$(HOSTCC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<
endif

# The system call table: the names and the releases that brought each call
# (syscall_table.def, by hand), their numbers on each architecture from
# libseccomp's tables (syscall_table_gen), at build time.
$(O)launcher/kernel/syscall_table.o: launcher/kernel/syscall_table.def
$(HOST_O)launcher/kernel/syscall_table_gen: launcher/kernel/syscall_table_gen.c \
		launcher/kernel/syscall_table.def launcher/kernel/syscall_table.h
	@mkdir -p $(@D)
	@echo "  GEN     $@"
	@$(HOSTCC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< -lseccomp

$(O)launcher/kernel/syscall_numbers.c: $(HOST_O)launcher/kernel/syscall_table_gen
	@echo "  GEN     $@"
	@$(HOST_O)launcher/kernel/syscall_table_gen > $@.tmp && mv $@.tmp $@

# The errno filter is compiled once, at build time, by libseccomp from
# seccomp_rules.c (the only place its rules live) and embedded; sbx itself
# does not link libseccomp. test_seccomp_embedded compiles it again and
# compares. The generator runs here and compiles for the target
# (SECCOMP_TARGET: aarch64 in the cross build; none: this machine's).
SECCOMP_BUILD_OBJ := $(addprefix $(HOST_O)launcher/kernel/,seccomp_compile.o seccomp_rules.o)
$(HOST_O)launcher/kernel/seccomp_gen: launcher/kernel/seccomp_gen.c $(SECCOMP_BUILD_OBJ)
	@echo "  GEN     $@"
	@$(HOSTCC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(SECCOMP_BUILD_OBJ) -lseccomp

$(O)launcher/kernel/seccomp_filters.c: $(HOST_O)launcher/kernel/seccomp_gen
	@echo "  GEN     $@"
	@$(HOST_O)launcher/kernel/seccomp_gen $(SECCOMP_TARGET) > $@.tmp && mv $@.tmp $@

test-seccomp-obj-$(CONFIG_SECCOMP) := $(SECCOMP_BUILD_OBJ) -lseccomp
# test_seccomp_arm64 compiles them for aarch64 too, as the cross build does.
tests/unit/test_seccomp_embedded tests/unit/test_seccomp_arm64: tests/unit/%: tests/unit/%.c libsbx.a \
		$(SECCOMP_BUILD_OBJ)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< libsbx.a $(test-seccomp-obj-y) $(libs-y) -lcriterion

# The system call table is checked against libseccomp's own tables.
tests/unit/test_syscall_table: test-extra-libs := -lseccomp

tests/unit/%: tests/unit/%.c libsbx.a
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< libsbx.a $(libs-y) $(test-extra-libs) -lcriterion

tests/e2e/%: tests/e2e/%.c $(E2E_COMMON) libsbx.a
	$(CC) $(CPPFLAGS) -Itests/e2e $(CFLAGS) $(LDFLAGS) -o $@ $< $(E2E_COMMON) libsbx.a $(libs-y) -lcriterion
# the labelled corpora's tables and machinery are headers
tests/e2e/test_corpus_families tests/e2e/test_corpus_kinds: tests/e2e/corpus_run.h tests/e2e/corpus_families.h
tests/e2e/test_corpus_kinds: tests/e2e/corpus_kinds.h

# nofeature emulates an old kernel with sbx's own system call table.
SYSCALL_TABLE_OBJ := $(addprefix $(O)launcher/kernel/,syscall_table.o syscall_numbers.o)
NOFEATURE_OBJ := $(SYSCALL_TABLE_OBJ) $(addprefix $(O)launcher/kernel/,syscalls_as_of.o child_status.o)
$(O)tests/helpers/nofeature: tests/helpers/nofeature.c $(NOFEATURE_OBJ)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(NOFEATURE_OBJ) -lseccomp

$(O)tests/helpers/syscallprobe: tests/helpers/syscallprobe.c $(SYSCALL_TABLE_OBJ)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(SYSCALL_TABLE_OBJ)

tests/helpers/lingerpass tests/helpers/lingernproc tests/helpers/lingermany: tests/helpers/linger.h
$(O)tests/helpers/%: tests/helpers/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $<

# Build and run dependencies only (make demo); `make check` adds the test
# and benchmark tools.
deps-run:
	@scripts/deps.sh run

deps:
	@scripts/deps.sh all

unit: $(UNIT_BIN) $(HELPERS)
	@set -e; for t in $(UNIT_BIN); do echo "== $$t"; $$t --jobs 2; done

# The supervisor's tests that fill the user's share of fds in flight (and
# hold lingering sockets) make any other run of that user fail beside them
# (ETOOMANYREFS at the listener's hand-over): they run one at a time, after
# the rest of their suite (scripts/check-fast.sh does the same).
HUNGRY := *inflight*|*passed_fds*|*lingering*|*lockstep*|*waiting_sends*
e2e: sbx $(HELPERS) $(E2E_BIN)
	@set -e; for t in $(E2E_BIN); do echo "== $$t"; \
	  if [ $$t = tests/e2e/test_supervisor ]; then \
	    $$t --jobs 2 --filter 'supervisor/!($(HUNGRY))'; \
	    $$t --jobs 1 --filter 'supervisor/@($(HUNGRY))'; \
	  else $$t --jobs 2; fi; done

examples: all examples/embed $(HELPERS)
	SBX_REQUIRES_PRIVATE="$(pc-requires-y)" tests/e2e/test_examples.sh
	tests/e2e/test_deps.sh

# The C embedding example, built against the tree (test_examples.sh also
# builds it against an installed copy), so it cannot rot.
examples/embed: examples/embed.c libsbx.a
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< libsbx.a $(libs-y)

# Real MCP clients (the TypeScript SDK, the inspector's CLI), installed from
# the npm registry at the versions tests/mcp/package-lock.json pins.
mcp: sbx tests/helpers/nofeature
	tests/mcp/run.sh

# The real-work suite's fast subset (issue 19): everyday agent workflows run
# confined and unconfined and compared; the whole suite is scripts/realwork.sh.
check-realwork: sbx
	scripts/realwork.sh --fast

check-full: all unit e2e examples mcp check-realwork

check-minimal:
	scripts/check-minimal.sh

# The old-kernel matrix: the containment and run suites with the system
# calls of 4.19, 5.4, 5.10 and 5.15 (scripts/kernel-matrix.sh, ~1 min).
check-kernels: sbx $(HELPERS) tests/e2e/test_contain tests/e2e/test_run
	scripts/kernel-matrix.sh

# Real kernels: Debian 12's cloud kernel under qemu, in four configurations
# (scripts/vm-check.sh, 4-13 min under TCG here, by the load).
VM_TESTS := $(addprefix tests/e2e/,test_contain test_failclosed test_run test_escape test_view test_limits)
check-vm: sbx $(HELPERS) $(VM_TESTS)
	scripts/vm-check.sh

# Every program the suites run, built in parallel; the suites themselves run
# one after another (they share per-user kernel counters: processes, files
# in flight).
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
test-programs: all $(UNIT_BIN) $(E2E_BIN) $(HELPERS) examples/embed

# The inner loop: the tree's shape, every unit and every e2e suite that needs
# no VM, no kernel download and no network install, several suites at once
# (scripts/check-fast.sh; FAST_JOBS suites at once, 3 by default).
check-layers: all
	scripts/layers.py
	scripts/mutants/anchors.py

FAST_JOBS ?= 3
check-fast:
	$(MAKE) -j$(JOBS) test-programs
	scripts/check-fast.sh -j $(FAST_JOBS)

# The mutation suite: each scripts/mutants/*.mut breaks one security decision
# in a scratch copy; the suites it names must fail (scripts/mutants/run.sh,
# scripts/mutants/README.md). MUTANTS='ns-* keyring-*' runs some of them;
# SBX_MUTANTS_BASELINE=0 skips the clean run of each suite (after make check).
check-mutants: test-programs
	scripts/mutants/run.sh $(MUTANTS)

# arm64 (issue 33): the cross build (make ARCH=arm64) on Debian 12's arm64
# cloud kernel under qemu-system-aarch64, in two boots, as root and as nobody
# (scripts/arm64-check.sh; its packages: scripts/deps.sh arm64).
ARM64_HELPERS := $(addprefix build/arm64/tests/helpers/,sidedoor sockserver syscallprobe inodeioctl)
check-arm64:
	scripts/deps.sh arm64
	$(MAKE) ARCH=arm64 -j$(JOBS) all $(ARM64_HELPERS)
	scripts/arm64-check.sh

check: deps
	$(MAKE) -j$(JOBS) test-programs
	$(MAKE) check-layers
	$(MAKE) check-full
	$(MAKE) check-minimal
	$(MAKE) check-kernels
	$(MAKE) check-vm
	$(MAKE) check-arm64
	$(MAKE) check-mutants

demo: deps-run
	$(MAKE) -j$(JOBS) all
	scripts/demo.sh

install: all
	SBX_REQUIRES_PRIVATE="$(pc-requires-y)" LIBDIR="$(LIBDIR)" scripts/install.sh "$(DESTDIR)" "$(PREFIX)"

# The GNU convention: the same files, the programs and libraries stripped
# (sbx of its symbols, libsbx.so of what dynamic linking does not need,
# libsbx.a of its debug information).
STRIP ?= strip
install-strip: all
	SBX_STRIP="$(STRIP)" SBX_REQUIRES_PRIVATE="$(pc-requires-y)" LIBDIR="$(LIBDIR)" \
		scripts/install.sh "$(DESTDIR)" "$(PREFIX)"

fuzz:
	scripts/fuzz.sh

clean:
	rm -f sbx libsbx.a libsbx.so libsbx.so.* $(obj-y) $(CLI_OBJ) $(UNIT_BIN) $(E2E_BIN) $(E2E_COMMON) $(HELPERS) examples/embed \
		launcher/*/*.o policy/*.o classify/*.o tests/*/*.o \
		launcher/kernel/seccomp_gen launcher/kernel/seccomp_filters.c \
		launcher/kernel/syscall_table_gen launcher/kernel/syscall_numbers.c
	rm -rf build/arm64
