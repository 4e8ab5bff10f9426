/* SPDX-License-Identifier: MIT */
/* See run_named.h. Nothing is kept or asked until the supervisor noted a
 * refusal, so most runs pay one atomic load per chunk. */
#include <string.h>

#include "run.h"
#include "run_named.h"
#include "run_supervise.h"

static void ask(struct run_state *r, int s)
{
	struct run_named *nm = &r->named;
	char *line = nm->buf[s] + nm->prev[s] + 1;

	/* with the line before it, after a '\n' (none: the line alone) */
	if (nm->len[s] && (nm->prev[s] ? run_supervise_refusal_named(r, nm->buf[s], nm->prev[s] + 1 + nm->len[s])
				       : run_supervise_refusal_named(r, line, nm->len[s])))
		nm->seen = true;
	memmove(nm->buf[s], line, nm->len[s]);
	nm->prev[s] = nm->len[s];
	nm->buf[s][nm->prev[s]] = '\n';
	nm->len[s] = 0;
}

void run_named_feed(struct run_state *r, bool is_err, const char *buf, size_t n)
{
	struct run_named *nm = &r->named;
	int s = is_err ? 1 : 0;

	if (nm->seen || !run_supervise_noted_any(r))
		return;
	while (n > 0) {
		const char *nl = memchr(buf, '\n', n);
		size_t take = nl ? (size_t)(nl - buf) : n;
		size_t room = RUN_NAMED_LINE_MAX - nm->len[s];

		/* A longer line keeps its start: where a message puts the
		 * file it failed on. */
		if (take > room)
			take = room;
		memcpy(nm->buf[s] + nm->prev[s] + 1 + nm->len[s], buf, take);
		nm->len[s] += take;
		if (!nl)
			return;
		ask(r, s);
		if (nm->seen)
			return;
		n -= (size_t)(nl - buf) + 1;
		buf = nl + 1;
	}
}

void run_named_finish(struct run_state *r)
{
	for (int s = 0; s < 2 && !r->named.seen; s++)
		ask(r, s);
}
