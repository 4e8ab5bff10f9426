/* SPDX-License-Identifier: MIT */
/* Fault injection beyond test_failclosed.c: sbx under the nofeature seccomp
 * filter, with kernel features taken away alone and combined the way
 * container runtimes take them away. Both users; effects checked from outside
 * (file contents, sentinel files, the exact bytes sbx passed on).
 *
 *  - no user namespaces: auto confines with landlock (JSON facts, a workspace
 *    write lands, an outside write does not);
 *  - nothing usable: exit 125, the message gives each runner's reason;
 *  - no io_uring: the poll collector passes ~3 MiB of binary stdout+stderr
 *    byte for byte as the io_uring collector does (confined and danger);
 *  - container-like (no user namespaces, no io_uring): confined, output exact;
 *  - danger-full-access runs under every fault;
 *  - no mount_setattr: the namespace runner still makes the outside read-only
 *    (its remount fallback), and the workspace stays writable. */
#include "common.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static enum e2e_user users[] = {AS_CALLER, AS_NOBODY};

#define PARAMS(name)                                                                       \
	ParameterizedTestParameters(faults, name)                                           \
	{                                                                                   \
		return cr_make_param_array(enum e2e_user, users,                            \
					   sizeof users / sizeof users[0]);                 \
	}

struct fx {
	enum e2e_user who;
	char *B, *R, *sentinel, *O, *Of, *in;
	char tag[32];
};

static void fx_setup(struct fx *f, enum e2e_user who)
{
	f->who = who;
	snprintf(f->tag, sizeof f->tag, "[user %s]", e2e_user_name(who));
	f->B = e2e_tmpdir(who);
	f->R = e2e_fmt("%s/ws", f->B);
	f->sentinel = e2e_fmt("%s/sentinel", f->R);
	f->in = e2e_fmt("%s/inside", f->R);
	f->O = e2e_fmt("%s/outside", f->B);
	f->Of = e2e_fmt("%s/f", f->O);
	cr_assert(e2e_mkdir(who, f->R) == 0);
	cr_assert(e2e_mkdir(who, f->O) == 0);
	cr_assert(e2e_write_file(who, f->Of, "orig\n") == 0);
}

/* [nofeature FEATURES --] sbx run [--runner R] --mode MODE --root ROOT [extra...] -- CMD.
 * extra: NULL-terminated list of more options, may be NULL. */
static int run_sbx(struct fx *f, const char *features, const char *runner, const char *mode,
		   bool json, char *const extra[], const char *cmd, struct e2e_out *o)
{
	char *argv[32];
	size_t n = 0;
	if (features) {
		argv[n++] = (char *)e2e_helper("nofeature");
		argv[n++] = (char *)features;
		argv[n++] = "--";
	}
	argv[n++] = (char *)e2e_sbx();
	argv[n++] = "run";
	if (runner) {
		argv[n++] = "--runner";
		argv[n++] = (char *)runner;
	}
	argv[n++] = "--mode";
	argv[n++] = (char *)mode;
	argv[n++] = "--root";
	argv[n++] = f->R;
	if (json)
		argv[n++] = "--json";
	for (size_t i = 0; extra && extra[i]; i++) {
		cr_assert(n < 28);
		argv[n++] = extra[i];
	}
	argv[n++] = "--";
	argv[n++] = (char *)cmd;
	argv[n] = NULL;
	/* sbx run collects with poll by default: ask for io_uring where the
	 * fault takes it away, so the refusal and the fallback are what run. */
	char *ask_uring[] = { "SBX_COLLECTOR=io_uring", NULL };
	return e2e_run(f->who, argv, features && strstr(features, "io_uring") ? ask_uring : NULL, o);
}

static json_t *parse(const struct fx *f, const struct e2e_out *o, const char *what)
{
	json_error_t jerr;
	json_t *j = json_loads(o->out, JSON_ALLOW_NUL, &jerr);
	cr_assert(j != NULL, "%s %s: --json output is not JSON (%s):\n%s\nstderr:\n%s", f->tag, what,
		  jerr.text, o->out, o->err);
	return j;
}

static const char *jstr(json_t *j, const char *a, const char *b)
{
	json_t *v = json_object_get(j, a);
	if (b)
		v = json_object_get(v, b);
	return json_is_string(v) ? json_string_value(v) : "";
}

static void assert_unchanged(const struct fx *f, const char *what)
{
	char *c = e2e_read_file(f->Of);
	cr_assert(c && strcmp(c, "orig\n") == 0, "%s %s: %s changed to \"%s\"", f->tag, what, f->Of,
		  c ? c : "<gone>");
	free(c);
}

/* ---- no user namespaces: landlock confines ---- */

PARAMS(no_userns_landlock_confines)
ParameterizedTest(enum e2e_user *who, faults, no_userns_landlock_confines)
{
	struct fx f;
	fx_setup(&f, *who);
	struct e2e_out o;
	/* one command: the workspace write must land, the outside one must not */
	char *cmd = e2e_fmt("echo in > %s && echo x >> %s", f.in, f.Of);
	run_sbx(&f, "userns", NULL, "workspace-write", true, NULL, cmd, &o);
	cr_assert(o.status != 0 && o.status != 125,
		  "%s nofeature userns: the outside write should fail (exit %d)\n%s\n%s", f.tag,
		  o.status, o.out, o.err);
	json_t *j = parse(&f, &o, "nofeature userns");
	cr_assert(strcmp(jstr(j, "sandbox", "runner"), "landlock") == 0,
		  "%s without user namespaces auto should confine with landlock:\n%s", f.tag, o.out);
	cr_assert(strcmp(jstr(j, "sandbox", "mode"), "workspace-write") == 0, "%s:\n%s", f.tag,
		  o.out);
	cr_assert(json_is_true(json_object_get(json_object_get(j, "sandbox"), "denied")),
		  "%s the refused outside write should be classified as denied:\n%s", f.tag, o.out);
	cr_assert(strstr(jstr(j, "stderr", NULL), "Permission denied") != NULL,
		  "%s landlock dialect (EACCES) missing:\n%s", f.tag, o.out);
	json_decref(j);
	assert_unchanged(&f, "nofeature userns");
	char *c = e2e_read_file(f.in);
	cr_assert(c && strcmp(c, "in\n") == 0, "%s the workspace write did not land (%s: \"%s\")",
		  f.tag, f.in, c ? c : "<missing>");
	free(c);
	e2e_out_free(&o);
	free(cmd);
}

/* ---- nothing usable: each runner's reason ---- */

/* The text after "NAME: " up to the next "; " or the end of the line. */
static char *reason_of(const char *line, const char *name)
{
	char *key = e2e_fmt("%s: ", name);
	const char *p = strstr(line, key);
	if (!p) {
		free(key);
		return NULL;
	}
	p += strlen(key);
	free(key);
	const char *end = strstr(p, "; ");
	const char *nl = strchr(p, '\n');
	if (!end || (nl && nl < end))
		end = nl;
	return end ? strndup(p, (size_t)(end - p)) : strdup(p);
}

PARAMS(nothing_usable_gives_each_reason)
ParameterizedTest(enum e2e_user *who, faults, nothing_usable_gives_each_reason)
{
	struct fx f;
	fx_setup(&f, *who);
	struct e2e_out o;
	char *cmd = e2e_fmt("touch %s", f.sentinel);
	run_sbx(&f, "userns,landlock", NULL, "workspace-write", false, NULL, cmd, &o);
	cr_assert(o.status == 125, "%s nofeature userns,landlock: exit %d, expected 125\n%s", f.tag,
		  o.status, o.err);
	cr_assert(!e2e_exists(f.sentinel), "%s the command ran although sbx refused", f.tag);
	const char *line = strstr(o.err, "sbx: ");
	cr_assert(line == o.err || (line && line[-1] == '\n'),
		  "%s no line starting `sbx: `:\n%s", f.tag, o.err);
	cr_assert(strncmp(line, "sbx: SANDBOX_UNAVAILABLE", 24) == 0,
		  "%s the sbx line should start with the code: %s", f.tag, line);
	char *ns = reason_of(line, "namespace");
	char *ll = reason_of(line, "landlock");
	cr_assert(ns && strlen(ns) > 5, "%s no reason for the namespace runner: %s", f.tag, line);
	cr_assert(ll && strlen(ll) > 5, "%s no reason for the landlock runner: %s", f.tag, line);
	/* Landlock is gone: its reason says so (ENOSYS is "not supported"). */
	cr_assert(strstr(ll, "not supported") != NULL || strstr(ll, "Landlock") != NULL ||
			  strstr(ll, "ENOSYS") != NULL,
		  "%s landlock's reason does not say Landlock is missing: \"%s\"", f.tag, ll);
	/* User namespaces are gone too: the namespace runner's reason must name
	 * that (the contract's example: "namespace: user namespaces disabled ...");
	 * naming only a secondary gap would send the reader to fix the wrong one. */
	cr_assert(strstr(ns, "namespace") != NULL || strstr(ns, "clone") != NULL ||
			  strstr(ns, "unshare") != NULL,
		  "%s with user namespaces refused, the namespace runner's reason does not mention "
		  "them: \"%s\"",
		  f.tag, ns);
	free(ns);
	free(ll);
	e2e_out_free(&o);
	free(cmd);
}

/* ---- output bytes with and without io_uring ---- */

#define OUT_CHUNK 131072 /* 16 x 128 KiB = 2 MiB on stdout */
#define ERR_CHUNK 65536  /* 16 x 64 KiB = 1 MiB on stderr */
#define CHUNKS 16

struct data {
	char *out_path, *err_path;
	unsigned char *out, *err;
	size_t out_len, err_len;
	char *cmd;
};

static uint64_t fnv1a(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	return h;
}

static unsigned char *random_file(const struct fx *f, const char *path, size_t len)
{
	unsigned char *buf = malloc(len);
	cr_assert_not_null(buf);
	int r = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	cr_assert(r >= 0);
	for (size_t off = 0; off < len;) {
		ssize_t n = read(r, buf + off, len - off);
		cr_assert(n > 0);
		off += (size_t)n;
	}
	close(r);
	/* make it "mixed": NULs, invalid UTF-8, newlines, a stretch of text */
	for (size_t i = 0; i < len; i += 4093)
		buf[i] = 0;
	for (size_t i = 7; i < len; i += 1021)
		buf[i] = '\n';
	for (size_t i = 1000; i < len; i += 65536)
		memcpy(buf + i, "plain text line \xc3\xa9 then \xff\xfe bad utf-8\n", 38);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	cr_assert(fd >= 0, "create %s: %s", path, strerror(errno));
	for (size_t off = 0; off < len;) {
		ssize_t n = write(fd, buf + off, len - off);
		cr_assert(n > 0);
		off += (size_t)n;
	}
	cr_assert(fchown(fd, e2e_uid(f->who), e2e_gid(f->who)) == 0);
	close(fd);
	return buf;
}

static void make_data(const struct fx *f, struct data *d)
{
	d->out_len = (size_t)OUT_CHUNK * CHUNKS;
	d->err_len = (size_t)ERR_CHUNK * CHUNKS;
	d->out_path = e2e_fmt("%s/data.out", f->R);
	d->err_path = e2e_fmt("%s/data.err", f->R);
	d->out = random_file(f, d->out_path, d->out_len);
	d->err = random_file(f, d->err_path, d->err_len);
	/* interleave the two streams chunk by chunk */
	d->cmd = e2e_fmt("for i in $(seq 0 %d); do "
		     "dd if=%s bs=%d skip=$i count=1 status=none; "
		     "dd if=%s bs=%d skip=$i count=1 status=none >&2; done",
		     CHUNKS - 1, d->out_path, OUT_CHUNK, d->err_path, ERR_CHUNK);
}

static void assert_bytes(const struct fx *f, const char *what, const char *stream,
			 const void *got, size_t got_len, const void *want, size_t want_len)
{
	size_t first = 0;
	size_t n = got_len < want_len ? got_len : want_len;
	while (first < n && ((const unsigned char *)got)[first] == ((const unsigned char *)want)[first])
		first++;
	cr_assert(got_len == want_len && first == want_len,
		  "%s %s: %s differs: %zu bytes (fnv %016llx), expected %zu (fnv %016llx), first "
		  "difference at byte %zu",
		  f->tag, what, stream, got_len, (unsigned long long)fnv1a(got, got_len), want_len,
		  (unsigned long long)fnv1a(want, want_len), first);
}

/* Streaming run: what sbx passes on live must be the bytes, exactly. */
static void check_stream(const struct fx *f, const struct data *d, const char *features,
			 const char *mode, const char *want_runner)
{
	struct e2e_out o;
	char *what = e2e_fmt("%s, %s", features ? features : "no fault", mode);
	run_sbx((struct fx *)f, features, NULL, mode, false, NULL, d->cmd, &o);
	cr_assert(o.status == 0, "%s %s: exit %d\nstderr (first 400 bytes):\n%.400s", f->tag, what,
		  o.status, o.err);
	assert_bytes(f, what, "stdout", o.out, o.out_len, d->out, d->out_len);
	assert_bytes(f, what, "stderr", o.err, o.err_len, d->err, d->err_len);
	e2e_out_free(&o);

	/* --json: the sizes, the facts, and the spilled streams whole */
	char *spill = e2e_tmpdir(f->who);
	char *extra[] = {"--spill-dir", spill, NULL};
	run_sbx((struct fx *)f, features, NULL, mode, true, extra, d->cmd, &o);
	cr_assert(o.status == 0, "%s %s --json: exit %d\n%.400s", f->tag, what, o.status, o.err);
	json_t *j = parse(f, &o, what);
	json_int_t ob = json_integer_value(json_object_get(j, "stdout_bytes"));
	json_int_t eb = json_integer_value(json_object_get(j, "stderr_bytes"));
	cr_assert(ob == (json_int_t)d->out_len && eb == (json_int_t)d->err_len,
		  "%s %s --json: stdout_bytes %lld stderr_bytes %lld, expected %zu and %zu", f->tag,
		  what, (long long)ob, (long long)eb, d->out_len, d->err_len);
	cr_assert(json_is_true(json_object_get(j, "truncated")), "%s %s: truncated should be true",
		  f->tag, what);
	if (want_runner)
		cr_assert(strcmp(jstr(j, "sandbox", "runner"), want_runner) == 0,
			  "%s %s: runner %s, expected %s", f->tag, what, jstr(j, "sandbox", "runner"),
			  want_runner);
	json_t *sp = json_object_get(j, "spill");
	cr_assert(json_is_object(sp), "%s %s: streams past the limit should be spilled:\n%.600s",
		  f->tag, what, o.out);
	const char *names[] = {"stdout", "stderr"};
	for (int i = 0; i < 2; i++) {
		const char *p = jstr(j, "spill", names[i]);
		cr_assert(*p, "%s %s: no spill path for %s", f->tag, what, names[i]);
		struct stat st;
		cr_assert(stat(p, &st) == 0, "%s %s: spill %s: %s", f->tag, what, p, strerror(errno));
		unsigned char *buf = malloc((size_t)st.st_size + 1);
		cr_assert_not_null(buf);
		int fd = open(p, O_RDONLY | O_CLOEXEC);
		cr_assert(fd >= 0);
		size_t len = 0;
		for (ssize_t r; (r = read(fd, buf + len, (size_t)st.st_size - len)) > 0;)
			len += (size_t)r;
		close(fd);
		if (i == 0)
			assert_bytes(f, what, "spilled stdout", buf, len, d->out, d->out_len);
		else
			assert_bytes(f, what, "spilled stderr", buf, len, d->err, d->err_len);
		free(buf);
	}
	json_decref(j);
	e2e_out_free(&o);
	free(what);
}

PARAMS(no_io_uring_same_bytes_confined)
ParameterizedTest(enum e2e_user *who, faults, no_io_uring_same_bytes_confined)
{
	struct fx f;
	fx_setup(&f, *who);
	struct data d;
	make_data(&f, &d);
	check_stream(&f, &d, NULL, "workspace-write", "namespace");
	check_stream(&f, &d, "io_uring", "workspace-write", "namespace");
}

PARAMS(no_io_uring_same_bytes_danger)
ParameterizedTest(enum e2e_user *who, faults, no_io_uring_same_bytes_danger)
{
	struct fx f;
	fx_setup(&f, *who);
	struct data d;
	make_data(&f, &d);
	check_stream(&f, &d, NULL, "danger-full-access", NULL);
	check_stream(&f, &d, "io_uring", "danger-full-access", NULL);
}

/* ---- a container-like profile: no user namespaces, no io_uring ---- */

PARAMS(container_profile)
ParameterizedTest(enum e2e_user *who, faults, container_profile)
{
	struct fx f;
	fx_setup(&f, *who);
	struct data d;
	make_data(&f, &d);
	check_stream(&f, &d, "userns,io_uring", "workspace-write", "landlock");

	struct e2e_out o;
	char *cmd = e2e_fmt("echo in > %s && echo x >> %s", f.in, f.Of);
	run_sbx(&f, "userns,io_uring", NULL, "workspace-write", false, NULL, cmd, &o);
	cr_assert(o.status != 0 && o.status != 125,
		  "%s container profile: the outside write should fail (exit %d)\n%s", f.tag,
		  o.status, o.err);
	cr_assert(strstr(o.err, "Permission denied") != NULL, "%s landlock dialect missing:\n%s",
		  f.tag, o.err);
	assert_unchanged(&f, "container profile");
	char *c = e2e_read_file(f.in);
	cr_assert(c && strcmp(c, "in\n") == 0, "%s container profile: the workspace write did not land",
		  f.tag);
	free(c);
	e2e_out_free(&o);
	free(cmd);
}

/* ---- danger-full-access needs nothing ---- */

PARAMS(danger_runs_under_every_fault)
ParameterizedTest(enum e2e_user *who, faults, danger_runs_under_every_fault)
{
	struct fx f;
	fx_setup(&f, *who);
	const char *faults[] = {"userns", "landlock", "io_uring", "userns,landlock,io_uring",
				"mount_setattr", "userns,landlock,io_uring,mount_setattr,netns"};
	for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++) {
		char *s = e2e_fmt("%s/sentinel-%zu", f.R, i);
		char *cmd = e2e_fmt("touch %s && echo ran", s);
		struct e2e_out o;
		run_sbx(&f, faults[i], NULL, "danger-full-access", true, NULL, cmd, &o);
		cr_assert(o.status == 0, "%s danger-full-access under nofeature %s: exit %d\n%s\n%s",
			  f.tag, faults[i], o.status, o.out, o.err);
		cr_assert(e2e_exists(s), "%s danger-full-access under nofeature %s: %s not created",
			  f.tag, faults[i], s);
		json_t *j = parse(&f, &o, faults[i]);
		cr_assert(strcmp(jstr(j, "stdout", NULL), "ran\n") == 0, "%s stdout:\n%s", f.tag,
			  o.out);
		json_t *sb = json_object_get(j, "sandbox");
		cr_assert(json_object_size(sb) == 2 &&
				  strcmp(jstr(j, "sandbox", "mode"), "danger-full-access") == 0 &&
				  json_is_false(json_object_get(sb, "denied")),
			  "%s danger sandbox facts should be exactly {mode, denied:false}:\n%s",
			  f.tag, o.out);
		json_decref(j);
		e2e_out_free(&o);
		free(cmd);
		free(s);
	}
}

/* ---- no mount_setattr: the namespace runner's remount fallback ---- */

PARAMS(no_mount_setattr_namespace_confines)
ParameterizedTest(enum e2e_user *who, faults, no_mount_setattr_namespace_confines)
{
	struct fx f;
	fx_setup(&f, *who);
	struct e2e_out o;
	char *cmd = e2e_fmt("echo in > %s && echo tmp > /tmp/t && cat /tmp/t && echo x >> %s", f.in,
			f.Of);
	run_sbx(&f, "mount_setattr", "namespace", "workspace-write", true, NULL, cmd, &o);
	cr_assert(o.status != 0 && o.status != 125,
		  "%s nofeature mount_setattr: the outside write should fail (exit %d)\n%s\n%s",
		  f.tag, o.status, o.out, o.err);
	json_t *j = parse(&f, &o, "nofeature mount_setattr");
	cr_assert(strcmp(jstr(j, "sandbox", "runner"), "namespace") == 0, "%s runner:\n%s", f.tag,
		  o.out);
	cr_assert(strstr(jstr(j, "stderr", NULL), "Read-only file system") != NULL,
		  "%s the outside write should fail with EROFS:\n%s", f.tag, o.out);
	cr_assert(strcmp(jstr(j, "stdout", NULL), "tmp\n") == 0,
		  "%s /tmp should be writable in workspace-write:\n%s", f.tag, o.out);
	cr_assert(json_is_true(json_object_get(json_object_get(j, "sandbox"), "denied")),
		  "%s should be classified as denied:\n%s", f.tag, o.out);
	json_decref(j);
	assert_unchanged(&f, "nofeature mount_setattr");
	char *c = e2e_read_file(f.in);
	cr_assert(c && strcmp(c, "in\n") == 0, "%s the workspace write did not land", f.tag);
	free(c);
	e2e_out_free(&o);
	free(cmd);

	/* read-only: the workspace itself is read-only too */
	char *ro = e2e_fmt("echo again > %s", f.in);
	run_sbx(&f, "mount_setattr", "namespace", "read-only", false, NULL, ro, &o);
	cr_assert(o.status != 0 && o.status != 125 &&
			  strstr(o.err, "Read-only file system") != NULL,
		  "%s nofeature mount_setattr, read-only: a workspace write should fail with EROFS "
		  "(exit %d)\n%s",
		  f.tag, o.status, o.err);
	c = e2e_read_file(f.in);
	cr_assert(c && strcmp(c, "in\n") == 0, "%s read-only: %s changed to \"%s\"", f.tag, f.in,
		  c ? c : "<gone>");
	free(c);
	e2e_out_free(&o);
	free(ro);
}
