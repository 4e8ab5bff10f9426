/* SPDX-License-Identifier: MIT */
/* The baseline file of a root, in sbx's state directory (protect.h). Little-
 * endian, length-prefixed, with a checksum at the end:
 *
 *   "SBXPB\0\2\n"  u64 root dev  u64 root inode  str root  u64 since (ns)
 *                  u32 records      (version 1, of an older sbx: no since)
 *   record: u8 kind (bit 0 ancestor, bit 1 tainted: protect.h)
 *           u8 was (0 absent, 1 dir, 2 present, 3 present but
 *           too big)  str path  [was 2: u32 entries, each u32 mode, u32 uid,
 *           u32 gid, str rel, str data]
 *   u64 FNV-1a of everything before it
 *   str: u32 length, then the bytes (no NUL)
 *
 * The state directory is the caller's and hidden from commands, but what is
 * read back here drives unconfined writes into the user's workspace, so
 * every field is checked as if it were hostile: paths are plain relative
 * names (no "..", no "/" at the start, nothing empty), entries come in the
 * pre-order snapshot_restore builds from (each below the directory right
 * before it), sizes are bounded as a snapshot taken here would be, and no
 * set-id file is accepted. A file that fails any check is not used. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "protect_int.h"
#include "protect_snap.h"

static const char magic[8] = { 'S', 'B', 'X', 'P', 'B', 0, 2, '\n' };
#define MAGIC_VERSION 6 /* the byte that differs between versions 1 and 2 */

enum { WAS_ABSENT, WAS_DIR, WAS_PRESENT, WAS_TOO_BIG };

bool protect_path_plain(const char *p, size_t len)
{
	if (len == 0 || p[0] == '/' || memchr(p, '\0', len))
		return false;
	for (size_t i = 0; i < len;) {
		const char *slash = memchr(p + i, '/', len - i);
		size_t n = slash ? (size_t)(slash - (p + i)) : len - i;

		if (n == 0 || (n == 1 && p[i] == '.') || (n == 2 && p[i] == '.' && p[i + 1] == '.'))
			return false;
		i += n + 1;
		if (slash && i == len)
			return false; /* a trailing slash: an empty last component */
	}
	return true;
}

/* ---- writing ---- */

struct wbuf {
	char *p;
	size_t len, cap;
	bool failed;
};

static void put(struct wbuf *w, const void *data, size_t n)
{
	if (w->failed)
		return;
	if (w->len + n > w->cap) {
		size_t cap = w->cap ? w->cap : 4096;
		char *p;

		while (cap < w->len + n)
			cap *= 2;
		p = realloc(w->p, cap);
		if (!p) {
			w->failed = true;
			return;
		}
		w->p = p;
		w->cap = cap;
	}
	memcpy(w->p + w->len, data, n);
	w->len += n;
}

static void put_u(struct wbuf *w, uint64_t v, size_t bytes)
{
	unsigned char b[8];

	for (size_t i = 0; i < bytes; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	put(w, b, bytes);
}

static void put_str(struct wbuf *w, const char *s, size_t n)
{
	put_u(w, n, 4);
	put(w, s, n);
}

static uint64_t fnv1a(const char *p, size_t n)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 1099511628211ULL;
	return h;
}

static size_t snap_size(const struct snap *s)
{
	size_t n = 4;

	for (size_t i = 0; i < s->n; i++)
		n += 12 + 4 + strlen(s->e[i].rel) + 4 + s->e[i].len;
	return n;
}

int protect_base_encode(const struct protect_base *b, char **out, size_t *len)
{
	struct wbuf w = { 0 };

	put(&w, magic, sizeof(magic));
	put_u(&w, b->root_dev, 8);
	put_u(&w, b->root_ino, 8);
	put_str(&w, b->root, strlen(b->root));
	put_u(&w, b->since_ns, 8);
	put_u(&w, b->n, 4);
	for (size_t i = 0; i < b->n; i++) {
		const struct protect_record *r = &b->rec[i];
		const struct snap *s = r->snap.snap;
		int was = r->was == PROTECT_ABSENT ? WAS_ABSENT : r->was == PROTECT_DIR ? WAS_DIR
						   : s ? WAS_PRESENT : WAS_TOO_BIG;

		/* Past the file's bound, a snapshot is written as too big: the
		 * runs that read it back protect that path partially. */
		if (was == WAS_PRESENT && w.len + snap_size(s) + PATH_MAX > PROTECT_BASE_MAX_BYTES)
			was = WAS_TOO_BIG;
		put_u(&w, (uint64_t)r->ancestor | (uint64_t)r->tainted << 1, 1);
		put_u(&w, (uint64_t)was, 1);
		put_str(&w, r->path, strlen(r->path));
		if (was != WAS_PRESENT)
			continue;
		put_u(&w, s->n, 4);
		for (size_t j = 0; j < s->n; j++) {
			put_u(&w, s->e[j].mode, 4);
			put_u(&w, s->e[j].uid, 4);
			put_u(&w, s->e[j].gid, 4);
			put_str(&w, s->e[j].rel, strlen(s->e[j].rel));
			put_str(&w, s->e[j].data ? s->e[j].data : "", s->e[j].len);
		}
	}
	if (!w.failed)
		put_u(&w, fnv1a(w.p, w.len), 8);
	if (w.failed || w.len > PROTECT_BASE_MAX_BYTES) {
		free(w.p);
		return w.failed ? -ENOMEM : -EFBIG;
	}
	*out = w.p;
	*len = w.len;
	return 0;
}

/* ---- reading ---- */

struct rbuf {
	const unsigned char *p;
	size_t left;
	bool bad;
};

static uint64_t get_u(struct rbuf *r, size_t bytes)
{
	uint64_t v = 0;

	if (r->bad || r->left < bytes) {
		r->bad = true;
		return 0;
	}
	for (size_t i = 0; i < bytes; i++)
		v |= (uint64_t)r->p[i] << (8 * i);
	r->p += bytes;
	r->left -= bytes;
	return v;
}

/* A string of at most max bytes, copied and NUL-terminated (NULL: bad). */
static char *get_str(struct rbuf *r, size_t max, size_t *len)
{
	uint64_t n = get_u(r, 4);
	char *s;

	if (r->bad || n > max || n > r->left) {
		r->bad = true;
		return NULL;
	}
	s = malloc((size_t)n + 1);
	if (!s) {
		r->bad = true;
		return NULL;
	}
	memcpy(s, r->p, (size_t)n);
	s[n] = '\0';
	r->p += n;
	r->left -= (size_t)n;
	*len = (size_t)n;
	return s;
}

static size_t depth_of(const char *rel)
{
	size_t d = rel[0] ? 1 : 0;

	for (const char *p = rel; *p; p++)
		d += *p == '/';
	return d;
}

/* One entry's mode, data and place are what a snapshot taken here holds. */
static bool entry_ok(const struct snap *s, size_t i, const ssize_t *dirs)
{
	const struct snap_entry *e = &s->e[i];
	mode_t type = e->mode & S_IFMT;
	size_t depth = depth_of(e->rel);
	const char *slash = strrchr(e->rel, '/');
	size_t plen = slash ? (size_t)(slash - e->rel) : 0;

	if (e->mode & ~(mode_t)(S_IFMT | 07777))
		return false;
	if (type != S_IFREG && type != S_IFDIR && type != S_IFLNK && type != S_IFIFO &&
	    type != S_IFSOCK && type != S_IFCHR && type != S_IFBLK)
		return false;
	if (type != S_IFDIR && (e->mode & (S_ISUID | S_ISGID)))
		return false;
	if (type == S_IFLNK ? (e->len == 0 || e->len > PROTECT_SNAP_MAX_LINK ||
			       memchr(e->data, '\0', e->len))
			    : type != S_IFREG && e->len != 0)
		return false;
	if (i == 0)
		return e->rel[0] == '\0';
	if (!protect_path_plain(e->rel, strlen(e->rel)) || depth > PROTECT_SNAP_MAX_DEPTH)
		return false;
	/* Right below the directory last seen one level up, as pre-order
	 * puts it: restore makes each entry in that directory's handle. */
	if (dirs[depth - 1] < 0)
		return false;
	const char *parent = s->e[dirs[depth - 1]].rel;

	if (strlen(parent) != plen || strncmp(parent, e->rel, plen) != 0)
		return false;
	for (size_t j = 0; j < i; j++)
		if (strcmp(s->e[j].rel, e->rel) == 0)
			return false;
	return true;
}

static struct snap *get_snap(struct rbuf *r)
{
	uint64_t n = get_u(r, 4);
	ssize_t dirs[PROTECT_SNAP_MAX_DEPTH + 2];
	struct snap *s;

	if (r->bad || n == 0 || n > PROTECT_SNAP_MAX_ENTRIES)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++)
		dirs[d] = -1;
	for (size_t i = 0; i < n && !r->bad; i++) {
		struct snap_entry *e = protect_snap_add(s);
		size_t rel_len, depth;

		if (!e) {
			r->bad = true;
			break;
		}
		e->mode = (mode_t)get_u(r, 4);
		e->uid = (uid_t)get_u(r, 4);
		e->gid = (gid_t)get_u(r, 4);
		e->rel = get_str(r, PATH_MAX - 1, &rel_len);
		e->data = get_str(r, PROTECT_SNAP_MAX_BYTES, &e->len);
		if (r->bad || strlen(e->rel) != rel_len || !entry_ok(s, i, dirs)) {
			r->bad = true;
			break;
		}
		if (S_ISREG(e->mode) && (s->bytes += e->len) > PROTECT_SNAP_MAX_BYTES) {
			r->bad = true;
			break;
		}
		depth = depth_of(e->rel);
		for (size_t d = depth; d < sizeof(dirs) / sizeof(dirs[0]); d++)
			dirs[d] = -1;
		if (S_ISDIR(e->mode))
			dirs[depth] = (ssize_t)i;
	}
	if (r->bad) {
		protect_snap_free(s);
		free(s);
		return NULL;
	}
	return s;
}

static bool get_record(struct rbuf *r, struct protect_base *b)
{
	struct protect_record *rec = &b->rec[b->n];
	uint64_t kind = get_u(r, 1), was = get_u(r, 1), ancestor = kind & 1;
	size_t len;

	memset(rec, 0, sizeof(*rec));
	rec->path = get_str(r, PATH_MAX - 1, &len);
	/* Tainted: a present entry, never an ancestor. */
	if (r->bad || kind > 2 || was > WAS_TOO_BIG || (was == WAS_DIR && !ancestor) ||
	    !protect_path_plain(rec->path, len)) {
		free(rec->path);
		return false;
	}
	for (size_t i = 0; i < b->n; i++)
		if (b->rec[i].ancestor == (ancestor == 1) && strcmp(b->rec[i].path, rec->path) == 0) {
			free(rec->path);
			return false;
		}
	rec->ancestor = ancestor == 1;
	rec->tainted = kind == 2;
	rec->was = was == WAS_ABSENT ? PROTECT_ABSENT : was == WAS_DIR ? PROTECT_DIR : PROTECT_PRESENT;
	if (was == WAS_TOO_BIG)
		rec->snap.partial = true;
	if (was == WAS_PRESENT && !(rec->snap.snap = get_snap(r))) {
		free(rec->path);
		return false;
	}
	b->n++;
	return true;
}

int protect_base_decode(const char *buf, size_t len, struct protect_base *b)
{
	struct rbuf r = { (const unsigned char *)buf, len, false };
	uint64_t n;
	size_t root_len;
	bool v1;

	memset(b, 0, sizeof(*b));
	if (len < sizeof(magic) + 8 || memcmp(buf, magic, MAGIC_VERSION) != 0 ||
	    (buf[MAGIC_VERSION] != 1 && buf[MAGIC_VERSION] != 2) || buf[MAGIC_VERSION + 1] != '\n')
		return -EINVAL;
	v1 = buf[MAGIC_VERSION] == 1;
	r = (struct rbuf){ (const unsigned char *)buf + len - 8, 8, false };
	if (get_u(&r, 8) != fnv1a(buf, len - 8))
		return -EINVAL;
	r = (struct rbuf){ (const unsigned char *)buf + sizeof(magic), len - sizeof(magic) - 8,
			   false };
	b->root_dev = get_u(&r, 8);
	b->root_ino = get_u(&r, 8);
	b->root = get_str(&r, PATH_MAX - 1, &root_len);
	b->since_ns = v1 ? 0 : get_u(&r, 8);
	n = get_u(&r, 4);
	if (r.bad || !b->root || b->root[0] != '/' || strlen(b->root) != root_len ||
	    n > PROTECT_BASE_MAX_RECORDS)
		goto bad;
	b->rec = calloc(n ? (size_t)n : 1, sizeof(*b->rec));
	if (!b->rec)
		goto bad;
	b->cap = n ? (size_t)n : 1;
	while (b->n < n)
		if (!get_record(&r, b))
			goto bad;
	if (r.bad || r.left != 0)
		goto bad;
	return 0;
bad:
	protect_base_clear(b);
	return -EINVAL;
}

/* ---- the file ---- */

int protect_base_read(int dir_fd, struct protect_base *b)
{
	int fd = openat(dir_fd, "base", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	char *buf;
	size_t got = 0;
	int rc;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (uint64_t)st.st_size > PROTECT_BASE_MAX_BYTES) {
		close(fd);
		return -EINVAL;
	}
	buf = malloc((size_t)st.st_size + 1);
	while (buf && got <= (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size + 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (!buf)
		return -ENOMEM;
	rc = got == (size_t)st.st_size ? protect_base_decode(buf, got, b) : -EINVAL;
	free(buf);
	return rc;
}

/* Written whole under a temporary name, then renamed over: a reader sees
 * the old file or the new one, and an sbx killed while writing leaves no
 * half a baseline. */
int protect_base_write(int dir_fd, const struct protect_base *b)
{
	char *buf;
	size_t len;
	int fd, rc = protect_base_encode(b, &buf, &len);

	if (rc < 0)
		return rc;
	unlinkat(dir_fd, "base.new", 0);
	fd = openat(dir_fd, "base.new", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		free(buf);
		return -errno;
	}
	for (size_t off = 0; rc == 0 && off < len;) {
		ssize_t n = write(fd, buf + off, len - off);

		if (n > 0)
			off += (size_t)n;
		else if (n < 0 && errno != EINTR)
			rc = -errno;
	}
	free(buf);
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && renameat(dir_fd, "base.new", dir_fd, "base") < 0)
		rc = -errno;
	if (rc < 0)
		unlinkat(dir_fd, "base.new", 0);
	return rc;
}

void protect_base_remove(int dir_fd)
{
	unlinkat(dir_fd, "base", 0);
}
