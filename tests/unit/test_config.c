/* SPDX-License-Identifier: MIT */
/* policy/config.c: the deployment config parser (CONTRACT section 6). */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config_keys.h"
#include "policy.h"

static struct sbx_config cfg;
static struct sbx_error err;

static int parse_n(const char *text, size_t len)
{
	memset(&err, 0, sizeof(err));
	return config_parse_buffer("t.conf", text, len, &cfg, &err);
}

static int parse(const char *text)
{
	return parse_n(text, strlen(text));
}

static void expect_ok(const char *text)
{
	int rc = parse(text);
	cr_assert_eq(rc, 0, "parse failed: %s", err.message);
}

/* The error must be code CONFIG with exactly this message. */
static void expect_error(const char *text, const char *message)
{
	int rc = parse(text);
	cr_assert_lt(rc, 0, "accepted: %s", text);
	cr_assert_str_eq(err.code, "CONFIG");
	cr_assert_str_eq(err.message, message);
}

/* ---- every key, table-driven ----
 *
 * One row per key: values that must be accepted (with what must be stored),
 * values that must be refused, and the exact "expected ..." text the error
 * gives. A key of the parser's table without a row fails keys_all_tested. */

struct good {
	const char *value;
	const char *stored; /* the stored value, as stored_text() prints it */
};

struct key_row {
	const char *key;
	const char *expected;
	struct good good[12];
	const char *bad[24];
};

#define ONE_GIB "1073741824"
static const struct key_row rows[] = {
	{ "mode", "read-only, workspace-write or danger-full-access",
	  { { "read-only", "0" }, { "workspace-write", "1" }, { "danger-full-access", "2" } },
	  { "write", "Read-Only", "readonly", "read-only,", "0", "none" } },
	{ "workspace_root", "an absolute path of at most 4095 bytes",
	  { { "/srv/work", "/srv/work" }, { "/a b/c", "/a b/c" }, { "/a=b", "/a=b" }, { "/", "/" } },
	  { "relative/dir", "./x", "~/x", "x" } },
	{ "runner", "auto, namespace or landlock",
	  { { "auto", "0" }, { "namespace", "1" }, { "landlock", "2" } },
	  { "none", "bwrap", "Auto", "namespace,landlock" } },
	{ "escalation", "true or false",
	  { { "true", "1" }, { "false", "0" } },
	  { "yes", "TRUE", "1", "0", "on" } },
	{ "output_limit", "2 to 1G bytes (suffix k, m, g or t: powers of 1024)",
	  { { "2", "2" }, { "1024", "1024" }, { ONE_GIB, ONE_GIB }, { "007", "7" },
	    { "64k", "65536" }, { "64K", "65536" }, { "1M", "1048576" }, { "1g", ONE_GIB } },
	  { "0", "1", "1073741825", "99999999999999999999999999", "-1", "+5", "1025M", "0x10",
	    "1 000", "12abc", "1.5", "\xd9\xa1", "1KB", "1.5M", "2G", "1kk", "k", "1 k" } },
	{ "timeout", "0.001 to 604800 seconds",
	  { { "30", "30000" }, { "1.5", "1500" }, { "0.001", "1" }, { "2.25", "2250" },
	    { "1.0009", "1000" }, { "604800", "604800000" }, { "0.5", "500" }, { "010", "10000" },
	    /* new-user pass 10: ".5" was refused by a message that took it */
	    { ".5", "500" }, { "1.", "1000" } },
	  { "0", "0.0", "0.0005", "604800.001", "604801", "99999999999999999999999", "-1", "+1",
	    ".", "1e3", "1.5s", "1..5", "1,5", "inf", "nan", ".x", "x." } },
	{ "net", "allow or none",
	  { { "allow", "0" }, { "none", "1" } },
	  { "off", "deny", "None" } },
	{ "max_background", "1 to 1024 tasks",
	  { { "1", "1" }, { "16", "16" }, { "1024", "1024" } },
	  { "0", "-3", "1025", "4294967297", "many" } },
	{ "scrub_env",
	  "comma-separated name patterns of A-Z a-z 0-9 _ and *, each at most 127 bytes, 64 in all",
	  { { "*_API_KEY", "*_API_KEY" }, { "*_API_KEY, MY_*", "*_API_KEY MY_*" },
	    { "A,A", "A" }, { "token_9", "token_9" } },
	  { "A-B", "A B", "A?", "A$" } },
	{ "spill_max_bytes", "0 to 1T bytes (suffix k, m, g or t: powers of 1024)",
	  { { "0", "0" }, { "1048576", "1048576" }, { "256M", "268435456" }, { "1g", "1073741824" },
	    { "1099511627776", "1099511627776" }, { "1T", "1099511627776" } },
	  { "-1", "1099511627777", "1025G", "1GB", "1e9", "1.5G", "never", "G" } },
	{ "spill_max_age", "60 to 31536000 seconds, or never",
	  { { "60", "60000" }, { "86400", "86400000" }, { "3600.5", "3600500" },
	    { "31536000", "31536000000" }, { "never", "0" } },
	  { "0", "59.999", "31536000.001", "Never", "1d", "-60" } },
	{ "max_processes", "1 to 4194304 processes",
	  { { "1", "1" }, { "500", "500" }, { "4194304", "4194304" } },
	  { "0", "4194305", "lots", "-1", "1k", "unlimited" } },
	{ "memory_limit", "16M to 1048576T bytes (suffix k, m, g or t: powers of 1024), or off",
	  { { "16M", "16777216" }, { "2G", "2147483648" }, { "16777216", "16777216" },
	    { "off", "18446744073709551615" }, { "1048576T", "1152921504606846976" } },
	  { "1M", "16777215", "2GB", "2 G", "Off", "none", "1048577T", "-1G", "0" } },
	{ "file_size_limit", "1 to 1048576T bytes (suffix k, m, g or t: powers of 1024), or off",
	  { { "1", "1" }, { "100M", "104857600" }, { "off", "18446744073709551615" } },
	  { "0", "100MB", "1.5G", "unlimited" } },
	{ "tmp_size", "1M to 1048576T bytes (suffix k, m, g or t: powers of 1024)",
	  { { "1M", "1048576" }, { "256m", "268435456" }, { "1048576", "1048576" } },
	  { "off", "1048575", "2000000T", "512MB" } },
	{ "protected_paths",
	  "comma-separated paths relative to the workspace root (no '..'), at most 48, or none",
	  { { ".git/hooks", ".git/hooks" }, { ".envrc, .vscode", ".envrc .vscode" },
	    { "none", "" }, { "a b/c", "a b/c" } },
	  { "/abs", "../up", "a/../b", "a//b", "./x", "x/." } },
	{ "deny_read", "comma-separated absolute or ~/ paths (no '..'), at most 48, or none",
	  { { "~/.ssh", "~/.ssh" }, { "/etc/secret, ~/.aws", "/etc/secret ~/.aws" },
	    { "none", "" } },
	  { "relative", "~user/x", "/a/../b", "~", "/a//b" } },
	{ "unix_sockets",
	  "comma-separated absolute socket paths or * patterns (no '.', '..' or '//'), or @abstract "
	  "names, each at most 255 bytes, 32 in all",
	  { { "/run/postgresql/.s.PGSQL.*", "/run/postgresql/.s.PGSQL.*" },
	    { "/a.sock, @x11", "/a.sock @x11" } },
	  { "relative.sock", "/a/../b", "/a//b", "/a/./b" } },
	{ "cache_dir", "an absolute path of at most 4095 bytes, or off",
	  { { "/var/cache/sbx", "/var/cache/sbx" }, { "off", "off" } },
	  { "relative", "Off", "~/cache" } },
};
#define N_ROWS (sizeof(rows) / sizeof(rows[0]))

/* The stored value of k as text: numbers in decimal (milliseconds for
 * seconds), choices as their index, paths as they are, scrub_env's patterns
 * separated by spaces. */
static void stored_text(const struct config_key *k, char *out, size_t size)
{
	const char *field = (const char *)&cfg + k->offset;
	uint64_t v = 0;
	int i;
	bool b;

	switch (k->kind) {
	case CONFIG_CHOICE:
		memcpy(&i, field, sizeof(i));
		snprintf(out, size, "%d", i);
		return;
	case CONFIG_BOOL:
		memcpy(&b, field, sizeof(b));
		snprintf(out, size, "%d", b);
		return;
	case CONFIG_NUMBER:
	case CONFIG_BYTES:
	case CONFIG_SECONDS:
		if (k->size == sizeof(uint32_t)) {
			uint32_t v32;

			memcpy(&v32, field, sizeof(v32));
			v = v32;
		} else {
			memcpy(&v, field, sizeof(v));
		}
		snprintf(out, size, "%llu", (unsigned long long)v);
		return;
	case CONFIG_PATH:
		snprintf(out, size, "%s", field);
		return;
	case CONFIG_LIST: {
		size_t n;

		memcpy(&n, (const char *)&cfg + k->count_offset, sizeof(n));
		out[0] = '\0';
		for (size_t j = 0; j < n; j++)
			snprintf(out + strlen(out), size - strlen(out), "%s%s", j ? " " : "",
				 field + j * k->item_size);
		return;
	}
	case CONFIG_CUSTOM:
		cr_assert_fail("a new custom key '%s' needs its stored_text", k->name);
	}
}

static const struct key_row *row_of(const char *key)
{
	for (size_t i = 0; i < N_ROWS; i++)
		if (strcmp(rows[i].key, key) == 0)
			return &rows[i];
	return NULL;
}

Test(config_keys, keys_all_tested)
{
	cr_assert_leq(config_n_keys, CONFIG_MAX_KEYS);
	for (size_t i = 0; i < config_n_keys; i++) {
		const struct key_row *r = row_of(config_keys[i].name);

		cr_assert_not_null(r, "key '%s' has no row in tests/unit/test_config.c",
				   config_keys[i].name);
		cr_assert_not_null(r->good[0].value, "key '%s': no good value", r->key);
		cr_assert_not_null(r->bad[0], "key '%s': no bad value", r->key);
	}
	for (size_t i = 0; i < N_ROWS; i++)
		cr_assert_not_null(config_key_find(rows[i].key), "row for unknown key '%s'",
				   rows[i].key);
}

/* The table's own promises: what the generic kinds can store. */
Test(config_keys, table_is_consistent)
{
	for (size_t i = 0; i < config_n_keys; i++) {
		const struct config_key *k = &config_keys[i];

		cr_assert_not_null(config_key_find(k->name));
		cr_assert_eq(config_key_find(k->name), k, "key '%s' listed twice", k->name);
		switch (k->kind) {
		case CONFIG_CHOICE:
			cr_assert_eq(k->size, sizeof(int), "%s", k->name);
			cr_assert_not_null(k->words, "%s", k->name);
			break;
		case CONFIG_BOOL:
			cr_assert_eq(k->size, sizeof(bool), "%s", k->name);
			break;
		case CONFIG_NUMBER:
		case CONFIG_BYTES:
		case CONFIG_SECONDS:
			cr_assert(k->size == sizeof(uint32_t) || k->size == sizeof(uint64_t), "%s",
				  k->name);
			cr_assert_leq(k->min, k->max, "%s", k->name);
			if (k->size == sizeof(uint32_t))
				cr_assert_leq(k->max, UINT32_MAX, "%s", k->name);
			break;
		case CONFIG_PATH:
			cr_assert_gt(k->size, 1, "%s", k->name);
			break;
		case CONFIG_LIST:
			cr_assert(k->item_size > 1 && k->size % k->item_size == 0, "%s", k->name);
			cr_assert(k->item_ok && k->item_name && k->expected, "%s", k->name);
			cr_assert(k->repeatable, "%s", k->name);
			break;
		case CONFIG_CUSTOM:
			cr_assert_not_null(k->parse, "%s", k->name);
			cr_assert_not_null(k->expected, "%s", k->name);
			break;
		}
		if (k->kind != CONFIG_CUSTOM)
			cr_assert_neq(k->has_offset, CONFIG_NO_FLAG, "%s", k->name);
	}
}

Test(config_keys, good_values_stored)
{
	for (size_t i = 0; i < N_ROWS; i++) {
		const struct config_key *k = config_key_find(rows[i].key);

		for (const struct good *g = rows[i].good; g->value; g++) {
			char text[256], got[512];

			/* Two lines down, so a line number mix-up would show. */
			snprintf(text, sizeof(text), "# x\n\n%s = %s\n", rows[i].key, g->value);
			expect_ok(text);
			if (k->kind != CONFIG_CUSTOM)
				cr_assert(config_key_is_set(k, &cfg), "%s = %s: not marked as set",
					  rows[i].key, g->value);
			stored_text(k, got, sizeof(got));
			cr_assert_str_eq(got, g->stored, "%s = %s: stored %s, want %s", rows[i].key,
					 g->value, got, g->stored);
		}
	}
}

Test(config_keys, bad_values_name_file_line_key_and_range)
{
	for (size_t i = 0; i < N_ROWS; i++) {
		for (const char *const *b = rows[i].bad; *b; b++) {
			char text[256], msg[512];

			snprintf(text, sizeof(text), "# x\n\n%s = %s\n", rows[i].key, *b);
			const struct config_key *k = config_key_find(rows[i].key);

			if (k->kind == CONFIG_LIST)
				snprintf(msg, sizeof(msg), "t.conf:3: %s: bad %s '%s' (expected %s)",
					 rows[i].key, k->item_name, *b, rows[i].expected);
			else
				snprintf(msg, sizeof(msg), "t.conf:3: %s: bad value '%s' (expected %s)",
					 rows[i].key, *b, rows[i].expected);
			expect_error(text, msg);
		}
		/* An empty value says what the key takes, too. */
		char text[128], msg[512];

		snprintf(text, sizeof(text), "%s =   # nothing\n", rows[i].key);
		snprintf(msg, sizeof(msg), "t.conf:1: %s: empty value (expected %s)", rows[i].key,
			 rows[i].expected);
		expect_error(text, msg);
	}
}

/* Every key but scrub_env may appear once, whatever the values. */
Test(config_keys, duplicates)
{
	for (size_t i = 0; i < N_ROWS; i++) {
		const struct config_key *k = config_key_find(rows[i].key);
		char text[256], msg[128];

		snprintf(text, sizeof(text), "%s = %s\n# x\n%s = %s\n", rows[i].key,
			 rows[i].good[0].value, rows[i].key,
			 rows[i].good[1].value ? rows[i].good[1].value : rows[i].good[0].value);
		if (k->repeatable) {
			expect_ok(text);
			continue;
		}
		snprintf(msg, sizeof(msg), "t.conf:3: duplicate key '%s' (first set on line 1)",
			 rows[i].key);
		expect_error(text, msg);
	}
}

/* ---- sbx.conf(5) and the code agree ---- */

/* man/sbx.conf.5, found from this file's place in the tree. */
static char *read_man_page(void)
{
	char path[512];
	const char *file = __FILE__;
	const char *cut = strstr(file, "tests/unit/test_config.c");

	cr_assert_not_null(cut, "unexpected __FILE__ %s", file);
	snprintf(path, sizeof(path), "%.*sman/sbx.conf.5", (int)(cut - file), file);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	static char buf[64 * 1024];
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	cr_assert_gt(n, 0);
	buf[n] = '\0';
	return buf;
}

/* The man page's entry for key (from its ".BI key" to the next .TP or .SH),
 * with groff's escapes for '-' and non-breaking spaces undone. */
static void man_entry(const char *page, const char *key, char *out, size_t size)
{
	char head[64];

	snprintf(head, sizeof(head), "\n.BI %s \"", key);
	const char *p = strstr(page, head);
	cr_assert_not_null(p, "sbx.conf(5) has no entry for '%s'", key);
	p += 1;
	const char *end = strstr(p + 1, "\n.TP");
	const char *sh = strstr(p + 1, "\n.SH");
	if (!end || (sh && sh < end))
		end = sh;
	size_t o = 0;
	for (; p < end && o + 1 < size; p++) {
		if (p[0] == '\\' && (p[1] == '-' || p[1] == '~')) {
			out[o++] = p[1] == '-' ? '-' : ' ';
			p++;
		} else {
			out[o++] = *p;
		}
	}
	out[o] = '\0';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* num appears in text as a whole number: "2" is not found in "1024" or "2.5". */
static bool has_number(const char *text, const char *num)
{
	size_t n = strlen(num);

	for (const char *p = text; (p = strstr(p, num)); p++) {
		bool start_ok = p == text || (!is_digit(p[-1]) && p[-1] != '.');
		bool end_ok = !is_digit(p[n]) && !(p[n] == '.' && is_digit(p[n + 1]));

		if (start_ok && end_ok)
			return true;
	}
	return false;
}

static void format_ms(uint64_t ms, char *out, size_t size)
{
	if (ms % 1000 == 0)
		snprintf(out, size, "%llu", (unsigned long long)(ms / 1000));
	else
		snprintf(out, size, "%llu.%03llu", (unsigned long long)(ms / 1000),
			 (unsigned long long)(ms % 1000));
}

Test(config_keys, man_page_agrees)
{
	const char *page = read_man_page();
	static char entry[8192];
	char num[32];

	for (size_t i = 0; i < config_n_keys; i++) {
		const struct config_key *k = &config_keys[i];

		man_entry(page, k->name, entry, sizeof(entry));
		switch (k->kind) {
		case CONFIG_CHOICE:
			for (size_t w = 0; k->words[w]; w++)
				cr_assert(strstr(entry, k->words[w]), "sbx.conf(5) %s: no '%s'", k->name,
					  k->words[w]);
			break;
		case CONFIG_BOOL:
			cr_assert(strstr(entry, "true") && strstr(entry, "false"), "%s", k->name);
			break;
		case CONFIG_NUMBER:
			snprintf(num, sizeof(num), "%llu", (unsigned long long)k->min);
			cr_assert(has_number(entry, num), "sbx.conf(5) %s: minimum %s not stated", k->name, num);
			snprintf(num, sizeof(num), "%llu", (unsigned long long)k->max);
			cr_assert(has_number(entry, num), "sbx.conf(5) %s: maximum %s not stated", k->name, num);
			break;
		case CONFIG_BYTES:
			config_format_bytes(k->min, num, sizeof(num));
			cr_assert(has_number(entry, num), "sbx.conf(5) %s: minimum %s not stated", k->name, num);
			config_format_bytes(k->max, num, sizeof(num));
			cr_assert(has_number(entry, num), "sbx.conf(5) %s: maximum %s not stated", k->name, num);
			break;
		case CONFIG_SECONDS:
			format_ms(k->min, num, sizeof(num));
			cr_assert(has_number(entry, num), "sbx.conf(5) %s: minimum %s not stated", k->name, num);
			format_ms(k->max, num, sizeof(num));
			cr_assert(has_number(entry, num), "sbx.conf(5) %s: maximum %s not stated", k->name, num);
			break;
		case CONFIG_PATH:
			cr_assert(strstr(entry, "absolute"), "%s", k->name);
			break;
		case CONFIG_LIST:
		case CONFIG_CUSTOM:
			break;
		}
		if (k->word)
			cr_assert(strstr(entry, k->word), "sbx.conf(5) %s: the word '%s' not stated",
				  k->name, k->word);
		cr_assert(strstr(entry, "Default"), "sbx.conf(5) %s: no default stated", k->name);
	}
}

Test(config, empty_is_defaults)
{
	expect_ok("");
	for (size_t i = 0; i < config_n_keys; i++)
		cr_assert_not(config_key_is_set(&config_keys[i], &cfg), "%s", config_keys[i].name);
	cr_assert_eq(cfg.n_scrub, 0);
	cr_assert_eq(cfg.output_limit, POLICY_DEFAULT_OUTPUT_LIMIT);
	cr_assert_eq(cfg.spill_max_bytes, POLICY_DEFAULT_SPILL_MAX_BYTES);
	cr_assert_eq(cfg.spill_max_age_ms, POLICY_DEFAULT_SPILL_MAX_AGE_MS);
	cr_assert_eq(parse_n(NULL, 0), 0);
}

Test(config, every_key_in_one_file)
{
	expect_ok("mode = workspace-write\n"
		  "workspace_root = /srv/work\n"
		  "runner = landlock\n"
		  "escalation = true\n"
		  "output_limit = 1024\n"
		  "timeout = 1.5\n"
		  "net = none\n"
		  "max_background = 4\n"
		  "scrub_env = *_API_KEY, MY_*\n"
		  "spill_max_bytes = 1048576\n"
		  "spill_max_age = 3600\n"
		  "max_processes = 500\n"
		  "memory_limit = 2G\n"
		  "file_size_limit = off\n"
		  "tmp_size = 64M\n"
		  "protected_paths = .git/hooks, .envrc\n"
		  "deny_read = ~/.ssh\n"
		  "cache_dir = /var/cache/sbx\n"
		  "unix_sockets = /run/x.sock\n");
	cr_assert_eq(cfg.mode, SBX_MODE_WORKSPACE_WRITE);
	cr_assert_str_eq(cfg.workspace_root, "/srv/work");
	cr_assert_eq(cfg.runner, SBX_RUNNER_LANDLOCK);
	cr_assert(cfg.escalation);
	cr_assert_eq(cfg.output_limit, 1024);
	cr_assert_eq(cfg.timeout_ms, 1500);
	cr_assert_eq(cfg.net, SBX_NET_NONE);
	cr_assert_eq(cfg.max_background, 4);
	cr_assert_eq(cfg.n_scrub, 2);
	cr_assert_eq(cfg.spill_max_bytes, 1048576);
	cr_assert_eq(cfg.spill_max_age_ms, 3600000);
	cr_assert_eq(cfg.max_processes, 500);
	cr_assert_eq(cfg.memory_limit, 2ULL << 30);
	cr_assert_eq(cfg.file_size_limit, POLICY_LIMIT_OFF);
	cr_assert_eq(cfg.tmp_size, 64ULL << 20);
	cr_assert_eq(cfg.n_protected, 2);
	cr_assert_str_eq(cfg.deny_read[0], "~/.ssh");
	cr_assert_str_eq(cfg.cache_dir, "/var/cache/sbx");
	for (size_t i = 0; i < config_n_keys; i++)
		if (config_keys[i].kind != CONFIG_CUSTOM)
			cr_assert(config_key_is_set(&config_keys[i], &cfg), "%s", config_keys[i].name);
}

/* The choices are the library's own names, in its enum order. */
Test(config, choices_match_the_library)
{
	for (int m = SBX_MODE_READ_ONLY; m <= SBX_MODE_DANGER_FULL_ACCESS; m++) {
		char text[64];

		snprintf(text, sizeof(text), "mode = %s", sbx_mode_name((enum sbx_mode)m));
		expect_ok(text);
		cr_assert_eq((int)cfg.mode, m);
	}
	for (int r = SBX_RUNNER_AUTO; r <= SBX_RUNNER_LANDLOCK; r++) {
		char text[64];

		snprintf(text, sizeof(text), "runner = %s", sbx_runner_name((enum sbx_runner)r));
		expect_ok(text);
		cr_assert_eq((int)cfg.runner, r);
	}
}

Test(config, comments_whitespace_blank_lines)
{
	expect_ok("# a comment\n"
		  "\n"
		  "   \t\n"
		  "  mode\t=  workspace-write   # trailing comment\n"
		  "\t# indented comment\n"
		  "workspace_root=/a b/c   \n"
		  "#mode = danger-full-access\n"
		  "net = none#no space before the comment");
	cr_assert_eq(cfg.mode, SBX_MODE_WORKSPACE_WRITE);
	cr_assert_str_eq(cfg.workspace_root, "/a b/c");
	cr_assert_eq(cfg.net, SBX_NET_NONE);
}

Test(config, crlf_line_endings)
{
	expect_ok("mode = workspace-write\r\n"
		  "# comment\r\n"
		  "\r\n"
		  "workspace_root = /w\r\n"
		  "net = none\r");
	cr_assert_eq(cfg.mode, SBX_MODE_WORKSPACE_WRITE);
	cr_assert_str_eq(cfg.workspace_root, "/w");
	cr_assert_eq(cfg.net, SBX_NET_NONE);
	/* A lone '\r' anywhere else is not a line ending. */
	expect_error("mode = read-only\nnet = none\r\r\n",
		     "t.conf:2: control character 0x0d in line");
	expect_error("mode = read-only\rnet = none\n",
		     "t.conf:1: control character 0x0d in line");
}

Test(config, value_may_contain_equals)
{
	expect_ok("workspace_root = /a=b");
	cr_assert_str_eq(cfg.workspace_root, "/a=b");
}

Test(config, syntax_errors)
{
	expect_error("mode = read-only\n\nmod = read-only\n",
		     "t.conf:3: unknown key 'mod' (did you mean 'mode'? see sbx.conf(5))");
	expect_error("MODE = read-only",
		     "t.conf:1: unknown key 'MODE' (see sbx.conf(5) for the keys)");
	expect_error("spill_max_byte = 5",
		     "t.conf:1: unknown key 'spill_max_byte' (did you mean 'spill_max_bytes'? see "
		     "sbx.conf(5))");
	expect_error("\nmode read-only", "t.conf:2: expected 'key = value', got 'mode read-only'");
	expect_error("mode =\n", "t.conf:1: mode: empty value (expected read-only, "
				   "workspace-write or danger-full-access)");
	expect_error("= read-only", "t.conf:1: missing key before '='");
	expect_error("x\n", "t.conf:1: expected 'key = value', got 'x'");
}

Test(config, unknown_key_checked_before_value)
{
	expect_error("bogus =", "t.conf:1: unknown key 'bogus' (see sbx.conf(5) for the keys)");
}

Test(config, nul_byte)
{
	static const char text[] = "mode = read-only\nnet = no\0ne\n";
	int rc = parse_n(text, sizeof(text) - 1);
	cr_assert_lt(rc, 0);
	cr_assert_str_eq(err.code, "CONFIG");
	cr_assert_str_eq(err.message, "t.conf:2: NUL byte in line");
	/* Even inside a comment. */
	static const char text2[] = "# \0\n";
	cr_assert_lt(parse_n(text2, sizeof(text2) - 1), 0);
	cr_assert_str_eq(err.message, "t.conf:1: NUL byte in line");
}

Test(config, control_characters)
{
	expect_error("mode = read\x1bonly", "t.conf:1: control character 0x1b in line");
	expect_error("\n\nnet = none\x7f", "t.conf:3: control character 0x7f in line");
}

Test(config, line_length)
{
	size_t n = CONFIG_LINE_MAX;
	char *text = malloc(n + 32);
	cr_assert_not_null(text);

	/* Exactly CONFIG_LINE_MAX bytes (a comment) is fine, with or without CR. */
	memset(text, '#', n);
	memcpy(text + n, "\r\nmode = read-only\n", 20);
	expect_ok(text);
	cr_assert(cfg.has_mode);

	/* One byte more is not, and the error names its line. */
	strcpy(text, "mode = read-only\n");
	size_t off = strlen(text);
	memset(text + off, '#', n + 1);
	text[off + n + 1] = '\0';
	expect_error(text, "t.conf:2: line too long (max 4096 bytes)");
	free(text);
}

/* ---- scrub_env ---- */

Test(config, scrub_env_accumulates)
{
	expect_ok("scrub_env = *_API_KEY\n"
		  "mode = read-only\n"
		  "scrub_env = *_SECRET*,*PASSWORD* , TOKEN_9\n"
		  "scrub_env = *_API_KEY\n");
	cr_assert_eq(cfg.n_scrub, 4, "n_scrub %zu", cfg.n_scrub);
	cr_assert_str_eq(cfg.scrub_env[0], "*_API_KEY");
	cr_assert_str_eq(cfg.scrub_env[1], "*_SECRET*");
	cr_assert_str_eq(cfg.scrub_env[2], "*PASSWORD*");
	cr_assert_str_eq(cfg.scrub_env[3], "TOKEN_9");
}

#define SCRUB "comma-separated name patterns of A-Z a-z 0-9 _ and *, each at most 127 bytes, 64 in all"

Test(config, scrub_env_errors)
{
	expect_error("scrub_env = A,,B", "t.conf:1: scrub_env: empty pattern (expected " SCRUB ")");
	expect_error("scrub_env = A,", "t.conf:1: scrub_env: empty pattern (expected " SCRUB ")");
	expect_error("scrub_env = , A", "t.conf:1: scrub_env: empty pattern (expected " SCRUB ")");
	expect_error("\nscrub_env = OK, A-B",
		     "t.conf:2: scrub_env: bad pattern 'A-B' (expected " SCRUB ")");

	char text[512];
	snprintf(text, sizeof(text), "scrub_env = %0*d", POLICY_PATTERN_MAX, 0);
	expect_error(text, "t.conf:1: scrub_env: pattern "
			   "'0000000000000000000000000000000000000000000000000000000000000000...' is "
			   "too long (expected " SCRUB ")");
	snprintf(text, sizeof(text), "scrub_env = %0*d", POLICY_PATTERN_MAX - 1, 0);
	expect_ok(text);
	cr_assert_eq(strlen(cfg.scrub_env[0]), POLICY_PATTERN_MAX - 1);
}

Test(config, scrub_env_limit)
{
	char text[4096];
	size_t off = 0;

	for (int i = 0; i < POLICY_MAX_SCRUB; i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off, "scrub_env = P%d\n", i);
	text[off] = '\0';
	expect_ok(text);
	cr_assert_eq(cfg.n_scrub, POLICY_MAX_SCRUB);
	/* A repeat does not count; one more new pattern does. */
	snprintf(text + off, sizeof(text) - off, "scrub_env = P0\nscrub_env = EXTRA\n");
	expect_error(text, "t.conf:66: scrub_env: too many patterns (expected " SCRUB ")");
}

/* ---- failure leaves nothing usable ---- */

Test(config, error_resets_config)
{
	expect_error("mode = danger-full-access\nworkspace_root = /\nnet = bogus\n",
		     "t.conf:3: net: bad value 'bogus' (expected allow or none)");
	cr_assert_not(cfg.has_mode);
	cr_assert_eq(cfg.mode, SBX_MODE_READ_ONLY);
	cr_assert_not(cfg.has_workspace_root);
	cr_assert_str_eq(cfg.workspace_root, "");
}

Test(config, parse_starts_fresh)
{
	expect_ok("mode = danger-full-access");
	expect_ok("net = none");
	cr_assert_not(cfg.has_mode);
}

Test(config, long_value_quoted_bounded)
{
	char text[256];
	snprintf(text, sizeof(text), "mode = %0100d", 0);
	cr_assert_lt(parse(text), 0);
	cr_assert_str_eq(err.message,
			 "t.conf:1: mode: bad value '0000000000000000000000000000000000000000000000000000000000000000' "
			 "(expected read-only, workspace-write or danger-full-access)");
}

/* ---- files ---- */

static char *write_tmp(const char *content)
{
	static char path[] = "/tmp/sbx-test-config-XXXXXX";
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	size_t len = strlen(content);
	cr_assert_eq(write(fd, content, len), (ssize_t)len);
	close(fd);
	return path;
}

Test(config_file, reads_file)
{
	char *path = write_tmp("mode = workspace-write\nworkspace_root = /w\n");
	int rc = config_parse_file(path, &cfg, &err);
	unlink(path);
	cr_assert_eq(rc, 0, "%s", err.message);
	cr_assert_eq(cfg.mode, SBX_MODE_WORKSPACE_WRITE);
	cr_assert_str_eq(cfg.workspace_root, "/w");
}

Test(config_file, error_names_file_and_line)
{
	char *path = write_tmp("mode = read-only\n\nmod = x\n");
	char want[256];
	snprintf(want, sizeof(want), "%s:3: unknown key 'mod' (did you mean 'mode'? see sbx.conf(5))",
		 path);
	int rc = config_parse_file(path, &cfg, &err);
	unlink(path);
	cr_assert_lt(rc, 0);
	cr_assert_str_eq(err.code, "CONFIG");
	cr_assert_str_eq(err.message, want);
}

Test(config_file, missing_file)
{
	int rc = config_parse_file("/nonexistent/sbx.conf", &cfg, &err);
	cr_assert_eq(rc, -ENOENT);
	cr_assert_str_eq(err.code, "CONFIG");
	cr_assert_str_eq(err.message,
			 "unable to open config /nonexistent/sbx.conf: No such file or directory");
}

Test(config_file, directory)
{
	int rc = config_parse_file("/tmp", &cfg, &err);
	cr_assert_eq(rc, -EISDIR);
	cr_assert_str_eq(err.code, "CONFIG");
	cr_assert_str_eq(err.message, "unable to read config /tmp: Is a directory");
}

Test(config_file, too_large)
{
	size_t n = (size_t)CONFIG_FILE_MAX + 1;
	char *big = malloc(n + 1);
	cr_assert_not_null(big);
	memset(big, '\n', n);
	big[n] = '\0';
	char *path = write_tmp(big);
	int rc = config_parse_file(path, &cfg, &err);
	cr_assert_eq(rc, -EFBIG);
	cr_assert_str_eq(err.code, "CONFIG");

	/* Exactly the limit is fine. */
	big[n - 1] = '\0';
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, big, n - 1), (ssize_t)(n - 1));
	close(fd);
	rc = config_parse_file(path, &cfg, &err);
	unlink(path);
	free(big);
	cr_assert_eq(rc, 0, "%s", err.message);
}

Test(config_file, null_path)
{
	cr_assert_lt(config_parse_file(NULL, &cfg, &err), 0);
	cr_assert_str_eq(err.code, "CONFIG");
}

/* KEY_LIST_OR's word (deny_read = none, say) empties the list; items after it
 * accumulate again. Shown on scrub_env's entry with a word added. */
Test(config_keys, list_word_empties)
{
	struct config_key k = *config_key_find("scrub_env");
	char why[256];

	k.word = "none";
	config_init(&cfg);
	cr_assert_eq(config_key_apply(&k, &cfg, "A, B", why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(cfg.n_scrub, 2);
	cr_assert_eq(config_key_apply(&k, &cfg, "none", why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(cfg.n_scrub, 0);
	cr_assert(cfg.has_scrub_env, "an explicit empty list is set");
	cr_assert_eq(config_key_apply(&k, &cfg, "C", why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(cfg.n_scrub, 1);
	cr_assert_str_eq(cfg.scrub_env[0], "C");
}
