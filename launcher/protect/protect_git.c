/* SPDX-License-Identifier: MIT */
/* Git metadata as an allow-list (CONTRACT section 10a, docs/workspace.md):
 * at the top of a git directory a run may change only what git's everyday
 * commands write (objects, refs, logs, the index, HEAD and its siblings,
 * packed-refs, COMMIT_EDITMSG, description, ...). Everything else there
 * (config, hooks, info, rebase-merge, rebase-apply, sequencer, commondir,
 * and whatever git adds later) that the run changed is put back: from a
 * snapshot where the baseline holds one (its record does that, and its path
 * is passed over here), else made inert: a config keeps only the
 * allow-listed keys (policy/gitconfig.c), hooks only git's *.sample files,
 * info only exclude, and anything else the run made or changed is removed.
 *
 * "Changed by a run" is read from the inode change time (ctime), which no
 * call can set back: a write, a rename onto the name, a link, a chmod all
 * move it to now. It means changed while this run or any earlier confined
 * run that could write there was live (protect_runs.c): a rename moves
 * only the renamed inode's ctime, and a git directory staged by one run
 * under another name and moved in as a unit by the next keeps the first
 * run's times inside. So a repository nobody recorded (made by a run, or by
 * the user between runs, or moved by a run) loses only what runs touched.
 * Unconfined, on the user's workspace, after the run's processes are gone:
 * every step is relative to handles, no symlink is followed. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy.h"
#include "protect_int.h"

/* How far "did the run change anything below this entry" looks: past it,
 * the entry counts as changed (and is made inert). */
#define CHANGED_MAX_DEPTH 16
#define CHANGED_MAX_ENTRIES 4096
/* A config git would read, at most: past it, nothing of it is kept. */
#define CONFIG_MAX_BYTES (1u << 20)
/* How deep submodule names (modules/a/b/...) are looked into. */
#define MODULES_MAX_DEPTH 8

/* What git's everyday commands write at the top of a git directory. */
static const char *const allowed_dirs[] = {
	"objects", "refs", "logs", "reftable", "rr-cache", "lfs", NULL,
};
static const char *const allowed_files[] = {
	"HEAD", "ORIG_HEAD", "FETCH_HEAD", "MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD",
	"REBASE_HEAD", "AUTO_MERGE", "MERGE_AUTOSTASH", "MERGE_MSG", "MERGE_MODE", "MERGE_RR",
	"SQUASH_MSG", "TAG_EDITMSG", "COMMIT_EDITMSG", "NOTES_EDITMSG", "index", "packed-refs",
	"description", "shallow", "gc.pid", "gc.log", "BISECT_HEAD", "BISECT_LOG",
	"BISECT_START", "BISECT_TERMS", "BISECT_NAMES", "BISECT_EXPECTED_REV",
	"BISECT_ANCESTORS_OK", "BISECT_RUN", "BISECT_FIRST_PARENT", NULL,
};
/* A linked worktree's own git directory (.git/worktrees/NAME) also holds
 * where the worktree is, and its lock. */
static const char *const worktree_files[] = { "gitdir", "locked", NULL };
/* What git gc writes in info/ (update-server-info: the dumb protocols'
 * lists of refs and packs). */
static const char *const info_files[] = { "refs", "packs", NULL };
/* Temporary files of the index (split index, a stash's, a partial commit's). */
static const char *const allowed_prefixes[] = { "sharedindex.", "index.", "next-index-", NULL };

static bool in_list(const char *const *list, const char *name, size_t len)
{
	for (size_t i = 0; list[i]; i++)
		if (strlen(list[i]) == len && strncmp(list[i], name, len) == 0)
			return true;
	return false;
}

/* An entry of info/ that git gc writes (with its lock file). */
static bool info_allowed(const char *name)
{
	size_t len = strlen(name);

	if (len > 5 && strcmp(name + len - 5, ".lock") == 0)
		len -= 5;
	return in_list(info_files, name, len);
}

bool protect_git_allowed(const char *name, bool is_dir, bool worktree_admin)
{
	size_t len = strlen(name);

	if (is_dir)
		return in_list(allowed_dirs, name, len);
	/* A lock file of an allowed file (HEAD.lock, index.lock). */
	if (len > 5 && strcmp(name + len - 5, ".lock") == 0)
		len -= 5;
	if (in_list(allowed_files, name, len) || (worktree_admin && in_list(worktree_files, name, len)))
		return true;
	for (size_t i = 0; allowed_prefixes[i]; i++)
		if (strncmp(name, allowed_prefixes[i], strlen(allowed_prefixes[i])) == 0)
			return true;
	return false;
}

/* Did the run change name (below dirfd), or anything below it? */
static bool changed_below(int dir_fd, const char *name, const struct protect_when *when, int depth,
			  size_t *budget)
{
	struct stat st;
	bool changed = false;
	struct dirent *e;
	DIR *d;
	int fd;

	if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno != ENOENT;
	if (protect_when_changed(when, &st.st_ctim))
		return true;
	if (!S_ISDIR(st.st_mode))
		return false;
	if (depth >= CHANGED_MAX_DEPTH)
		return true;
	fd = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return true; /* closed to us: it cannot be vouched for */
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return true;
	}
	while (!changed && (e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (*budget == 0)
			changed = true;
		else {
			(*budget)--;
			changed = changed_below(dirfd(d), e->d_name, when, depth + 1, budget);
		}
	}
	closedir(d);
	return changed;
}

bool protect_git_changed(int dirfd, const char *name, const struct protect_when *when)
{
	size_t budget = CHANGED_MAX_ENTRIES;

	return changed_below(dirfd, name, when, 0, &budget);
}

void protect_git_note(struct git_pass *gp, const char *dir, const char *name, const char *sub)
{
	char *p;

	if (asprintf(&p, "%s%s%s%s%s", dir, dir[0] ? "/" : "", name, sub ? "/" : "",
		     sub ? sub : "") < 0)
		return;
	if (gp->n_changed == gp->cap_changed) {
		size_t cap = gp->cap_changed ? 2 * gp->cap_changed : 8;
		char **c = realloc(gp->changed, cap * sizeof(*c));

		if (!c) {
			free(p);
			return;
		}
		gp->changed = c;
		gp->cap_changed = cap;
	}
	gp->changed[gp->n_changed++] = p;
}

static void remove_entry(struct git_pass *gp, int dirfd, const char *name, const char *rel,
			 const char *sub_name)
{
	int rc = protect_remove_tree(dirfd, name);

	if (rc == 0)
		protect_git_note(gp, rel, sub_name ? sub_name : name, sub_name ? name : NULL);
	else
		gp->partial = true;
}

static char *read_small(int fd, size_t max, size_t *len)
{
	char *buf = malloc(max + 1);
	size_t got = 0;

	if (!buf)
		return NULL;
	while (got <= max) {
		ssize_t n = read(fd, buf + got, max + 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	buf[got > max ? max : got] = '\0';
	*len = got;
	return buf;
}

/* The run's config cut down to the allow-listed keys, written under a new
 * name and renamed over (the owner and mode of the old one kept). */
static void filter_config(struct git_pass *gp, int gfd, const char *name, const char *rel)
{
	int fd = openat(gfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	char tmp[64], *in, *out;
	size_t len = 0, out_len = 0;
	struct stat st;
	int w;

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		remove_entry(gp, gfd, name, rel, NULL);
		return;
	}
	in = read_small(fd, CONFIG_MAX_BYTES, &len);
	close(fd);
	if (!in) {
		gp->partial = true;
		return;
	}
	bool dropped = true;
	struct gitconfig_where where = { gp->root, protect_git_outside_ok, gp, protect_git_url_inside_ok };

	out = len > CONFIG_MAX_BYTES ? strdup("")
				     : gitconfig_filter(in, len, &where, &out_len, &dropped);
	if (!out) {
		free(in);
		gp->partial = true;
		return;
	}
	if (!dropped) {
		free(in);
		free(out);
		return; /* nothing but allow-listed keys: as git wrote it */
	}
	free(in);
	static unsigned long seq;

	/* Unique per call: serve's clean-ups of several runs are threads. */
	snprintf(tmp, sizeof(tmp), ".sbx-config-%d-%lu", (int)getpid(),
		 __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED));
	unlinkat(gfd, tmp, 0);
	w = openat(gfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (w < 0) {
		free(out);
		remove_entry(gp, gfd, name, rel, NULL);
		return;
	}
	bool ok = true;

	for (size_t off = 0; ok && off < out_len;) {
		ssize_t n = write(w, out + off, out_len - off);

		if (n > 0)
			off += (size_t)n;
		else if (!(n < 0 && errno == EINTR))
			ok = false;
	}
	free(out);
	/* Owner first (a root caller's workspace of another user), then the
	 * mode, without set-id or exec bits: it is a config. */
	if (geteuid() == 0 && fchown(w, st.st_uid, st.st_gid) < 0)
		ok = ok && errno == EPERM;
	if (fchmod(w, st.st_mode & 0666) < 0)
		ok = false;
	if (close(w) < 0)
		ok = false;
	if (ok && renameat(gfd, tmp, gfd, name) == 0) {
		protect_git_note(gp, rel, name, NULL);
		return;
	}
	unlinkat(gfd, tmp, 0);
	remove_entry(gp, gfd, name, rel, NULL);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n > m && strcmp(s + n - m, suffix) == 0;
}

/* hooks/, info/, branches/, remotes/: keep what is inert (hooks: regular
 * *.sample files, which git never runs; info: exclude; in the old remote
 * shorthands branches/ and remotes/, which hold URLs: nothing), remove what
 * else the run made or changed there. git init's templates make some of
 * them, empty or holding only those. */
static void sweep_dir(struct git_pass *gp, int gfd, const char *name, const char *rel)
{
	bool hooks = strcmp(name, "hooks") == 0, info = strcmp(name, "info") == 0;

	int fd = openat(gfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct dirent *e;
	struct stat st;
	DIR *d;

	if (fd < 0) {
		/* Not a directory (a symlink to one elsewhere, a file): what
		 * the run put there goes, and a symlink out of the root to
		 * where a run may write, whoever made it. */
		if (protect_git_changed(gfd, name, &gp->when))
			remove_entry(gp, gfd, name, rel, NULL);
		else if (protect_git_link(gp, gfd, name, rel))
			protect_git_note(gp, rel, name, NULL);
		return;
	}
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		gp->partial = true;
		return;
	}
	/* A run that closed the directory to its owner (chmod 100 hooks)
	 * kept us from listing it; git still runs a hook in it by name. */
	if (fstat(fd, &st) == 0 && (st.st_mode & 0700) != 0700)
		protect_dir_reopen(fd);
	for (bool again = true; again;) {
		again = false;
		rewinddir(d);
		while ((e = readdir(d))) {
			bool keep;

			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
				continue;
			keep = S_ISREG(st.st_mode) &&
			       ((hooks && ends_with(e->d_name, ".sample")) ||
				(info && (strcmp(e->d_name, "exclude") == 0 || info_allowed(e->d_name))));
			if (keep || !protect_git_changed(dirfd(d), e->d_name, &gp->when))
				continue;
			remove_entry(gp, dirfd(d), e->d_name, rel, name);
			again = true; /* readdir after an unlink may skip names */
			break;
		}
	}
	closedir(d);
}

/* A gitdir or commondir line: its first line, trailing blanks dropped. */
bool protect_git_read_line(int dirfd, const char *name, const char *prefix, char *out,
			   size_t size)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	size_t len = 0, pl = strlen(prefix);
	struct stat st;
	char *buf;

	if (fd < 0)
		return false;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return false;
	}
	buf = read_small(fd, PATH_MAX + 64, &len);
	close(fd);
	if (!buf)
		return false;
	len = strlen(buf);
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r' || buf[len - 1] == ' ' ||
		       buf[len - 1] == '\t'))
		buf[--len] = '\0';
	if (strncmp(buf, prefix, pl) != 0 || len - pl == 0 || len - pl >= size ||
	    memchr(buf + pl, '\n', len - pl)) {
		free(buf);
		return false;
	}
	memcpy(out, buf + pl, len - pl + 1);
	free(buf);
	return true;
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* HEAD as git's validate_headref reads it, or more: "ref:" and any
 * blanks then "refs/...", an object name in hex of either case (git's
 * get_oid_hex_any: 40 or 64 digits, whatever follows), a symlink (git
 * follows one that does not lead into refs/ and reads what it names: not
 * followed here, so taken as valid), and one sbx may not read (the user's
 * git may). Why wider than git: a directory taken for a git directory
 * that git would refuse is only held to the allow-list; one git takes and
 * sbx did not keeps its hooks and config (issue 29, finding 14). */
static bool head_valid(int fd)
{
	char buf[256];
	struct stat st;
	ssize_t n;
	int h;

	if (fstatat(fd, "HEAD", &st, AT_SYMLINK_NOFOLLOW) < 0)
		return false;
	if (S_ISLNK(st.st_mode))
		return true;
	if (S_ISDIR(st.st_mode))
		return false;
	h = openat(fd, "HEAD", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (h < 0)
		return errno == EACCES || errno == EPERM;
	n = read(h, buf, sizeof(buf) - 1);
	close(h);
	if (n <= 0)
		return n < 0 && errno != EISDIR;
	buf[n] = '\0';
	if (strncmp(buf, "ref:", 4) == 0) {
		const char *p = buf + 4;

		while (*p == ' ' || (*p >= '\t' && *p <= '\r'))
			p++;
		return strncmp(p, "refs/", 5) == 0;
	}
	for (ssize_t i = 0; i < 40; i++)
		if (i >= n || !is_hex(buf[i]))
			return false;
	return true;
}

/* A directory git takes for a git directory (is_git_directory): a valid
 * HEAD, and objects and refs (or a commondir naming where they are). git
 * asks access(X_OK) of objects and refs, which an executable file or a
 * symlink answers as well as a directory: any entry of those names counts
 * here (finding 01). */
bool protect_git_looks_like(int fd)
{
	struct stat st;

	if (!head_valid(fd))
		return false;
	if (fstatat(fd, "commondir", &st, AT_SYMLINK_NOFOLLOW) == 0)
		return true;
	return fstatat(fd, "objects", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       fstatat(fd, "refs", &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* commondir makes git take config and hooks from the directory it names.
 * A linked worktree's (worktrees/NAME/commondir) must name the repository
 * that holds it; anywhere else, one the run wrote goes. What it names
 * inside the root is a git directory like any other. */
static void check_commondir(struct git_pass *gp, int gfd, const char *rel, bool worktree_admin)
{
	char line[PATH_MAX], target[PATH_MAX];
	bool changed = protect_git_changed(gfd, "commondir", &gp->when);
	struct stat common, owner;
	int tfd, ofd;

	if (!protect_git_read_line(gfd, "commondir", "", line, sizeof(line)) ||
	    !protect_git_target(gp->root, rel, line, target, sizeof(target))) {
		if (changed)
			remove_entry(gp, gfd, "commondir", rel, NULL);
		return;
	}
	tfd = protect_git_open_beneath(gp->root_fd, target);
	if (tfd == -EXDEV || tfd == -ELOOP) {
		/* Inside by its name, outside by a symlink on the way: gone,
		 * whoever wrote it. */
		remove_entry(gp, gfd, "commondir", rel, NULL);
		return;
	}
	if (tfd < 0)
		return; /* nothing there: git refuses the directory */
	ofd = openat(gfd, "../..", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (worktree_admin && ofd >= 0 && fstat(tfd, &common) == 0 && fstat(ofd, &owner) == 0 &&
	    common.st_dev == owner.st_dev && common.st_ino == owner.st_ino) {
		close(ofd);
		close(tfd);
		return;
	}
	if (ofd >= 0)
		close(ofd);
	if (changed) {
		close(tfd);
		remove_entry(gp, gfd, "commondir", rel, NULL);
		return;
	}
	protect_git_dir(gp, tfd, target, false);
}

/* A path in the baseline with a record of its own: put back by it. */
bool protect_git_recorded(const struct git_pass *gp, const char *rel, const char *name)
{
	size_t rl = strlen(rel), nl = strlen(name);

	for (size_t i = 0; gp->base && i < gp->base->n; i++) {
		const char *p = gp->base->rec[i].path;

		if (gp->base->rec[i].ancestor || gp->base->rec[i].tainted)
			continue;
		if (rl == 0 ? strcmp(p, name) == 0
			    : strncmp(p, rel, rl) == 0 && p[rl] == '/' && strlen(p + rl + 1) == nl &&
				      strcmp(p + rl + 1, name) == 0)
			return true;
	}
	return false;
}

static bool seen(struct git_pass *gp, int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return true;
	for (size_t i = 0; i < gp->n_seen; i++)
		if (gp->seen[i].dev == st.st_dev && gp->seen[i].ino == st.st_ino)
			return true;
	if (gp->n_seen == gp->cap_seen) {
		size_t cap = gp->cap_seen ? 2 * gp->cap_seen : 16;
		void *p = realloc(gp->seen, cap * sizeof(*gp->seen));

		if (!p)
			return true;
		gp->seen = p;
		gp->cap_seen = cap;
	}
	gp->seen[gp->n_seen].dev = st.st_dev;
	gp->seen[gp->n_seen].ino = st.st_ino;
	gp->n_seen++;
	return false;
}

static void note_found(struct git_pass *gp, const char *rel)
{
	char *p;

	if (gp->n_found >= PROTECT_INDEX_MAX || !rel[0] || !(p = strdup(rel)))
		return;
	if (gp->n_found == gp->cap_found) {
		size_t cap = gp->cap_found ? 2 * gp->cap_found : 16;
		char **f = realloc(gp->found, cap * sizeof(*f));

		if (!f) {
			free(p);
			return;
		}
		gp->found = f;
		gp->cap_found = cap;
	}
	gp->found[gp->n_found++] = p;
}

static void containers(struct git_pass *gp, int fd, const char *rel, int depth);

int protect_git_open_listable(int fd, const struct protect_when *when)
{
	int l = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat st;

	/* One the run closed to its owner (chmod 100: git still opens what
	 * is in it by name) gets its owner's rights back; one closed before
	 * the run is the user's. */
	if (l < 0 && errno == EACCES && fstat(fd, &st) == 0 && protect_when_changed(when, &st.st_ctim)) {
		protect_dir_reopen(fd);
		l = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	return l;
}

/* One git directory (fd: a handle on it, taken over; rel: its path). */
void protect_git_dir(struct git_pass *gp, int fd, const char *rel, bool worktree_admin)
{
	struct dirent *e;
	struct stat st;
	int gfd;
	DIR *d;

	/* A git directory a run took any of its owner's rights off (chmod
	 * 511, 311, 300: git needs only search on it to read its config and
	 * run its hooks, sbx needs read to list it and write to put a config
	 * back) gets them back, and the result names it (finding 15). One
	 * closed before any run is the user's setting. */
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0700) != 0700 &&
	    protect_when_changed(&gp->when, &st.st_ctim)) {
		protect_dir_reopen(fd);
		if (fstat(fd, &st) == 0 && (st.st_mode & 0700) == 0700)
			protect_git_note(gp, "", rel[0] ? rel : ".", NULL);
	}
	gfd = protect_git_open_listable(fd, &gp->when);
	close(fd);
	if (gfd < 0 || seen(gp, gfd)) {
		if (gfd < 0)
			gp->partial = true;
		else
			close(gfd);
		return;
	}
	note_found(gp, rel);
	d = fdopendir(gfd);
	if (!d) {
		close(gfd);
		gp->partial = true;
		return;
	}
	for (bool again = true; again;) {
		again = false;
		rewinddir(d);
		while ((e = readdir(d))) {
			const char *n = e->d_name;
			bool dir;

			if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0 || protect_git_recorded(gp, rel, n))
				continue;
			if (fstatat(dirfd(d), n, &st, AT_SYMLINK_NOFOLLOW) < 0)
				continue;
			dir = S_ISDIR(st.st_mode);
			if ((dir || S_ISREG(st.st_mode)) && protect_git_allowed(n, dir, worktree_admin))
				continue;
			/* A symlink out (the user's .git/hooks to a place a run
			 * may write): cut, whoever made it. */
			if (S_ISLNK(st.st_mode) && protect_git_link(gp, dirfd(d), n, rel)) {
				protect_git_note(gp, rel, n, NULL);
				again = true;
				break;
			}
			if (strcmp(n, "config") == 0 || strcmp(n, "config.worktree") == 0) {
				if (protect_git_changed(dirfd(d), n, &gp->when))
					filter_config(gp, dirfd(d), n, rel);
				continue;
			}
			if (strcmp(n, "hooks") == 0 || strcmp(n, "info") == 0 ||
			    strcmp(n, "branches") == 0 || strcmp(n, "remotes") == 0) {
				sweep_dir(gp, dirfd(d), n, rel);
				continue;
			}
			if (strcmp(n, "commondir") == 0) {
				check_commondir(gp, dirfd(d), rel, worktree_admin);
				continue;
			}
			if (dir && (strcmp(n, "modules") == 0 ||
				    (strcmp(n, "worktrees") == 0 && !worktree_admin)))
				continue; /* below, once this level is done */
			if (!protect_git_changed(dirfd(d), n, &gp->when))
				continue;
			/* rebase-merge, rebase-apply, sequencer, branches,
			 * remotes, anything git adds later: the run's goes. */
			remove_entry(gp, dirfd(d), n, rel, NULL);
			again = true;
			break;
		}
	}
	containers(gp, dirfd(d), rel, 0);
	/* What git writes here is walked like any directory of the root:
	 * git never makes a repository in objects/ or refs/, a run may. */
	for (size_t i = 0; gp->inner && allowed_dirs[i]; i++) {
		if (fstatat(dirfd(d), allowed_dirs[i], &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISDIR(st.st_mode))
			gp->inner(gp, dirfd(d), allowed_dirs[i], rel);
	}
	closedir(d);
}

/* modules/ (submodules' git directories, names may hold slashes) and
 * worktrees/ (linked worktrees' own): each git directory in them. */
static void container_walk(struct git_pass *gp, int fd, const char *rel, bool worktrees,
			   int depth)
{
	struct dirent *e;
	DIR *d = fdopendir(fd);

	if (!d) {
		close(fd);
		return;
	}
	for (bool again = true; again;) {
		again = false;
		rewinddir(d);
		while ((e = readdir(d))) {
			struct stat st;

			if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
			    S_ISDIR(st.st_mode))
				continue;
			/* A symlink out to where a run may write (a copy of a
			 * submodule's git directory, finding 05: git submodule
			 * update writes a gitfile naming it and runs its
			 * hooks), whoever made it. */
			if (S_ISLNK(st.st_mode) && protect_git_link(gp, dirfd(d), e->d_name, rel)) {
				protect_git_note(gp, rel, e->d_name, NULL);
				again = true;
				break;
			}
		}
	}
	rewinddir(d);
	while ((e = readdir(d))) {
		char sub[PATH_MAX];
		int cfd;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		cfd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (cfd < 0)
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", rel, e->d_name) >= (int)sizeof(sub)) {
			close(cfd);
			gp->partial = true;
			continue;
		}
		if (worktrees || protect_git_looks_like(cfd))
			protect_git_dir(gp, cfd, sub, worktrees);
		else if (depth < MODULES_MAX_DEPTH)
			container_walk(gp, cfd, sub, false, depth + 1);
		else
			close(cfd);
	}
	closedir(d);
}

static void containers(struct git_pass *gp, int fd, const char *rel, int depth)
{
	static const char *const names[] = { "modules", "worktrees" };

	for (int i = 0; i < 2; i++) {
		char sub[PATH_MAX];
		int cfd = openat(fd, names[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		if (cfd < 0)
			continue;
		if (snprintf(sub, sizeof(sub), "%s%s%s", rel, rel[0] ? "/" : "", names[i]) >=
		    (int)sizeof(sub)) {
			close(cfd);
			continue;
		}
		container_walk(gp, cfd, sub, i == 1, depth);
	}
}

static void root_info_entries(int gfd, const char *prefix, void (*add)(void *ctx, const char *rel),
			      void *ctx)
{
	int fd = openat(gfd, "info", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *e;

	if (!d) {
		if (fd >= 0)
			close(fd);
		char rel[PATH_MAX];

		snprintf(rel, sizeof(rel), "%s/info", prefix);
		add(ctx, rel);
		return;
	}
	while ((e = readdir(d))) {
		char rel[PATH_MAX + NAME_MAX];

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    info_allowed(e->d_name))
			continue;
		snprintf(rel, sizeof(rel), "%s/info/%s", prefix, e->d_name);
		add(ctx, rel);
	}
	closedir(d);
}

/* The entries of the root's own git directory (gfd, at prefix relative to
 * the root) that are not on git's allow-list. */
static void git_dir_entries(int fd, const char *prefix, void (*add)(void *ctx, const char *rel),
			    void *ctx)
{
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *e;
	struct stat st;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(d))) {
		char rel[PATH_MAX + NAME_MAX];
		bool dir;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		dir = S_ISDIR(st.st_mode);
		if ((dir || S_ISREG(st.st_mode)) && protect_git_allowed(e->d_name, dir, false))
			continue;
		/* Submodules' and worktrees' git directories: writable, each
		 * held to the rules after the run. */
		if (dir && (strcmp(e->d_name, "modules") == 0 || strcmp(e->d_name, "worktrees") == 0))
			continue;
		/* info/: what git gc writes there stays writable, the rest
		 * (exclude, attributes, grafts...) protected one by one. */
		if (dir && strcmp(e->d_name, "info") == 0) {
			root_info_entries(dirfd(d), prefix, add, ctx);
			continue;
		}
		snprintf(rel, sizeof(rel), "%s/%s", prefix, e->d_name);
		add(ctx, rel);
	}
	closedir(d);
}

/* Where the root's .git (a gitfile or a symlink) leads, relative to the
 * root, if that lies inside it: the directory `git init --separate-git-dir`
 * made (".repo"). false: elsewhere, or unreadable. */
static bool git_dir_in_root(int root_fd, const char *root, const struct stat *st, char *out,
			    size_t size)
{
	char buf[PATH_MAX];
	ssize_t n;

	if (S_ISLNK(st->st_mode)) {
		n = readlinkat(root_fd, ".git", buf, sizeof(buf) - 1);
		if (n <= 0)
			return false;
		buf[n] = '\0';
	} else if (S_ISREG(st->st_mode)) {
		int fd = openat(root_fd, ".git", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

		if (fd < 0)
			return false;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 8 || strncmp(buf, "gitdir: ", 8) != 0)
			return false;
		buf[n] = '\0';
		buf[strcspn(buf, "\r\n")] = '\0';
		memmove(buf, buf + 8, strlen(buf + 8) + 1);
	} else {
		return false;
	}
	return protect_git_target(root, "", buf, out, size) && out[0] && strcmp(out, ".") != 0;
}

void protect_git_root_entries(int root_fd, const char *root,
			      void (*add)(void *ctx, const char *rel), void *ctx)
{
	char target[PATH_MAX];
	struct stat st;
	int g;

	if (fstatat(root_fd, ".git", &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	if (S_ISDIR(st.st_mode)) {
		git_dir_entries(openat(root_fd, ".git", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC),
				".git", add, ctx);
		return;
	}
	/* A gitfile (the root is a linked worktree or a submodule's
	 * checkout) or a symlink: kept as it is, or git goes elsewhere. */
	add(ctx, ".git");
	/* why: where it leads inside the root (--separate-git-dir=.repo, a
	 * symlink to one) is the root's git directory by another name: its
	 * config and hooks are protected as .git's are (adversarial pass 6,
	 * finding 12: the command wrote them, and the git rules then cut the
	 * user's own). Opened beneath the root: a link out is not followed. */
	if (!root || !git_dir_in_root(root_fd, root, &st, target, sizeof(target)))
		return;
	g = protect_git_open_beneath(root_fd, target);
	if (g >= 0) {
		git_dir_entries(openat(g, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), target, add, ctx);
		close(g);
	}
}

void protect_add_writable(struct protect_state *ps, const char *path)
{
	struct stat st;

	if (path && ps->n_writable < PROTECT_WRITABLE_MAX && stat(path, &st) == 0 &&
	    S_ISDIR(st.st_mode))
		ps->writable[ps->n_writable++] =
			(struct protect_ident){ (uint64_t)st.st_dev, (uint64_t)st.st_ino };
}
