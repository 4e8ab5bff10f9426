/* SPDX-License-Identifier: MIT */
/* Background tasks of `sbx serve`: a name, a status, and, once settled, the
 * result. At most max_background run at once; a settled task frees its place. */
#ifndef SBX_SERVE_TASKS_H
#define SBX_SERVE_TASKS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct run_state;

enum task_status { TASK_RUNNING, TASK_EXITED, TASK_KILLED, TASK_RUNNER_FAILED };

struct serve_task {
	char name[24];
	enum task_status status;
	struct run_state *run;      /* while running */
	json_t *result;             /* once settled */
	bool kill_requested;
	json_t *kill_waiters;       /* ids answered when it settles */
	struct serve_task *next;
};

struct task_table {
	struct serve_task *head;
	size_t n_settled;
	unsigned running;
	unsigned next_id;
};

struct serve_task *task_new(struct task_table *t);
struct serve_task *task_find(struct task_table *t, const char *name);
/* Settle: store the result, free the place, forget the oldest settled tasks
 * past a bound so memory stays bounded in a long-lived server. */
void task_settle(struct task_table *t, struct serve_task *task, enum task_status status,
		 json_t *result);
const char *task_status_name(enum task_status status);
void task_table_free(struct task_table *t);

#endif
