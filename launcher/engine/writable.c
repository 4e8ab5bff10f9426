/* SPDX-License-Identifier: MIT */
/* Asked by the classifier: could the caller, without the sandbox, have
 * written this path? Checked from the parent, as the caller, so a
 * "Permission denied" that plain DAC would also give is not blamed on us. */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "launcher.h"

bool caller_could_write(const char *abs_path, void *ctx)
{
	char path[PATH_MAX];

	(void)ctx;
	if (strlen(abs_path) >= sizeof(path))
		return false;
	strcpy(path, abs_path);
	/* The file itself if it exists, else its nearest existing parent. */
	for (;;) {
		if (access(path, F_OK) == 0)
			return access(path, W_OK) == 0;
		if (errno != ENOENT && errno != ENOTDIR)
			return false;
		char *slash = strrchr(path, '/');

		if (!slash)
			return false;
		if (slash == path) {
			path[1] = '\0';
			return access(path, W_OK) == 0;
		}
		*slash = '\0';
	}
}
