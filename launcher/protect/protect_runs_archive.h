/* SPDX-License-Identifier: MIT */
/* The runs record's archive (protect_runs_archive.c), for protect_runs.c. */
#ifndef SBX_PROTECT_RUNS_ARCHIVE_H
#define SBX_PROTECT_RUNS_ARCHIVE_H

#include "protect_runs_list.h"

/* shared: a window only, not of its root (a run's time, for the places
 * every run, or every run that could write the host's /tmp, writes). */
typedef void runs_each_fn(void *ctx, const struct rec *r, bool shared);

/* Moves closed records in (under the record's turn): 0 or -errno, and
 * then none is in it for sure. */
int runs_archive(int protect_dir, const struct rec *const *recs, size_t n);
/* The archived records that could matter below query (an absolute,
 * resolved path; NULL: none), and with any every run's window (shared).
 * No archive is none. 0 or -errno. */
int runs_archive_each(int protect_dir, const char *query, bool any, runs_each_fn *each, void *ctx);

#endif
