/* SPDX-License-Identifier: MIT */
/* The .mo format: a header (magic, revision, count, two table offsets), and
 * two tables of (length, offset) pairs, originals sorted by strcmp and the
 * translations beside them; every string NUL-terminated. Every offset is
 * checked against the size: a damaged or hostile file yields "no
 * translation", never a read outside it. */
#include <string.h>

#include "mo_catalog.h"

#define MO_MAGIC 0x950412deu
#define MO_MAGIC_SWAPPED 0xde120495u

static uint32_t swap32(uint32_t v)
{
	return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
}

static bool word(const struct mo_catalog *c, size_t off, uint32_t *out)
{
	uint32_t v;

	if (off > c->size || c->size - off < 4)
		return false;
	memcpy(&v, c->data + off, 4);
	*out = c->swapped ? swap32(v) : v;
	return true;
}

/* Entry i of the table at offset table: its string, NUL-terminated inside
 * the file, or NULL. */
static const char *entry(const struct mo_catalog *c, uint32_t table, uint32_t i, size_t *len)
{
	uint32_t l, o;

	if (!word(c, (size_t)table + (size_t)i * 8, &l) || !word(c, (size_t)table + (size_t)i * 8 + 4, &o))
		return NULL;
	if ((size_t)o > c->size || c->size - o <= (size_t)l || c->data[(size_t)o + l] != '\0')
		return NULL;
	*len = l;
	return (const char *)c->data + o;
}

bool mo_open(struct mo_catalog *c, const void *data, size_t size)
{
	uint32_t magic, revision;

	memset(c, 0, sizeof(*c));
	c->data = data;
	c->size = size;
	if (!word(c, 0, &magic))
		return false;
	if (magic == MO_MAGIC_SWAPPED)
		c->swapped = true;
	else if (magic != MO_MAGIC)
		return false;
	/* the C library reads major revisions 0 and 1 */
	if (!word(c, 4, &revision) || (revision >> 16) > 1 || !word(c, 8, &c->n) ||
	    !word(c, 12, &c->orig) || !word(c, 16, &c->trans))
		return false;
	if ((size_t)c->n > size / 16)
		return false;
	return true;
}

const char *mo_lookup(const struct mo_catalog *c, const char *msgid, size_t *len)
{
	uint32_t lo = 0, hi = c->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		size_t olen;
		const char *o = entry(c, c->orig, mid, &olen);
		int cmp;

		if (!o)
			return NULL;
		cmp = strcmp(msgid, o);
		if (cmp == 0) {
			const char *t = entry(c, c->trans, mid, len);

			/* an empty translation is none */
			return t && *len > 0 ? t : NULL;
		}
		if (cmp < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

bool mo_charset(const struct mo_catalog *c, char *buf, size_t size)
{
	size_t len, n = 0;
	const char *h = mo_lookup(c, "", &len);
	const char *cs;

	if (!h || size == 0)
		return false;
	cs = strstr(h, "charset=");
	if (!cs)
		return false;
	cs += 8;
	while (cs[n] && cs[n] != ' ' && cs[n] != '\t' && cs[n] != '\n' && cs[n] != ';')
		n++;
	if (n == 0 || n >= size)
		return false;
	memcpy(buf, cs, n);
	buf[n] = '\0';
	return true;
}
