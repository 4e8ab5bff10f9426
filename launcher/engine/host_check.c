/* SPDX-License-Identifier: MIT */
/* What a run needs of the file system sbx itself runs in, asked before
 * anything starts: a minimal root (a chroot, an appliance image, a scratch
 * container) may lack it, and the failure it caused later said only
 * "unable to create pipes: No such file or directory". The message names
 * each missing piece and what to do. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "launcher.h"

#define PROC_SUPER_MAGIC 0x9fa0

static void add(char *buf, size_t size, const char *what)
{
	size_t len = strlen(buf);

	snprintf(buf + len, size - len, "%s%s", len ? "; " : "", what);
}

int host_check(enum sbx_mode mode, int *null_fd, struct sbx_error *err)
{
	char missing[768] = "";
	struct statfs fs;
	struct stat st;
	int fd;

	*null_fd = -1;
	/* The command's stdin, and what the modes let it write: the null
	 * device itself, never a file that happens to be called so (writes
	 * to it would pile up there). */
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		add(missing, sizeof(missing),
		    errno == ENOENT ? "no /dev/null (a command's stdin, and where it may write "
				      "in every mode): mknod -m 666 /dev/null c 1 3, or mount /dev"
				    : "/dev/null cannot be opened");
	else if (fstat(fd, &st) < 0 || !S_ISCHR(st.st_mode) || major(st.st_rdev) != 1 ||
		 minor(st.st_rdev) != 3)
		add(missing, sizeof(missing),
		    "/dev/null is not the null device (character device 1,3): replace it "
		    "(rm /dev/null; mknod -m 666 /dev/null c 1 3), or mount /dev");
	/* Why required: a run's processes are found there to be ended (nothing
	 * may outlive a run), and the supervisor reads its callers there;
	 * without it leftovers would live on unseen. */
	if (statfs("/proc", &fs) < 0 || fs.f_type != PROC_SUPER_MAGIC)
		add(missing, sizeof(missing),
		    "no /proc (where sbx finds a run's processes to end them): "
		    "mount -t proc proc /proc");
	/* workspace-write lets the command write /tmp: the runner grants it
	 * (landlock) or puts the workspace's own there (namespace). */
	if (mode == SBX_MODE_WORKSPACE_WRITE && (stat("/tmp", &st) < 0 || !S_ISDIR(st.st_mode)))
		add(missing, sizeof(missing),
		    "no /tmp directory (workspace-write lets a command write /tmp): "
		    "mkdir -m 1777 /tmp");
	if (!missing[0]) {
		*null_fd = fd;
		return 0;
	}
	if (fd >= 0)
		close(fd);
	return sbx_error_set(err, ENOENT,
			     mode == SBX_MODE_DANGER_FULL_ACCESS ? SBX_E_SPAWN
								 : SBX_E_SANDBOX_UNAVAILABLE,
			     NULL,
			     "this system (a chroot or a minimal image?) lacks what a run needs: %s",
			     missing);
}
