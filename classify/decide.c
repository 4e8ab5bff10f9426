/* SPDX-License-Identifier: MIT */
/* The denial fact (CONTRACT section 5): conservative by design. A false
 * "denied" tells the model to ask the user for more power it does not need,
 * so every rule here removes a way a harmless failure could look like one. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "classify.h"

/* Exactly one DIALECT_* bit, and one the runner speaks. */
static bool speaks(unsigned d, unsigned mask)
{
	return d != 0 && (d & (d - 1)) == 0 && (d & mask) != 0;
}

/* The writable directory abs lies in, or NULL. */
static const char *writable_dir_of(const struct classify_input *in, const char *abs, char *dir,
				   size_t dir_size)
{
	if (!in->writable)
		return NULL;
	for (const char *const *w = in->writable; *w; w++)
		if (path_normalize(NULL, *w, dir, dir_size) && path_is_within(abs, dir))
			return dir;
	return NULL;
}

/* A relative path placed in writable ground was really elsewhere, and its
 * directories may not exist here: ask about it, then, while its directory
 * is missing, about that directory, up to the writable one. */
static bool could_write_up_to(const struct classify_input *in, const char *abs, const char *top)
{
	char p[PATH_MAX];

	if (strlen(abs) >= sizeof(p))
		return false;
	strcpy(p, abs);
	for (;;) {
		enum caller_access a = in->could_write(p, in->could_write_ctx);

		if (a != CALLER_NO_PARENT)
			return a == CALLER_CAN;
		char *slash = strrchr(p, '/');
		if (!slash || slash == p || strcmp(p, top) == 0)
			return false;
		*slash = '\0';
		if (!path_is_within(p, top))
			return false;
	}
}

static bool within_any(const char *const *list, const char *abs)
{
	for (const char *const *p = list; p && *p; p++)
		if (path_is_within(abs, *p))
			return true;
	return false;
}

/* Does abs lead into a hidden path, read as the host resolves it: a symlink
 * in the root to ~/.ssh/id_ed25519, a /proc/self/root/... name? The landlock
 * runner refuses it for where it leads (EACCES), which no wider confined
 * mode shows: no reason to offer danger-full-access, and the escalation it
 * would get is the key's (new-user pass 13, finding 1). Only the judgment
 * reads this; nothing is done at that path. */
static bool resolves_hidden(const struct classify_input *in, const char *abs)
{
	char real[PATH_MAX];

	return in->hidden_paths && in->hidden_paths[0] && realpath(abs, real) &&
	       within_any(in->hidden_paths, real);
}

/* Where a relative path may lie: the cwd, and each directory the command
 * line names for its tools. */
struct places {
	char dir[CLASSIFY_DIRS][CLASSIFY_DIR_MAX];
	size_t n;
};

enum placed { RULED_OUT, REFUSED_HERE, NOT_THE_CALLERS, WRITABLE_HERE };

/* The path at abs: a write the sandbox refused there, or one it did not
 * (no directory to make it in; inside what the policy let it write, where
 * a relative path also asks whether the caller could write what it names
 * there: WRITABLE_HERE), or one the caller could not have made either. */
static enum placed place(const struct classify_input *in, unsigned dialect, const char *abs,
			 bool relative)
{
	char dir[PATH_MAX];
	const char *top;
	enum caller_access a;

	/* why: a protected path inside the writable root is read-only by
	 * the sandbox's own choice, so a refusal there is the sandbox's;
	 * "busy" is evidence only there (a rename over its mount point),
	 * anywhere else it is an ordinary error. */
	/* why: a hidden path (a credential store, sbx's state) is hidden in
	 * every confined mode, so no wider confined mode would help, and the
	 * namespace runner shows it as absent (ENOENT, no denial): the
	 * landlock runner's EACCES there is not offered as a reason to ask
	 * the user for danger-full-access (new-user pass 6, finding 2). */
	if (within_any(in->hidden_paths, abs) || resolves_hidden(in, abs))
		return RULED_OUT;
	if (within_any(in->protected_paths, abs))
		return in->could_write(abs, in->could_write_ctx) == CALLER_CAN ? REFUSED_HERE
										 : NOT_THE_CALLERS;
	if (dialect == DIALECT_EBUSY)
		return RULED_OUT;
	/* why: the policy allowed writing there, so the sandbox did not
	 * refuse it (a root-owned file in the workspace is read-only for the
	 * caller, and more sandbox power would not help). */
	top = writable_dir_of(in, abs, dir, sizeof(dir));
	if (top)
		return !relative ? RULED_OUT
		       : could_write_up_to(in, abs, top) ? WRITABLE_HERE
							 : NOT_THE_CALLERS;
	a = in->could_write(abs, in->could_write_ctx);
	return a == CALLER_CAN ? REFUSED_HERE : a == CALLER_CANNOT ? NOT_THE_CALLERS : RULED_OUT;
}

/* why every place: a relative path is relative to wherever the tool was
 * (git -C, tar -C, cd X && ...), which need not be the cwd. It counts when
 * the sandbox refused it in one of the places the command line names and
 * in none of them was it the caller's own limit: `cd /etc && touch x` as a
 * user is the user's own failure, wherever else "x" could be written. */
static bool relative_counts(const struct classify_input *in, const struct evidence_line *l,
			    const struct places *pl)
{
	char abs[PATH_MAX];
	bool refused = false, cwd_writable = false;

	for (size_t i = 0; i < pl->n; i++) {
		if (!path_normalize(pl->dir[i], l->path, abs, sizeof(abs)))
			continue;
		switch (place(in, l->dialect, abs, true)) {
		case NOT_THE_CALLERS:
			return false;
		case REFUSED_HERE:
			refused = true;
			break;
		case WRITABLE_HERE:
			cwd_writable = cwd_writable || i == 0;
			break;
		case RULED_OUT:
			break;
		}
	}
	/* No place named was refused, but at the cwd the path lands in
	 * writable ground, where the runner refuses nothing: so the tool was
	 * elsewhere (a script's own cd). It counts when the caller could
	 * write what it names here (asked above), which still rejects the
	 * read-only file in the workspace. */
	return refused || cwd_writable;
}

static bool links_to_hidden(const struct classify_input *in, const struct evidence_line *l,
			    const struct places *pl)
{
	char target[PATH_MAX], abs[PATH_MAX];

	if (!dialect_link_target(l->line, strlen(l->line), target, sizeof(target)))
		return false;
	if (target[0] == '/')
		return path_normalize(NULL, target, abs, sizeof(abs)) &&
		       within_any(in->hidden_paths, abs);
	for (size_t i = 0; i < pl->n; i++)
		if (path_normalize(pl->dir[i], target, abs, sizeof(abs)) &&
		    within_any(in->hidden_paths, abs))
			return true;
	return false;
}

static bool line_counts(const struct classify_input *in, const struct evidence_line *l,
			const struct places *pl)
{
	char abs[PATH_MAX];

	if (!speaks(l->dialect, in->evidence->dialects))
		return false;
	/* why: a line that names no file cannot be checked from outside (the
	 * ring keeps none, but a hand-built one might). */
	if (l->path[0] == '\0')
		return false;
	/* why: with no way to ask whether the caller could write it, do not
	 * claim a sandbox refusal. */
	if (!in->could_write)
		return false;
	/* why: a hard link to a hidden path (`ln ~/.netrc x`) is refused
	 * because of what it links to, which no wider confined mode shows,
	 * not of the link's place: no reason to offer danger-full-access
	 * (adversarial pass 7, finding 09). */
	if (links_to_hidden(in, l, pl))
		return false;
	/* why: a relative path we cannot place (no cwd) could be anywhere. */
	if (l->path[0] != '/')
		return pl->n > 0 && relative_counts(in, l, pl);
	if (!path_normalize(NULL, l->path, abs, sizeof(abs)))
		return false;
	/* why: "cat: /root/secret: Permission denied" is the caller's own
	 * limit; only a path the caller could write without the sandbox is a
	 * sandbox refusal, outside what the policy let the command write (a
	 * root-owned file in the workspace is read-only for the caller, and
	 * more sandbox power would not help). A path whose directory does
	 * not exist is no write anyone could have made: a quoted log line,
	 * not this run's error. */
	return place(in, l->dialect, abs, false) == REFUSED_HERE;
}

bool classify_denied(const struct classify_input *in)
{
	const struct evidence *ev;

	if (!in || !in->evidence)
		return false;
	ev = in->evidence;
	/* danger-full-access never consults a runner, so nothing was denied. */
	if (!in->confined)
		return false;
	/* A run that succeeded was not stopped by anything ("... || true"). */
	if (in->exited && in->exit_code == 0)
		return false;
	/* 126 and 127 are bash's own "cannot execute" and "command not found":
	 * the command never ran its writes; a non-executable script's
	 * "Permission denied" is about the exec bit, not the sandbox. */
	if (in->exited && (in->exit_code == 126 || in->exit_code == 127))
		return false;
	/* on the heap: 32 KiB, once per run */
	struct places *pl = calloc(1, sizeof(*pl));
	bool denied = false;

	if (!pl)
		return false;
	if (in->cwd && in->cwd[0] == '/' && path_normalize(NULL, in->cwd, pl->dir[0], CLASSIFY_DIR_MAX)) {
		pl->n = 1;
		pl->n += command_dirs(in->command, pl->dir[0], pl->dir + 1, CLASSIFY_DIRS - 1);
	}
	for (size_t i = 0; i < ev->count && i < EVIDENCE_LINES && !denied; i++)
		denied = line_counts(in, &ev->ring[i], pl);
	free(pl);
	return denied;
}
