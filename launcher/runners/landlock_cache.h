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

/* A ruleset for this spec's policy, lent to one run alone: a dup of one
 * kept and still what a fresh build would give, or -1. Lent, it serves no
 * other run until ll_cache_return: the run may add rules of its own (its pty
 * pool's) that must never reach another run's domain. lend says which. */
int ll_cache_lend(const struct child_spec *spec, struct landlock_lend *lend);
/* Keep rs, just built (a dup is kept; the caller keeps rs), with what its
 * build walked and saw (both taken over), lent to this run as above. */
void ll_cache_put(const struct child_spec *spec, int rs, struct landlock_walk_log *log,
		  struct ll_seen *seen, struct landlock_lend *lend);
/* The run is done with the lent ruleset: it added lend->pool_rules rules on
 * slaves of ptys that have all ended (closed by sbx), and, unless reusable
 * is false, the ruleset serves later runs again. No-op when nothing is
 * lent. Any thread. */
void ll_cache_return(struct landlock_lend *lend, bool reusable);
void ll_seen_free(struct ll_seen *seen);
/* From now on this process keeps rulesets (it runs many commands). */
void ll_cache_enable(void);

#endif
