/* SPDX-License-Identifier: MIT */
/* GNU message catalogs (.mo files), read the way the C library reads them:
 * enough to look a message up and learn the catalog's charset. Pure: bytes
 * in, answers out; the caller reads the file. */
#ifndef SBX_MO_CATALOG_H
#define SBX_MO_CATALOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mo_catalog {
	const unsigned char *data;
	size_t size;
	bool swapped;      /* written on a machine of the other byte order */
	uint32_t n;        /* number of messages */
	uint32_t orig;     /* offset of the table of originals */
	uint32_t trans;    /* offset of the table of translations */
};

/* Check the header of data[0..size) (which must outlive c). */
bool mo_open(struct mo_catalog *c, const void *data, size_t size);
/* The translation of msgid, or NULL (*len gets its length). */
const char *mo_lookup(const struct mo_catalog *c, const char *msgid, size_t *len);
/* The "charset=" of the header entry, into buf; false if there is none. */
bool mo_charset(const struct mo_catalog *c, char *buf, size_t size);

#endif
