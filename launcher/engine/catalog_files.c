/* SPDX-License-Identifier: MIT */
/* The files behind the classifier's catalog search (classify/locale_catalog.h):
 * the system's message catalogs, mapped read-only as the C library maps them
 * for the moment of one derivation (packages replace them by rename, never
 * in place), and locale.alias read whole. The only I/O of the locale
 * catalogs; classify/ stays pure. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "catalog_files.h"

/* A whole regular file of at most max bytes, NUL-terminated, or NULL. */
static char *read_text(const char *path, size_t max, size_t *size)
{
	struct stat st;
	char *data = NULL;
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 || (size_t)st.st_size > max)
		goto out;
	data = malloc((size_t)st.st_size + 1);
	if (!data)
		goto out;
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, data + got, (size_t)st.st_size - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	if (got != (size_t)st.st_size) {
		free(data);
		data = NULL;
		goto out;
	}
	data[got] = '\0';
	*size = got;
out:
	close(fd);
	return data;
}

/* A catalog mapped read-only (a lookup touches a few of its pages), or
 * NULL. */
static void *map_file(const char *path, size_t max, size_t *size)
{
	struct stat st;
	void *p = MAP_FAILED;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (size_t)st.st_size <= max) {
		*size = (size_t)st.st_size;
		p = mmap(NULL, *size, PROT_READ, MAP_PRIVATE, fd, 0);
	}
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

static void unmap_file(void *data, size_t size)
{
	munmap(data, size);
}

const struct catalog_reader catalog_files = {
	.map = map_file,
	.unmap = unmap_file,
	.read_text = read_text,
	.free_text = free,
};
