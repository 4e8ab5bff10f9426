/* SPDX-License-Identifier: MIT */
/* The evidence ring: stdout and stderr are fed chunk by chunk as they flow,
 * split into lines where they lie (a line is copied only when a chunk ends
 * inside it), and only lines that speak a watched dialect are kept (the
 * newest EVIDENCE_LINES of them). Memory is the struct, whatever the
 * streams do. Per line, a cheap first look decides whether the matchers
 * need to see it at all; the copy they see has terminal escapes removed,
 * and each double-quoted string in it is also seen unescaped on its own. */
#include <string.h>

#include "dialect_int.h"

#define ESC 0x1b
/* How many lines after an "error: ... /p" line a bare cause line ("Caused
 * by:" / "    Read-only file system (os error 30)") still belongs to it. */
#define CONTEXT_LINES 4
/* How many lines after a message that named no file may name it alone. */
#define PENDING_LINES 3

void evidence_init(struct evidence *ev, unsigned dialects, const struct dialect_texts *local)
{
	memset(ev, 0, sizeof(*ev));
	ev->dialects = dialects;
	if (local) {
		ev->local = *local;
		for (size_t i = 0; i < DIALECT_KINDS; i++)
			ev->local.text[i][DIALECT_TEXT_MAX - 1] = '\0';
	}
	first_look_init(ev);
}

/* The stored copy is a C string: a NUL byte inside the line would hide the
 * rest of it from anyone reading ev->ring[i].line, so it is shown as '?'. */
static void copy_line(char *dst, const char *src, size_t len)
{
	for (size_t i = 0; i < len; i++)
		dst[i] = src[i] ? src[i] : '?';
	dst[len] = '\0';
}

static void keep(struct evidence *ev, enum evidence_stream s, unsigned d, const char *path,
		 const char *line, size_t len)
{
	struct evidence_line *slot = &ev->ring[ev->next];

	slot->dialect = d;
	slot->stream = s;
	memcpy(slot->path, path, strlen(path) + 1);
	copy_line(slot->line, line, len < EVIDENCE_LINE_MAX ? len : EVIDENCE_LINE_MAX - 1);
	ev->next = (ev->next + 1) % EVIDENCE_LINES;
	if (ev->count < EVIDENCE_LINES)
		ev->count++;
}

/* A word of failure in English on the line (unzip's "checkdir error:
 * cannot create sub"): only then is an English "<words> <name>" read as
 * naming a file for the message on the line after it. */
static bool english_failure(const char *s, size_t len)
{
	static const char *const words[] = { "error", "cannot", "can't", "unable", "failed", "fatal" };

	for (size_t i = 0; i < len; i++)
		for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++) {
			size_t n = strlen(words[w]);

			if ((s[i] | 0x20) == words[w][0] && len - i >= n && ascii_ieq(s + i, words[w], n))
				return true;
		}
	return false;
}

/* The file the line before names, for a message on this line that names
 * none: the message alone (unzip: "checkdir:  cannot create /p/d", then
 * "    Read-only file system"), or a translation with a line break in it
 * (mv in Spanish: "... a '/p/x';" then "no se puede borrar el objetivo:
 * ..."). Only a quoted path or a word that starts like one; English words
 * ("cannot create sub") only on a line that says it failed. */
static bool path_from_line_before(const struct evidence_lane *lane, bool english, char *path,
				  size_t path_size)
{
	if (lane->prev_len == 0)
		return false;
	if (dialect_context_path(lane->prev_at, lane->prev_len, path, path_size))
		return true;
	return english && english_failure(lane->prev_at, lane->prev_len) &&
	       dialect_extract_path(lane->prev_at, lane->prev_len, false, path, path_size);
}

/* Match one line (or one line of an unescaped string); keep it if it is
 * evidence. A message that names no file takes the file of the line
 * before, or of the error line above it (a chain's cause), or waits for
 * the lines after it. */
static bool match_and_keep(struct evidence *ev, enum evidence_stream s, const char *line,
			   size_t len, bool may_be_bare)
{
	struct evidence_lane *lane = &ev->lane[s];
	char path[EVIDENCE_LINE_MAX];
	unsigned d = dialect_match(line, len, ev->dialects, &ev->local, path, sizeof(path));
	unsigned how = d & (DIALECT_MATCH_BARE | DIALECT_MATCH_NOPATH | DIALECT_MATCH_LOCAL);

	d &= ~how;
	if (!d)
		return false;
	if (how & (DIALECT_MATCH_BARE | DIALECT_MATCH_NOPATH)) {
		/* why: a message that names no file cannot be checked from
		 * outside; "Keine Berechtigung" alone, or a Rust tool's "Os {
		 * code: 13 }" about /etc, is no sandbox fact by itself. Only
		 * the lines around it may name the file. */
		if (!may_be_bare)
			return false;
		bool bare = how & DIALECT_MATCH_BARE;
		bool found = path_from_line_before(lane, bare && !(how & DIALECT_MATCH_LOCAL), path,
						   sizeof(path));

		if (!found && bare)
			found = lane->context_len > 0 && lane->context_age <= CONTEXT_LINES &&
				dialect_context_path(lane->context, lane->context_len, path, sizeof(path));
		if (!found) {
			lane->pending = d;
			lane->pending_age = 0;
			return false;
		}
	}
	keep(ev, s, d, path, line, len);
	return true;
}

/* The file alone on a line after a message that named none: a path (CMake
 * indents it under "... (Read-only file system):"), or one in parentheses
 * ending the line (zip: "zip error: Could not create output file (/p/x)"). */
static bool path_line(const char *t, size_t len, char *path, size_t path_size)
{
	size_t a = 0;

	while (a < len && (t[a] == ' ' || t[a] == '\t'))
		a++;
	while (len > a && (t[len - 1] == ' ' || t[len - 1] == '.'))
		len--;
	if (len > a && (t[a] == '/' || (len - a > 2 && t[a] == '.' && t[a + 1] == '/')) &&
	    !memmem(t + a, len - a, ": ", 2))
		return path_set(t + a, len - a, path, path_size);
	if (len > a + 2 && t[len - 1] == ')') {
		const char *open = memrchr(t + a, '(', len - a);

		if (open && open[1] == '/' && open > t + a && open[-1] == ' ')
			return path_set(open + 1, (size_t)(t + len - 1 - open - 1), path, path_size);
	}
	return false;
}

static void follow_pending(struct evidence *ev, enum evidence_stream s, const char *t, size_t len)
{
	struct evidence_lane *lane = &ev->lane[s];
	char path[EVIDENCE_LINE_MAX];
	size_t a = 0;

	while (a < len && (t[a] == ' ' || t[a] == '\t'))
		a++;
	if (a == len)
		return; /* blank lines between them (CMake) */
	if (path_line(t, len, path, sizeof(path)) && (lane->pending & ev->dialects))
		keep(ev, s, lane->pending, path, t, len);
	else if (++lane->pending_age < PENDING_LINES)
		return;
	lane->pending = 0;
}

/* The line just judged, for the one after it: where it lies while the
 * chunk is read, else copied (an escape-free copy or the partial line are
 * overwritten by the next one). */
static void remember(struct evidence *ev, struct evidence_lane *lane, const char *t, size_t len)
{
	size_t a = 0;

	while (a < len && (t[a] == ' ' || t[a] == '\t'))
		a++;
	if (a == len || len >= EVIDENCE_LINE_MAX) {
		lane->prev_len = 0;
		return;
	}
	if (t >= ev->chunk && t < ev->chunk + ev->chunk_len) {
		lane->prev_at = t;
	} else {
		memcpy(lane->prev, t, len);
		lane->prev_at = lane->prev;
	}
	lane->prev_len = len;
}

/* The chunk ends: the line before moves out of it. */
static void keep_prev(struct evidence *ev, struct evidence_lane *lane)
{
	if (lane->prev_len > 0 && lane->prev_at >= ev->chunk &&
	    lane->prev_at < ev->chunk + ev->chunk_len) {
		memmove(lane->prev, lane->prev_at, lane->prev_len);
		lane->prev_at = lane->prev;
	}
	ev->chunk = NULL;
	ev->chunk_len = 0;
}

/* Each double-quoted string of the line, its escapes undone, line by line:
 * structured logs and test reports quote the error message. */
static void match_strings(struct evidence *ev, enum evidence_stream s, const char *t, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		size_t j, n;

		if (t[i] != '"')
			continue;
		for (j = i + 1; j < len && t[j] != '"'; j++)
			if (t[j] == '\\')
				j++;
		if (j >= len)
			return;
		n = text_json_unescape(t + i + 1, j - i - 1, ev->piece, sizeof(ev->piece));
		for (size_t a = 0; a < n;) {
			const char *nl = memchr(ev->piece + a, '\n', n - a);
			size_t b = nl ? (size_t)(nl - ev->piece) : n;

			if (first_look(ev, ev->piece + a, b - a))
				match_and_keep(ev, s, ev->piece + a, b - a, false);
			a = b + 1;
		}
		i = j;
	}
}

static void npm_close(struct evidence *ev, enum evidence_stream s)
{
	struct evidence_lane *lane = &ev->lane[s];
	const char *path = lane->npm_dest[0] ? lane->npm_dest : lane->npm_path;

	if (lane->npm_open && (lane->npm_dialect & ev->dialects) && path[0])
		keep(ev, s, lane->npm_dialect, path, path, strlen(path));
	lane->npm_open = false;
	lane->npm_dialect = 0;
	lane->npm_path[0] = lane->npm_dest[0] = '\0';
}

static bool starts(const char *s, size_t len, const char *lit)
{
	size_t n = strlen(lit);

	return len >= n && memcmp(s, lit, n) == 0;
}

static void copy_field(char *dst, const char *src, size_t n)
{
	if (n >= EVIDENCE_LINE_MAX || memchr(src, '\0', n))
		n = 0; /* a path that cannot be stored whole is no path */
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* npm's error block names the errno on one line and the file on others:
 * "npm error code EROFS", "npm error syscall open", "npm error path /p",
 * ("npm error dest /q" for a link or rename), "npm error errno -30". */
static void npm_line(struct evidence *ev, enum evidence_stream s, const char *t, size_t n)
{
	struct evidence_lane *lane = &ev->lane[s];

	if (starts(t, n, "npm ERR! "))
		t += 9, n -= 9;
	else if (starts(t, n, "npm error "))
		t += 10, n -= 10;
	else {
		npm_close(ev, s);
		return;
	}
	if (starts(t, n, "code ")) {
		npm_close(ev, s);
		lane->npm_open = true;
		lane->npm_dialect = dialect_of_errno_name(t + 5, n - 5);
	} else if (!lane->npm_open) {
		return;
	} else if (starts(t, n, "errno ") && n > 6) {
		long v = 0;
		size_t i = 6 + (t[6] == '-');

		for (; i < n && t[i] >= '0' && t[i] <= '9' && v < 100000; i++)
			v = v * 10 + (t[i] - '0');
		if (i == n && !lane->npm_dialect)
			lane->npm_dialect = dialect_of_errno(v);
	} else if (starts(t, n, "path ")) {
		copy_field(lane->npm_path, t + 5, n - 5);
	} else if (starts(t, n, "dest ")) {
		copy_field(lane->npm_dest, t + 5, n - 5);
	}
}

static bool error_lead(const char *t, size_t n)
{
	static const char *const leads[] = { "error", "Error", "ERROR", "fatal", "Fatal", "FATAL" };

	if (n <= 5 || (t[0] != 'e' && t[0] != 'E' && t[0] != 'f' && t[0] != 'F'))
		return false;
	if (t[5] != ':' && t[5] != '[' && t[5] != ' ')
		return false;
	for (size_t i = 0; i < sizeof(leads) / sizeof(leads[0]); i++)
		if (memcmp(t, leads[i], 5) == 0)
			return true;
	return false;
}

/* A JSON "\uXXXX" escape (a translated message json.dumps made ASCII). */
static bool has_u_escape(const char *t, size_t len)
{
	for (const char *p = t; (p = memchr(p, '\\', (size_t)(t + len - p))) != NULL; p++)
		if (p + 1 < t + len && p[1] == 'u')
			return true;
	return false;
}

static void judge(struct evidence *ev, enum evidence_stream s, const char *t, size_t len,
		  bool maybe_escapes)
{
	struct evidence_lane *lane = &ev->lane[s];
	size_t lead = 0;

	/* CRLF output (e.g. from a tool run under a pty or on Windows) reads
	 * the same as LF. */
	if (len > 0 && t[len - 1] == '\r')
		len--;
	if (maybe_escapes && memchr(t, ESC, len)) {
		len = text_strip_escapes(t, len, ev->scratch, sizeof(ev->scratch));
		t = ev->scratch;
	}
	while (lead < len && (t[lead] == ' ' || t[lead] == '\t'))
		lead++;
	if (lead < len && t[lead] == 'n' && starts(t + lead, len - lead, "npm "))
		npm_line(ev, s, t + lead, len - lead);
	else if (lane->npm_open)
		npm_close(ev, s);
	lane->context_age++;
	/* kept as it is: its path is read only if a bare cause follows */
	if (error_lead(t + lead, len - lead)) {
		memcpy(lane->context, t + lead, len - lead);
		lane->context_len = len - lead;
		lane->context_age = 0;
	}
	if (lane->pending)
		follow_pending(ev, s, t, len);
	bool json_escapes = lead < len && (t[lead] == '{' || t[lead] == '[') && has_u_escape(t, len);
	if ((json_escapes || first_look(ev, t, len)) && !match_and_keep(ev, s, t, len, true) &&
	    memchr(t, '"', len))
		match_strings(ev, s, t, len);
	remember(ev, lane, t, len);
}

/* why: a line cut to fit has lost its end, which is where an error line's
 * shape (": <phrase>", the path) lives; judging the kept start could name
 * the wrong path, so a cut line is never evidence. It still ends a block. */
static void judge_cut(struct evidence *ev, enum evidence_stream s)
{
	if (ev->lane[s].npm_open)
		npm_close(ev, s);
	ev->lane[s].context_age++;
	ev->lane[s].prev_len = 0;
	if (ev->lane[s].pending && ++ev->lane[s].pending_age >= PENDING_LINES)
		ev->lane[s].pending = 0;
}

static void end_partial(struct evidence *ev, enum evidence_stream s)
{
	struct evidence_lane *lane = &ev->lane[s];

	if (lane->partial_cut)
		judge_cut(ev, s);
	else
		judge(ev, s, lane->partial, lane->partial_len, true);
	lane->partial_len = 0;
	lane->partial_cut = false;
	lane->partial[0] = '\0';
}

/* Keep the start of the current line, at most EVIDENCE_LINE_MAX - 1 bytes. */
static void append_partial(struct evidence_lane *lane, const char *buf, size_t len)
{
	size_t room = EVIDENCE_LINE_MAX - 1 - lane->partial_len;

	if (len > room) {
		len = room;
		lane->partial_cut = true;
	}
	memcpy(lane->partial + lane->partial_len, buf, len);
	lane->partial_len += len;
	lane->partial[lane->partial_len] = '\0';
}

void evidence_feed(struct evidence *ev, enum evidence_stream s, const char *buf, size_t len)
{
	struct evidence_lane *lane;
	bool escapes;

	/* No runner, no dialect to listen for (danger-full-access). */
	if (ev->dialects == 0 || (unsigned)s >= EVIDENCE_STREAMS || len == 0)
		return;
	lane = &ev->lane[s];
	escapes = memchr(buf, ESC, len) != NULL;
	ev->chunk = buf;
	ev->chunk_len = len;
	while (len > 0) {
		const char *nl = memchr(buf, '\n', len);
		size_t n = nl ? (size_t)(nl - buf) : len;

		if (!nl || lane->partial_len > 0 || lane->partial_cut) {
			append_partial(lane, buf, n);
			if (!nl)
				break;
			end_partial(ev, s);
		} else if (n > EVIDENCE_LINE_MAX - 1) {
			judge_cut(ev, s);
		} else {
			/* the whole line lies in this chunk: judged where it is */
			judge(ev, s, buf, n, escapes);
		}
		buf += n + 1;
		len -= n + 1;
	}
	keep_prev(ev, lane);
}

void evidence_finish(struct evidence *ev)
{
	for (unsigned s = 0; s < EVIDENCE_STREAMS; s++) {
		if (ev->lane[s].partial_len > 0 || ev->lane[s].partial_cut)
			end_partial(ev, (enum evidence_stream)s);
		npm_close(ev, (enum evidence_stream)s);
	}
}
