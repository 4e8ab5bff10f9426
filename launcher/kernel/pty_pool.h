/* SPDX-License-Identifier: MIT */
/* A pool of new ptys for one landlock run: made by sbx before the command's
 * Landlock domain exists, so the ruleset can grant exactly their slaves
 * (runners/runner_landlock.c); handed to the command one by one by the
 * supervisor, in place of a pty the command made itself, when it asks for
 * its number (engine/supervisor_ptypool.c). The pool also remembers which
 * of the command's ptys must never be swapped: those it already holds from
 * the pool, and those whose slave the supervisor opened (TIOCGPTPEER).
 * Shared by the engine's thread and the supervisor's: every call locks. */
#ifndef SBX_PTY_POOL_H
#define SBX_PTY_POOL_H

#include <stdbool.h>
#include <stddef.h>

/* Why 4: every new pty a run makes while the pool lasts takes one (glibc's
 * openpty asks TIOCGPTN before anything else), and each costs ~25 us at
 * launch; expect's spawn takes one, script or python's pty one each. */
#define PTY_POOL_SIZE 4
#define PTY_POOL_MAX 8

struct pty_pool;

/* Parent, before the spawn: up to n (<= PTY_POOL_MAX) new ptys, locked.
 * NULL when none could be made (no /dev/ptmx, no TIOCGPTPEER before Linux
 * 4.13, the pty limit): the run simply has no pool. */
struct pty_pool *pty_pool_new(size_t n);
size_t pty_pool_size(const struct pty_pool *p);
/* An O_PATH handle on entry i's slave (for its Landlock rule). */
int pty_pool_slave(const struct pty_pool *p, size_t i);

void pty_pool_ref(struct pty_pool *p);
/* The last reference closes everything. NULL is fine. */
void pty_pool_unref(struct pty_pool *p);

/* Supervisor. A master of the pool, now the caller's to hand over (it
 * counts as handed out from here on), or -1: the pool is empty or closed. */
int pty_pool_take(struct pty_pool *p);
/* Whether the pty of master (any pty master) must keep its place: it came
 * from the pool, or its slave was opened through it (pty_pool_note_peer),
 * or we cannot tell. */
bool pty_pool_keeps(struct pty_pool *p, int master);
/* The supervisor opened the slave of master's pty for the command. */
void pty_pool_note_peer(struct pty_pool *p, int master);

/* The run is over: no more takes; the masters still in the pool are closed
 * (their ptys end, and with them whatever rule names their slaves). Whether
 * any was handed out. */
bool pty_pool_close(struct pty_pool *p);

#endif
