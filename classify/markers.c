/* SPDX-License-Identifier: MIT */
/* The markers a model is shown after the bounded output (CONTRACT section 5). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

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

static bool dropped(uint32_t cp)
{
	size_t lo = 0, hi = sizeof(unicode_dropped) / sizeof(unicode_dropped[0]);

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (cp < unicode_dropped[mid].lo)
			hi = mid;
		else if (cp > unicode_dropped[mid].hi)
			lo = mid + 1;
		else
			return true;
	}
	return false;
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

/* The next character of the line a reader sees from *at on, folded to
 * the ASCII one it reads as (0: one that reads as none of them), or -1 at
 * the end of the line: what prints as nothing or as a space is passed by. */
static int next_visible(const unsigned char *line, size_t len, size_t *at, bool terminal)
{
	while (*at < len) {
		size_t n;
		uint32_t cp = decode(line + *at, len - *at, &n);

		*at += n;
		if (cp == 0x1b && terminal) {
			*at += escape_len(line + *at, len - *at);
			continue;
		}
		if (dropped(cp))
			continue;
		return (unsigned char)folded(cp);
	}
	return -1;
}

/* Does the line hold '[', then "sandbox" in any case, as a reader sees it
 * (whatever prints as nothing or as a space passed by, lookalikes read as
 * the letters they look like)? That is what a model would read as sbx's
 * own word, wherever it stands in the line ("\r" and escape sequences can
 * hide what precedes it). Read twice: as a terminal shows it (escape
 * sequences print nothing) and as a model reads it (an escape character
 * is nothing, what follows it is text). */
static bool reads_as_marker(const unsigned char *line, size_t len, bool terminal)
{
	static const char word[] = "sandbox", back[] = "xobdnas";
	size_t at = 0;

	for (;;) {
		int c = next_visible(line, len, &at, terminal);
		size_t after = at, k = 0;

		if (c < 0)
			return false;
		if (c == '[') {
			while (k < sizeof(word) - 1 && next_visible(line, len, &after, terminal) == word[k])
				k++;
			if (k == sizeof(word) - 1)
				return true;
		} else if (c == 'x') {
			/* Right to left (a bidi override, an RTL run): "]xobdnas["
			 * shows as "[sandbox]", its brackets mirrored. */
			for (k = 1; k < sizeof(back) - 1 &&
				    next_visible(line, len, &after, terminal) == back[k];)
				k++;
			if (k == sizeof(back) - 1) {
				int b = next_visible(line, len, &after, terminal);

				if (b == '[' || b == ']')
					return true;
			}
		}
	}
}

/* Does the line hold '[' with dots right after it, and later the word
 * "omitted", as a reader sees it (read as reads_as_marker reads)? That is
 * what sbx's own line between the head and the tail of a bounded stream
 * says ("[... N bytes omitted ...]"; serve's cut answers add "to fit the
 * answer"): a command's line that reads so could make a reader believe that
 * output was left out that never was, or take sbx's line for its. Right to
 * left too: "]... dettimo setyb 5 ...[" shows as such a line. */
static bool reads_as_omitted(const unsigned char *line, size_t len, bool terminal)
{
	static const char word[] = "omitted", back[] = "dettimo";
	const size_t wlen = sizeof(word) - 1;
	size_t at = 0;
	bool opened = false;

	for (;;) {
		int c = next_visible(line, len, &at, terminal);
		size_t after = at, k = 1;

		if (c < 0)
			return false;
		if (c == '[') {
			opened = opened || next_visible(line, len, &after, terminal) == '.';
		} else if (c == word[0] && opened) {
			while (k < wlen && next_visible(line, len, &after, terminal) == word[k])
				k++;
			if (k == wlen)
				return true;
		} else if (c == back[0]) {
			while (k < wlen && next_visible(line, len, &after, terminal) == back[k])
				k++;
			/* then dots, and a bracket right after them */
			for (int prev = 0, d; k == wlen && (d = next_visible(line, len, &after,
									   terminal)) >= 0;
			     prev = d)
				if (prev == '.' && (d == '[' || d == ']'))
					return true;
		}
	}
}

/* A line a reader would take for sbx's own: a marker, or the omitted line. */
static bool line_looks_like_marker(const char *text, size_t len)
{
	const unsigned char *line = (const unsigned char *)text;

	return reads_as_marker(line, len, true) || reads_as_marker(line, len, false) ||
	       reads_as_omitted(line, len, true) || reads_as_omitted(line, len, false);
}

size_t markers_neutralise(const char *in, size_t len, char *out)
{
	size_t n = 0, plen = strlen(MARKER_FORGED_PREFIX);

	for (size_t start = 0; start < len;) {
		const char *nl = memchr(in + start, '\n', len - start);
		size_t end = nl ? (size_t)(nl - in) + 1 : len;

		if (line_looks_like_marker(in + start, end - start)) {
			if (out)
				memcpy(out + n, MARKER_FORGED_PREFIX, plen);
			n += plen;
		}
		if (out)
			memcpy(out + n, in + start, end - start);
		n += end - start;
		start = end;
	}
	return n;
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
