/* SPDX-License-Identifier: MIT */
/* Answers of `sbx serve` go out through a queue drained by a writer thread:
 * a client that is slow to read blocks only that thread, never the event loop
 * (timeouts, pipe draining and kills go on). */
#ifndef SBX_SERVE_OUT_H
#define SBX_SERVE_OUT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

struct out_line;

struct serve_out {
	int fd;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct out_line *head, *tail;
	bool closing;
	int error;          /* first write error (errno): nothing more is written */
	bool started;
};

int serve_out_start(struct serve_out *o, int fd);
/* Queue one line (the text without '\n'; copied). */
void serve_out_push(struct serve_out *o, const char *text, size_t len);
/* The writer's first error, or 0. */
int serve_out_error(struct serve_out *o);
/* Write out what is queued, then stop the writer. */
void serve_out_finish(struct serve_out *o);

#endif
