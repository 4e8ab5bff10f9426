/* SPDX-License-Identifier: MIT */
/* Is a refusal of the errno rules the sandbox's? As for a refused write
 * (the classifier's rule), only where the caller could have made the call
 * without sbx: then it is counted and a failed run is marked denied. A
 * non-root caller's chmod u+s of a file it does not own, its mkdir -m 2755 in
 * /etc, its mount: the kernel would have refused those too. Asked only for
 * calls already refused: nothing here decides what is performed, so a
 * command that races these look-ups only moves a marker. */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fds.h"
#include "seccomp_rules.h"
#include "supervisor_int.h"
#include "syscall_abi.h"


/* user.max_user_namespaces is 0 where we are (a host or container that
 * turned user namespaces off). */
static bool userns_limit_is_zero(void)
{
	char buf[32] = "";
	int fd = open("/proc/sys/user/max_user_namespaces", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	return n > 0 && strtol(buf, NULL, 10) == 0;
}

static int made_one(void *arg)
{
	(void)arg;
	/* Its exit would close what it inherited, maybe the last copy of a
	 * lingering socket: bounded (fds.h), or our waitpid waits it out. */
	fds_close_from_bounded(0);
	return 0;
}

/* Whether this caller may make a user namespace outside sbx (the sysctls,
 * AppArmor, a container's profile): asked of the kernel by a clone into a
 * new one (sharing our memory until it exits at once: no copy of serve, no
 * fork handlers), and remembered for the process once the kernel answered.
 * Not a failure to ask: the command can take every process its user may
 * have (EAGAIN), and its own nested namespaces count against the limit; a
 * transient "no" remembered would hide every later run's refusal. */
static bool host_allows_userns(void)
{
	static int known = -1;
	int v = __atomic_load_n(&known, __ATOMIC_RELAXED);

	if (v < 0) {
		char stack[16384] __attribute__((aligned(16)));
		pid_t pid = clone(made_one, stack + sizeof(stack),
				  CLONE_VM | CLONE_VFORK | CLONE_NEWUSER | SIGCHLD, NULL);

		if (pid > 0) {
			/* Made, whoever reaps it (serve's end of another run
			 * takes any child of ours it finds). */
			waitpid(pid, NULL, __WALL);
			v = 1;
		} else if (errno == EPERM || errno == EACCES ||
			   (errno == ENOSPC && userns_limit_is_zero())) {
			v = 0; /* refused; a limit of 0 is "turned off" */
		} else {
			return false; /* not known now: not counted, asked again */
		}
		__atomic_store_n(&known, v, __ATOMIC_RELAXED);
	}
	return v == 1;
}

/* The directory a new entry would go in, writable and searchable by the
 * caller (mkdir, mknod, creat, open with O_CREAT). */
static bool could_create(struct sv_call *c, int dirfd, uint64_t addr)
{
	char path[PATH_MAX], proc[40];
	const char *dir, *name;
	int h;
	bool ok;

	if (sv_read_string(c, addr, path, sizeof(path)) < 0)
		return false;
	sv_split_path(path, &dir, &name);
	h = sv_resolve(c, dirfd, dir, SV_FOLLOW);
	if (h < 0)
		return false;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", h);
	/* Our threads hold the command's uid and capabilities. The kernel
	 * checks permission first and a read-only mount last (EROFS): that
	 * one is the namespace runner's view, not what the caller meets
	 * without sbx. */
	ok = faccessat(AT_FDCWD, proc, W_OK | X_OK, AT_EACCESS) == 0 || errno == EROFS;
	close(h);
	return ok;
}

static bool root_caller(const struct sv_call *c)
{
	return (c->sv->caps & (1ULL << CAP_DAC_OVERRIDE)) != 0;
}

bool sv_rules_refusal_counts(struct sv_call *c)
{
	const __u64 *a = c->n.data.args;

	/* The other ABIs' numbers differ: counted, as their calls are rare. */
	if (!syscall_abi_native_table(&c->n.data))
		return true;
	switch (syscall_abi_nr(&c->n.data)) {
#ifdef SYSCALL_ABI_LEGACY_PATHS
	case SYS_chmod:
		return sv_chmod_refusal_counts(c);
	case SYS_mkdir: case SYS_mknod: case SYS_creat: case SYS_open:
		return could_create(c, AT_FDCWD, a[0]);
#endif
	case SYS_fchmod: case SYS_fchmodat: case 452 /* fchmodat2 */:
		return sv_chmod_refusal_counts(c);
	case SYS_mkdirat: case SYS_mknodat: case SYS_openat:
		return could_create(c, (int)a[0], a[1]);
	case SYS_unshare: case SYS_clone:
		if (!(a[0] & (CLONE_NAMESPACES | (c->n.data.nr == SYS_unshare ? CLONE_NEWTIME : 0))))
			return true; /* CLONE_PARENT */
		/* Without one of its own, a namespace needs CAP_SYS_ADMIN:
		 * root's outside sbx, nobody else's. */
		return root_caller(c) || ((a[0] & CLONE_NEWUSER) && host_allows_userns());
	case SYS_setns: case SYS_mount: case SYS_umount2: case SYS_pivot_root:
	case 430 /* fsopen */: case 431 /* fsconfig */: case 432 /* fsmount */:
	case 433 /* fspick */: case 428 /* open_tree */: case 429 /* move_mount */:
	case 442 /* mount_setattr */: case 467 /* open_tree_attr */:
		return root_caller(c);
	default:
		/* keyrings, terminal injection, other processes' limits: the
		 * caller's own, outside sbx */
		return true;
	}
}
