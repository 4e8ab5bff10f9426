/* SPDX-License-Identifier: MIT */
// libFuzzer target for the protected paths' baseline file
// (launcher/protect/protect_base_file.c), which sbx reads back from its state
// directory and acts on, unconfined, in the user's workspace.
//
// Build and run: scripts/fuzz.sh (FUZZ_SECONDS=N).
//
/* The input is a file without its trailing checksum, which the target adds
 * (else nearly every mutation would stop at the checksum); the raw input is
 * tried as well. Besides "no crash, no leak": what decodes holds only plain
 * relative paths, entries in the pre-order the restore builds from, no
 * set-id file, and encodes back to the very same bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "protect_int.h"
#include "protect_snap.h"

static uint64_t fnv1a(const uint8_t *p, size_t n)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ULL;
	return h;
}

static void check(const struct protect_base *b, const uint8_t *buf, size_t len)
{
	char *again;
	size_t again_len;

	for (size_t i = 0; i < b->n; i++) {
		const struct protect_record *r = &b->rec[i];
		const struct snap *s = r->snap.snap;

		if (!protect_path_plain(r->path, strlen(r->path)))
			abort();
		for (size_t j = 0; s && j < s->n; j++) {
			const struct snap_entry *e = &s->e[j];

			if ((j == 0) != (e->rel[0] == '\0'))
				abort();
			if (j && !protect_path_plain(e->rel, strlen(e->rel)))
				abort();
			if (!S_ISDIR(e->mode) && (e->mode & (S_ISUID | S_ISGID)))
				abort();
		}
	}
	if (protect_base_encode(b, &again, &again_len) != 0)
		abort();
	if (again_len != len || memcmp(again, buf, len) != 0)
		abort();
	free(again);
}

static void try_one(const uint8_t *buf, size_t len)
{
	struct protect_base b;

	if (protect_base_decode((const char *)buf, len, &b) != 0)
		return;
	check(&b, buf, len);
	protect_base_clear(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf = malloc(size + 8);
	uint64_t h = fnv1a(data, size);

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	for (int i = 0; i < 8; i++)
		buf[size + i] = (uint8_t)(h >> (8 * i));
	try_one(buf, size + 8);
	try_one(data, size);
	free(buf);
	return 0;
}
