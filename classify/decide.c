/* SPDX-License-Identifier: MIT */
/* The denial fact (CONTRACT section 5): conservative by design. A false
 * "denied" tells the model to ask the user for more power it does not need,
 * so every rule here removes a way a harmless failure could look like one. */
#include <limits.h>
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

static bool in_protected(const struct classify_input *in, const char *abs)
{
	for (const char *const *p = in->protected_paths; p && *p; p++)
		if (path_is_within(abs, *p))
			return true;
	return false;
}

static bool line_counts(const struct classify_input *in, const struct evidence_line *l)
{
	char abs[PATH_MAX], dir[PATH_MAX];
	const char *top;

	if (!speaks(l->dialect, in->evidence->dialects))
		return false;
	/* why: a line that names no file cannot be checked from outside (the
	 * ring keeps none, but a hand-built one might). */
	if (l->path[0] == '\0')
		return false;
	/* why: a relative path we cannot place (no cwd) could be anywhere. */
	if (!path_normalize(in->cwd, l->path, abs, sizeof(abs)))
		return false;
	/* why: with no way to ask whether the caller could write it, do not
	 * claim a sandbox refusal. */
	if (!in->could_write)
		return false;
	/* why: a protected path inside the writable root is read-only by the
	 * sandbox's own choice, so a refusal there is the sandbox's; "busy" is
	 * evidence only there (a rename over its mount point), anywhere else
	 * it is an ordinary error. */
	if (in_protected(in, abs))
		return in->could_write(abs, in->could_write_ctx) == CALLER_CAN;
	if (l->dialect == DIALECT_EBUSY)
		return false;
	/* why: the policy allowed writing there, so the sandbox did not refuse
	 * it; the file itself is read-only for the caller (a root-owned file in
	 * the workspace), and more sandbox power would not help. */
	top = writable_dir_of(in, abs, dir, sizeof(dir));
	if (top) {
		/* why: a relative path is relative to wherever the tool was
		 * (git -C, tar -C, cd X && ...), which need not be the cwd we
		 * know. Placed at the cwd it lands in writable ground, where the
		 * runner refuses nothing; so it was really elsewhere. It counts
		 * when the caller could write what it names here, which still
		 * rejects the read-only file in the workspace. */
		if (l->path[0] == '/')
			return false;
		return could_write_up_to(in, abs, top);
	}
	/* why: "cat: /root/secret: Permission denied" is the caller's own
	 * limit; only a path the caller could write without the sandbox is a
	 * sandbox refusal. A path whose directory does not exist is no write
	 * anyone could have made: a quoted log line, not this run's error. */
	return in->could_write(abs, in->could_write_ctx) == CALLER_CAN;
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
	for (size_t i = 0; i < ev->count && i < EVIDENCE_LINES; i++)
		if (line_counts(in, &ev->ring[i]))
			return true;
	return false;
}
