/* SPDX-License-Identifier: MIT */
/* A run's supervisor (run_supervise.c): prepared with the spec, attached
 * after spawn, ended with the run. */
#ifndef SBX_RUN_SUPERVISE_H
#define SBX_RUN_SUPERVISE_H

#include <stdbool.h>
#include <stddef.h>

struct run_state;
struct sbx_run;
struct spawn_outcome;

/* Before spawn: the filters and the handoff socket into r->spec, where this
 * kernel can supervise. */
void run_supervise_prepare(struct run_state *r);
/* spawn_child; where the kernel scopes abstract unix sockets (ABI 6+) and
 * the run is supervised, on the run's scope thread (kernel/scope_thread.h),
 * made for the runner about to spawn. */
int run_supervise_spawn(struct run_state *r, int clone_flags, struct spawn_outcome *o);
/* The run's first processes are listed live (run.c): its scope thread's
 * children are walked as any thread's from now on. */
void run_supervise_spawned(struct run_state *r);
/* After a successful spawn: take the listener and start answering. */
void run_supervise_attach(struct run_state *r, const struct sbx_run *cfg);
/* Calls the policy refused by seccomp so far (0 unsupervised). */
unsigned run_supervise_refusals(const struct run_state *r);
/* The run's output names the path of a soft refusal (a mkdir, a watch). */
bool run_supervise_refusal_named(const struct run_state *r, const char *text, size_t len);
/* The run's command line names the path of a soft refusal and its output
 * says something is read-only (a read-write open refused). */
bool run_supervise_refusal_commanded(const struct run_state *r, const char *text, size_t len);
/* Whether any soft refusal was noted yet. */
bool run_supervise_noted_any(const struct run_state *r);
/* Takes the time the run began (r->began): just before its spawn. */
void run_supervise_began(struct run_state *r);
/* The run is over (or failed): stop, release. */
void run_supervise_end(struct run_state *r);

#endif
