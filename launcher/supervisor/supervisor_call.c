/* SPDX-License-Identifier: MIT */
/* One supervised call's view of the command: its memory, its fds, and the
 * objects its paths name, looked up the way the command would (its cwd, its
 * root, its mount namespace) but by us, once, into a handle we then act on. */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "supervisor_int.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL /* Linux 6.9 */
#endif

static bool no_process_vm; /* process_vm_readv is ENOSYS here: use /proc/<tid>/mem */

void sv_call_init(struct sv_call *c, struct supervisor *sv)
{
	memset(c, 0, sizeof(*c));
	c->sv = sv;
	c->proc = c->pidfd = c->mem = -1;
}

void sv_call_release(struct sv_call *c)
{
	if (c->proc >= 0)
		close(c->proc);
	if (c->pidfd >= 0)
		close(c->pidfd);
	if (c->mem >= 0)
		close(c->mem);
	c->proc = c->pidfd = c->mem = -1;
}

int sv_proc_dir(struct sv_call *c)
{
	char path[32];

	if (c->proc >= 0)
		return c->proc;
	snprintf(path, sizeof(path), "/proc/%u", c->n.pid);
	c->proc = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return c->proc >= 0 ? c->proc : -errno;
}

static int mem_fd(struct sv_call *c)
{
	int proc = sv_proc_dir(c);

	if (proc < 0)
		return proc;
	if (c->mem < 0)
		c->mem = openat(proc, "mem", O_RDONLY | O_CLOEXEC);
	return c->mem >= 0 ? c->mem : -EFAULT;
}

/* A read of the command's memory that must be whole. Anything the
 * kernel refuses (a bad address, a process we may not inspect) is EFAULT to
 * the command: its pointer was not usable. */
static int transfer(struct sv_call *c, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { .iov_base = buf, .iov_len = len };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)addr, .iov_len = len };
	ssize_t n;

	if (len == 0)
		return 0;
	if (!no_process_vm) {
		n = process_vm_readv((pid_t)c->n.pid, &local, 1, &remote, 1, 0);
		if (n == (ssize_t)len)
			return 0;
		if (n >= 0 || errno != ENOSYS)
			return -EFAULT;
		no_process_vm = true;
	}
	int fd = mem_fd(c);

	if (fd < 0)
		return -EFAULT;
	n = pread(fd, buf, len, (off_t)addr);
	return n == (ssize_t)len ? 0 : -EFAULT;
}

int sv_read(struct sv_call *c, uint64_t addr, void *buf, size_t len)
{
	return transfer(c, addr, buf, len);
}

int sv_open_mem(struct sv_call *c)
{
	int proc = sv_proc_dir(c), fd;

	if (proc < 0)
		return -1;
	fd = openat(proc, "mem", O_RDWR | O_CLOEXEC);
	return fd >= 0 ? fd : -1;
}

/* Page by page: a string may end just before an unmapped page. */
int sv_read_string(struct sv_call *c, uint64_t addr, char *buf, size_t size)
{
	size_t got = 0;

	if (addr == 0)
		return -EFAULT;
	while (got < size) {
		size_t page_left = 4096 - ((addr + got) & 4095);
		size_t want = size - got < page_left ? size - got : page_left;
		int rc = sv_read(c, addr + got, buf + got, want);

		if (rc < 0)
			return rc;
		if (memchr(buf + got, '\0', want))
			return 0;
		got += want;
	}
	return -ENAMETOOLONG;
}

bool sv_still_valid(struct sv_call *c)
{
	__u64 id = c->n.id;

	return ioctl(c->sv->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

ssize_t sv_read_small(int dirfd, const char *name, char *buf, size_t size)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return n;
}

long long sv_field(const char *buf, const char *key, int base)
{
	const char *p = strstr(buf, key);

	return p ? strtoll(p + strlen(key), NULL, base) : -1;
}

pid_t sv_tgid(struct sv_call *c)
{
	char buf[1024];
	int proc = sv_proc_dir(c);

	if (proc < 0 || sv_read_small(proc, "status", buf, sizeof(buf)) < 0)
		return -1;
	return (pid_t)sv_field(buf, "\nTgid:", 10);
}

int sv_pidfd(struct sv_call *c)
{
	pid_t tgid;

	if (c->pidfd >= 0)
		return c->pidfd;
	c->pidfd = (int)syscall(SYS_pidfd_open, c->n.pid, 0);
	/* Not a thread group's leader (EINVAL, or ENOENT on newer kernels):
	 * the thread itself where the kernel allows (its own fd table if it
	 * unshared one), else its group. Either way the pid is checked
	 * against the call (ID_VALID) afterwards. */
	if (c->pidfd < 0)
		c->pidfd = (int)syscall(SYS_pidfd_open, c->n.pid, PIDFD_THREAD);
	if (c->pidfd < 0 && (tgid = sv_tgid(c)) > 0)
		c->pidfd = (int)syscall(SYS_pidfd_open, tgid, 0);
	return c->pidfd >= 0 ? c->pidfd : -errno;
}

int sv_getfd(struct sv_call *c, int fd)
{
	int pidfd = sv_pidfd(c);
	int got;

	if (pidfd < 0)
		return pidfd;
	if (fd < 0)
		return -EBADF;
	got = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	if (got >= 0)
		return got;
	/* EBADF: no such fd in the command. Anything else (EPERM: a process
	 * we may not inspect) is a refusal. */
	return errno == EBADF ? -EBADF : -EACCES;
}

/* An O_PATH handle on the object behind the command's fd, for a look-up
 * from it: the magic link /proc/<tid>/fd/N reopened, never the command's
 * own open file (pidfd_getfd). Why: our close of a copy may be the last one
 * (the command closed its fd, or exited, meanwhile), and the last close of
 * a TCP socket with SO_LINGER waits until the peer takes its data, for as
 * long as the command set: the dispatcher would hang, and every later call
 * of the run with it, and in serve it would outlive the run. An O_PATH file
 * is released with nothing to wait for. */
int sv_fd_path(struct sv_call *c, int fd)
{
	char name[24];
	int proc = sv_proc_dir(c), h;

	if (proc < 0)
		return proc;
	if (fd < 0)
		return -EBADF;
	snprintf(name, sizeof(name), "fd/%d", fd);
	h = openat(proc, name, O_PATH | O_CLOEXEC);
	if (h >= 0)
		return h;
	return errno == ENOENT ? -EBADF : -EACCES;
}

int sv_fd_flags(struct sv_call *c, int fd)
{
	char name[32], buf[512];
	int proc = sv_proc_dir(c);
	long long flags;

	if (proc < 0)
		return proc;
	snprintf(name, sizeof(name), "fdinfo/%d", fd);
	if (fd < 0 || sv_read_small(proc, name, buf, sizeof(buf)) < 0)
		return -EBADF;
	flags = sv_field(buf, "\nflags:", 8);
	return flags < 0 ? -EBADF : (int)flags;
}

static int read_link(int dirfd, const char *name, char *buf, size_t size)
{
	ssize_t n = readlinkat(dirfd, name, buf, size - 1);

	if (n < 0)
		return -errno;
	if ((size_t)n >= size - 1)
		return -ENAMETOOLONG;
	buf[n] = '\0';
	return 0;
}

/* The command's root as d_path shows it to us: "/" when it is the root of
 * its mount namespace (the runners never chroot), a prefix otherwise (a
 * nested sandbox that did). */
static int command_root(struct sv_call *c)
{
	int proc = sv_proc_dir(c), rc;

	if (c->have_root)
		return 0;
	if (proc < 0)
		return proc;
	rc = read_link(proc, "root", c->root, sizeof(c->root));
	if (rc < 0)
		return rc;
	c->have_root = true;
	return 0;
}

/* path (from d_path) as the command sees it: without its root's prefix. */
static int strip_root(struct sv_call *c, char *path)
{
	size_t len = strlen(c->root);

	/* Not a path ("pipe:[12]", "anon_inode:[eventfd]"): -ENOENT. */
	if (strcmp(c->root, "/") == 0)
		return path[0] == '/' ? 0 : -ENOENT;
	if (strncmp(path, c->root, len) != 0 || (path[len] != '/' && path[len] != '\0'))
		return -EACCES; /* outside its own root: nothing we will act on */
	memmove(path, path + len, strlen(path + len) + 1);
	if (path[0] == '\0')
		strcpy(path, "/");
	return 0;
}

int sv_view_path(struct sv_call *c, int handle, char *buf, size_t size)
{
	char link[32];

	(void)c;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", handle);
	return read_link(AT_FDCWD, link, buf, size);
}

/* The directory a relative path starts from, as a command-view path. */
static int start_dir(struct sv_call *c, int dirfd, char *buf, size_t size)
{
	int proc = sv_proc_dir(c), fd, rc;
	struct stat st;

	if (proc < 0)
		return proc;
	if (dirfd == AT_FDCWD) {
		rc = read_link(proc, "cwd", buf, size);
		return rc < 0 ? rc : strip_root(c, buf);
	}
	fd = sv_fd_path(c, dirfd);
	if (fd < 0)
		return fd;
	rc = fstat(fd, &st) < 0 ? -errno : S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
	if (rc == 0)
		rc = sv_view_path(c, fd, buf, size);
	close(fd);
	return rc < 0 ? rc : strip_root(c, buf);
}

/* The command's root is ours (same mount, same directory): the common case,
 * where paths may be looked up from our own root, with fewer trips through
 * /proc. Not so after a nested sandbox's chroot or mount namespace. */
static bool same_root_as_ours(struct sv_call *c)
{
	static struct statx ours;
	static int known; /* 0: not asked, 1: yes, -1: no STATX_MNT_ID */
	struct statx sx;
	char link[40];

	if (known == 0) {
		struct statx me;

		if (statx(AT_FDCWD, "/", 0, STATX_INO | STATX_MNT_ID, &me) == 0 &&
		    (me.stx_mask & STATX_MNT_ID)) {
			ours = me;
			__atomic_store_n(&known, 1, __ATOMIC_RELEASE);
		} else {
			__atomic_store_n(&known, -1, __ATOMIC_RELEASE);
		}
	}
	if (__atomic_load_n(&known, __ATOMIC_ACQUIRE) != 1)
		return false;
	snprintf(link, sizeof(link), "/proc/%u/root", c->n.pid);
	if (statx(AT_FDCWD, link, 0, STATX_INO | STATX_MNT_ID, &sx) < 0 ||
	    !(sx.stx_mask & STATX_MNT_ID))
		return false;
	return sx.stx_mnt_id == ours.stx_mnt_id && sx.stx_ino == ours.stx_ino &&
	       sx.stx_dev_major == ours.stx_dev_major && sx.stx_dev_minor == ours.stx_dev_minor;
}

/* Looked up from our own root (same_root_as_ours). */
static int resolve_here(struct sv_call *c, int dirfd, const char *path, struct open_how *how)
{
	int base = AT_FDCWD, fd, rc;

	if (path[0] != '/' && dirfd == AT_FDCWD) {
		char cwd[40];

		snprintf(cwd, sizeof(cwd), "/proc/%u/cwd", c->n.pid);
		base = open(cwd, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (base < 0)
			return errno == ENOENT ? -ENOENT : -EACCES;
	} else if (path[0] != '/') {
		base = sv_fd_path(c, dirfd);
		if (base < 0)
			return base;
	}
	how->resolve = RESOLVE_NO_MAGICLINKS;
	fd = (int)syscall(SYS_openat2, base, path, how, sizeof(*how));
	rc = fd < 0 ? -errno : fd;
	if (base >= 0)
		close(base);
	return rc;
}

/* "/proc/self/fd/N[/rest]" and its spellings: the command's own fd N, as
 * the kernel's magic link would take it (glibc emulates fchmodat's
 * AT_SYMLINK_NOFOLLOW and lchmod so; programs connect to long socket paths
 * so). Our own /proc/self would be sbx's. N, or -1 for any other path. */
static int magic_fd(const char *path, const char **rest)
{
	static const char *const prefixes[] = { "/proc/self/fd/", "/proc/thread-self/fd/", "/dev/fd/" };

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		size_t len = strlen(prefixes[i]);
		const char *p = path + len;
		long n = 0;

		if (strncmp(path, prefixes[i], len) != 0 || *p < '0' || *p > '9')
			continue;
		while (*p >= '0' && *p <= '9' && n < 1000000000)
			n = n * 10 + (*p++ - '0');
		if (*p != '\0' && *p != '/')
			return -1;
		*rest = p;
		return (int)n;
	}
	return -1;
}

int sv_resolve(struct sv_call *c, int dirfd, const char *path, int flags)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC | ((flags & SV_FOLLOW) ? 0 : O_NOFOLLOW),
		/* IN_ROOT: absolute paths and ".." stay in the command's root.
		 * NO_MAGICLINKS: /proc/self/... would be sbx's, not the
		 * command's; what it names through them is refused. */
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	char abs[PATH_MAX * 2];
	const char *rest = NULL;
	int proc, root, fd, rc, n = magic_fd(path, &rest);

	if (n >= 0) {
		fd = sv_fd_path(c, n);
		if (fd < 0 || rest[0] == '\0')
			return fd == -EBADF ? -ENOENT : fd;
		/* below a directory fd: from its path in the command's view */
		rc = command_root(c);
		if (rc == 0)
			rc = sv_view_path(c, fd, abs, PATH_MAX);
		close(fd);
		if (rc == 0)
			rc = strip_root(c, abs);
		if (rc < 0)
			return rc;
		if (strlen(abs) + strlen(rest) >= PATH_MAX)
			return -ENAMETOOLONG;
		strcat(abs, rest);
		path = abs;
	}
	if (path[0] != '\0' && same_root_as_ours(c)) {
		strcpy(c->root, "/");
		c->have_root = true;
		return resolve_here(c, dirfd, path, &how);
	}
	proc = sv_proc_dir(c);
	if (proc < 0)
		return proc;
	rc = command_root(c);
	if (rc < 0)
		return rc;
	if (path[0] == '\0') {
		if (!(flags & SV_EMPTY_OK))
			return -ENOENT;
		/* The fd's own object: an O_PATH reopen of it is the handle
		 * (sv_fd_path: never the command's own open file). */
		if (dirfd != AT_FDCWD)
			return sv_fd_path(c, dirfd);
		path = ".";
	}
	if (path[0] == '/') {
		if (strlen(path) >= sizeof(abs))
			return -ENAMETOOLONG;
		if (path != abs)
			strcpy(abs, path);
	} else {
		rc = start_dir(c, dirfd, abs, PATH_MAX);
		if (rc < 0)
			return rc;
		size_t len = strlen(abs);

		if (len + 1 + strlen(path) >= PATH_MAX)
			return -ENAMETOOLONG;
		snprintf(abs + len, sizeof(abs) - len, "/%s", path);
	}
	root = openat(proc, "root", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return -EACCES;
	fd = (int)syscall(SYS_openat2, root, abs, &how, sizeof(how));
	rc = fd < 0 ? -errno : fd;
	close(root);
	return rc;
}

bool sv_split_path(char *path, const char **dir, const char **name)
{
	size_t len = strlen(path);
	char *slash;

	while (len > 1 && path[len - 1] == '/')
		path[--len] = '\0';
	slash = strrchr(path, '/');
	if (!slash) {
		*dir = ".", *name = path;
	} else {
		*name = slash + 1;
		*dir = slash == path ? "/" : path;
		*slash = '\0';
	}
	return **name && strcmp(*name, ".") != 0 && strcmp(*name, "..") != 0;
}
