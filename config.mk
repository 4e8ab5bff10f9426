# SPDX-License-Identifier: MIT
# sbx build configuration: one CONFIG_X=y|n line per feature.
# Override on the command line, e.g. `make CONFIG_IO_URING=n`.
CONFIG_IO_URING ?= y
CONFIG_RUNNER_NAMESPACE ?= y
CONFIG_RUNNER_LANDLOCK ?= y
CONFIG_SECCOMP ?= y
CONFIG_NETNS ?= y
CONFIG_SUPERVISOR ?= y
# One static-pie binary (needs libmnl.a with CONFIG_NETNS: scripts/deps.sh).
CONFIG_STATIC ?= y
