/* SPDX-License-Identifier: MIT */
/* The supervisor's decisions that need no system call: is a resolved path in
 * the run's writable set, is a socket on the `unix_sockets` allow-list, is an
 * allow-list entry well formed, and does an error line of a run's output
 * name a path. The caller resolves every path itself
 * (engine/supervisor_*.c); here they are only strings. */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "policy.h"

/* path is dir or lies below it, component-wise: "/ws-sibling" shares the
 * bytes of "/ws" but is another directory. */
static bool below(const char *path, const char *dir, bool or_equal)
{
	size_t len = strlen(dir);

	while (len > 0 && dir[len - 1] == '/')
		len--;
	if (len == 0) /* "/" */
		return or_equal || strcmp(path, "/") != 0;
	if (strncmp(path, dir, len) != 0)
		return false;
	if (path[len] == '\0')
		return or_equal;
	return path[len] == '/';
}

bool supervise_in_writable(const struct supervise_writable *w, const char *path)
{
	size_t dir = 0, except = 0;
	bool in = false;

	if (!w || !path || path[0] != '/')
		return false;
	for (size_t i = 0; i < w->n && i < SUPERVISE_MAX_WRITABLE; i++)
		if (w->dirs[i] && below(path, w->dirs[i], !w->below_only[i])) {
			in = true;
			if (strlen(w->dirs[i]) > dir)
				dir = strlen(w->dirs[i]);
		}
	for (size_t i = 0; in && i < w->n_except && i < SUPERVISE_MAX_EXCEPT; i++)
		if (w->except[i] && below(path, w->except[i], true) && strlen(w->except[i]) > except)
			except = strlen(w->except[i]);
	/* The deepest one decides: /tmp/home is not writable in /tmp, the
	 * root /tmp/home/proj is in /tmp/home. */
	return in && dir > except;
}

bool supervise_in_paths(const char *const *paths, size_t n, const char *path)
{
	if (!path || path[0] != '/')
		return false;
	for (size_t i = 0; i < n; i++)
		if (paths[i] && below(path, paths[i], true))
			return true;
	return false;
}

/* A byte that may continue a file name in a message (not a separator,
 * quote, colon or space). */
static bool name_byte(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == '-' || c == '+' || c == '~' || c == '@';
}

/* The errors a refused mkdir or open leads to, as C libraries, Python,
 * node and Go spell them: the refusal itself (EROFS, EACCES), or a later
 * call's failure on the directory that is missing (ENOENT, ENOTDIR); and a
 * tool's own words of failure where it prints no system error at all
 * (CMake's "Unable to (re)create the private pkgRedirects directory:",
 * sqlite's "Error: unable to open database "/p/x.db": unable to open
 * database file"). */
#define PHRASE(s) { s, sizeof(s) - 1 }
static const struct {
	const char *s;
	size_t n;
} error_phrases[] = {
	PHRASE("no such file or directory"), PHRASE("read-only file system"),
	PHRASE("permission denied"), PHRASE("not a directory"), PHRASE("enoent"),
	PHRASE("erofs"), PHRASE("eacces"), PHRASE("enotdir"), PHRASE("error"), PHRASE("fatal"),
	PHRASE("unable to"), PHRASE("cannot"), PHRASE("can't"), PHRASE("could not"),
	PHRASE("couldn't"), PHRASE("failed"),
};
#define N_PHRASES (sizeof(error_phrases) / sizeof(error_phrases[0]))

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c | 0x20) : c;
}

/* A warning names what a program goes on without (pip's "WARNING: The
 * directory '~/.cache/pip' ... is not writable"): no error, whatever its
 * words. */
static bool is_warning(const char *line, size_t len)
{
	while (len > 0 && (*line == ' ' || *line == '\t'))
		line++, len--;
	return len >= 7 && strncasecmp(line, "warning", 7) == 0;
}

/* In one pass, a phrase asked only where its first two bytes stand: a
 * line of "eeee..." asked all eight phrases at every byte (strlen and
 * strncasecmp each), 0.4 ms a 4 KiB line, and that for each of up to 64
 * noted names, with none of them on the line: 1 MiB of it cost 1.5 s of
 * sbx's CPU on the loop every serve session shares (0.06 s before
 * cf74ac1) (supervisor::output_of_error_letters_costs_little). */
static bool line_has_error(const char *line, size_t len, const struct supervise_local *local)
{
	if (is_warning(line, len))
		return false;
	for (size_t i = 0; local && i < SUPERVISE_LOCAL_MAX; i++) {
		size_t n = local->text[i] ? strlen(local->text[i]) : 0;

		if (n && memmem(line, len, local->text[i], n))
			return true;
	}
	for (size_t at = 0; at + 1 < len; at++) {
		char c = lower(line[at]), d;

		if (c != 'n' && c != 'r' && c != 'p' && c != 'e' && c != 'f' && c != 'u' && c != 'c')
			continue;
		d = lower(line[at + 1]);
		for (size_t i = 0; i < N_PHRASES; i++)
			if (error_phrases[i].s[0] == c && error_phrases[i].s[1] == d &&
			    at + error_phrases[i].n <= len &&
			    strncasecmp(line + at + 2, error_phrases[i].s + 2, error_phrases[i].n - 2) == 0)
				return true;
	}
	return false;
}

/* The line before [ls, le) in text ends in ':' and holds an error, or
 * it and the one before it end in ':' and that one holds it: the file is
 * named on a line of its own (CMake: "CMake Error: Unable to (re)create
 * the private pkgRedirects directory:", then the path; "CMake Error at
 * x.cmake:4 (file):", "  file problem creating directory:", then the path
 * when it is too long for the line). */
static bool error_above(const char *text, const char *ls, const struct supervise_local *local)
{
	for (int depth = 0; depth < 2; depth++) {
		const char *pe = ls, *ps;

		if (pe == text)
			return false;
		pe--; /* its '\n' */
		while (pe > text && (pe[-1] == ' ' || pe[-1] == '\r'))
			pe--;
		if (pe == text || pe[-1] != ':')
			return false;
		for (ps = pe; ps > text && ps[-1] != '\n'; ps--)
			;
		if (line_has_error(ps, (size_t)(pe - ps), local))
			return true;
		ls = ps;
	}
	return false;
}

bool supervise_error_phrase(const char *text, size_t len, const struct supervise_local *local)
{
	const char *end = text + len;

	for (const char *ls = text; text && ls < end;) {
		const char *le = memchr(ls, '\n', (size_t)(end - ls));

		if (line_has_error(ls, (size_t)((le ? le : end) - ls), local))
			return true;
		if (!le)
			break;
		ls = le + 1;
	}
	return false;
}

/* Whether name (n bytes, fail its KMP table) stands somewhere in
 * [ls, le): every occurrence found in one pass, each asked of stands(). */
static bool stands_in_line(const char *text, const char *end, const char *ls, const char *le,
			   const char *name, size_t n, const unsigned short *fail,
			   bool (*stands)(const char *, const char *, const char *, size_t))
{
	size_t k = 0;

	for (const char *at = ls; at < le; at++) {
		while (k && *at != name[k])
			k = fail[k - 1];
		if (*at == name[k])
			k++;
		if (k == n) {
			if (stands(text, end, at + 1 - n, n))
				return true;
			k = fail[k - 1];
		}
	}
	return false;
}

/* A whole occurrence of name, as stands() tells, on a line with an error.
 * In time linear in len (and name), whatever the text: the output of a run
 * is asked line by line as it streams, on the loop that serves every
 * session, and a line of 4 KiB with 500 occurrences of a noted name and no
 * error cost 0.1 s there (every occurrence scanned its line again): 200 KiB
 * of such output held every other session's answers for seconds
 * (supervisor::output_naming_a_noted_refusal_costs_little). A name is
 * matched within a line (one holding a newline names nothing). */
static bool named_on_error_line(const char *text, size_t len, const char *name,
				bool (*stands)(const char *, const char *, const char *, size_t),
				const struct supervise_local *local)
{
	size_t n = strlen(name);
	const char *end = text + len;
	unsigned short fail[PATH_MAX];

	if (n == 0 || n > PATH_MAX || memchr(name, '\n', n))
		return false;
	fail[0] = 0;
	for (size_t i = 1, k = 0; i < n; i++) {
		while (k && name[i] != name[k])
			k = fail[k - 1];
		if (name[i] == name[k])
			k++;
		fail[i] = (unsigned short)k;
	}
	for (const char *ls = text; ls < end;) {
		const char *le = memchr(ls, '\n', (size_t)(end - ls));

		if (!le)
			le = end;
		const char *hit = (size_t)(le - ls) >= n ? memmem(ls, (size_t)(le - ls), name, n) : NULL;

		/* The name first (memmem: most lines have none), the error
		 * once, for a line where it stands: an error about it, not a
		 * warning that it is not writable (matplotlib's, before it
		 * goes on with a temporary directory). */
		if (hit && stands_in_line(text, end, hit, le, name, n, fail, stands) &&
		    (line_has_error(ls, (size_t)(le - ls), local) || error_above(text, ls, local)))
			return true;
		if (le == end)
			break;
		ls = le + 1;
	}
	return false;
}

/* "/x/root/.cfg/go" and "/root/.cfg/gopher" are other paths. */
/* Just after an ANSI escape sequence (ESC '[', digits and ';', a final
 * letter): colour around a file name, as gcc, ls and others print it with
 * colour on (gcc: "ESC[01mESC[K/r/x.c:1: ..."), where the letter is no part
 * of the name. */
static bool after_escape(const char *text, const char *hit)
{
	const char *p;

	if (hit - text < 3 || !((hit[-1] >= 'A' && hit[-1] <= 'Z') || (hit[-1] >= 'a' && hit[-1] <= 'z')))
		return false;
	for (p = hit - 2; p > text && ((*p >= '0' && *p <= '9') || *p == ';'); p--)
		;
	return p > text && *p == '[' && p[-1] == '\x1b';
}

static bool path_stands(const char *text, const char *end, const char *hit, size_t n)
{
	return !((hit > text && !after_escape(text, hit) && (hit[-1] == '/' || name_byte(hit[-1]))) ||
		 (hit + n < end && name_byte(hit[n])));
}

bool supervise_error_names(const char *text, size_t len, const char *path,
			   const struct supervise_local *local)
{
	/* Not "/", and not a bare name (supervise_error_names_bare). */
	if (!text || !path || strlen(path) < 2 || !strchr(path, '/'))
		return false;
	return named_on_error_line(text, len, path, path_stands, local);
}

/* Where a file name starts in a message: the line's start, a space, a
 * parenthesis, an opening quote (ASCII, or U+2018, coreutils' in a UTF-8
 * locale), the escape sequence that starts its colour. */
static bool starts_name(const char *text, const char *hit)
{
	if (hit == text || hit[-1] == '\n' || after_escape(text, hit))
		return true;
	if (hit - text >= 3 && memcmp(hit - 3, "\xe2\x80\x98", 3) == 0)
		return true;
	return strchr(" \t('\"`", hit[-1]) != NULL;
}

/* Where it ends: a '/' (a path below it), a colon, a closing quote, the
 * escape sequence that ends its colour. */
static bool ends_name(const char *end, const char *after)
{
	if (after == end)
		return false;
	if (end - after >= 3 && memcmp(after, "\xe2\x80\x99", 3) == 0)
		return true;
	return strchr("/:'\"\x1b", *after) != NULL;
}

static bool bare_stands(const char *text, const char *end, const char *hit, size_t n)
{
	return starts_name(text, hit) && ends_name(end, hit + n);
}

bool supervise_error_names_bare(const char *text, size_t len, const char *name,
				const struct supervise_local *local)
{
	/* Why only as a file name stands in a message (quoted, or before a
	 * colon or a '/'): a bare word is in too many messages. */
	if (!text || !name || !name[0] || strchr(name, '/'))
		return false;
	return named_on_error_line(text, len, name, bare_stands, local);
}

/* Shell word boundaries around a name on a command line: "sqlite3 x.db",
 * "connect('/p/x.db')", "--db=x.db;". */
static bool command_word_stands(const char *cmd, const char *end, const char *hit, size_t n)
{
	bool starts = hit == cmd || strchr(" \t\n'\"=(", hit[-1]);
	bool ends = hit + n == end || strchr(" \t\n'\";&|)", hit[n]);

	return starts && ends;
}

bool supervise_command_names(const char *command, const char *path)
{
	size_t n = path ? strlen(path) : 0, len = command ? strlen(command) : 0;
	const char *end = command + len;

	if (n < 2 || !command)
		return false;
	for (const char *at = command; (at = memmem(at, (size_t)(end - at), path, n)) != NULL; at++)
		if (command_word_stands(command, end, at, n))
			return true;
	return false;
}

bool supervise_says_read_only(const char *text, size_t len)
{
	static const char *const words[] = { "readonly", "read-only", "read only", "unable to open",
					      "cannot open", "can't open", "could not open",
					      "couldn't open", "failed to open" };
	const char *end = text + len;

	for (const char *ls = text; text && ls < end;) {
		const char *le = memchr(ls, '\n', (size_t)(end - ls));
		size_t n = (size_t)((le ? le : end) - ls);

		bool warning = is_warning(ls, n);

		for (size_t i = 0; i + 8 <= n && !warning; i++)
			for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++)
				if (lower(ls[i]) == words[w][0] && i + strlen(words[w]) <= n &&
				    strncasecmp(ls + i, words[w], strlen(words[w])) == 0)
					return true;
		if (!le)
			break;
		ls = le + 1;
	}
	return false;
}

bool supervise_error_is_rust_os(const char *text, size_t len, int code)
{
	char form[40];
	int n = snprintf(form, sizeof(form), "Os { code: %d, kind: ", code);

	return text && n > 0 && memmem(text, len, form, (size_t)n) != NULL;
}

bool supervise_socket_listed(const char *const *patterns, size_t n, const char *name)
{
	if (!name || (name[0] != '/' && name[0] != '@'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (patterns[i] && patterns[i][0] == name[0] && pattern_match(patterns[i], name))
			return true;
	return false;
}

/* Why so strict: an entry is compared with the canonical path of the socket
 * the command reached, so "..", "." or "//" could never match and would only
 * hide a typo; a relative entry would mean nothing. */
int unix_socket_pattern_check(const char *p, size_t len, char *why, size_t why_size)
{
	if (len == 0) {
		snprintf(why, why_size, "empty entry");
		return -1;
	}
	if (len >= POLICY_SOCKET_PATTERN_MAX) {
		snprintf(why, why_size, "entry '%.64s...' is too long (max %d bytes)", p,
			 POLICY_SOCKET_PATTERN_MAX - 1);
		return -1;
	}
	if (p[0] != '/' && p[0] != '@') {
		snprintf(why, why_size, "entry '%.*s' must be an absolute path or an abstract "
			 "name starting with '@'", (int)(len < 64 ? len : 64), p);
		return -1;
	}
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c < 0x20 || c == 0x7f) {
			snprintf(why, why_size, "control character in entry");
			return -1;
		}
	}
	if (p[0] == '@')
		return 0;
	for (size_t i = 0; i < len; i++) {
		size_t end = i + 1;

		if (p[i] != '/')
			continue;
		while (end < len && p[end] != '/')
			end++;
		if ((end == i + 1 && end < len) || (end == i + 2 && p[i + 1] == '.') ||
		    (end == i + 3 && p[i + 1] == '.' && p[i + 2] == '.')) {
			snprintf(why, why_size, "entry '%.*s' is not a canonical path (no '//', "
				 "'.' or '..')", (int)(len < 64 ? len : 64), p);
			return -1;
		}
	}
	if (len > 1 && p[len - 1] == '/') {
		snprintf(why, why_size, "entry '%.*s' ends in '/': name the socket, or end in "
			 "'/*'", (int)(len < 64 ? len : 64), p);
		return -1;
	}
	return 0;
}
