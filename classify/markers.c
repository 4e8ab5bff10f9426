/* SPDX-License-Identifier: MIT */
/* The markers a model is shown after the bounded output (CONTRACT section 5). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "classify.h"
#include "unicode_table.h"

/* Append one whole line, or nothing: a marker cut in half (possibly inside the
 * UTF-8 em dash) would be a different, misleading text. */
static bool append_line(char *out, size_t out_size, size_t *len, const char *line)
{
	size_t n = strlen(line);

	if (*len + n + 2 > out_size)
		return false;
	memcpy(out + *len, line, n);
	*len += n;
	out[(*len)++] = '\n';
	out[*len] = '\0';
	return true;
}

/* snprintf's result says whether a marker naming the mode fit whole. */
static bool fitted(int n, size_t size)
{
	return n >= 0 && (size_t)n < size;
}

size_t markers_build(char *out, size_t out_size, const char *mode_name, bool denied,
		     bool escalation, bool runner_failed)
{
	char line[512];
	size_t len = 0;
	bool ok = true;

	if (!out || out_size == 0)
		return 0;
	out[0] = '\0';
	if (!mode_name)
		mode_name = "unknown";
	/* Once a marker does not fit, the later ones are dropped too: the ones
	 * shown are always a prefix of the full list, in contract order. */
	if (denied) {
		ok = fitted(snprintf(line, sizeof(line), MARKER_DENIED_FMT, mode_name), sizeof(line)) &&
		     append_line(out, out_size, &len, line);
		/* why only after a denial: escalation is offered as the answer to
		 * a denial, never on its own. */
		if (ok && escalation)
			ok = append_line(out, out_size, &len, MARKER_ESCALATION);
	}
	if (ok && runner_failed) {
		ok = fitted(snprintf(line, sizeof(line), MARKER_RUNNER_FAILED_FMT, mode_name),
			    sizeof(line)) &&
		     append_line(out, out_size, &len, line);
	}
	return len;
}

/* ---- command output that could pass for a marker ---- */

/* Letters a reader takes for the ASCII ones of "[sandbox", from other
 * scripts (Cyrillic, Greek). Unicode's confusables.txt lists them; Debian
 * does not ship that file, so these few are named here. */
static const struct {
	uint32_t cp;
	char ascii;
} confusable[] = {
	{ 0x0391, 'a' }, { 0x0392, 'b' }, { 0x039D, 'n' }, { 0x039F, 'o' }, { 0x03A7, 'x' },
	{ 0x03B1, 'a' }, { 0x03BF, 'o' }, { 0x03C7, 'x' }, { 0x0405, 's' }, { 0x0410, 'a' },
	{ 0x0412, 'b' }, { 0x041E, 'o' }, { 0x0425, 'x' }, { 0x042C, 'b' }, { 0x0430, 'a' },
	{ 0x043E, 'o' }, { 0x0445, 'x' }, { 0x0455, 's' }, { 0x0501, 'd' }, { 0x050C, 'd' },
	{ 0x0578, 'n' }, { 0x0585, 'o' },
	/* Latin, IPA and symbols with no decomposition, Cherokee capitals
	 * (adversarial pass: each read as its letter in a forged marker) */
	{ 0x00D7, 'x' }, { 0x00F8, 'o' }, { 0x00D8, 'o' }, { 0x0251, 'a' }, { 0x0261, 'g' },
	{ 0x13A0, 'd' }, { 0x13AA, 'a' }, { 0x13DA, 's' }, { 0x13F4, 'b' }, { 0x2715, 'x' },
	{ 0x2716, 'x' }, { 0x2A2F, 'x' },
	/* the dots of the omitted line: an ellipsis, leaders, the fullwidth
	 * and small full stops (NFKC gives no single ASCII '.' for some) */
	{ 0x2024, '.' }, { 0x2025, '.' }, { 0x2026, '.' }, { 0xFE52, '.' }, { 0xFF0E, '.' },
};

/* Is cp in one of the sorted ranges of a generated table? */
#define IN_RANGES(table, cp)                                                                 \
	({                                                                                   \
		size_t lo_ = 0, hi_ = sizeof(table) / sizeof((table)[0]);                    \
		bool in_ = false;                                                            \
		while (lo_ < hi_ && !in_) {                                                  \
			size_t mid_ = (lo_ + hi_) / 2;                                       \
			if ((cp) < (table)[mid_].lo)                                         \
				hi_ = mid_;                                                  \
			else if ((cp) > (table)[mid_].hi)                                    \
				lo_ = mid_ + 1;                                              \
			else                                                                 \
				in_ = true;                                                  \
		}                                                                            \
		in_;                                                                         \
	})

static bool dropped(uint32_t cp)
{
	return IN_RANGES(unicode_dropped, cp);
}

/* A letter or a digit, of any script. */
static bool alnum(uint32_t cp)
{
	if (cp < 0x80)
		return ((cp | 0x20) >= 'a' && (cp | 0x20) <= 'z') || (cp >= '0' && cp <= '9');
	return IN_RANGES(unicode_alnum, cp);
}

/* The ASCII character a reader takes cp for (lowercase), or 0. */
static char folded(uint32_t cp)
{
	size_t lo = 0, hi = sizeof(unicode_folded) / sizeof(unicode_folded[0]);

	if (cp == '0')
		return 'o'; /* "[sandb0x" reads as the word */
	if (cp < 0x80)
		return cp >= 'A' && cp <= 'Z' ? (char)(cp - 'A' + 'a') : (char)cp;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (cp < unicode_folded[mid].cp)
			hi = mid;
		else if (cp > unicode_folded[mid].cp)
			lo = mid + 1;
		else {
			char c = unicode_folded[mid].ascii;

			return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
		}
	}
	for (size_t i = 0; i < sizeof(confusable) / sizeof(confusable[0]); i++)
		if (confusable[i].cp == cp)
			return confusable[i].ascii;
	return 0;
}

/* One UTF-8 sequence at s (n bytes left): its code point and length, or
 * U+FFFD for one byte that starts no well-formed sequence (overlong forms,
 * surrogates and truncated sequences included: a reader sees a
 * replacement character there, never the character they would spell). */
static uint32_t decode(const unsigned char *s, size_t n, size_t *len)
{
	uint32_t cp;
	size_t need;

	*len = 1;
	if (s[0] < 0x80)
		return s[0];
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		need = 1, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		need = 2, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		need = 3, cp = s[0] & 0x07;
	else
		return 0xfffd;
	if (n < need + 1)
		return 0xfffd;
	for (size_t i = 1; i <= need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0xfffd;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((need == 2 && cp < 0x800) || (need == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0xfffd;
	*len = need + 1;
	return cp;
}

/* A terminal's escape sequence at s (after ESC): how many bytes it takes
 * (CSI: '[' parameters and one final byte; OSC, DCS, APC, PM, SOS: up to
 * BEL or ESC '\'; else one character). They print nothing. */
static size_t escape_len(const unsigned char *s, size_t n)
{
	size_t i = 1;

	if (n == 0)
		return 0;
	if (s[0] == '[') {
		while (i < n && !(s[i] >= 0x40 && s[i] <= 0x7e))
			i++;
		return i < n ? i + 1 : n;
	}
	if (s[0] == ']' || s[0] == 'P' || s[0] == '_' || s[0] == '^' || s[0] == 'X') {
		while (i < n && s[i] != 0x07 && !(s[i] == 0x1b && i + 1 < n && s[i + 1] == '\\'))
			i++;
		return i < n ? (s[i] == 0x07 ? i + 1 : i + 2) : n;
	}
	return 1;
}

/* A line break a reader honours at s (n bytes left): its length, or 0. The
 * guard splits at every one of them (\n, \r, VT, FF, the separators FS, GS
 * and RS, NEL, U+2028, U+2029: Unicode's mandatory breaks and Python's
 * str.splitlines()): a model, an editor or a terminal may start a line
 * there, and that line must be guarded like any other. */
static size_t line_break(const unsigned char *s, size_t n)
{
	if (s[0] == '\n' || s[0] == '\r' || s[0] == 0x0b || s[0] == 0x0c ||
	    (s[0] >= 0x1c && s[0] <= 0x1e))
		return 1;
	if (n >= 2 && s[0] == 0xc2 && s[1] == 0x85)
		return 2;
	if (n >= 3 && s[0] == 0xe2 && s[1] == 0x80 && (s[2] == 0xa8 || s[2] == 0xa9))
		return 3;
	return 0;
}

/* A code point after which a terminal may show what follows at the line's
 * start, or a reader start a new line: a control character (tab aside) or
 * a line break. */
static bool restarts(uint32_t cp)
{
	return (cp < 0x20 && cp != '\t') || (cp >= 0x7f && cp <= 0x9f) || cp == 0x2028 ||
	       cp == 0x2029;
}

/* What a reader meets next in a line. */
struct glyph {
	uint32_t cp;  /* the code point (a visible one unless restart) */
	size_t at;    /* where it starts */
	bool restart; /* a control character, line break or escape sequence */
};

/* The next visible code point from *at on, passing by what prints as
 * nothing or as a space (escape sequences too, when read as a terminal
 * does); with stop, a control character, line break or escape sequence
 * is returned as a restart instead. false at the end of the line. */
static bool next_glyph(const unsigned char *line, size_t len, size_t *at, bool terminal,
		       bool stop, struct glyph *g)
{
	while (*at < len) {
		size_t n, from = *at;
		uint32_t cp = decode(line + from, len - from, &n);
		bool restart = restarts(cp);

		*at += n;
		if (cp == 0x1b && terminal)
			*at += escape_len(line + *at, len - *at);
		if (restart && stop) {
			*g = (struct glyph){ cp, from, true };
			return true;
		}
		if (restart || dropped(cp))
			continue;
		*g = (struct glyph){ cp, from, false };
		return true;
	}
	return false;
}

/* What a reader takes a visible code point for: the ASCII character
 * (lowercase) it reads as, OPENING for one that reads as no ASCII
 * character and is neither a letter nor a digit (a bracket, a symbol, a
 * punctuation mark of another script: it may stand for '['), else 0. */
#define OPENING 1
static int reading(uint32_t cp)
{
	char c = folded(cp);

	if (c)
		return (unsigned char)c;
	return alnum(cp) ? 0 : OPENING;
}

/* The next visible character from *at on, as reading() takes it, or -1 at
 * the end of the line; *start: where it starts. */
static int next_visible(const unsigned char *line, size_t len, size_t *at, bool terminal,
			size_t *start)
{
	struct glyph g;

	if (!next_glyph(line, len, at, terminal, false, &g))
		return -1;
	if (start)
		*start = g.at;
	return reading(g.cp);
}

static bool is_open(int c)
{
	return c == '[' || c == OPENING;
}

/* Where the last place in the line starts at which a reader reads '[' (or
 * a bracket-like symbol), then "sandbox" in any case, or -1: what prints as
 * nothing or as a space passed by, lookalikes read as the letters they look
 * like. That is what a model would read as sbx's own word, wherever it
 * stands in the line (escape sequences can hide what precedes it). Read
 * twice: as a terminal shows it (escape sequences print nothing) and as a
 * model reads it (an escape character is nothing, what follows it is
 * text). */
static ssize_t reads_as_marker(const unsigned char *line, size_t len, bool terminal)
{
	static const char word[] = "sandbox", back[] = "xobdnas";
	size_t at = 0, start = 0;
	ssize_t last = -1;

	for (;;) {
		int c = next_visible(line, len, &at, terminal, &start);
		size_t after = at, k = 0;

		if (c < 0)
			return last;
		if (is_open(c)) {
			while (k < sizeof(word) - 1) {
				int d = next_visible(line, len, &after, terminal, NULL);

				if (d == word[k])
					k++;
				/* why: "[sand-box: ...", "[sand_box", "[sand\box"
				 * read as the word (adversarial pass 9, finding 06) */
				else if (!(k > 0 && d > 0 && d < 0x80 && strchr("-_\\./'`*~", d)))
					break;
			}
			if (k == sizeof(word) - 1)
				last = (ssize_t)start;
		} else if (c == 'x') {
			/* Right to left (a bidi override, an RTL run): "]xobdnas["
			 * shows as "[sandbox]", its brackets mirrored. */
			for (k = 1; k < sizeof(back) - 1 &&
				    next_visible(line, len, &after, terminal, NULL) == back[k];)
				k++;
			if (k == sizeof(back) - 1) {
				int b = next_visible(line, len, &after, terminal, NULL);

				if (is_open(b) || b == ']')
					last = (ssize_t)start;
			}
		}
	}
}

/* Where the last place in the line starts that reads as '[' with dots
 * right after it and later the word "omitted" (read as reads_as_marker
 * reads), or -1. That is what sbx's own line between the head and the tail
 * of a bounded stream says ("[... N bytes omitted ...]"; serve's cut answers
 * add "to fit the answer"): a command's line that reads so could make a
 * reader believe that output was left out that never was, or take sbx's
 * line for its. Right to left too: "]... dettimo setyb 5 ...[" shows as
 * such a line. */
static ssize_t reads_as_omitted(const unsigned char *line, size_t len, bool terminal)
{
	static const char word[] = "omitted", back[] = "dettimo";
	const size_t wlen = sizeof(word) - 1;
	size_t at = 0, start = 0;
	ssize_t opened = -1, last = -1;

	for (;;) {
		int c = next_visible(line, len, &at, terminal, &start);
		size_t after = at, k = 1;

		if (c < 0)
			return last;
		if (is_open(c)) {
			if (next_visible(line, len, &after, terminal, NULL) == '.')
				opened = (ssize_t)start;
		} else if (c == word[0] && opened >= 0) {
			while (k < wlen && next_visible(line, len, &after, terminal, NULL) == word[k])
				k++;
			if (k == wlen)
				last = opened;
		} else if (c == back[0]) {
			while (k < wlen && next_visible(line, len, &after, terminal, NULL) == back[k])
				k++;
			/* then dots, and a bracket right after them */
			for (int prev = 0, d; k == wlen && (d = next_visible(line, len, &after, terminal,
									   NULL)) >= 0;
			     prev = d)
				if (prev == '.' && (is_open(d) || d == ']')) {
					last = (ssize_t)start;
					break;
				}
		}
	}
}

/* Where the last place in the line starts that reads as '(' (or a
 * bracket-like symbol) and then "exit code", "timed out" or "ended by
 * signal" (what prints as nothing or as a space passed by), or -1: the line
 * sbx mcp ends a tool's text with says how the command ended, and a
 * command's "(exit code 0)" above a real "(exit code 1)" could be taken for
 * it (adversarial pass 6, finding 16). */
static ssize_t reads_as_ended(const unsigned char *line, size_t len, bool terminal)
{
	static const char *const words[] = { "exitcode", "timedout", "endedbysignal" };
	size_t at = 0, start = 0;
	ssize_t last = -1;

	for (;;) {
		int c = next_visible(line, len, &at, terminal, &start);

		if (c < 0)
			return last;
		if (c != '(' && c != OPENING)
			continue;
		for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++) {
			size_t after = at, k = 0, wl = strlen(words[w]);

			while (k < wl && next_visible(line, len, &after, terminal, NULL) == words[w][k])
				k++;
			if (k == wl)
				last = (ssize_t)start;
		}
	}
}

/* An ASCII letter, as reading() gives it (a letter that reads as one too). */
static bool glued_letter(int r)
{
	return r > OPENING && r < 0x80 && ((r | 0x20) >= 'a' && (r | 0x20) <= 'z');
}

/* Can what starts at c (a visible code point; what follows it from *at)
 * not be read as the start of sbx's line? The allow-list: an ASCII
 * character other than '['; '[' and then a word of ASCII letters and
 * digits (what prints as a space passed by) up to ASCII punctuation; a
 * letter of another script that is not glued to an ASCII letter. Anything
 * else (a symbol or bracket past ASCII, '[' and a word holding one, a
 * letter of another script before an ASCII one) may stand for '[' and
 * "sandbox" in a way no table of lookalikes can list. */
static bool start_unclear(const unsigned char *line, size_t len, size_t at, uint32_t c,
			  bool terminal)
{
	struct glyph g;
	int r;

	if (c == '[') {
		while (next_glyph(line, len, &at, terminal, false, &g)) {
			if (g.cp < 0x80 && !alnum(g.cp))
				return false;
			r = reading(g.cp);
			/* why a reading: "[Über]" reads as plain letters, "[…" as dots */
			if (r == 0 || r == OPENING)
				return true;
			if (r < 0x80 && !alnum((uint32_t)r))
				return false;
		}
		return false;
	}
	if (c < 0x80)
		return false;
	/* why: box drawing (U+2500..U+257F) starts the lines of every tree a
	 * tool prints; it reads as a line, not as '[', like an ASCII '|', and
	 * a bracket-like symbol followed by "sandbox" anywhere in the line is
	 * still caught (reads_as_marker). */
	if (c >= 0x2500 && c <= 0x257f)
		return false;
	r = reading(c);
	if (r == OPENING || (r > OPENING && !alnum((uint32_t)r)))
		return true; /* a symbol or bracket past ASCII */
	if (r != 0)
		return false; /* a letter that reads as an ASCII one */
	if (!next_glyph(line, len, &at, terminal, false, &g))
		return false;
	/* an ASCII digit is itself here ("第0章"), not the 'o' it reads as in a word */
	r = g.cp < 0x80 ? (int)g.cp : reading(g.cp);
	return glued_letter(r);
}

/* Where the last start in the line that start_unclear refuses begins, or
 * -1: the line's own start, and what follows each control character, line
 * break or escape sequence in it (a terminal may show that at the line's
 * start: a cursor moved back, the line erased). */
static ssize_t unclear_starts(const unsigned char *line, size_t len, bool terminal)
{
	struct glyph g;
	size_t at = 0;
	bool fresh = true;
	ssize_t last = -1;

	while (next_glyph(line, len, &at, terminal, true, &g)) {
		if (g.restart) {
			fresh = true;
			continue;
		}
		if (fresh && start_unclear(line, len, at, g.cp, terminal))
			last = (ssize_t)g.at;
		fresh = false;
	}
	return last;
}

/* Where the last bidi embedding, override or isolate control starts, or
 * -1: what follows it may be shown right to left, in an order no reading
 * of the bytes follows. */
static ssize_t bidi_control(const unsigned char *line, size_t len)
{
	ssize_t last = -1;

	for (size_t at = 0, n; at < len; at += n) {
		uint32_t cp = decode(line + at, len - at, &n);

		if ((cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069))
			last = (ssize_t)at;
	}
	return last;
}

static ssize_t later(ssize_t a, ssize_t b)
{
	return a > b ? a : b;
}

/* Where the last thing in a line (up to '\n', other breaks read as
 * nothing) that a reader could take for sbx's own starts, or -1. */
static ssize_t last_forged(const unsigned char *line, size_t len)
{
	ssize_t last = bidi_control(line, len);

	for (int terminal = 0; terminal < 2; terminal++) {
		last = later(last, reads_as_marker(line, len, terminal));
		last = later(last, reads_as_omitted(line, len, terminal));
		last = later(last, reads_as_ended(line, len, terminal));
		last = later(last, unclear_starts(line, len, terminal));
	}
	return last;
}

/* Each '\n' line is read whole, its other breaks read as nothing (as a
 * reader that does not honour them reads it); what starts it and every
 * line the other breaks start, up to the last forged thing in it, is
 * prefixed: whichever breaks a reader honours, the line it reads that
 * holds the forged thing starts with the prefix. */
size_t markers_neutralise(const char *in, size_t len, char *out)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t n = 0, plen = strlen(MARKER_FORGED_PREFIX);

	for (size_t start = 0; start < len;) {
		const char *nl = memchr(in + start, '\n', len - start);
		size_t end = nl ? (size_t)(nl - in) : len;
		ssize_t last = last_forged(s + start, end - start);

		for (size_t piece = start, at = start, b = 0;; piece = at += b) {
			while (at < end && (b = line_break(s + at, end - at)) == 0)
				at++;
			if (at == end)
				b = nl ? 1 : 0; /* the '\n' itself, or the end */
			if (last >= 0 && (ssize_t)(piece - start) <= last) {
				if (out)
					memcpy(out + n, MARKER_FORGED_PREFIX, plen);
				n += plen;
			}
			if (out)
				memcpy(out + n, in + piece, at + b - piece);
			n += at + b - piece;
			if (at == end)
				break;
		}
		start = nl ? end + 1 : len;
	}
	return n;
}

size_t markers_guard_cut(const char *in, size_t len, char *out)
{
	const char *nl = memchr(in, '\n', len);
	size_t plen = strlen(MARKER_FORGED_PREFIX), n = 0;

	/* why only the first line's start: the later lines' starts, and the
	 * lines other breaks start in the first one, were guarded before the
	 * cut (a line start's reading never depends on what precedes it) */
	if (last_forged((const unsigned char *)in, nl ? (size_t)(nl - in) : len) >= 0) {
		if (out)
			memcpy(out, MARKER_FORGED_PREFIX, plen);
		n = plen;
	}
	if (out)
		memcpy(out + n, in, len);
	return n + len;
}

size_t markers_neutralise_around(const char *in, size_t len, size_t mid_at, size_t mid_len,
				 char *out)
{
	size_t n;

	if (mid_len == 0 || mid_at > len || mid_len > len - mid_at)
		return markers_neutralise(in, len, out);
	n = markers_neutralise(in, mid_at, out);
	if (out)
		memcpy(out + n, in + mid_at, mid_len);
	n += mid_len;
	return n + markers_neutralise(in + mid_at + mid_len, len - mid_at - mid_len,
				      out ? out + n : NULL);
}

size_t markers_quote_path(const char *path, char *out, size_t size)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;

	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		char q[4];
		size_t k = 0;

		/* Why every other byte: a name the command chose must not end
		 * sbx's line (\n, \r, NEL, U+2028...), start a marker of its
		 * own on a reader's screen, nor carry a terminal escape; nor
		 * a bracket: "x] [sandbox: escalation ...] [y" inside sbx's own
		 * line read as a marker of sbx's (adversarial pass 9, 15). */
		if (*p >= 0x20 && *p < 0x7f && *p != '\\' && *p != '[' && *p != ']') {
			q[k++] = (char)*p;
		} else if (*p == '\\') {
			q[k++] = '\\';
			q[k++] = '\\';
		} else {
			q[k++] = '\\';
			q[k++] = 'x';
			q[k++] = hex[*p >> 4];
			q[k++] = hex[*p & 15];
		}
		for (size_t i = 0; i < k; i++, n++)
			if (out && n + 1 < size)
				out[n] = q[i];
	}
	if (out && size)
		out[n < size ? n : size - 1] = '\0';
	return n;
}
