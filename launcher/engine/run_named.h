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
	/* per stream: the line before (prev bytes), '\n', the line so far
	 * (len bytes): a file is named on a line of its own below an error
	 * line ending in ':' (CMake) */
	char buf[2][2 * RUN_NAMED_LINE_MAX + 1];
	size_t prev[2], len[2];
	bool seen;                        /* a line named one */
};

void run_named_feed(struct run_state *r, bool is_err, const char *buf, size_t n);
/* Both streams ended: their last lines without '\n' too. */
void run_named_finish(struct run_state *r);

#endif
