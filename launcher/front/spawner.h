/* SPDX-License-Identifier: MIT */
/* serve's spawner: one thread that starts runs (run_spawn: the runner's
 * setup, the clone, the child building its sandbox until bash execs) while
 * the loop keeps serving; each finished start comes back through an eventfd
 * the loop watches. One thread, so no two spawns ever race each other. */
#ifndef SBX_SPAWNER_H
#define SBX_SPAWNER_H

#include <stdbool.h>

#include "sbx.h"

struct run_state;
struct sbx_run;

struct spawn_req {
	struct sbx_run *cfg;       /* owned by the request */
	struct run_state *run;     /* the outcome: NULL on failure (err) */
	struct sbx_error err;
	void *ctx;                 /* the caller's (the job) */
	struct spawn_req *next;
};

struct spawner;

/* Start the thread; *done_fd: readable when spawn_take has outcomes. NULL
 * with errno on failure. */
struct spawner *spawner_start(int *done_fd);
/* Queue a request (ownership passes). */
void spawner_push(struct spawner *sp, struct spawn_req *req);
/* The finished requests, oldest first (caller frees them). */
struct spawn_req *spawner_take(struct spawner *sp);
/* Finish the queue, stop the thread, free; what is left is returned as by
 * spawner_take. */
struct spawn_req *spawner_stop(struct spawner *sp);

#endif
