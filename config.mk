# SPDX-License-Identifier: MIT
# sbx build configuration: one CONFIG_X=y|n line per feature.
# Override on the command line, e.g. `make CONFIG_IO_URING=n`.
CONFIG_IO_URING ?= y
CONFIG_RUNNER_NAMESPACE ?= y
CONFIG_RUNNER_LANDLOCK ?= y
CONFIG_SECCOMP ?= y
CONFIG_NETNS ?= y
CONFIG_SUPERVISOR ?= y
# One static-pie binary (CONFIG_NETNS: netlink through deps/ libmnl.a when
# scripts/deps.sh could build it, else lo is brought up with an ioctl).
CONFIG_STATIC ?= y
