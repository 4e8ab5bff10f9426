/* SPDX-License-Identifier: MIT */
/* The evidence ring: stderr is fed chunk by chunk as it flows, split into
 * lines, and only lines that speak a watched dialect are kept (the newest
 * EVIDENCE_LINES of them). Memory is the struct, whatever the stream does. */
#include <stdint.h>
#include <string.h>

#include "classify.h"

void evidence_init(struct evidence *ev, unsigned dialects)
{
	memset(ev, 0, sizeof(*ev));
	ev->dialects = dialects;
}

/* The stored copy is a C string: a NUL byte inside the line would hide the
 * rest of it from anyone reading ev->ring[i].line, so it is shown as '?'. */
static void copy_line(char *dst, const char *src, size_t len)
{
	for (size_t i = 0; i < len; i++)
		dst[i] = src[i] ? src[i] : '?';
	dst[len] = '\0';
}

/* A cheap first look before the real matchers: every dialect phrase holds
 * "-onl" (read-only), "perm" (permission denied, not permitted) or "-dev"
 * (cross-device), in any case. One pass with a rolling 4-byte window keeps
 * the cost per MiB of ordinary stderr near a memcpy's. */
static bool may_speak_a_dialect(const char *s, size_t len)
{
	uint32_t window = 0;

	for (size_t i = 0; i < len; i++) {
		/* | 0x20 lower-cases ASCII letters and leaves '-' as it is. */
		window = (window << 8) | (uint32_t)((unsigned char)s[i] | 0x20);
		if (window == 0x2d6f6e6cu /* "-onl" */ || window == 0x7065726du /* "perm" */ ||
		    window == 0x2d646576u /* "-dev" */)
			return true;
	}
	return false;
}

static void end_line(struct evidence *ev)
{
	struct evidence_line *slot;
	char path[EVIDENCE_LINE_MAX];
	size_t len = ev->partial_len;
	unsigned d;

	/* why: a line cut to fit has lost its end, which is where an error
	 * line's shape (": <phrase>", the path) lives; judging the kept start
	 * could name the wrong path, so a cut line is never evidence. */
	if (ev->partial_cut)
		goto reset;
	/* CRLF output (e.g. from a tool run under a pty or on Windows) reads
	 * the same as LF. */
	if (len > 0 && ev->partial[len - 1] == '\r')
		len--;
	if (!may_speak_a_dialect(ev->partial, len))
		goto reset;
	d = dialect_match_line(ev->partial, len, ev->dialects, path, sizeof(path));
	if (!d)
		goto reset;
	slot = &ev->ring[ev->next];
	slot->dialect = d;
	memcpy(slot->path, path, strlen(path) + 1);
	copy_line(slot->line, ev->partial, len);
	ev->next = (ev->next + 1) % EVIDENCE_LINES;
	if (ev->count < EVIDENCE_LINES)
		ev->count++;
reset:
	ev->partial_len = 0;
	ev->partial_cut = false;
	ev->partial[0] = '\0';
}

/* Keep the start of the current line, at most EVIDENCE_LINE_MAX - 1 bytes. */
static void append_partial(struct evidence *ev, const char *buf, size_t len)
{
	size_t room = EVIDENCE_LINE_MAX - 1 - ev->partial_len;

	if (len > room) {
		len = room;
		ev->partial_cut = true;
	}
	memcpy(ev->partial + ev->partial_len, buf, len);
	ev->partial_len += len;
	ev->partial[ev->partial_len] = '\0';
}

void evidence_feed(struct evidence *ev, const char *buf, size_t len)
{
	/* No runner, no dialect to listen for (danger-full-access). */
	if (ev->dialects == 0)
		return;
	while (len > 0) {
		const char *nl = memchr(buf, '\n', len);
		size_t n = nl ? (size_t)(nl - buf) : len;

		append_partial(ev, buf, n);
		if (!nl)
			return;
		end_line(ev);
		buf += n + 1;
		len -= n + 1;
	}
}

void evidence_finish(struct evidence *ev)
{
	if (ev->partial_len > 0 || ev->partial_cut)
		end_line(ev);
}
