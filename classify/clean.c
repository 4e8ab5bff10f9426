/* SPDX-License-Identifier: MIT */
/* The evidence copy of a line, made readable: terminal escapes (colour from
 * cargo, npm, pytest, gcc under FORCE_COLOR or a terminal-like environment)
 * removed, and a JSON string's escapes undone (structured logs quote the
 * error message: "[Errno 30] ...: \"/p\"", "\u53ea\u8bfb..."). Only the copy
 * is changed; the output the model sees is never touched. Both functions
 * only ever shrink their input, so a line that fit still fits. */
#include <stdint.h>
#include <string.h>

#include "classify.h"

#define ESC 0x1b

/* One escape sequence starting at s[0] == ESC: its length (at least 1). */
static size_t escape_len(const char *s, size_t len)
{
	size_t i = 2;

	if (len < 2)
		return len;
	if (s[1] == '[') { /* CSI: parameters, intermediates, one final byte */
		while (i < len && (unsigned char)s[i] >= 0x20 && (unsigned char)s[i] <= 0x3f)
			i++;
		while (i < len && (unsigned char)s[i] >= 0x20 && (unsigned char)s[i] <= 0x2f)
			i++;
		if (i < len && (unsigned char)s[i] >= 0x40 && (unsigned char)s[i] <= 0x7e)
			i++;
		return i;
	}
	if (s[1] == ']' || s[1] == 'P' || s[1] == '_' || s[1] == '^') {
		/* OSC (hyperlinks, titles) and other strings: up to BEL or ST */
		while (i < len && s[i] != '\a' && !(s[i] == ESC && i + 1 < len && s[i + 1] == '\\'))
			i++;
		if (i < len)
			i += s[i] == '\a' ? 1 : 2;
		return i;
	}
	/* ESC, intermediates ("(B" picks a character set), one final byte */
	i = 1;
	while (i < len && (unsigned char)s[i] >= 0x20 && (unsigned char)s[i] <= 0x2f)
		i++;
	return i < len ? i + 1 : i;
}

size_t text_strip_escapes(const char *s, size_t len, char *out, size_t out_size)
{
	size_t o = 0;

	if (out_size == 0)
		return 0;
	for (size_t i = 0; i < len;) {
		if (s[i] == ESC) {
			i += escape_len(s + i, len - i);
			continue;
		}
		if (o + 1 < out_size)
			out[o++] = s[i];
		i++;
	}
	out[o] = '\0';
	return o;
}

static int hex4(const char *s, size_t len, size_t i)
{
	int v = 0;

	if (i + 4 > len)
		return -1;
	for (size_t k = i; k < i + 4; k++) {
		char c = s[k];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	return v;
}

static size_t put_utf8(uint32_t cp, char *out)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* "\uXXXX" (and a following low surrogate) at s[i]: bytes consumed, the
 * code point in *cp; 0 if it is not a well-formed one. */
static size_t unicode_escape(const char *s, size_t len, size_t i, uint32_t *cp)
{
	int hi = hex4(s, len, i + 2), lo;

	if (hi < 0)
		return 0;
	if (hi >= 0xd800 && hi <= 0xdbff) {
		if (i + 12 > len || s[i + 6] != '\\' || s[i + 7] != 'u')
			return 0;
		lo = hex4(s, len, i + 8);
		if (lo < 0xdc00 || lo > 0xdfff)
			return 0;
		*cp = 0x10000 + (((uint32_t)hi - 0xd800) << 10) + ((uint32_t)lo - 0xdc00);
		return 12;
	}
	/* why: a lone low surrogate or "\u0000" is no character a path or a
	 * message could hold; keep the escape as text. */
	if ((hi >= 0xdc00 && hi <= 0xdfff) || hi == 0)
		return 0;
	*cp = (uint32_t)hi;
	return 6;
}

size_t text_json_unescape(const char *s, size_t len, char *out, size_t out_size)
{
	size_t o = 0;

	if (out_size == 0)
		return 0;
	for (size_t i = 0; i < len;) {
		char buf[4];
		size_t n = 1, used = 1;

		buf[0] = s[i];
		if (s[i] == '\\' && i + 1 < len) {
			const char *simple = strchr("\"\\/bfnrt", s[i + 1]);
			uint32_t cp;

			if (s[i + 1] != '\0' && simple) {
				buf[0] = "\"\\/\b\f\n\r\t"[simple - "\"\\/bfnrt"];
				used = 2;
			} else if (s[i + 1] == 'u' && (used = unicode_escape(s, len, i, &cp)) > 0) {
				n = put_utf8(cp, buf);
			} else {
				used = 1;
			}
		}
		if (o + n < out_size) {
			memcpy(out + o, buf, n);
			o += n;
		}
		i += used;
	}
	out[o] = '\0';
	return o;
}
