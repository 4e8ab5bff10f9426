/* SPDX-License-Identifier: MIT */
/* The runs record's lists, shared by protect_runs.c (the recent list, its
 * lock and its readers) and protect_runs_archive.c (where old records go). */
#ifndef SBX_PROTECT_RUNS_LIST_H
#define SBX_PROTECT_RUNS_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Records in one file at most (the recent list; an archive file keeps
 * fewer). */
#define RUNS_MAX 256
/* The run could write the host's /tmp and /dev/shm (landlock runner; an
 * open record, whose runner was not yet known, too). */
#define RUN_HOST_TMP 1u
/* In an archive file: a run on a root below the file's. */
#define RUN_BELOW 2u

struct rec {
	uint64_t id, from, to; /* ns since the epoch; to 0: open */
	uint32_t flags;
	char *root;
};

struct runs {
	struct rec *r;
	size_t n, cap;
};

uint64_t runs_now_ns(clockid_t clock);
/* The end of a window: now, and one tick of the clock file systems stamp
 * changes with. */
uint64_t runs_window_end(void);
uint64_t runs_hash(const unsigned char *p, size_t n);
void runs_free(struct runs *l);
int runs_add(struct runs *l, const struct rec *r);
/* A list that cannot be trusted: as if one run had covered every root
 * until now. */
int runs_all_before_now(struct runs *l);
/* 0 (a list, maybe empty), -ENOENT (no file), -EINVAL (one that fails its
 * checks), or another -errno. */
int runs_read(int dir, const char *name, struct runs *l);
int runs_write(int dir, const char *name, const struct runs *l);
/* The deepest directory holding both (absolute) paths. */
void runs_common_ancestor(const char *a, const char *b, char *out, size_t size);

#endif
