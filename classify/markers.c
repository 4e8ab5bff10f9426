/* SPDX-License-Identifier: MIT */
/* The markers a model is shown after the bounded output (CONTRACT section 5). */
#include <stdio.h>
#include <string.h>

#include "classify.h"

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

static bool blank_or_control(unsigned char c)
{
	return c <= 0x20 || c == 0x7f;
}

static char ascii_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Does the line hold '[', then (past blanks and control characters) "sandbox"
 * in any case? That is what a model would read as sbx's own word, wherever it
 * stands in the line ("\r" and escape sequences can hide what precedes it). */
static bool line_looks_like_marker(const char *line, size_t len)
{
	static const char word[] = "sandbox";

	for (size_t i = 0; i < len; i++) {
		size_t j = i + 1, k = 0;

		if (line[i] != '[')
			continue;
		while (j < len && blank_or_control((unsigned char)line[j]))
			j++;
		while (j < len && k < sizeof(word) - 1 && ascii_lower(line[j]) == word[k]) {
			j++;
			k++;
		}
		if (k == sizeof(word) - 1)
			return true;
	}
	return false;
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
