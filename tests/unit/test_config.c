/* SPDX-License-Identifier: MIT */
/* policy/config.c: the deployment config parser (CONTRACT section 6). */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* ---- valid keys ---- */

Test(config, empty_is_defaults)
{
	expect_ok("");
	cr_assert_not(cfg.has_mode);
	cr_assert_not(cfg.has_workspace_root);
	cr_assert_not(cfg.has_runner || cfg.has_escalation || cfg.has_output_limit ||
		      cfg.has_timeout || cfg.has_net || cfg.has_max_background);
	cr_assert_eq(cfg.n_scrub, 0);
	cr_assert_eq(parse_n(NULL, 0), 0);
}

Test(config, every_key)
{
	expect_ok("mode = workspace-write\n"
		  "workspace_root = /srv/work\n"
		  "runner = landlock\n"
		  "escalation = true\n"
		  "output_limit = 1024\n"
		  "timeout = 1.5\n"
		  "net = none\n"
		  "max_background = 4\n"
		  "scrub_env = *_API_KEY, MY_*\n");
	cr_assert(cfg.has_mode);
	cr_assert_eq(cfg.mode, SBX_MODE_WORKSPACE_WRITE);
	cr_assert(cfg.has_workspace_root);
	cr_assert_str_eq(cfg.workspace_root, "/srv/work");
	cr_assert(cfg.has_runner);
	cr_assert_eq(cfg.runner, SBX_RUNNER_LANDLOCK);
	cr_assert(cfg.has_escalation);
	cr_assert(cfg.escalation);
	cr_assert(cfg.has_output_limit);
	cr_assert_eq(cfg.output_limit, 1024);
	cr_assert(cfg.has_timeout);
	cr_assert_eq(cfg.timeout_ms, 1500);
	cr_assert(cfg.has_net);
	cr_assert_eq(cfg.net, SBX_NET_NONE);
	cr_assert(cfg.has_max_background);
	cr_assert_eq(cfg.max_background, 4);
	cr_assert_eq(cfg.n_scrub, 2);
	cr_assert_str_eq(cfg.scrub_env[0], "*_API_KEY");
	cr_assert_str_eq(cfg.scrub_env[1], "MY_*");
}

Test(config, every_mode_runner_net_escalation)
{
	static const struct {
		const char *text;
		enum sbx_mode mode;
	} modes[] = {
		{ "mode=read-only", SBX_MODE_READ_ONLY },
		{ "mode=workspace-write", SBX_MODE_WORKSPACE_WRITE },
		{ "mode=danger-full-access", SBX_MODE_DANGER_FULL_ACCESS },
	};
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		expect_ok(modes[i].text);
		cr_assert_eq(cfg.mode, modes[i].mode, "%s", modes[i].text);
	}
	expect_ok("runner=auto");
	cr_assert_eq(cfg.runner, SBX_RUNNER_AUTO);
	expect_ok("runner=namespace");
	cr_assert_eq(cfg.runner, SBX_RUNNER_NAMESPACE);
	expect_ok("net=allow");
	cr_assert_eq(cfg.net, SBX_NET_ALLOW);
	cr_assert(cfg.has_net);
	expect_ok("escalation=false");
	cr_assert(cfg.has_escalation);
	cr_assert_not(cfg.escalation);
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

/* ---- numbers ---- */

Test(config, output_limit)
{
	expect_ok("output_limit = 1");
	cr_assert_eq(cfg.output_limit, 1);
	expect_ok("output_limit = 1073741824");
	cr_assert_eq(cfg.output_limit, POLICY_MAX_OUTPUT_LIMIT);
	expect_ok("output_limit = 007");
	cr_assert_eq(cfg.output_limit, 7);
	expect_error("output_limit = 0", "t.conf:1: output_limit must be at least 1 byte");
	expect_error("output_limit = 1073741825",
		     "t.conf:1: output_limit '1073741825' is too large (max 1073741824 bytes, 1 GiB)");
	expect_error("output_limit = 99999999999999999999999999",
		     "t.conf:1: output_limit '99999999999999999999999999' is too large "
		     "(max 1073741824 bytes, 1 GiB)");
	static const char *const junk[] = { "-1", "+5", "1k", "0x10", "1 000", "12abc", "1.5",
					    " ", "١" };
	for (size_t i = 0; i < sizeof(junk) / sizeof(junk[0]); i++) {
		char text[64], msg[160];
		snprintf(text, sizeof(text), "\n\noutput_limit = %s", junk[i]);
		int rc = parse(text);
		cr_assert_lt(rc, 0, "accepted %s", junk[i]);
		cr_assert_str_eq(err.code, "CONFIG");
		if (strcmp(junk[i], " ") == 0) {
			cr_assert_str_eq(err.message, "t.conf:3: empty value for 'output_limit'");
			continue;
		}
		snprintf(msg, sizeof(msg),
			 "t.conf:3: bad output_limit '%s' (expected a whole number of bytes)",
			 junk[i]);
		cr_assert_str_eq(err.message, msg);
	}
}

Test(config, timeout)
{
	static const struct {
		const char *value;
		uint64_t ms;
	} ok[] = {
		{ "30", 30000 },	 { "1.5", 1500 },     { "0.001", 1 },
		{ "2.25", 2250 },	 { "1.0009", 1000 },  { "604800", 604800000ULL },
		{ "0.5", 500 },		 { "010", 10000 },
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		char text[64];
		snprintf(text, sizeof(text), "timeout = %s", ok[i].value);
		expect_ok(text);
		cr_assert_eq(cfg.timeout_ms, ok[i].ms, "%s -> %llu", ok[i].value,
			     (unsigned long long)cfg.timeout_ms);
	}
	expect_error("timeout = 0", "t.conf:1: timeout must be positive (at least 0.001 seconds)");
	expect_error("timeout = 0.0", "t.conf:1: timeout must be positive (at least 0.001 seconds)");
	expect_error("timeout = 0.0005",
		     "t.conf:1: timeout must be positive (at least 0.001 seconds)");
	expect_error("timeout = 604800.001",
		     "t.conf:1: timeout '604800.001' is too large (max 604800 seconds)");
	expect_error("timeout = 604801",
		     "t.conf:1: timeout '604801' is too large (max 604800 seconds)");
	expect_error("timeout = 99999999999999999999999",
		     "t.conf:1: timeout '99999999999999999999999' is too large (max 604800 seconds)");
	static const char *const junk[] = { "-1", "+1", "1.", ".5", "1e3", "1.5s", "1..5", "1,5",
					    "inf", "nan", "0x10", "1. 5" };
	for (size_t i = 0; i < sizeof(junk) / sizeof(junk[0]); i++) {
		char text[64], msg[160];
		snprintf(text, sizeof(text), "timeout = %s", junk[i]);
		snprintf(msg, sizeof(msg), "t.conf:1: bad timeout '%s' (expected seconds, e.g. 30 or 1.5)",
			 junk[i]);
		expect_error(text, msg);
	}
}

Test(config, max_background)
{
	expect_ok("max_background = 1");
	cr_assert_eq(cfg.max_background, 1);
	expect_ok("max_background = 1024");
	cr_assert_eq(cfg.max_background, 1024);
	expect_error("max_background = 0", "t.conf:1: bad max_background '0' (expected 1 to 1024)");
	expect_error("max_background = -3", "t.conf:1: bad max_background '-3' (expected 1 to 1024)");
	expect_error("max_background = 1025", "t.conf:1: max_background '1025' is too large (max 1024)");
	expect_error("max_background = 4294967297",
		     "t.conf:1: max_background '4294967297' is too large (max 1024)");
}

/* ---- bad values, with their line numbers ---- */

Test(config, bad_values)
{
	expect_error("# c\nmode = write\n",
		     "t.conf:2: bad mode 'write' (expected read-only, workspace-write or "
		     "danger-full-access)");
	expect_error("mode = Read-Only", "t.conf:1: bad mode 'Read-Only' (expected read-only, "
					 "workspace-write or danger-full-access)");
	expect_error("\n\n\nworkspace_root = relative/dir",
		     "t.conf:4: workspace_root must be an absolute path, got 'relative/dir'");
	expect_error("runner = none", "t.conf:1: bad runner 'none' (expected auto, namespace or landlock)");
	expect_error("runner = bwrap", "t.conf:1: bad runner 'bwrap' (expected auto, namespace or landlock)");
	expect_error("escalation = yes", "t.conf:1: bad escalation 'yes' (expected true or false)");
	expect_error("escalation = TRUE", "t.conf:1: bad escalation 'TRUE' (expected true or false)");
	expect_error("net = off", "t.conf:1: bad net 'off' (expected allow or none)");
}

Test(config, syntax_errors)
{
	expect_error("mode = read-only\n\nmod = read-only\n", "t.conf:3: unknown key 'mod'");
	expect_error("MODE = read-only", "t.conf:1: unknown key 'MODE'");
	expect_error("\nmode read-only", "t.conf:2: expected 'key = value', got 'mode read-only'");
	expect_error("mode =\n", "t.conf:1: empty value for 'mode'");
	expect_error("mode = # nothing\n", "t.conf:1: empty value for 'mode'");
	expect_error("= read-only", "t.conf:1: missing key before '='");
	expect_error("x\n", "t.conf:1: expected 'key = value', got 'x'");
}

Test(config, unknown_key_checked_before_value)
{
	expect_error("bogus =", "t.conf:1: unknown key 'bogus'");
}

Test(config, duplicates)
{
	static const char *const keys[] = { "mode = read-only", "workspace_root = /a",
					    "runner = auto",	"escalation = true",
					    "output_limit = 5", "timeout = 5",
					    "net = none",	"max_background = 5" };
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		char text[128], msg[128], key[32];
		snprintf(text, sizeof(text), "%s\n# x\n%s\n", keys[i], keys[i]);
		snprintf(key, sizeof(key), "%.*s", (int)strcspn(keys[i], " "), keys[i]);
		snprintf(msg, sizeof(msg), "t.conf:3: duplicate key '%s' (first set on line 1)", key);
		expect_error(text, msg);
	}
	/* Even a different value is a duplicate: which one wins must not be a guess. */
	expect_error("mode = read-only\nmode = danger-full-access",
		     "t.conf:2: duplicate key 'mode' (first set on line 1)");
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

Test(config, scrub_env_errors)
{
	expect_error("scrub_env = A,,B", "t.conf:1: empty pattern in scrub_env");
	expect_error("scrub_env = A,", "t.conf:1: empty pattern in scrub_env");
	expect_error("scrub_env = , A", "t.conf:1: empty pattern in scrub_env");
	expect_error("\nscrub_env = A-B", "t.conf:2: bad scrub_env pattern 'A-B' (only A-Z a-z 0-9 _ *)");
	expect_error("scrub_env = A B", "t.conf:1: bad scrub_env pattern 'A B' (only A-Z a-z 0-9 _ *)");
	expect_error("scrub_env = A?", "t.conf:1: bad scrub_env pattern 'A?' (only A-Z a-z 0-9 _ *)");

	char text[512];
	snprintf(text, sizeof(text), "scrub_env = %0*d", POLICY_PATTERN_MAX, 0);
	expect_error(text, "t.conf:1: scrub_env pattern "
			   "'0000000000000000000000000000000000000000000000000000000000000000...' is "
			   "too long (max 127 bytes)");
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
	expect_error(text, "t.conf:66: too many scrub_env patterns (max 64)");
}

/* ---- failure leaves nothing usable ---- */

Test(config, error_resets_config)
{
	expect_error("mode = danger-full-access\nworkspace_root = /\nnet = bogus\n",
		     "t.conf:3: bad net 'bogus' (expected allow or none)");
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
			 "t.conf:1: bad mode '0000000000000000000000000000000000000000000000000000000000000000' "
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
	snprintf(want, sizeof(want), "%s:3: unknown key 'mod'", path);
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
