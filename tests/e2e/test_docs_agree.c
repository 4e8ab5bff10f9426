/* SPDX-License-Identifier: MIT */
/* What the documentation says against what the binary does: sbx(1)'s RESULT
 * OBJECT lists exactly the keys real results hold (both ways), its MARKERS
 * section names every way a run is denied, and a size is written one way
 * everywhere (flags, sbx.conf, serve's flags: bytes or digits with one of
 * k, m, g, t in either case, powers of 1024), a bad one refused with what
 * is accepted. */
#include <criterion/criterion.h>
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

/* A file of the source tree, found from this file's place in it. */
static char *source_file(const char *rel)
{
	const char *cut = strstr(__FILE__, "tests/e2e/test_docs_agree.c");

	cr_assert_not_null(cut, "unexpected __FILE__ %s", __FILE__);
	char *path = e2e_fmt("%.*s%s", (int)(cut - __FILE__), __FILE__, rel);
	char *text = e2e_read_file(path);

	cr_assert_not_null(text, "%s: %s", path, strerror(errno));
	free(path);
	return text;
}

/* The text of man page section NAME (from its .SH line to the next). */
static char *man_section(const char *page, const char *name)
{
	char *text = source_file(page), *head = e2e_fmt(".SH %s\n", name);
	char *start = strstr(text, head), *end;

	cr_assert_not_null(start, "%s has no section %s", page, name);
	end = strstr(start + strlen(head), "\n.SH ");
	char *sect = strndup(start, end ? (size_t)(end - start) : strlen(start));

	free(head);
	free(text);
	return sect;
}

#define MAX_KEYS 128

struct keyset {
	char *k[MAX_KEYS];
	size_t n;
};

static bool keyset_has(const struct keyset *s, const char *k)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->k[i], k) == 0)
			return true;
	return false;
}

static void keyset_add(struct keyset *s, const char *k)
{
	if (keyset_has(s, k))
		return;
	cr_assert(s->n < MAX_KEYS);
	s->k[s->n++] = strdup(k);
}

/* The keys of a result, two levels deep: "exit_code", "sandbox.processes",
 * "spill.stdout" (the fields of spill_stopped's streams are prose). */
static void keys_of(json_t *res, struct keyset *s)
{
	const char *k, *k2;
	json_t *v, *v2;

	json_object_foreach(res, k, v) {
		keyset_add(s, k);
		if (!json_is_object(v))
			continue;
		json_object_foreach(v, k2, v2) {
			char *path = e2e_fmt("%s.%s", k, k2);

			keyset_add(s, path);
			free(path);
		}
	}
}

/* Every ".TP"/".TQ" item tagged ".B key" in the section. */
static void man_keys(const char *sect, struct keyset *s)
{
	for (const char *p = sect; (p = strstr(p, "\n.T")); p++) {
		if (strncmp(p, "\n.TP\n.B ", 8) != 0 && strncmp(p, "\n.TQ\n.B ", 8) != 0)
			continue;
		const char *key = p + 8;
		size_t len = strcspn(key, " \n");
		char *k = strndup(key, len);

		keyset_add(s, k);
		free(k);
	}
}

static int sbx_json(struct e2e_out *o, char *const args[])
{
	char *argv[40];
	size_t n = 0;

	argv[n++] = (char *)e2e_sbx();
	argv[n++] = "run";
	argv[n++] = "--json";
	for (size_t i = 0; args[i]; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	return e2e_run(AS_CALLER, argv, NULL, o);
}

static json_t *parsed(const struct e2e_out *o)
{
	json_error_t je;
	json_t *j = json_loads(o->out, JSON_ALLOW_NUL, &je);

	cr_assert_not_null(j, "not JSON (%s): %s %s", je.text, o->out, o->err);
	return j;
}

static void remove_spills(json_t *res)
{
	json_t *spill = json_object_get(res, "spill");
	const char *k;
	json_t *v;

	json_object_foreach(spill, k, v)
		if (json_is_string(v))
			unlink(json_string_value(v));
}

/* Runs that between them hold every key a result can have: spills and a
 * stopped spill, protected paths put back (more than are listed), a refused call, a timeout, a
 * danger-full-access run, and the run after a killed sbx that puts back
 * what that one left. */
Test(docs, result_object_keys_are_sbx1_s, .timeout = 180)
{
	char *base = e2e_tmpdir(AS_CALLER), *ws = e2e_fmt("%s/ws", base);
	char *conf = e2e_fmt("%s/sbx.conf", base);
	struct keyset real = { 0 }, man = { 0 };
	struct e2e_out o;
	json_t *j;

	e2e_require_runner(AS_CALLER, "landlock");
	cr_assert(e2e_mkdir(AS_CALLER, ws) == 0);
	cr_assert(e2e_write_file(AS_CALLER, conf, "spill_max_bytes = 1k\n") == 0);

	sbx_json(&o, (char *[]){ "--config", conf, "--runner", "landlock", "--mode",
				 "workspace-write", "--root", ws, "--output-limit", "100", "--",
				 "seq 3000; seq 3000 >&2; touch f; chmod u+s f; for p in .envrc "
				 ".gitmodules .mcp.json .bashrc .bash_profile .bash_login .bash_logout "
				 ".profile .zshrc .zshenv .zprofile .zlogin .bash_aliases .xprofile "
				 ".xsessionrc .exrc .nvimrc; do echo x > $p; done",
				 NULL });
	j = parsed(&o);
	cr_assert(json_is_object(json_object_get(json_object_get(j, "spill_stopped"), "stdout")) &&
		  json_array_size(json_object_get(json_object_get(j, "sandbox"), "reverted")) &&
		  json_integer_value(json_object_get(json_object_get(j, "sandbox"),
						     "refused_calls")) > 0,
		  "the first run lacks what it was made for: %s", o.out);
	keys_of(j, &real);
	remove_spills(j);
	json_decref(j);
	e2e_out_free(&o);

	sbx_json(&o, (char *[]){ "--timeout", "0.2", "--root", ws, "--", "sleep 5", NULL });
	j = parsed(&o);
	keys_of(j, &real);
	json_decref(j);
	e2e_out_free(&o);

	sbx_json(&o, (char *[]){ "--mode", "danger-full-access", "--root", ws, "--", "true",
				 NULL });
	j = parsed(&o);
	keys_of(j, &real);
	json_decref(j);
	e2e_out_free(&o);

	/* An sbx killed (by its command: Landlock ABI 5 scopes no signal)
	 * after a protected path changed; the next run puts it back. */
	sbx_json(&o, (char *[]){ "--runner", "landlock", "--landlock-abi", "5", "--mode",
				 "workspace-write", "--root", ws, "--",
				 "echo y > .envrc; kill -9 $PPID; sleep 2", NULL });
	cr_assert_eq(o.status, 128 + SIGKILL, "sbx was not killed: %s %s", o.out, o.err);
	e2e_out_free(&o);
	sbx_json(&o, (char *[]){ "--runner", "landlock", "--mode", "workspace-write", "--root",
				 ws, "--", "true", NULL });
	j = parsed(&o);
	cr_assert(json_array_size(json_object_get(json_object_get(j, "sandbox"), "recovered")),
		  "the run after a killed sbx recovered nothing: %s", o.out);
	keys_of(j, &real);
	json_decref(j);
	e2e_out_free(&o);

	char *sect = man_section("man/sbx.1", "RESULT OBJECT");

	man_keys(sect, &man);
	for (size_t i = 0; i < real.n; i++)
		cr_expect(keyset_has(&man, real.k[i]),
			  "a result holds '%s', which sbx(1) RESULT OBJECT does not list", real.k[i]);
	for (size_t i = 0; i < man.n; i++)
		cr_expect(keyset_has(&real, man.k[i]),
			  "sbx(1) RESULT OBJECT lists '%s', which no real result held", man.k[i]);
	free(sect);
	free(conf);
	free(ws);
	free(base);
}

/* MARKERS says every way a run comes to be denied: the classifier's, a
 * refused call, and protected paths put back, each for a failed run only
 * (CONTRACT section 5): a run that exited 0 is never denied. */
Test(docs, markers_name_every_denial)
{
	char *sect = man_section("man/sbx.1", "MARKERS");

	cr_assert(strstr(sect, "sandbox.refused_calls") && strstr(sect, "sandbox.reverted") &&
			  strstr(sect, "A run that exited 0 is never denied") &&
			  !strstr(sect, "whatever its exit status"),
		  "sbx(1) MARKERS does not say that a refused call and a put-back protected "
		  "path make a failed run denied, and a run that exited 0 never:\n%s", sect);
	free(sect);
}

/* ---- sizes ---- */

static json_t *run_sized(char *const extra[], const char *cmd)
{
	char *args[16];
	size_t n = 0;
	struct e2e_out o;
	json_t *j;

	args[n++] = "--mode";
	args[n++] = "danger-full-access";
	for (size_t i = 0; extra[i]; i++)
		args[n++] = extra[i];
	args[n++] = "--";
	args[n++] = (char *)cmd;
	args[n] = NULL;
	cr_assert_eq(sbx_json(&o, args), 0, "%s %s", o.out, o.err);
	j = parsed(&o);
	e2e_out_free(&o);
	remove_spills(j);
	return j;
}

/* How many bytes of stdout the result kept, but the omitted-bytes line. */
static size_t kept(json_t *j)
{
	const char *s = json_string_value(json_object_get(j, "stdout"));
	const char *mid = strstr(s, "\n[... ");

	cr_assert_not_null(mid, "not cut: %.200s", s);
	return strlen(s) - (size_t)(strchr(mid + 1, '\n') + 1 - mid);
}

/* On the old code `--output-limit 1M` and `output_limit = 64k` were
 * refused, though sbx.conf(5) promised suffixes for sizes. */
Test(docs, sizes_take_suffixes_everywhere, .timeout = 120)
{
	char *dir = e2e_tmpdir(AS_CALLER), *conf = e2e_fmt("%s/sbx.conf", dir);
	const char *big = "head -c 3000000 /dev/zero | tr '\\0' a";
	json_t *j;

	j = run_sized((char *[]){ "--output-limit", "1M", NULL }, big);
	cr_assert_eq(kept(j), 1048576, "--output-limit 1M kept %zu bytes", kept(j));
	json_decref(j);
	j = run_sized((char *[]){ "--output-limit=64K", NULL }, big);
	cr_assert_eq(kept(j), 65536, "--output-limit=64K kept %zu bytes", kept(j));
	json_decref(j);
	cr_assert(e2e_write_file(AS_CALLER, conf, "output_limit = 8k\n") == 0);
	j = run_sized((char *[]){ "--config", conf, NULL }, big);
	cr_assert_eq(kept(j), 8192, "output_limit = 8k kept %zu bytes", kept(j));
	json_decref(j);

	/* A bad size says what is accepted, and nothing runs. */
	static const char *const bad[] = { "1.5M", "64KB", "1 k", "-1k", "2G", "k" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct e2e_out o;
		char *want = e2e_fmt("sbx: USAGE: --output-limit: bad value '%s' (expected 2 to 1G "
				     "bytes (suffix k, m, g or t: powers of 1024))", bad[i]);

		cr_assert_eq(sbx_json(&o, (char *[]){ "--output-limit", (char *)bad[i], "--",
						      "true", NULL }),
			     125);
		cr_assert(strstr(o.err, want), "'%s': %s", bad[i], o.err);
		e2e_out_free(&o);
		free(want);
	}
	free(conf);
	free(dir);
}

/* sbx serve's sizes are written the same way. */
Test(docs, serve_sizes_take_suffixes, .timeout = 60)
{
	struct e2e_out o;
	char *argv[] = { "sh", "-c",
			 e2e_fmt("printf '%%s\\n' '{\"jsonrpc\":\"2.0\",\"id\":1,"
				 "\"method\":\"initialize\"}' | %s serve --max-line 64k "
				 "--max-answer 1M", e2e_sbx()),
			 NULL };
	char *bad[] = { (char *)e2e_sbx(), "serve", "--max-line", "64KB", NULL };

	e2e_run(AS_CALLER, argv, NULL, &o);
	cr_assert_eq(o.status, 0, "sbx serve --max-line 64k --max-answer 1M: %d %s", o.status,
		     o.err);
	cr_assert(strstr(o.out, "\"line_max\":65536") && strstr(o.out, "\"answer_max\":1048576"),
		  "%s", o.out);
	e2e_out_free(&o);
	free(argv[2]);
	e2e_run(AS_CALLER, bad, NULL, &o);
	cr_assert_eq(o.status, 125, "%s", o.err);
	cr_assert(strstr(o.err, "bad --max-line '64KB'") && strstr(o.err, "k, m, g or t"),
		  "%s", o.err);
	/* Only the flag that was wrong (new-user pass 5: every flag's range). */
	cr_assert(strstr(o.err, "4k to 64M") && !strstr(o.err, "--max-answer") &&
			  !strstr(o.err, "--spill-max-age"),
		  "%s", o.err);
	e2e_out_free(&o);
}
