/* SPDX-License-Identifier: MIT */
/* Where else a file is reachable: the other mounts of its file system (a bind
 * mount of it, or of a directory above it, as containers and dev VMs have)
 * that show it at another path. */
#ifndef SBX_MOUNT_ALIASES_H
#define SBX_MOUNT_ALIASES_H

#include <stddef.h>

struct mount_table;

/* The mount table of this process's mount namespace (/proc/self/mountinfo
 * under root: "" here, a fixture directory in the unit tests), or NULL. */
struct mount_table *mount_table_read(const char *root);
void mount_table_free(struct mount_table *t);

/* Every other path at which path (absolute, resolved, existing) is
 * reachable through another mount of its file system, each given to fn
 * only once stat() there shows the same device and inode as at path: the
 * table says where to look, the object itself decides. Returns how many
 * were given. */
size_t mount_table_aliases(const struct mount_table *t, const char *path,
			   void (*fn)(void *ctx, const char *alias), void *ctx);

#endif
