/* SPDX-License-Identifier: MIT */
/* mkdir(2) and mkdirat(2), under both runners: never decided or performed
 * here (the kernel refuses them: Landlock's EACCES, the read-only mount's
 * EROFS), only noted. Why: some programs ignore a refused mkdir and then
 * fail on the directory that is missing, with a message that names no
 * refusal (`go env -w`: "open ~/.config/go/env: no such file or
 * directory"). A failed run whose output names a directory noted here was
 * failed by the sandbox, and is marked denied (issue 19). Not counted as a
 * refusal by itself: many programs try a directory in $HOME and go on
 * without it, and their own failure later is not the sandbox's.
 *
 * Noted only where the sandbox refuses what the caller could do without
 * it: the name does not exist yet (else EEXIST, sandbox or not), the
 * directory is outside the run's writable set (landlock runner) or on a
 * read-only mount of the run's view (namespace runner), and the caller may
 * write and search it on the host. The kernel performs the call after we
 * looked (CONTINUE): a command racing these look-ups only moves a marker. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "supervisor_int.h"
#include "syscall_abi.h"

bool sv_is_mkdir_call(const struct seccomp_notif *n)
{
	int nr = syscall_abi_nr(&n->data);

	if (!syscall_abi_native_table(&n->data))
		return false;
#ifdef SYSCALL_ABI_LEGACY_PATHS
	if (nr == SYS_mkdir)
		return true;
#endif
	return nr == SYS_mkdirat;
}

/* The caller may write and search the directory on the host: our threads
 * hold its uid and capabilities, and look from the host's mount namespace. */
static bool host_allows(const char *view)
{
	return faccessat(AT_FDCWD, view, W_OK | X_OK, AT_EACCESS) == 0;
}

/* The sandbox refuses a write to a file that exists: its mount is read-only
 * in the run's view (namespace runner), or it lies outside the writable set
 * (landlock runner); and the caller may write it on the host. Regular
 * files only (a device's or a fifo's open is no file written). */
static bool existing_refused(struct sv_call *c, int h, const char *name, const struct stat *st,
			     const char *view)
{
	if (!S_ISREG(st->st_mode))
		return false;
	if (!c->sv->metadata &&
	    !(faccessat(h, name, W_OK, AT_EACCESS | AT_SYMLINK_NOFOLLOW) < 0 && errno == EROFS))
		return false;
	return (!c->sv->metadata || !supervise_in_writable(&c->sv->writable, view)) &&
	       faccessat(AT_FDCWD, view, W_OK, AT_EACCESS) == 0;
}

bool sv_write_refused(struct sv_call *c, int dirfd, uint64_t addr, unsigned how, char *made,
		      size_t made_size, char given[PATH_MAX])
{
	char path[PATH_MAX], view[PATH_MAX], link[40];
	const char *dir, *name;
	struct stat st;
	bool refused = false;
	size_t len;
	int h;

	if (sv_read_string(c, addr, path, sizeof(path)) < 0)
		return false;
	memcpy(given, path, sizeof(path));
	len = strlen(given);
	while (len > 1 && given[len - 1] == '/')
		given[--len] = '\0';
	if (!sv_split_path(path, &dir, &name))
		return false;
	h = sv_resolve(c, dirfd, dir, SV_FOLLOW);
	if (h < 0)
		return false; /* ENOENT, ENOTDIR...: the kernel's own answer */
	if (fstatat(h, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		/* A mkdir of what exists fails with EEXIST, sandbox or not. */
		if ((how & SV_WRITE_EXISTING) && sv_view_path(c, h, view, sizeof(view)) == 0 && view[0] == '/' &&
		    snprintf(made, made_size, "%s/%s", strcmp(view, "/") ? view : "", name) <
			    (int)made_size)
			refused = existing_refused(c, h, name, &st, made);
		goto out;
	}
	if (errno != ENOENT || !(how & SV_WRITE_NEW))
		goto out;
	/* The namespace runner's view is the host's, bound read-only, apart
	 * from its own mounts (the root, /tmp, the cache), which are writable:
	 * a mkdir its mount allows is no refusal (most are; asked first). */
	snprintf(link, sizeof(link), "/proc/self/fd/%d", h);
	if (!c->sv->metadata &&
	    !(faccessat(AT_FDCWD, link, W_OK | X_OK, AT_EACCESS) < 0 && errno == EROFS))
		goto out;
	if (sv_view_path(c, h, view, sizeof(view)) < 0 || view[0] != '/' ||
	    snprintf(made, made_size, "%s/%s", strcmp(view, "/") ? view : "", name) >=
		    (int)made_size)
		goto out;
	/* Landlock grants the writable set and nothing else. Either way, a
	 * directory the host refuses the caller is the kernel's refusal too
	 * (a host mount read-only itself, another user's directory). */
	refused = (!c->sv->metadata || !supervise_in_writable(&c->sv->writable, made)) &&
		  host_allows(view);
out:
	close(h);
	return refused;
}

void sv_mkdir_call(struct sv_call *c, struct sv_answer *a)
{
	const __u64 *arg = c->n.data.args;
	bool at = syscall_abi_nr(&c->n.data) == SYS_mkdirat;
	char made[PATH_MAX], given[PATH_MAX];

	a->cont = true;
	/* Never x32's (the filters refuse that ABI whole). */
	if (!syscall_abi_native(&c->n.data))
		return;
	if (sv_write_refused(c, at ? (int)arg[0] : AT_FDCWD, at ? arg[1] : arg[0], SV_WRITE_NEW, made,
			     sizeof(made), given))
		sv_note_refused(c->sv, made, given);
}
