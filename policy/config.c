/* SPDX-License-Identifier: MIT */
/* The deployment config (sbx.conf(5)): `key = value` lines.
 *
 * Syntax, strictly:
 *   - one `key = value` per line; whitespace (space, tab) around key and value
 *     is trimmed; blank lines are fine;
 *   - `#` starts a comment anywhere on a line, so no value can contain `#`;
 *   - lines end with "\n"; a single "\r" right before it (or before the end of
 *     the buffer) is dropped, so files written on Windows (CRLF) read the same.
 *     Any other control character (NUL included, tab excepted) is an error:
 *     a config is text, and a stray byte must not silently change a value;
 *   - at most CONFIG_LINE_MAX bytes per line;
 *   - every key but scrub_env may appear once; scrub_env accumulates.
 * Every error names FILE:LINE and the problem, with code CONFIG; a bad value
 * also names its key and what the key allows (config_keys.c). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "config_keys.h"

/* Values quoted in messages are cut here: enough to recognise, bounded. */
#define QUOTE "'%.64s'"

struct parse_state {
	const char *name;
	size_t line;
	struct sbx_config *cfg;
	struct sbx_error *err;
	char why[400]; /* what is wrong with the line */
};

__attribute__((format(printf, 2, 3))) static int bad(struct parse_state *st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(st->why, sizeof(st->why), fmt, ap);
	va_end(ap);
	return -1;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Levenshtein distance, capped: enough to suggest "mode" for "mdoe". */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), prev[40], cur[40];

	if (la >= 40 || lb >= 40)
		return 99;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;

			cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
		memcpy(prev, cur, (lb + 1) * sizeof(prev[0]));
	}
	return prev[lb];
}

static int unknown_key(struct parse_state *st, const char *key)
{
	const char *best = NULL;
	size_t best_d = 3;

	for (size_t i = 0; i < config_n_keys; i++) {
		size_t d = distance(key, config_keys[i].name);

		if (d < best_d) {
			best_d = d;
			best = config_keys[i].name;
		}
	}
	if (best)
		return bad(st, "unknown key " QUOTE " (did you mean '%s'? see sbx.conf(5))", key,
			   best);
	return bad(st, "unknown key " QUOTE " (see sbx.conf(5) for the keys)", key);
}

/* ---- lines ---- */

static int config_fail(struct parse_state *st)
{
	return sbx_error_set(st->err, EINVAL, SBX_E_CONFIG, st->name, "%s:%zu: %s", st->name,
			     st->line, st->why);
}

static char *trim(char *s)
{
	char *end = s + strlen(s);

	while (is_blank(*s))
		s++;
	while (end > s && is_blank(end[-1]))
		end--;
	*end = '\0';
	return s;
}

/* line: NUL-terminated, end of line already removed. seen[k]: the line key
 * k was first set on (0: not yet). */
static int parse_line(struct parse_state *st, size_t *seen, char *line)
{
	char *hash = strchr(line, '#');
	if (hash)
		*hash = '\0';
	line = trim(line);
	if (line[0] == '\0')
		return 0;

	char *eq = strchr(line, '=');
	if (!eq)
		return bad(st, "expected 'key = value', got " QUOTE, line);
	*eq = '\0';
	char *key = trim(line), *val = trim(eq + 1);
	if (key[0] == '\0')
		return bad(st, "missing key before '='");

	const struct config_key *k = config_key_find(key);
	if (!k)
		return unknown_key(st, key);
	size_t idx = (size_t)(k - config_keys);
	char expected[192];

	if (val[0] == '\0') {
		config_key_expected(k, expected, sizeof(expected));
		return bad(st, "%s: empty value (expected %s)", k->name, expected);
	}
	if (seen[idx] && !k->repeatable)
		return bad(st, "duplicate key '%s' (first set on line %zu)", k->name, seen[idx]);
	if (!seen[idx])
		seen[idx] = st->line;
	char why[sizeof(st->why) - 64];

	if (config_key_apply(k, st->cfg, val, why, sizeof(why)) < 0)
		return bad(st, "%s: %s", k->name, why);
	return 0;
}

/* Copy one raw line into out (CONFIG_LINE_MAX + 1 bytes), refusing bytes a
 * text config never holds. */
static int take_line(struct parse_state *st, const char *raw, size_t len, char *out)
{
	if (len > 0 && raw[len - 1] == '\r')
		len--;
	if (len > CONFIG_LINE_MAX)
		return bad(st, "line too long (max %d bytes)", CONFIG_LINE_MAX);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)raw[i];
		if (c == '\0')
			return bad(st, "NUL byte in line");
		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return bad(st, "control character 0x%02x in line", c);
	}
	memcpy(out, raw, len);
	out[len] = '\0';
	return 0;
}

void config_init(struct sbx_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->mode = SBX_MODE_READ_ONLY;
	cfg->runner = SBX_RUNNER_AUTO;
	cfg->net = SBX_NET_ALLOW;
	cfg->output_limit = POLICY_DEFAULT_OUTPUT_LIMIT;
	cfg->max_background = POLICY_DEFAULT_MAX_BACKGROUND;
	cfg->spill_max_bytes = POLICY_DEFAULT_SPILL_MAX_BYTES;
	cfg->spill_max_age_ms = POLICY_DEFAULT_SPILL_MAX_AGE_MS;
}

int config_parse_buffer(const char *name, const char *buf, size_t len, struct sbx_config *cfg,
			struct sbx_error *err)
{
	struct parse_state st = { .name = name ? name : "(config)", .cfg = cfg, .err = err };
	size_t seen[CONFIG_MAX_KEYS];
	char line[CONFIG_LINE_MAX + 1];
	size_t pos = 0;

	memset(seen, 0, sizeof(seen));
	config_init(cfg);
	if (!buf && len > 0) {
		snprintf(st.why, sizeof(st.why), "no buffer");
		return config_fail(&st);
	}
	while (pos < len) {
		const char *start = buf + pos;
		const char *nl = memchr(start, '\n', len - pos);
		size_t line_len = nl ? (size_t)(nl - start) : len - pos;

		st.line++;
		if (take_line(&st, start, line_len, line) < 0 ||
		    parse_line(&st, seen, line) < 0) {
			config_init(cfg);
			return config_fail(&st);
		}
		pos += line_len + (nl ? 1 : 0);
	}
	return 0;
}
