/* SPDX-License-Identifier: MIT */
/* Every line of a run's output, as it streams, asked whether it names a
 * soft refusal the supervisor noted (a mkdir, a watch): the result keeps
 * only a bounded head and tail, and a failure's error line may be in
 * neither. */
#ifndef SBX_RUN_NAMED_H
#define SBX_RUN_NAMED_H

#include <stdbool.h>
#include <stddef.h>

#define RUN_NAMED_LINE_MAX 4096

struct run_state;

struct run_named {
	char line[2][RUN_NAMED_LINE_MAX]; /* the line so far, per stream */
	size_t len[2];
	bool seen;                        /* a line named one */
};

void run_named_feed(struct run_state *r, bool is_err, const char *buf, size_t n);
/* Both streams ended: their last lines without '\n' too. */
void run_named_finish(struct run_state *r);

#endif
