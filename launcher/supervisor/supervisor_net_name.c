/* SPDX-License-Identifier: MIT */
/* The name a socket call gives its peer, decided where the kernel would look
 * it up: a unix path in the command's view (the allow-list, or a socket of
 * the run's own in its writable set), an abstract name (the allow-list, or
 * the kernel's scope in the run's scope domain, or a socket of the run's own:
 * supervisor_abstract.c), any other family as it is. A decided unix path is
 * replaced by our handle on the socket file, so the call reaches the file we
 * decided on, never a name looked up again. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "classify.h" /* path_is_within */
#include "scope_thread.h"
#include "supervisor_net.h"

/* The abstract name as the allow-list writes it: '@', NULs as '@'. Text for
 * the deployment's own entries only: no decision of ours reads it. Why a
 * name with a NUL inside it (one followed by anything but NULs) is never
 * listed: '@' stands for both, so an entry "@a@b" would also admit a host
 * socket "\0a\0b" the deployment never named; only a name's NUL padding
 * at its end is written as '@'. false: no entry can name it. */
static bool abstract_name(const struct sockaddr_un *a, socklen_t len, char *out, size_t size)
{
	size_t n = len - offsetof(struct sockaddr_un, sun_path) - 1, k = 0, end = n;

	while (end > 0 && a->sun_path[end] == '\0')
		end--;
	if (memchr(a->sun_path + 1, '\0', end))
		return false;
	out[k++] = '@';
	for (size_t i = 0; i < n && k + 1 < size; i++)
		out[k++] = a->sun_path[1 + i] ? a->sun_path[1 + i] : '@';
	out[k] = '\0';
	return true;
}

static bool listed(struct supervisor *sv, const char *name)
{
	return supervise_socket_listed((const char *const *)sv->allow, sv->n_allow, name);
}

/* The entry at path (a directory on the way to a socket, or the socket)
 * changed outside the window of every recorded confined run that could
 * have linked or renamed it there: one that could write in a place strictly
 * above it (this run's own among them). Why the past ones too: a hard link
 * or a rename an earlier run made is older than this run, and the next run
 * would reach it. */
static bool outside_runs(const struct supervisor *sv, const char *path, const struct stat *st)
{
	size_t n = strlen(path);

	uint64_t t;

	if (st->st_ctim.tv_sec < 0)
		return true;
	t = (uint64_t)st->st_ctim.tv_sec * 1000000000u + (uint64_t)st->st_ctim.tv_nsec;
	for (size_t i = 0; i < sv->n_past; i++) {
		const struct supervise_window *w = &sv->past[i];

		if (t >= w->from && t <= w->to && path_is_within(path, w->below) &&
		    (strcmp(w->below, "/") == 0 || n > strlen(w->below)))
			return false;
	}
	return true;
}

static bool before_run(const struct supervisor *sv, const struct stat *st)
{
	return st->st_ctim.tv_sec < sv->started.tv_sec ||
	       (st->st_ctim.tv_sec == sv->started.tv_sec && st->st_ctim.tv_nsec < sv->started.tv_nsec);
}

/* Whether the socket at view, reached through entry, is target and was
 * named there by its daemon: walked down from "/" by our own look-ups,
 * following no symlink (view is canonical), each directory and the socket
 * held as we go, so that the path names target for us too. Named by its
 * daemon: its listener was bound with exactly this path
 * (sv_bound_by_that_name); or, where it was not (a relative name, a path
 * through a symlink, another network namespace), no confined run changed
 * anything on the way: each directory down to the entry's fixed one (what
 * precedes its first '*') outside every run's window, each below it and
 * the socket before this run began too. Why each of them: `*` matches '/',
 * and a rename moves a directory with its sockets' ctimes untouched, so a
 * daemon's directory renamed in at or above the allowed place brings its
 * socket along; a rename sets the moved directory's ctime, a link or a
 * rename of the socket the socket's. The fixed directory and those above it
 * are not held to this run's start: an entry made in them by anyone (an X
 * server starting, a daemon's pid file in /run) sets theirs. */
static bool reached_before_run(const struct supervisor *sv, const char *entry, const char *view,
			       int target)
{
	char path[PATH_MAX];
	const char *star = strchr(entry, '*'), *slash;
	size_t fixed;
	struct stat a, b;
	bool ok = true, named;
	int fd;

	slash = star ? memrchr(entry, '/', (size_t)(star - entry)) : strrchr(entry, '/');
	if (!slash || view[0] != '/' || strlen(view) >= sizeof(path) ||
	    strncmp(view, entry, (size_t)(slash - entry) + 1) != 0)
		return false;
	fixed = (size_t)(slash - entry);
	snprintf(path, sizeof(path), "%s", view + 1);
	fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstat(target, &b) < 0) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	named = sv_bound_by_that_name(&b, view);
	for (char *name = path, *next; ok && name; name = next) {
		char here[PATH_MAX]; /* this entry's own path: view up to its end */
		size_t end;
		int down;

		next = strchr(name, '/');
		if (next)
			*next++ = '\0';
		end = (size_t)(name - path) + 1 + strlen(name);
		snprintf(here, sizeof(here), "%.*s", (int)end, view);
		down = openat(fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		ok = down >= 0 && fstat(down, &a) == 0 &&
		     (named || (outside_runs(sv, here, &a) && (end <= fixed || before_run(sv, &a)))) &&
		     (next ? S_ISDIR(a.st_mode) : a.st_dev == b.st_dev && a.st_ino == b.st_ino);
		close(fd);
		fd = down;
	}
	if (fd >= 0)
		close(fd);
	return ok;
}

/* An allow-list entry names a host path: the socket the command reached
 * must be the one that path names for us too, not something a nested mount
 * namespace of the command put there, and it must have been there before
 * the run (reached_before_run). */
static bool listed_here(struct supervisor *sv, const char *view, int target)
{
	for (size_t i = 0; i < sv->n_allow; i++) {
		const char *entry = sv->allow[i];

		if (entry && entry[0] == '/' && supervise_socket_listed(&entry, 1, view) &&
		    reached_before_run(sv, entry, view, target))
			return true;
	}
	return false;
}

/* Whether the caller has a network namespace of its own (--net none): then
 * every abstract socket it can name is one its run made. */
static bool private_netns(struct sv_call *c)
{
	struct stat mine, theirs;
	int dir = sv_proc_dir(c);

	return dir >= 0 && stat("/proc/self/ns/net", &mine) == 0 &&
	       fstatat(dir, "ns/net", &theirs, 0) == 0 && mine.st_ino != theirs.st_ino;
}

/* A unix address for a lookup: decide, and replace a path by our handle.
 * 0: go on (m->name holds what to use); 1: performed as given (no lookup
 * happens); -errno: refuse. *check_listener: connect must verify who
 * listens. */
static int decide_unix(struct sv_call *c, struct sv_net_op *op, struct net_msg *m,
		       bool *check_listener)
{
	struct sockaddr_un *a = (struct sockaddr_un *)&m->name;
	char path[sizeof(a->sun_path) + 1], view[PATH_MAX];
	size_t plen;
	struct stat st;
	int h;

	*check_listener = false;
	if (m->namelen <= offsetof(struct sockaddr_un, sun_path) ||
	    m->namelen > sizeof(struct sockaddr_un) || a->sun_family != AF_UNIX)
		return 1; /* the kernel refuses it without looking anything up */
	if (a->sun_path[0] == '\0') {
		/* The deployment named it: a host daemon it hands the command. */
		if (abstract_name(a, m->namelen, view, sizeof(view)) && listed(c->sv, view))
			return 0;
		/* Why not on our own thread: it has no Landlock domain, so a
		 * connect from it reaches every abstract socket of the host. On
		 * a thread of the run's scope domain the kernel decides, as for
		 * the command itself: the run's own sockets and nothing else. */
		if (c->sv->scope && scope_thread_use(c->sv->scope)) {
			op->scoped = true;
			return 0;
		}
		/* No scope: ours to decide, never by connecting to find out (a
		 * connection, even one closed at once, already reaches a host
		 * daemon: a session bus, an X server). */
		return sv_abstract_decide(c, op, m);
	}
	plen = m->namelen - offsetof(struct sockaddr_un, sun_path);
	memcpy(path, a->sun_path, plen);
	path[plen] = '\0';
	h = sv_resolve(c, AT_FDCWD, path, SV_FOLLOW);
	if (h < 0)
		return h;
	m->target = h;
	if (fstat(h, &st) < 0)
		return sv_refuse(c->sv, EACCES);
	if (!S_ISSOCK(st.st_mode))
		return -ECONNREFUSED; /* what the kernel says for a non-socket */
	if (sv_view_path(c, h, view, sizeof(view)) < 0)
		return sv_refuse(c->sv, EACCES);
	if (listed_here(c->sv, view, h)) {
		/* ok */
	} else if (op->type != SOCK_DGRAM && st.st_uid == geteuid() &&
		   supervise_in_writable(&c->sv->writable, view)) {
		*check_listener = true;
	} else {
		/* Counted where the caller could connect without sbx (write
		 * permission on the socket file), as a refused write is. */
		char proc[40];

		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", h);
		if (faccessat(AT_FDCWD, proc, W_OK, AT_EACCESS) == 0)
			return sv_refuse(c->sv, EACCES);
		return -EACCES;
	}
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	snprintf(a->sun_path, sizeof(a->sun_path), "/proc/self/fd/%d", h);
	m->namelen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(a->sun_path) + 1);
	return 0;
}

/* The name of one message: decided where the kernel would look it up. */
int sv_net_decide_name(struct sv_call *c, struct sv_net_op *op, struct net_msg *m)
{
	bool check;
	int rc;

	/* Only unix datagram sockets look a send's name up; stream sockets
	 * refuse it and seqpacket ignores it, without a look-up. */
	if (m->namelen == 0 || !op->unix_family ||
	    (op->kind != NET_CONNECT && op->type != SOCK_DGRAM))
		return 0;
	rc = decide_unix(c, op, m, &check);
	if (rc < 0)
		return rc;
	if (check && !op->check_listener && private_netns(c)) {
		/* The run's own listeners are in its network namespace, which
		 * sock_diag from ours does not see (supervisor_peer.c). */
		int dir = sv_proc_dir(c);

		op->net_unix = dir >= 0 ? openat(dir, "net/unix", O_RDONLY | O_CLOEXEC) : -1;
	}
	if (check)
		op->check_listener = true;
	return 0;
}
