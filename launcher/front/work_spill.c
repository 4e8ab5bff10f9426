/* SPDX-License-Identifier: MIT */
/* Spill files a session's runs left (the whole stream past the output
 * limit): deleted when the session (or its task) is closed, and after a
 * configurable age. Only the paths a result names are touched. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "run.h"
#include "work.h"

static void note_one(struct work_session *sess, const char *path, bool private_dir)
{
	if (sess->n_spills == sess->cap_spills) {
		size_t cap = sess->cap_spills ? sess->cap_spills * 2 : 8;
		struct spill_note *n = realloc(sess->spills, cap * sizeof(*n));

		if (!n)
			return;
		sess->spills = n;
		sess->cap_spills = cap;
	}
	sess->spills[sess->n_spills].path = strdup(path);
	if (!sess->spills[sess->n_spills].path)
		return;
	sess->spills[sess->n_spills].born_ms = run_now_ms();
	sess->spills[sess->n_spills].private_dir = private_dir;
	sess->n_spills++;
}

void work_spill_note(struct work_session *sess, const json_t *result, bool private_dir)
{
	json_t *spill = json_object_get(result, "spill");
	const char *out = json_string_value(json_object_get(spill, "stdout"));
	const char *err = json_string_value(json_object_get(spill, "stderr"));

	if (out)
		note_one(sess, out, private_dir);
	if (err)
		note_one(sess, err, private_dir);
	/* A run that ends after its session closed: nobody will read them. */
	if (sess->closed)
		work_spill_delete_all(sess);
}

/* The directory is opened without following symlinks (a confined run may
 * write where the spill base is, /tmp), then the file unlinked in it; the
 * private directory sbx made for it goes too once empty. */
static void delete_one(const struct spill_note *n)
{
	char *copy = strdup(n->path);
	struct open_how how = { .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
				.resolve = RESOLVE_NO_SYMLINKS };
	const char *dir, *base;
	int fd;

	if (!copy)
		return;
	base = strrchr(n->path, '/');
	dir = dirname(copy);
	fd = (int)syscall(SYS_openat2, AT_FDCWD, dir, &how, sizeof(how));
	if (fd >= 0 && base) {
		unlinkat(fd, base + 1, 0);
		close(fd);
		if (n->private_dir)
			rmdir(dir);
	}
	free(copy);
}

void work_spill_delete_all(struct work_session *sess)
{
	for (size_t i = 0; i < sess->n_spills; i++) {
		delete_one(&sess->spills[i]);
		free(sess->spills[i].path);
	}
	sess->n_spills = 0;
}

void work_spill_sweep(struct work *w, uint64_t now_ms, int *timeout_ms)
{
	if (!w->spill_max_age_ms)
		return;
	for (struct work_session *s = w->sessions; s; s = s->next) {
		size_t k = 0;

		for (size_t i = 0; i < s->n_spills; i++) {
			uint64_t due = s->spills[i].born_ms + w->spill_max_age_ms;

			if (due <= now_ms) {
				delete_one(&s->spills[i]);
				free(s->spills[i].path);
				continue;
			}
			if (*timeout_ms < 0 || due - now_ms < (uint64_t)*timeout_ms)
				*timeout_ms = (int)(due - now_ms);
			s->spills[k++] = s->spills[i];
		}
		s->n_spills = k;
	}
}
