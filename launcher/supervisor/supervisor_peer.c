/* SPDX-License-Identifier: MIT */
/* Whose is a listening socket? A socket in the writable set is reachable only
 * when a process of ours (a run's) listens on it: under the landlock runner
 * /tmp is the host's, and the caller's tmux, X server or ssh-agent listen
 * there. Asked before the command's socket is connected (supervisor_net.c):
 * first whether a process of ours holds the listening socket bound to the
 * file, else on a connection of sbx's own, whose listener identity is the
 * credential the kernel recorded at listen(2): a pidfd where the kernel has
 * SO_PEERPIDFD (6.5+), which names that very process even if its pid was
 * reused; else a pid, checked against the socket file's age. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "supervisor_int.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif
/* Descriptors looked at per process when looking for a listener's holder,
 * and processes per run. */
#define HOLDER_MAX_FDS 1024
#define RUN_TREE_MAX 4096
#ifndef SIOCUNIXFILE
#define SIOCUNIXFILE (SIOCPROTOPRIVATE + 0)
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

/* One field of /proc/<pid>/stat after the command name (which may hold
 * spaces and parentheses): index 0 is the state, 1 the ppid, 19 starttime. */
static bool stat_field(pid_t pid, int index, unsigned long long *out)
{
	char path[32], buf[1024];
	char *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (sv_read_small(AT_FDCWD, path, buf, sizeof(buf)) < 0)
		return false;
	p = strrchr(buf, ')');
	if (!p)
		return false;
	p++;
	for (int i = 0; i <= index; i++) {
		while (*p == ' ')
			p++;
		if (i == index)
			break;
		while (*p && *p != ' ')
			p++;
	}
	if (!*p)
		return false;
	*out = strtoull(p, NULL, 10);
	return true;
}

/* pid is a confined run's process: one of their first processes, or below
 * one (supervisor_runs.c). Not merely below sbx: a danger-full-access run's
 * daemon is as much the host's as the user's own. */
static bool in_confined_run(pid_t pid)
{
	for (int depth = 0; depth < 4096 && pid > 1; depth++) {
		unsigned long long ppid;

		if (sv_runs_root(pid))
			return true;
		if (!stat_field(pid, 1, &ppid))
			return false;
		pid = (pid_t)ppid;
	}
	return false;
}

/* The pid a pidfd names in our PID namespace; -1 once that process is gone. */
static pid_t pidfd_pid(int pidfd)
{
	char path[40], buf[512];

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
	if (sv_read_small(AT_FDCWD, path, buf, sizeof(buf)) < 0)
		return -1;
	return (pid_t)sv_field(buf, "\nPid:", 10);
}

static int peer_pidfd(int sock)
{
	int pidfd = -1;
	socklen_t len = sizeof(pidfd);

	if (getsockopt(sock, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) < 0)
		return -errno;
	return pidfd;
}

bool supervisor_peer_pidfd(void)
{
	static int have = -1;

	if (have < 0) {
		int sv[2], pidfd = -1;

		have = 0;
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0) {
			pidfd = peer_pidfd(sv[0]);
			have = pidfd >= 0;
			if (pidfd >= 0)
				close(pidfd);
			close(sv[0]);
			close(sv[1]);
		}
	}
	return have == 1;
}

/* The process started before the socket file was made: a listener from
 * before it cannot have recycled its pid into ours. Birth time where the
 * file system keeps one, else the change time (which a command can bump:
 * the weaker guard of kernels without SO_PEERPIDFD). */
static bool started_before_file(pid_t pid, int socket_file)
{
	struct statx sx;
	unsigned long long start_ticks;
	struct timespec now, up;
	long long boot;
	long tick = sysconf(_SC_CLK_TCK);

	if (socket_file < 0)
		return true; /* abstract: no file to compare with */
	if (statx(socket_file, "", AT_EMPTY_PATH, STATX_BTIME | STATX_CTIME, &sx) < 0 ||
	    !stat_field(pid, 19, &start_ticks) || tick <= 0)
		return false;
	/* The boot time as /proc/stat's btime gives it (which a single read
	 * may not reach on a machine with many CPUs and interrupts). */
	if (clock_gettime(CLOCK_REALTIME, &now) < 0 || clock_gettime(CLOCK_BOOTTIME, &up) < 0)
		return false;
	boot = (long long)now.tv_sec - (long long)up.tv_sec;
	long long made = (sx.stx_mask & STATX_BTIME) ? sx.stx_btime.tv_sec : sx.stx_ctime.tv_sec;
	/* One second of slack: boot time and tick rounding. */
	return (long long)(boot + start_ticks / (unsigned long long)tick) <= made + 1;
}

static bool recorded_listener_is_ours(int sock, int socket_file)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int pidfd = peer_pidfd(sock);
	pid_t pid;
	bool ours;

	if (pidfd >= 0) {
		pid = pidfd_pid(pidfd);
		ours = pid > 0 && in_confined_run(pid);
		/* Still alive now, so the pid we walked from was that process
		 * all along. */
		ours = ours && pidfd_pid(pidfd) == pid;
		close(pidfd);
		return ours;
	}
	/* A kernel with SO_PEERPIDFD that gives none: the listener is gone
	 * (EINVAL, ESRCH), and a pid would only name whoever has it now. */
	if (supervisor_peer_pidfd())
		return false;
	if (getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 || cred.pid <= 0)
		return false;
	return in_confined_run(cred.pid) && started_before_file(cred.pid, socket_file);
}

/* The listening pathname sockets of a network namespace's unix table (fd:
 * its /proc/PID/net/unix, ours to close, read from the start): their sockfs
 * inodes, candidates only. The table is text a command can forge lines of
 * (a socket path may hold a newline): what decides is that a process of
 * ours holds the socket and that the socket itself says it is bound to the
 * file (socket_bound_to). */
static size_t listeners_in(int fd, unsigned long *ino, size_t max)
{
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	char line[512 + 108];
	size_t n = 0;

	if (!f) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	rewind(f);
	/* "Num RefCount Protocol Flags Type St Inode Path" */
	while (n < max && fgets(line, sizeof(line), f)) {
		unsigned long flags, inode;
		char path[512];

		if (sscanf(line, "%*s %*s %*s %lx %*s %*s %lu %511s", &flags, &inode, path) == 3 &&
		    (flags & 0x10000 /* __SO_ACCEPTCON: listening */) && path[0] != '@')
			ino[n++] = inode;
	}
	fclose(f);
	return n;
}

/* sock (our copy) is bound to the file st describes, as the socket itself
 * says (SIOCUNIXFILE opens its file). That needs CAP_NET_ADMIN over the
 * socket's network namespace: ours only where the run's belongs to a user
 * namespace the caller made (--net none; a root caller's landlock run has
 * none), never over the host's. */
static bool socket_bound_to(int sock, const struct stat *st)
{
	struct stat fs;
	int f = ioctl(sock, SIOCUNIXFILE, 0);
	bool same = f >= 0 && fstat(f, &fs) == 0 && fs.st_dev == st->st_dev &&
		    fs.st_ino == st->st_ino;

	if (f >= 0)
		close(f);
	return same;
}

/* pid's fd, copied: one of these socket inodes and, where bound is given,
 * bound to that file. */
static bool copy_matches(int got, const unsigned long *ino, size_t n, const struct stat *bound)
{
	struct stat st;

	if (fstat(got, &st) < 0 || !S_ISSOCK(st.st_mode))
		return false;
	for (size_t i = 0; i < n; i++)
		if (st.st_ino == ino[i])
			return !bound || socket_bound_to(got, bound);
	return false;
}

/* A process of ours whose /proc/<pid>/fd we may not list (non-dumpable, as
 * ssh-agent makes itself: its /proc files become root's) but may inspect
 * (we own its user namespace): ask for its descriptors one by one. */
static bool holds_socket_by_getfd(struct supervisor *sv, pid_t pid, const unsigned long *ino,
				  size_t n, const struct stat *bound)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	bool found = false;

	if (pidfd < 0)
		return false;
	for (int fd = 0; fd < HOLDER_MAX_FDS && !found; fd++) {
		int got = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);

		if (got < 0) {
			if (errno != EBADF)
				break; /* EPERM: not ours to inspect */
			continue;
		}
		found = copy_matches(got, ino, n, bound);
		sv_release_fd(sv, got);
	}
	close(pidfd);
	return found;
}

/* pid holds a socket with one of these inodes (and bound to bound's file,
 * where given: asked of a copy). */
static bool holds_socket(struct supervisor *sv, pid_t pid, const unsigned long *ino, size_t n,
			 const struct stat *bound)
{
	char dir[32], link[64], want[40];
	struct dirent *e;
	bool found = false;
	int pidfd = -1;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", pid);
	d = opendir(dir);
	if (!d && errno == EACCES)
		return holds_socket_by_getfd(sv, pid, ino, n, bound);
	/* A listening socket is among a server's first descriptors; a process
	 * of another run holding thousands must not make every connect slow. */
	for (int k = 0; d && !found && k < HOLDER_MAX_FDS && (e = readdir(d)); k++) {
		ssize_t len = readlinkat(dirfd(d), e->d_name, link, sizeof(link) - 1);
		bool named = false;

		if (len <= 0)
			continue;
		link[len] = '\0';
		for (size_t i = 0; i < n && !named; i++) {
			snprintf(want, sizeof(want), "socket:[%lu]", ino[i]);
			named = strcmp(link, want) == 0;
		}
		if (named && bound) {
			int got;

			if (pidfd < 0)
				pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
			got = pidfd >= 0 ? (int)syscall(SYS_pidfd_getfd, pidfd, atoi(e->d_name), 0) : -1;
			named = got >= 0 && copy_matches(got, ino, n, bound);
			if (got >= 0)
				sv_release_fd(sv, got);
		}
		found = named;
	}
	if (d)
		closedir(d);
	if (pidfd >= 0)
		close(pidfd);
	return found;
}

/* root and the processes below it, breadth first, from each thread's list
 * of children (as serve's end of a run reads them, tree.c): at most max. */
static size_t run_tree(pid_t root, pid_t *out, size_t max)
{
	size_t n = 0;

	if (max)
		out[n++] = root;
	for (size_t i = 0; i < n; i++) {
		char path[64], buf[4096];
		struct dirent *e;
		DIR *d;

		snprintf(path, sizeof(path), "/proc/%d/task", (int)out[i]);
		d = opendir(path);
		while (d && (e = readdir(d))) {
			char cpath[384];
			ssize_t len;
			int fd;

			if (e->d_name[0] == '.')
				continue;
			snprintf(cpath, sizeof(cpath), "%s/%s/children", path, e->d_name);
			fd = open(cpath, O_RDONLY | O_CLOEXEC);
			len = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
			if (fd >= 0)
				close(fd);
			if (len <= 0)
				continue;
			buf[len] = '\0';
			for (char *p = buf, *end; *p && n < max; p = end) {
				long v = strtol(p, &end, 10);

				if (end == p)
					break;
				if (v > 0)
					out[n++] = (pid_t)v;
			}
		}
		if (d)
			closedir(d);
	}
	return n;
}

/* A process of a confined run holds a socket with one of these inodes (and
 * bound to bound's file, where given). Read from the kernel's lists of
 * children, not a walk of all of /proc, which every connect would pay for:
 * this run's processes first, then the other runs' (a serve's background
 * task holding thousands of descriptors slows only a connect to a server
 * of its own). */
static bool held_by_a_run(struct supervisor *sv, const unsigned long *ino, size_t n,
			  const struct stat *bound, bool this_run_only)
{
	pid_t roots[64], *tree = malloc(RUN_TREE_MAX * sizeof(*tree));
	size_t n_roots;
	bool ours = false;

	roots[0] = sv->run;
	n_roots = 1 + (this_run_only ? 0 : sv_runs_list(roots + 1, sizeof(roots) / sizeof(roots[0]) - 1,
							 sv->run));
	for (size_t r = 0; tree && r < n_roots && !ours; r++) {
		size_t n_tree = roots[r] > 0 && sv_runs_root(roots[r])
					? run_tree(roots[r], tree, RUN_TREE_MAX)
					: 0;

		for (size_t i = 0; i < n_tree && !ours; i++)
			ours = holds_socket(sv, tree[i], ino, n, bound);
	}
	free(tree);
	return ours;
}

struct by_file {
	const struct stat *st;
	unsigned long *ino;
	size_t n, max;
};

static void by_file_one(void *ctx, const struct unix_diag_msg *m, const char *name,
			size_t name_len, const struct unix_diag_vfs *vfs)
{
	struct by_file *b = ctx;

	(void)name;
	(void)name_len;
	if (sv_unix_diag_vfs_is(vfs, b->st) && b->n < b->max)
		b->ino[b->n++] = m->udiag_ino;
}

/* The sockfs inodes of the listening unix sockets bound to the file st
 * describes, in our network namespace: sock_diag's UDIAG_SHOW_VFS names the
 * inode a socket is bound to (held while it is bound, so never reused), not
 * a path that may name another file by now. */
static size_t listeners_bound_to(const struct stat *st, unsigned long *ino, size_t max)
{
	struct by_file b = { st, ino, 0, max };

	sv_unix_diag_each(1U << 10 /* TCP_LISTEN */, UDIAG_SHOW_VFS, by_file_one, &b);
	return b.n;
}

bool sv_peer_listener_is_ours(struct supervisor *sv, int sock, int socket_file)
{
	/* Alive and ours, or noted when it called listen(2). */
	return recorded_listener_is_ours(sock, socket_file) || sv_listener_recorded(sv, sock);
}

bool sv_bound_listener_is_ours(struct supervisor *sv, int socket_file, int net_unix)
{
	unsigned long ino[64];
	struct stat st;
	bool ours, other_netns = false;
	size_t n;

	if (socket_file < 0 || fstat(socket_file, &st) < 0)
		return false;
	/* A process of ours holds the listening socket bound to this very
	 * file: a server the run started, also one that listened and then
	 * forked (ssh-agent, gpg-agent: the process listen(2) recorded is
	 * gone). A socket file is bound to one socket for good, so what we
	 * find here is what a connect through our handle reaches. sock_diag
	 * names the file a socket is bound to in our network namespace; in
	 * the run's own (--net none) the socket itself does. */
	n = listeners_bound_to(&st, ino, 8);
	if (n == 0 && net_unix >= 0) {
		n = listeners_in(dup(net_unix), ino, sizeof(ino) / sizeof(ino[0]));
		other_netns = true;
	}
	if (n == 0)
		return false;
	ours = held_by_a_run(sv, ino, n, other_netns ? &st : NULL, false);
	return ours;
}

bool sv_run_holds_socket(struct supervisor *sv, const unsigned long *ino, size_t n)
{
	return n > 0 && held_by_a_run(sv, ino, n, NULL, true);
}
