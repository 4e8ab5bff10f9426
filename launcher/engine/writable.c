/* SPDX-License-Identifier: MIT */
/* Asked by the classifier: could the caller, without the sandbox, have
 * written this path? Checked from the parent, as the caller, so a
 * "Permission denied" that plain DAC would also give is not blamed on us. */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher.h"

enum caller_access caller_could_write(const char *abs_path, void *ctx)
{
	char dir[PATH_MAX];
	struct stat st;
	char *slash;

	(void)ctx;
	if (access(abs_path, F_OK) == 0)
		return access(abs_path, W_OK) == 0 ? CALLER_CAN : CALLER_CANNOT;
	/* below a file: there is no directory to make it in */
	if (errno == ENOTDIR)
		return CALLER_NO_PARENT;
	if (errno != ENOENT || strlen(abs_path) >= sizeof(dir))
		return CALLER_CANNOT;
	/* A new file: its own directory decides. Why not the nearest existing
	 * ancestor: creating /a/b/c where /a/b is missing fails with ENOENT for
	 * anyone, so an error line naming it is no denial of this run (a log
	 * quoting another machine's error is the usual source). */
	strcpy(dir, abs_path);
	slash = strrchr(dir, '/');
	if (!slash)
		return CALLER_CANNOT;
	if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	if (stat(dir, &st) != 0)
		return errno == ENOENT || errno == ENOTDIR ? CALLER_NO_PARENT : CALLER_CANNOT;
	if (!S_ISDIR(st.st_mode))
		return CALLER_CANNOT;
	return access(dir, W_OK) == 0 ? CALLER_CAN : CALLER_CANNOT;
}
