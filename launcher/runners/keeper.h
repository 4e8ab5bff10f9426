/* SPDX-License-Identifier: MIT */
/* A run's keeper, where no PID namespace holds the run (keeper.c). Its life
 * is init's (pidns_init.c); these are the parts that differ. */
#ifndef SBX_KEEPER_H
#define SBX_KEEPER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Whether pid is the keeper's one child (read from /proc; false if /proc
 * cannot say). */
bool keeper_only_child_is(pid_t pid);
/* Kill every process below the keeper, with its process group, round after
 * round, and reap them, until none is left or a bound passes. deadman (0:
 * none) is the landlock runner's dead-man helper, given a moment to act
 * first. sigfd: a signalfd for SIGCHLD, to wait on between rounds. */
void keeper_end(pid_t deadman, int sigfd);
/* The capabilities the keeper keeps: CAP_KILL where it holds it. */
int keeper_caps_to_keep(uint64_t *keep);

#endif
