/* SPDX-License-Identifier: MIT */
/* The config of a git repository a confined run made or changed, cut down to
 * the keys git's own everyday commands write and that run nothing
 * (CONTRACT section 10a, docs/workspace.md): core.fsmonitor, core.hooksPath,
 * core.sshCommand, alias.*, filter.*, include.* and every other key that
 * names a program or another file are dropped, whatever their spelling.
 *
 * The input is parsed the way git's own parser reads it (config.c: sections
 * and subsections, the old [section.sub] form, continuation lines, quotes,
 * escapes, comments), and the output is written afresh from what was parsed,
 * in one canonical form: git then reads exactly the keys and values kept
 * here, however the input was spelled. Where git would stop at a bad line,
 * parsing stops too and what came before is kept. Pure. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "policy.h"

#define NAME_MAX_LEN 256

struct parser {
	const unsigned char *p;
	size_t len, at;
	bool eof;
};

/* git's get_next_char: "\r\n" reads as "\n", and the end reads as one last
 * "\n" with eof set. */
static int next_char(struct parser *ps)
{
	int c;

	if (ps->at >= ps->len) {
		ps->eof = true;
		return '\n';
	}
	c = ps->p[ps->at++];
	if (c == '\r' && ps->at < ps->len && ps->p[ps->at] == '\n')
		c = ps->p[ps->at++];
	return c;
}

/* git's isspace (sane_ctype): space, \t, \n, \r. */
static bool git_space(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool key_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-';
}

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

struct buf {
	char *p;
	size_t len, cap;
	bool failed;
};

static void put(struct buf *b, const char *s, size_t n)
{
	if (b->failed)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		char *p;

		while (cap < b->len + n + 1)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->failed = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void put_c(struct buf *b, char c)
{
	put(b, &c, 1);
}

/* The section being read: name lowercased, subsection as git keeps it. */
struct section {
	char name[NAME_MAX_LEN];
	struct buf sub;
	bool has_sub;
};

/* git's get_extended_base_var: [name "sub"], after the space. */
static bool read_subsection(struct parser *ps, struct section *s, int c)
{
	while (git_space(c) && c != '\n')
		c = next_char(ps);
	if (c != '"')
		return false;
	s->has_sub = true;
	for (;;) {
		c = next_char(ps);
		if (c == '\n')
			return false;
		if (c == '"')
			break;
		if (c == '\\') {
			c = next_char(ps);
			if (c == '\n')
				return false;
		}
		put_c(&s->sub, (char)c);
	}
	return next_char(ps) == ']';
}

/* git's get_base_var: after '['. The old form [name.sub] lowercases the
 * whole, subsection too. */
static bool read_section(struct parser *ps, struct section *s)
{
	size_t n = 0;

	s->sub.len = 0;
	if (s->sub.p)
		s->sub.p[0] = '\0';
	s->has_sub = false;
	for (;;) {
		int c = next_char(ps);

		if (ps->eof)
			return false;
		if (c == ']')
			break;
		if (git_space(c))
			return read_subsection(ps, s, c);
		if (!key_char(c) && c != '.')
			return false;
		if (n + 1 >= sizeof(s->name))
			return false;
		s->name[n++] = (char)lower(c);
		s->name[n] = '\0';
	}
	s->name[n] = '\0';
	if (n == 0)
		return false;
	/* [remote.origin]: section "remote", subsection "origin". */
	char *dot = strchr(s->name, '.');

	if (dot) {
		s->has_sub = true;
		put(&s->sub, dot + 1, strlen(dot + 1));
		*dot = '\0';
	}
	return true;
}

/* git's parse_value, after the '='. NULL value means a parse error. */
static bool read_value(struct parser *ps, struct buf *v)
{
	bool quote = false, comment = false;
	size_t space = 0;

	for (;;) {
		int c = next_char(ps);

		if (c == '\n')
			return !quote;
		if (comment)
			continue;
		if (git_space(c) && !quote) {
			if (v->len)
				space++;
			continue;
		}
		if (!quote && (c == ';' || c == '#')) {
			comment = true;
			continue;
		}
		for (; space; space--)
			put_c(v, ' ');
		if (c == '\\') {
			c = next_char(ps);
			switch (c) {
			case '\n':
				continue;
			case 't':
				c = '\t';
				break;
			case 'b':
				c = '\b';
				break;
			case 'n':
				c = '\n';
				break;
			case '\\':
			case '"':
				break;
			default:
				return false;
			}
			put_c(v, (char)c);
			continue;
		}
		if (c == '"') {
			quote = !quote;
			continue;
		}
		put_c(v, (char)c);
	}
}

/* ---- what is kept ---- */

enum check { ANY, URL, REMOTE_NAME };

/* Each key with the reason git writes it (docs/workspace.md lists them). */
static const struct allowed {
	const char *section;
	bool sub;               /* has a subsection (remote "origin") */
	const char *key;
	enum check check;
} allowed[] = {
	/* git init, git clone */
	{ "core", false, "repositoryformatversion", ANY },
	{ "core", false, "filemode", ANY },
	{ "core", false, "bare", ANY },
	{ "core", false, "logallrefupdates", ANY },
	{ "core", false, "ignorecase", ANY },
	{ "core", false, "precomposeunicode", ANY },
	{ "core", false, "symlinks", ANY },
	/* git init --object-format, --ref-format: the repository is
	 * unreadable without them */
	{ "extensions", false, "objectformat", ANY },
	{ "extensions", false, "refstorage", ANY },
	/* git clone, git remote add, git push -u, git branch -u */
	{ "remote", true, "url", URL },
	{ "remote", true, "pushurl", URL },
	{ "remote", true, "fetch", ANY },
	{ "remote", true, "tagopt", ANY },
	{ "remote", true, "mirror", ANY },
	{ "remote", true, "promisor", ANY },
	{ "remote", true, "partialclonefilter", ANY },
	{ "branch", true, "remote", REMOTE_NAME },
	{ "branch", true, "merge", ANY },
	/* git clone --recurse-submodules, git submodule init */
	{ "submodule", true, "url", URL },
	{ "submodule", true, "active", ANY },
	{ "user", false, "name", ANY },
	{ "user", false, "email", ANY },
	{ "init", false, "defaultbranch", ANY },
};

struct entry {
	size_t section;         /* index into the sections kept */
	char key[NAME_MAX_LEN];
	enum check check;
	char *value;            /* NULL: a bare key (boolean true) */
	size_t value_len;
};

struct kept_section {
	char name[NAME_MAX_LEN];
	char *sub;
	size_t sub_len;
	bool has_sub;
};

struct result {
	struct entry *e;
	size_t n, cap;
	struct kept_section *s;
	size_t ns, caps;
	bool failed;
};

static const struct allowed *find_allowed(const struct section *s, const char *key)
{
	for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
		if (strcmp(allowed[i].section, s->name) == 0 && allowed[i].sub == s->has_sub &&
		    strcmp(allowed[i].key, key) == 0)
			return &allowed[i];
	return NULL;
}

static ssize_t section_index(struct result *r, const struct section *s)
{
	const char *sub = s->sub.p ? s->sub.p : "";
	struct kept_section *k;

	for (size_t i = 0; i < r->ns; i++)
		if (strcmp(r->s[i].name, s->name) == 0 && r->s[i].has_sub == s->has_sub &&
		    r->s[i].sub_len == s->sub.len && memcmp(r->s[i].sub, sub, s->sub.len) == 0)
			return (ssize_t)i;
	if (r->ns == r->caps) {
		size_t cap = r->caps ? 2 * r->caps : 8;
		struct kept_section *p = realloc(r->s, cap * sizeof(*p));

		if (!p)
			return -1;
		r->s = p;
		r->caps = cap;
	}
	k = &r->s[r->ns];
	memset(k, 0, sizeof(*k));
	strcpy(k->name, s->name);
	k->has_sub = s->has_sub;
	k->sub = malloc(s->sub.len + 1);
	if (!k->sub)
		return -1;
	memcpy(k->sub, sub, s->sub.len);
	k->sub[s->sub.len] = '\0';
	k->sub_len = s->sub.len;
	return (ssize_t)r->ns++;
}

static void keep(struct result *r, const struct section *s, const char *key, enum check check,
		 const struct buf *v, bool has_value)
{
	ssize_t si = section_index(r, s);
	struct entry *e;

	if (si < 0) {
		r->failed = true;
		return;
	}
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 16;
		struct entry *p = realloc(r->e, cap * sizeof(*p));

		if (!p) {
			r->failed = true;
			return;
		}
		r->e = p;
		r->cap = cap;
	}
	e = &r->e[r->n];
	memset(e, 0, sizeof(*e));
	e->section = (size_t)si;
	strcpy(e->key, key);
	e->check = check;
	if (has_value) {
		e->value = malloc(v->len + 1);
		if (!e->value) {
			r->failed = true;
			return;
		}
		memcpy(e->value, v->p ? v->p : "", v->len);
		e->value[v->len] = '\0';
		e->value_len = v->len;
	}
	r->n++;
}

/* ---- URLs: where git would fetch or push ---- */

/* A local path lexically inside root ("/a/b/../c" counts as "/a/c"). */
static bool path_inside(const char *path, size_t len, const char *root)
{
	char norm[PATH_MAX];
	size_t n = 0, rl = strlen(root);

	if (len == 0 || path[0] != '/' || len >= sizeof(norm))
		return false;
	for (size_t i = 0; i < len;) {
		size_t j = i;

		while (j < len && path[j] == '/')
			j++;
		i = j;
		while (j < len && path[j] != '/')
			j++;
		if (j == i)
			break;
		if (j - i == 1 && path[i] == '.') {
		} else if (j - i == 2 && path[i] == '.' && path[i + 1] == '.') {
			while (n > 0 && norm[n - 1] != '/')
				n--;
			if (n > 0)
				n--;
		} else {
			norm[n++] = '/';
			memcpy(norm + n, path + i, j - i);
			n += j - i;
		}
		i = j;
	}
	norm[n] = '\0';
	while (rl > 1 && root[rl - 1] == '/')
		rl--;
	return rl > 1 && n > rl && memcmp(norm, root, rl) == 0 && norm[rl] == '/';
}

static bool has_prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

/* Why not every URL: a local path names a repository whose hooks the
 * user's own `git push` runs (receive-pack runs the hooks of the repository
 * pushed to), and a path outside the root may be one a run could write
 * (the host's /tmp under the landlock runner); "X::addr" runs a remote
 * helper git-remote-X. Kept: the network schemes, the scp-like form
 * (host:path, ssh), local paths inside the root, whose repositories are
 * held to these same rules, and absolute ones outside it that w allows.
 * Relative local paths are not kept (git reads them from wherever it runs). */
/* A local path: inside the root, or outside where the caller says it may
 * stay (launcher/protect: not in what a run may write). */
static bool local_ok(const char *path, const struct gitconfig_where *w)
{
	if (path_inside(path, strlen(path), w->root))
		return !w->inside_ok || w->inside_ok(path, w->ctx);
	return path[0] == '/' && w->outside_ok && w->outside_ok(path, w->ctx);
}

bool gitconfig_url_ok(const char *url, const struct gitconfig_where *w)
{
	const char *colon = strchr(url, ':'), *slash = strchr(url, '/');
	static const char *const schemes[] = { "https://", "http://",    "ssh://",
					       "git://",   "git+ssh://", "ssh+git://" };

	if (url[0] == '\0' || url[0] == '-' || strchr(url, '\n'))
		return false;
	for (size_t i = 0; i < sizeof(schemes) / sizeof(schemes[0]); i++)
		if (has_prefix(url, schemes[i]))
			return url[strlen(schemes[i])] != '-';
	if (has_prefix(url, "file://"))
		return local_ok(url + 7, w);
	if (strstr(url, "::"))
		return false;
	if (colon && (!slash || colon < slash))
		return !strstr(url, "://");
	return local_ok(url, w);
}

/* A remote this config keeps with a URL it keeps: git takes the name of a
 * remote without one for its URL. */
static bool remote_kept(const struct result *r, const char *name, size_t len,
			const struct gitconfig_where *w)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct kept_section *s = &r->s[r->e[i].section];

		if (strcmp(s->name, "remote") == 0 && s->sub_len == len &&
		    memcmp(s->sub, name, len) == 0 && strcmp(r->e[i].key, "url") == 0 &&
		    r->e[i].value && strlen(r->e[i].value) == r->e[i].value_len &&
		    gitconfig_url_ok(r->e[i].value, w))
			return true;
	}
	return false;
}

static bool value_ok(const struct result *r, const struct entry *e,
		     const struct gitconfig_where *w)
{
	if (e->check == ANY)
		return true;
	if (!e->value || memchr(e->value, '\0', e->value_len))
		return false;
	if (e->check == URL)
		return gitconfig_url_ok(e->value, w);
	/* branch.X.remote: ".", a remote this config keeps, else a URL. */
	return strcmp(e->value, ".") == 0 || remote_kept(r, e->value, e->value_len, w) ||
	       gitconfig_url_ok(e->value, w);
}

/* ---- writing ---- */

static void put_quoted(struct buf *b, const char *s, size_t n, bool value)
{
	put_c(b, '"');
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (c == '\\' || c == '"')
			put_c(b, '\\'), put_c(b, c);
		else if (value && c == '\n')
			put(b, "\\n", 2);
		else if (value && c == '\t')
			put(b, "\\t", 2);
		else if (value && c == '\b')
			put(b, "\\b", 2);
		else
			put_c(b, c);
	}
	put_c(b, '"');
}

static char *write_out(const struct result *r, const struct gitconfig_where *w, size_t *out_len,
		       bool *dropped)
{
	struct buf b = { 0 };
	ssize_t last = -1;

	put(&b, "", 0);
	for (size_t i = 0; i < r->n; i++) {
		const struct entry *e = &r->e[i];
		const struct kept_section *s = &r->s[e->section];

		/* A subsection holding a newline or NUL cannot be written
		 * back in a form git reads (it refuses the header). */
		if (!value_ok(r, e, w) ||
		    (s->has_sub && (memchr(s->sub, '\n', s->sub_len) || strlen(s->sub) != s->sub_len))) {
			*dropped = true;
			continue;
		}
		if ((ssize_t)e->section != last) {
			put_c(&b, '[');
			put(&b, s->name, strlen(s->name));
			if (s->has_sub) {
				put_c(&b, ' ');
				put_quoted(&b, s->sub, s->sub_len, false);
			}
			put(&b, "]\n", 2);
			last = (ssize_t)e->section;
		}
		put_c(&b, '\t');
		put(&b, e->key, strlen(e->key));
		if (e->value) {
			put(&b, " = ", 3);
			put_quoted(&b, e->value, e->value_len, true);
		}
		put_c(&b, '\n');
	}
	if (b.failed) {
		free(b.p);
		return NULL;
	}
	*out_len = b.len;
	return b.p;
}

static void result_free(struct result *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->e[i].value);
	for (size_t i = 0; i < r->ns; i++)
		free(r->s[i].sub);
	free(r->e);
	free(r->s);
}

/* Each entry as git reads it, to each(ctx, section, key, value); stops
 * where git's parser would. true: the whole input was read. */
static bool parse_entries(const char *in, size_t len,
			  bool (*each)(void *ctx, const struct section *s, const char *key,
				       const struct buf *v, bool has_value),
			  void *ctx)
{
	struct parser ps = { (const unsigned char *)in, len, 0, false };
	struct section sec = { 0 };
	struct buf v = { 0 };
	bool in_section = false, whole = false;

	/* A UTF-8 byte order mark at the start is skipped, as git does. */
	if (len >= 3 && memcmp(in, "\xef\xbb\xbf", 3) == 0)
		ps.at = 3;
	for (bool comment = false;;) {
		int c = next_char(&ps);
		char key[NAME_MAX_LEN];
		size_t kn = 0;
		bool has_value = false;

		if (c == '\n') {
			if (ps.eof) {
				whole = true;
				break;
			}
			comment = false;
			continue;
		}
		if (comment || git_space(c))
			continue;
		if (c == '#' || c == ';') {
			comment = true;
			continue;
		}
		if (c == '[') {
			in_section = read_section(&ps, &sec);
			if (!in_section || sec.sub.failed)
				break;
			continue;
		}
		if (!key_char(c) || !((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || !in_section)
			break;
		/* git_parse_source's get_value: the key, blanks, then '=' and
		 * a value, or the end of the line (a bare key: true). */
		key[kn++] = (char)lower(c);
		for (;;) {
			c = next_char(&ps);
			if (ps.eof || !key_char(c))
				break;
			if (kn + 1 >= sizeof(key))
				goto done;
			key[kn++] = (char)lower(c);
		}
		key[kn] = '\0';
		while (c == ' ' || c == '\t')
			c = next_char(&ps);
		v.len = 0;
		if (c != '\n') {
			if (c != '=' || !read_value(&ps, &v) || v.failed)
				break;
			has_value = true;
		}
		if (!each(ctx, &sec, key, &v, has_value))
			break;
		if (ps.eof) {
			whole = true;
			break;
		}
	}
done:
	free(sec.sub.p);
	free(v.p);
	return whole;
}

struct filtering {
	struct result r;
	bool dropped;
};

static bool filter_entry(void *ctx, const struct section *s, const char *key,
			 const struct buf *v, bool has_value)
{
	struct filtering *f = ctx;
	const struct allowed *a = find_allowed(s, key);

	if (a)
		keep(&f->r, s, key, a->check, v, has_value);
	else
		f->dropped = true;
	return !f->r.failed;
}

char *gitconfig_filter(const char *in, size_t len, const struct gitconfig_where *w,
		       size_t *out_len, bool *dropped)
{
	struct filtering f = { { 0 }, false };
	char *out;

	/* A NUL ends git's reading of a line in ways that differ between its
	 * versions: a file holding one keeps nothing. */
	if (memchr(in, '\0', len)) {
		f.dropped = true;
		len = 0;
	}
	if (!parse_entries(in, len, filter_entry, &f))
		f.dropped = true;
	*dropped = f.dropped;
	out = f.r.failed ? NULL : write_out(&f.r, w, out_len, dropped);
	result_free(&f.r);
	return out;
}

struct includes {
	void (*fn)(void *ctx, const char *path);
	void *ctx;
};

static bool include_entry(void *ctx, const struct section *s, const char *key,
			  const struct buf *v, bool has_value)
{
	struct includes *in = ctx;

	if (has_value && v->p && strcmp(key, "path") == 0 &&
	    (strcmp(s->name, "include") == 0 || strcmp(s->name, "includeif") == 0)) {
		char *p = strndup(v->p, v->len);

		if (p)
			in->fn(in->ctx, p);
		free(p);
	}
	return true;
}

void gitconfig_includes(const char *in, size_t len, void (*fn)(void *ctx, const char *path),
			void *ctx)
{
	struct includes inc = { fn, ctx };

	if (!memchr(in, '\0', len))
		parse_entries(in, len, include_entry, &inc);
}
