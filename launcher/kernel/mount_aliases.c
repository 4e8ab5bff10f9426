/* SPDX-License-Identifier: MIT */
/* Other mounts of a file's file system that show it elsewhere, from
 * /proc/self/mountinfo: each candidate is checked by identity. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "mount_aliases.h"

struct mount_entry {
	dev_t dev;
	char *root;  /* the directory of its file system it shows */
	char *point; /* where it is mounted */
};

struct mount_table {
	struct mount_entry *e;
	size_t n;
};

/* A mountinfo field in place: its octal escapes (\040 space, \011, \012,
 * \134) undone. */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

static int add_line(struct mount_table *t, char *line)
{
	unsigned maj, min;
	char *f[5], *save = NULL;
	struct mount_entry *grown;

	f[0] = strtok_r(line, " ", &save);
	for (int i = 1; i < 5; i++)
		f[i] = f[i - 1] ? strtok_r(NULL, " ", &save) : NULL;
	if (!f[4] || sscanf(f[2], "%u:%u", &maj, &min) != 2)
		return 0;
	grown = realloc(t->e, (t->n + 1) * sizeof(*t->e));
	if (!grown)
		return -1;
	t->e = grown;
	unescape(f[3]);
	unescape(f[4]);
	t->e[t->n].dev = makedev(maj, min);
	t->e[t->n].root = strdup(f[3]);
	t->e[t->n].point = strdup(f[4]);
	if (!t->e[t->n].root || !t->e[t->n].point) {
		free(t->e[t->n].root);
		free(t->e[t->n].point);
		return -1;
	}
	t->n++;
	return 0;
}

struct mount_table *mount_table_read(const char *root)
{
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0;
	struct mount_table *t;
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/self/mountinfo", root ? root : "");
	f = fopen(path, "re");
	if (!f)
		return NULL;
	t = calloc(1, sizeof(*t));
	while (t && getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\n")] = '\0';
		if (add_line(t, line) < 0) {
			mount_table_free(t);
			t = NULL;
		}
	}
	free(line);
	fclose(f);
	return t;
}

void mount_table_free(struct mount_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++) {
		free(t->e[i].root);
		free(t->e[i].point);
	}
	free(t->e);
	free(t);
}

/* What of path lies below dir ("" for dir itself, "/x/y" below it), or NULL
 * when path is not dir nor below it. */
static const char *below(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return path;
	if (strncmp(path, dir, n) != 0 || (path[n] != '\0' && path[n] != '/'))
		return NULL;
	return path + n;
}

size_t mount_table_aliases(const struct mount_table *t, const char *path,
			   void (*fn)(void *ctx, const char *alias), void *ctx)
{
	const struct mount_entry *home = NULL;
	char in_fs[PATH_MAX], alias[PATH_MAX];
	struct stat st, at;
	size_t given = 0, best = 0;

	if (!t || path[0] != '/' || stat(path, &st) < 0)
		return 0;
	/* The mount path lies in: the deepest mount point above it, the last
	 * one listed where several are stacked (the one on top). */
	for (size_t i = 0; i < t->n; i++) {
		size_t n = strlen(t->e[i].point);

		if (below(path, t->e[i].point) && n >= best) {
			best = n;
			home = &t->e[i];
		}
	}
	if (!home || home->dev != st.st_dev)
		return 0;
	/* Where path is in its file system. */
	if (snprintf(in_fs, sizeof(in_fs), "%s%s", strcmp(home->root, "/") == 0 ? "" : home->root,
		     below(path, home->point)) >= (int)sizeof(in_fs))
		return 0;
	if (!in_fs[0])
		strcpy(in_fs, "/");
	for (size_t i = 0; i < t->n; i++) {
		const struct mount_entry *m = &t->e[i];
		const char *rest;

		if (m == home || m->dev != st.st_dev || !(rest = below(in_fs, m->root)))
			continue;
		if (snprintf(alias, sizeof(alias), "%s%s", strcmp(m->point, "/") == 0 ? "" : m->point,
			     rest) >= (int)sizeof(alias))
			continue;
		if (!alias[0])
			strcpy(alias, "/");
		/* why identity: the table is text and may be stale, a mount may
		 * be covered by another; only what stat() finds there now is the
		 * same object. */
		if (strcmp(alias, path) == 0 || stat(alias, &at) < 0 || at.st_dev != st.st_dev ||
		    at.st_ino != st.st_ino)
			continue;
		fn(ctx, alias);
		given++;
	}
	/* A mount that shows a part of it (a bind of ~/.ssh/keys or of one key
	 * file elsewhere): its mount point, where the same object is found
	 * below path (adversarial pass 7, finding 04). */
	for (size_t i = 0; i < t->n; i++) {
		const struct mount_entry *m = &t->e[i];
		const char *rest;
		char inside[PATH_MAX];
		struct stat part;

		if (m == home || m->dev != st.st_dev || !(rest = below(m->root, in_fs)) ||
		    !rest[0] || strcmp(rest, "/") == 0)
			continue;
		if (snprintf(inside, sizeof(inside), "%s%s", strcmp(path, "/") == 0 ? "" : path,
			     rest) >= (int)sizeof(inside))
			continue;
		/* why identity: as above; and the part must be found below
		 * path itself, not only named so in the table. */
		if (below(m->point, path) || stat(m->point, &at) < 0 || stat(inside, &part) < 0 ||
		    at.st_dev != part.st_dev || at.st_ino != part.st_ino)
			continue;
		fn(ctx, m->point);
		given++;
	}
	return given;
}
