/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve_tasks.h"

/* Settled tasks kept for task_output; older ones are forgotten. */
#define TASKS_KEPT_SETTLED 256

struct serve_task *task_new(struct task_table *t)
{
	struct serve_task *task = calloc(1, sizeof(*task));

	if (!task)
		return NULL;
	snprintf(task->name, sizeof(task->name), "t%u", ++t->next_id);
	task->status = TASK_RUNNING;
	task->kill_waiters = json_array();
	task->next = t->head;
	t->head = task;
	t->running++;
	return task;
}

struct serve_task *task_find(struct task_table *t, const char *name)
{
	for (struct serve_task *task = t->head; task; task = task->next)
		if (strcmp(task->name, name) == 0)
			return task;
	return NULL;
}

static void task_free(struct serve_task *task)
{
	json_decref(task->result);
	json_decref(task->kill_waiters);
	free(task);
}

static void forget_oldest_settled(struct task_table *t)
{
	struct serve_task **oldest = NULL;

	/* The list is newest first: the last settled one is the oldest. */
	for (struct serve_task **p = &t->head; *p; p = &(*p)->next)
		if ((*p)->status != TASK_RUNNING)
			oldest = p;
	if (oldest) {
		struct serve_task *gone = *oldest;

		*oldest = gone->next;
		task_free(gone);
		t->n_settled--;
	}
}

void task_settle(struct task_table *t, struct serve_task *task, enum task_status status,
		 json_t *result)
{
	if (task->status == TASK_RUNNING)
		t->running--;
	task->status = status;
	task->run = NULL;
	json_decref(task->result);
	task->result = result;
	t->n_settled++;
	while (t->n_settled > TASKS_KEPT_SETTLED)
		forget_oldest_settled(t);
}

const char *task_status_name(enum task_status status)
{
	switch (status) {
	case TASK_RUNNING: return "running";
	case TASK_EXITED: return "exited";
	case TASK_KILLED: return "killed";
	case TASK_RUNNER_FAILED: return "runner_failed";
	}
	return "unknown";
}

void task_table_free(struct task_table *t)
{
	while (t->head) {
		struct serve_task *next = t->head->next;

		task_free(t->head);
		t->head = next;
	}
}
