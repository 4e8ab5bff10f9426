/* SPDX-License-Identifier: MIT */
/* Inside launcher/protect: records, ancestors, snapshots and the baseline
 * file, shared by its files and the unit tests, nothing else. */
#ifndef SBX_PROTECT_INT_H
#define SBX_PROTECT_INT_H

#include "protect.h"

/* protect_record.c: one record, taken from what is on disk now, put back to what
 * it holds (true: it had changed). */
void protect_record_take(struct protect_record *rec, int root_fd);
bool protect_record_restore(const struct protect_record *rec, int root_fd);
void protect_base_clear(struct protect_base *b);
/* protect_ancestors.c: the same for a directory on the way. */
void protect_ancestor_take(struct protect_record *rec, int root_fd);
bool protect_ancestor_restore(const struct protect_record *rec, int root_fd);

/* protect_base_file.c: the baseline file in dir_fd ("base"), written
 * whole or not at all, read back with every field checked. */
int protect_base_encode(const struct protect_base *b, char **out, size_t *len);
int protect_base_decode(const char *buf, size_t len, struct protect_base *b);
int protect_base_read(int dir_fd, struct protect_base *b); /* -ENOENT: none */
int protect_base_write(int dir_fd, const struct protect_base *b);
void protect_base_remove(int dir_fd);
/* A relative path of plain components (none empty, "." or ".."). */
bool protect_path_plain(const char *p, size_t len);

/* protect_snapshot.c */
int protect_snapshot_take(struct protect_snapshot *ps, int parent_fd, const char *name);
int protect_snapshot_put_back(const struct protect_snapshot *ps, int parent_fd, const char *name,
			      bool *changed);
void protect_snapshot_free(struct protect_snapshot *ps);

#endif
