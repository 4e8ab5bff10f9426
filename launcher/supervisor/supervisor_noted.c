/* SPDX-License-Identifier: MIT */
/* Soft refusals, noted by path: a mkdir the kernel refused for the sandbox
 * (supervisor_mkdir.c), a watch we refused (supervisor_watch.c). Programs
 * commonly try these and go on without them (a cache in $HOME, a watcher
 * that skips what it cannot watch), so they are not counted as refusals; a
 * failed run whose output names one on an error line is denied
 * (run_finish.c). Each is kept as the command's view names it, as the
 * command wrote it, and as $HOME names it where a symlink lies on $HOME's
 * way (/home -> /var/home): the command's messages repeat its own names. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "supervisor_int.h"

/* A path already noted, or below one (a message naming it names that). */
static bool covered(const struct supervisor *sv, const char *path)
{
	for (size_t i = 0; i < sv->n_noted; i++) {
		size_t len = strlen(sv->noted[i]);

		if (strncmp(sv->noted[i], path, len) == 0 && (path[len] == '\0' || path[len] == '/'))
			return true;
	}
	return false;
}

/* The first half of the slots keeps the first distinct ones, the second
 * half the latest: a program that tried many directories and went on
 * without them (imports writing __pycache__, probes of $HOME) must not hide
 * the refusal its failure names at the end. */
static void note(struct supervisor *sv, const char *path)
{
	char *copy, **slot;

	if (covered(sv, path) || !(copy = strdup(path)))
		return;
	if (sv->n_noted < SV_MAX_NOTED)
		slot = &sv->noted[sv->n_noted++];
	else
		slot = &sv->noted[SV_MAX_NOTED / 2 + sv->n_renoted++ % (SV_MAX_NOTED / 2)];
	free(*slot);
	*slot = copy;
}

/* $HOME and where it really is, when they differ: asked on the first note,
 * not at every launch. The command's $HOME is ours (env.c passes it on). */
static void learn_home(struct supervisor *sv)
{
	const char *home = getenv("HOME");
	char real[PATH_MAX];

	sv->home_known = true;
	if (home && home[0] == '/' && realpath(home, real) && strcmp(home, real) != 0) {
		sv->home = strdup(home);
		sv->home_real = strdup(real);
	}
}

void sv_note_refused(struct supervisor *sv, const char *view, const char *given)
{
	char as_home[PATH_MAX];

	pthread_mutex_lock(&sv->lock);
	if (!sv->home_known)
		learn_home(sv);
	if (view && view[0] == '/') {
		size_t hl = sv->home && sv->home_real ? strlen(sv->home_real) : 0;

		note(sv, view);
		/* "mkdir -p ~/.config/x" makes ".config" from inside $HOME, which
		 * the command's messages name by $HOME, not by its real path. */
		if (hl && strncmp(view, sv->home_real, hl) == 0 &&
		    (view[hl] == '/' || view[hl] == '\0') &&
		    snprintf(as_home, sizeof(as_home), "%s%s", sv->home, view + hl) <
			    (int)sizeof(as_home))
			note(sv, as_home);
	}
	/* Also as the command named it (a symlink, a relative name, a bare
	 * name), which its own message repeats; a bare one is matched only
	 * where a message puts it as a file name (supervisor_refusal_named). */
	if (given && given[0] && strcmp(given, view ? view : ""))
		note(sv, given);
	pthread_mutex_unlock(&sv->lock);
}

bool supervisor_noted_any(struct supervisor *sv)
{
	return sv && __atomic_load_n(&sv->n_noted, __ATOMIC_ACQUIRE) > 0;
}

bool supervisor_refusal_named(struct supervisor *sv, const char *text, size_t len,
			      const struct supervise_local *local)
{
	bool named = false;

	if (!sv)
		return false;
	/* The error once, not once a noted name (64 of them). */
	bool error = supervise_error_phrase(text, len, local);

	pthread_mutex_lock(&sv->lock);
	for (size_t i = 0; error && i < sv->n_noted && !named; i++)
		named = strchr(sv->noted[i], '/')
				? supervise_error_names(text, len, sv->noted[i], local)
				: supervise_error_names_bare(text, len, sv->noted[i], local);
	/* Rust's Debug form names no path: with a refusal noted, the errno
	 * the sandbox gave it is enough (a mkdir's: EROFS under the namespace
	 * runner, EACCES under Landlock; a watch's: EACCES). */
	if (!named && sv->n_noted)
		named = supervise_error_is_rust_os(text, len, EACCES) ||
			(!sv->metadata && supervise_error_is_rust_os(text, len, EROFS));
	pthread_mutex_unlock(&sv->lock);
	return named;
}

/* command names p, or p's name below cwd ("sqlite3 app.db" opens the
 * absolute path of app.db). */
static bool commanded(const char *command, const char *cwd, const char *p)
{
	size_t n = cwd ? strlen(cwd) : 0;

	if (supervise_command_names(command, p))
		return true;
	return n > 1 && strncmp(p, cwd, n) == 0 && p[n] == '/' && supervise_command_names(command, p + n + 1);
}

bool supervisor_refusal_commanded(struct supervisor *sv, const char *command, const char *cwd,
				  const char *text, size_t len)
{
	bool named = false;

	/* why both: a program that was refused a read-write open (sqlite)
	 * goes on read-only and fails in its own words, naming no file
	 * ("attempt to write a readonly database"); the file it was refused
	 * is the one its command line gave it. Without the refusal the same
	 * words are the program's own ("sqlite3 -readonly"); without the
	 * words a refused file on the command line is no cause ("select"
	 * from a table that is not there). */
	if (!sv || !command || !text || !__atomic_load_n(&sv->n_noted, __ATOMIC_ACQUIRE) ||
	    !supervise_says_read_only(text, len))
		return false;
	pthread_mutex_lock(&sv->lock);
	for (size_t i = 0; i < sv->n_noted && !named; i++)
		named = commanded(command, cwd, sv->noted[i]);
	pthread_mutex_unlock(&sv->lock);
	return named;
}

void sv_noted_free(struct supervisor *sv)
{
	for (size_t i = 0; i < sv->n_noted; i++)
		free(sv->noted[i]);
	free(sv->home);
	free(sv->home_real);
}
