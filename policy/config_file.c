/* SPDX-License-Identifier: MIT */
/* Reading the config file: the only system calls policy/ makes. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "policy.h"

static int file_error(struct sbx_error *err, int errnum, const char *path, const char *what)
{
	char buf[128];
	const char *msg = strerror_r(errnum, buf, sizeof(buf)); /* GNU: returns the text */

	return sbx_error_set(err, errnum, SBX_E_CONFIG, path, "unable to %s config %s: %s", what,
			     path, msg);
}

/* Read all of fd into a malloc'd buffer of at most CONFIG_FILE_MAX bytes.
 * Returns 0, or a negative errno (-EFBIG when the file is larger). */
static int read_all(int fd, char **out, size_t *out_len)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);

	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (len == cap) {
			/* One byte past the limit tells "too large" from "exactly full". */
			if (cap > CONFIG_FILE_MAX) {
				free(buf);
				return -EFBIG;
			}
			size_t ncap = cap * 2 > (size_t)CONFIG_FILE_MAX + 1 ? (size_t)CONFIG_FILE_MAX + 1
									   : cap * 2;
			char *nbuf = realloc(buf, ncap);
			if (!nbuf) {
				free(buf);
				return -ENOMEM;
			}
			buf = nbuf;
			cap = ncap;
		}
		ssize_t n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			free(buf);
			return -e;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len > CONFIG_FILE_MAX) {
		free(buf);
		return -EFBIG;
	}
	*out = buf;
	*out_len = len;
	return 0;
}

int config_parse_file(const char *path, struct sbx_config *cfg, struct sbx_error *err)
{
	char *buf = NULL;
	size_t len = 0;
	int rc;

	config_init(cfg);
	if (!path)
		return sbx_error_set(err, EINVAL, SBX_E_CONFIG, NULL, "no config file name");
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return file_error(err, errno, path, "open");
	rc = read_all(fd, &buf, &len);
	close(fd);
	if (rc == -EFBIG)
		return sbx_error_set(err, EFBIG, SBX_E_CONFIG, path,
				     "unable to read config %s: larger than %d bytes", path,
				     CONFIG_FILE_MAX);
	if (rc < 0)
		return file_error(err, -rc, path, "read");
	rc = config_parse_buffer(path, buf, len, cfg, err);
	free(buf);
	return rc;
}
