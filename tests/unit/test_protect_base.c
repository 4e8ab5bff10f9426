/* SPDX-License-Identifier: MIT */
/* The protected paths' baseline file (launcher/protect/protect_base_file.c):
 * what a run records reads back the same and rebuilds the same tree; a file
 * whose fields would steer sbx's unconfined restore anywhere it should not
 * go (out of the root or of the protected path, a set-id file, entries out
 * of the order the restore builds in) is refused whole, even when its
 * checksum is right; so is every truncation. Built in a private directory. */
#include <criterion/criterion.h>

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "protect_int.h"
#include "protect_snap.h"

static char dir[] = "/tmp/sbx-unit-protect-XXXXXX";

static void sh(const char *fmt, const char *arg)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), fmt, arg, arg, arg, arg);
	cr_assert(system(cmd) == 0, "%s", cmd);
}

static void setup(void)
{
	cr_assert(mkdtemp(dir));
	sh("cd %s && mkdir -p ws/.git/hooks/sub && printf 'hook' > ws/.git/hooks/pre-commit && "
	   "chmod 755 ws/.git/hooks/pre-commit && ln -s pre-commit ws/.git/hooks/link && "
	   "printf 'x' > ws/.git/hooks/sub/deep && printf '[core]\\n' > ws/.git/config",
	   dir);
}

static void teardown(void)
{
	sh("rm -rf %s", dir);
}

static int open_ws(void)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/ws", dir);
	fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	cr_assert(fd >= 0);
	return fd;
}

static void add(struct protect_base *b, const char *path, bool ancestor, int root_fd)
{
	struct protect_record *r;

	b->rec = realloc(b->rec, (b->n + 1) * sizeof(*b->rec));
	cr_assert(b->rec);
	r = &b->rec[b->n++];
	memset(r, 0, sizeof(*r));
	r->path = strdup(path);
	r->ancestor = ancestor;
	protect_record_take(r, root_fd);
}

/* The baseline of ws as a run records it. */
static void record(struct protect_base *b, int root_fd)
{
	memset(b, 0, sizeof(*b));
	b->root = strdup("/some/root");
	b->root_dev = 7;
	b->root_ino = 42;
	add(b, ".git", true, root_fd);
	add(b, ".git/hooks", false, root_fd);
	add(b, ".git/config", false, root_fd);
	add(b, ".envrc", false, root_fd);
}

static bool decodes(const char *buf, size_t len)
{
	struct protect_base b;
	int rc = protect_base_decode(buf, len, &b);

	if (rc == 0)
		protect_base_clear(&b);
	return rc == 0;
}

Test(protect_base, round_trip_rebuilds_the_tree, .init = setup, .fini = teardown)
{
	int root_fd = open_ws();
	struct protect_base b, back;
	char *buf, *again;
	size_t len, len2;
	char path[PATH_MAX], target[64];
	struct stat st;

	record(&b, root_fd);
	cr_assert(b.rec[0].was == PROTECT_DIR && b.rec[1].was == PROTECT_PRESENT &&
		  b.rec[3].was == PROTECT_ABSENT);
	cr_assert(protect_base_encode(&b, &buf, &len) == 0);
	cr_assert(protect_base_decode(buf, len, &back) == 0);
	cr_assert_str_eq(back.root, "/some/root");
	cr_assert(back.root_dev == 7 && back.root_ino == 42 && back.n == 4);
	cr_assert(protect_base_encode(&back, &again, &len2) == 0);
	cr_assert(len2 == len && memcmp(buf, again, len) == 0, "not read back the same");

	/* A run plants and deletes; the decoded baseline puts it all back. */
	sh("cd %s/ws && rm -rf .git/hooks/sub .git/config && printf evil > .git/hooks/pre-commit && "
	   "printf evil > .git/hooks/post-checkout && printf evil > .envrc",
	   dir);
	for (size_t i = 0; i < back.n; i++)
		protect_record_restore(&back.rec[i], root_fd);
	snprintf(path, sizeof(path), "%s/ws/.git/hooks/pre-commit", dir);
	cr_assert(stat(path, &st) == 0 && st.st_size == 4 && (st.st_mode & 07777) == 0755);
	snprintf(path, sizeof(path), "%s/ws/.git/hooks/post-checkout", dir);
	cr_assert(access(path, F_OK) != 0, "a planted hook survived");
	snprintf(path, sizeof(path), "%s/ws/.git/hooks/sub/deep", dir);
	cr_assert(access(path, F_OK) == 0);
	snprintf(path, sizeof(path), "%s/ws/.git/hooks/link", dir);
	cr_assert(readlink(path, target, sizeof(target)) == 10 && memcmp(target, "pre-commit", 10) == 0);
	snprintf(path, sizeof(path), "%s/ws/.git/config", dir);
	cr_assert(access(path, F_OK) == 0);
	snprintf(path, sizeof(path), "%s/ws/.envrc", dir);
	cr_assert(access(path, F_OK) != 0, ".envrc was absent");
	free(buf);
	free(again);
	protect_base_clear(&b);
	protect_base_clear(&back);
	close(root_fd);
}

Test(protect_base, every_truncation_and_flip_refused, .init = setup, .fini = teardown)
{
	int root_fd = open_ws();
	struct protect_base b;
	char *buf;
	size_t len;

	record(&b, root_fd);
	cr_assert(protect_base_encode(&b, &buf, &len) == 0);
	for (size_t n = 0; n < len; n++)
		cr_assert(!decodes(buf, n), "a file cut at %zu bytes was taken", n);
	for (size_t i = 0; i < len; i++) {
		buf[i] ^= 0x5a;
		cr_assert(!decodes(buf, len), "a flipped byte at %zu was taken", i);
		buf[i] ^= 0x5a;
	}
	cr_assert(decodes(buf, len));
	free(buf);
	protect_base_clear(&b);
	close(root_fd);
}

/* A baseline with one record whose snapshot holds the given entries. */
struct ent {
	const char *rel;
	mode_t mode;
	const char *data;
};

static bool decodes_entries(const char *path, const struct ent *e, size_t n)
{
	struct protect_base b = { 0 };
	struct snap *s = calloc(1, sizeof(*s));
	char *buf;
	size_t len;
	bool ok;

	cr_assert(s);
	for (size_t i = 0; i < n; i++) {
		struct snap_entry *x = protect_snap_add(s);

		cr_assert(x);
		x->rel = strdup(e[i].rel);
		x->mode = e[i].mode;
		x->data = e[i].data ? strdup(e[i].data) : NULL;
		x->len = e[i].data ? strlen(e[i].data) : 0;
	}
	b.root = strdup("/r");
	b.rec = calloc(1, sizeof(*b.rec));
	b.n = 1;
	b.rec[0].path = strdup(path);
	b.rec[0].was = PROTECT_PRESENT;
	b.rec[0].snap.snap = s;
	cr_assert(protect_base_encode(&b, &buf, &len) == 0);
	ok = decodes(buf, len);
	free(buf);
	protect_base_clear(&b);
	return ok;
}

Test(protect_base, hostile_fields_refused_with_a_right_checksum)
{
	const struct ent good[] = {
		{ "", S_IFDIR | 0755, NULL },
		{ "a", S_IFDIR | 02755, NULL }, /* a setgid directory: shared repositories */
		{ "a/x", S_IFREG | 0644, "x" },
		{ "l", S_IFLNK | 0777, "/anywhere" }, /* made as a symlink, never followed */
		{ "f", S_IFREG | 0755, "hook" },
	};
	cr_assert(decodes_entries(".git/hooks", good, 5));

	const char *bad_paths[] = { "../outside", "/etc/passwd", ".git/../..", "a//b", "./x",
				    "x/", "", ".git/./hooks", ".." };
	for (size_t i = 0; i < sizeof(bad_paths) / sizeof(bad_paths[0]); i++)
		cr_assert(!decodes_entries(bad_paths[i], good, 5), "path '%s' taken", bad_paths[i]);

	const struct ent climbs[] = { { "", S_IFDIR | 0755, NULL }, { "..", S_IFDIR | 0755, NULL },
				      { "../x", S_IFREG | 0644, "x" } };
	const struct ent absolute[] = { { "", S_IFDIR | 0755, NULL }, { "/etc", S_IFDIR | 0755, NULL } };
	const struct ent setuid[] = { { "", S_IFDIR | 0755, NULL }, { "s", S_IFREG | 04755, "x" } };
	const struct ent setgid_file[] = { { "", S_IFREG | 02755, "x" } };
	const struct ent orphan[] = { { "", S_IFDIR | 0755, NULL }, { "a/x", S_IFREG | 0644, "x" } };
	const struct ent below_a_file[] = { { "", S_IFDIR | 0755, NULL }, { "a", S_IFREG | 0644, "" },
					    { "a/x", S_IFREG | 0644, "x" } };
	/* b/x after a/y: restore would make it in a. */
	const struct ent out_of_order[] = { { "", S_IFDIR | 0755, NULL }, { "a", S_IFDIR | 0755, NULL },
					    { "b", S_IFDIR | 0755, NULL }, { "a/y", S_IFREG | 0644, "" } };
	const struct ent twice[] = { { "", S_IFDIR | 0755, NULL }, { "a", S_IFREG | 0644, "1" },
				     { "a", S_IFREG | 0644, "2" } };
	const struct ent first_named[] = { { "x", S_IFREG | 0644, "x" } };
	const struct ent two_roots[] = { { "", S_IFDIR | 0755, NULL }, { "", S_IFDIR | 0755, NULL } };
	const struct ent empty_link[] = { { "", S_IFLNK | 0777, "" } };
	const struct ent dir_data[] = { { "", S_IFDIR | 0755, "data" } };
	const struct ent odd_type[] = { { "", 0170000 | 0644, NULL } };
	const struct ent odd_bits[] = { { "", S_IFREG | 0644 | 0200000, "x" } };
	const struct {
		const char *name;
		const struct ent *e;
		size_t n;
	} cases[] = {
		{ "a component ..", climbs, 3 },
		{ "an absolute entry", absolute, 2 },
		{ "a setuid file", setuid, 2 },
		{ "a setgid file", setgid_file, 1 },
		{ "an entry without its directory", orphan, 2 },
		{ "an entry below a file", below_a_file, 3 },
		{ "entries out of pre-order", out_of_order, 4 },
		{ "an entry twice", twice, 3 },
		{ "a first entry with a name", first_named, 1 },
		{ "two first entries", two_roots, 2 },
		{ "an empty symlink", empty_link, 1 },
		{ "a directory with data", dir_data, 1 },
		{ "an unknown file type", odd_type, 1 },
		{ "unknown mode bits", odd_bits, 1 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_assert(!decodes_entries(".git/hooks", cases[i].e, cases[i].n), "%s was taken",
			  cases[i].name);
}

Test(protect_base, plain_paths)
{
	cr_assert(protect_path_plain(".git/hooks", 10));
	cr_assert(protect_path_plain("a", 1));
	cr_assert(protect_path_plain("..a/b..", 7));
	cr_assert(!protect_path_plain("a\0b", 3));
	cr_assert(!protect_path_plain("a/b/", 4));
	cr_assert(!protect_path_plain("/a", 2));
	cr_assert(!protect_path_plain("a/../b", 6));
}

Test(protect_base, set_id_file_not_snapshotted, .init = setup, .fini = teardown)
{
	int root_fd = open_ws();
	struct protect_record r = { .path = (char *)".git/hooks" };

	sh("chmod 4755 %s/ws/.git/hooks/pre-commit", dir);
	protect_record_take(&r, root_fd);
	cr_assert(r.was == PROTECT_PRESENT && !r.snap.snap && r.snap.partial,
		  "a set-id file was taken into a snapshot");
	close(root_fd);
}
