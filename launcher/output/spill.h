/* SPDX-License-Identifier: MIT */
/* Spill files: where a stream past the output limit is kept whole, how much
 * of it, and for how long (docs/output.md). */
#ifndef SBX_SPILL_H
#define SBX_SPILL_H

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sbx.h"

#define SPILL_DIR_PREFIX "sbx-spill-" /* + 12 hex digits: a run's private directory */
#define SPILL_DIR_HEX 12
/* At most this many places the command may write (spill_place_choose). */
#define SPILL_AVOID_MAX 4
#define SPILL_FILE_RANDOM 8           /* "stdout-" + 8 letters or digits */

/* Below this much free space sbx writes no more spill: 5% of the file
 * system, at least SPILL_FLOOR_MIN, at most SPILL_FLOOR_MAX. */
#define SPILL_FLOOR_MIN (64ULL << 20)
#define SPILL_FLOOR_MAX (1ULL << 30)
/* Free space is checked again after this much more spill. */
#define SPILL_ROOM_CHECK (4ULL << 20)

/* One run's spill place, shared by its two streams. */
struct spill_place {
	char base[PATH_MAX];   /* --spill-dir, the caller's spill home, or $TMPDIR / /tmp */
	int base_fd;           /* opened before the command runs; -errno when unusable */
	bool private_dir;      /* files go in a fresh sbx-spill-* directory under base */
	int dir_fd;            /* that directory, made by the first spill (-1: not yet) */
	char dir_name[32];
	uint64_t max_bytes;    /* per stream; 0: never spill */
};

/* Why a stream's spill file does not hold the whole stream. */
enum spill_stop {
	SPILL_WHOLE = 0,       /* no spill needed, or the file holds every byte */
	SPILL_STOP_CAP,        /* spill_max_bytes reached */
	SPILL_STOP_SPACE,      /* the file system's free space reached the floor */
	SPILL_STOP_ERROR,      /* creating or writing failed (see the errno) */
};
const char *spill_stop_name(enum spill_stop stop);

void spill_place_init(struct spill_place *p, uint64_t max_bytes);
/* Fix the place before the command runs. explicit_dir: --spill-dir (NULL:
 * the default). writable: what the command may write (n of them); a base
 * below one of them is refused (explicit) or passed over (default). Errors:
 * code USAGE, only for an explicit directory. */
int spill_place_choose(struct spill_place *p, const char *explicit_dir,
		       const char *const *writable, size_t n_writable, struct sbx_error *err);
/* A new spill file for one stream ("stdout"): its fd (0600, O_EXCL), and in
 * *path its malloc'd absolute path; -errno on failure. */
int spill_place_create(struct spill_place *p, const char *stream, char **path);
void spill_place_close(struct spill_place *p);
/* Whether the file system under fd has `want` more bytes above the floor. */
bool spill_has_room(int fd, uint64_t want);
/* How many bytes may still go to fd's file system above the floor. */
uint64_t spill_headroom(int fd);

/* The caller's spill home, $XDG_CACHE_HOME/sbx/spill or ~/.cache/sbx/spill
 * (not created here): what deny_read should hide from confined commands. */
int spill_home_path(char *out, size_t size);
/* The fallback home, $XDG_RUNTIME_DIR/sbx/spill. */
int spill_runtime_path(char *out, size_t size);
/* The last home, /var/tmp/sbx-UID/spill (UID: the effective uid). */
int spill_var_tmp_path(char *out, size_t size);
/* A home's path split at sbx's own part: PARENT/OWN/spill. 0 or -errno. */
int spill_home_split(const char *path, char *parent, size_t parent_size, char *own,
		     size_t own_size);

/* spill_clean.c: sbx_spill_cleanup() and sbx_spill_remove() (sbx.h), and
 * the check both use: is name one of sbx's private spill directories or
 * spill files? */
bool spill_is_dir_name(const char *name);
bool spill_is_file_name(const char *name);
/* For serve: sbx_spill_remove() on every path of a result object's "spill"
 * (a closed task's or session's results). Returns how many were removed. */
int spill_remove_result(const json_t *result);

#endif
