/* SPDX-License-Identifier: MIT */
/* The landlock runner's rulesets, kept per process (serve runs many
 * commands): built once for a policy, used again while the file tree they
 * were built from is unchanged (landlock_cache.c). */
#ifndef SBX_LANDLOCK_CACHE_H
#define SBX_LANDLOCK_CACHE_H

#include <stdbool.h>
#include <sys/types.h>

#include "child.h"
#include "landlock.h"

#define LL_CACHE_PATHS 48

/* What a build saw of the paths it granted by name (before granting). */
struct ll_seen {
	struct {
		char *path;
		dev_t dev;
		ino_t ino;
		bool exists;
	} p[LL_CACHE_PATHS];
	size_t n;
	bool broken;
};

/* Record path as the build sees it right before granting it by name. */
void ll_seen_path(struct ll_seen *seen, const char *path);

/* A copy (dup) of the ruleset built for this spec's policy, if one is kept
 * and what it was built from is unchanged; -1 otherwise. */
int ll_cache_get(const struct child_spec *spec);
/* Keep rs (a dup is kept; the caller keeps rs) with what its build walked
 * and saw; both are taken over. */
void ll_cache_put(const struct child_spec *spec, int rs, struct landlock_walk_log *log,
		  struct ll_seen *seen);
void ll_seen_free(struct ll_seen *seen);
/* From now on this process keeps rulesets (it runs many commands). */
void ll_cache_enable(void);

#endif
