/* SPDX-License-Identifier: MIT */
/* Output bytes become JSON strings: keep every valid UTF-8 sequence, replace
 * each invalid byte with U+FFFD, keep NUL (jansson escapes it as \u0000). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"

/* Length of the valid UTF-8 sequence at p (1..4), or 0 if invalid. */
static size_t utf8_seq_len(const unsigned char *p, size_t avail)
{
	unsigned char c = p[0];
	size_t need;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		need = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		need = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		need = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (avail < need)
		return 0;
	for (size_t i = 1; i < need; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	/* Overlong forms, surrogates and values past U+10FFFF are invalid. */
	if ((need == 3 && cp < 0x800) || (need == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return need;
}

char *utf8_sanitize(const char *buf, size_t len, size_t *out_len)
{
	const unsigned char *p = (const unsigned char *)buf;
	/* Worst case: every byte becomes the 3-byte replacement character. */
	char *out = malloc(len * 3 + 1);
	size_t o = 0;

	if (!out)
		return NULL;
	for (size_t i = 0; i < len;) {
		size_t n = utf8_seq_len(p + i, len - i);

		if (n == 0) {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		} else {
			memcpy(out + o, p + i, n);
			o += n;
			i += n;
		}
	}
	out[o] = '\0';
	*out_len = o;
	return out;
}
