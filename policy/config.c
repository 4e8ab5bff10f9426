/* SPDX-License-Identifier: MIT */
/* The deployment config (CONTRACT section 6): `key = value` lines.
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
 * Every error names FILE:LINE and the problem, with code CONFIG. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "policy.h"

/* Values quoted in messages are cut here: enough to recognise, bounded. */
#define QUOTE "'%.64s'"

struct parse_state {
	const char *name;
	size_t line;
	struct sbx_config *cfg;
	struct sbx_error *err;
	char why[256]; /* what a value parser found wrong */
};

typedef int (*value_fn)(struct parse_state *st, const char *val);

__attribute__((format(printf, 2, 3))) static int bad(struct parse_state *st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(st->why, sizeof(st->why), fmt, ap);
	va_end(ap);
	return -1;
}

/* ---- numbers ---- */

enum num_rc { NUM_OK, NUM_JUNK, NUM_TOO_BIG };

/* Plain decimal digits only: no sign, no space, no base prefix, no suffix. */
static enum num_rc parse_uint(const char *s, size_t len, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (len == 0)
		return NUM_JUNK;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return NUM_JUNK;
	}
	for (size_t i = 0; i < len; i++) {
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (max - d) / 10)
			return NUM_TOO_BIG;
		v = v * 10 + d;
	}
	*out = v;
	return NUM_OK;
}

/* ---- values, one function per key ---- */

static int value_mode(struct parse_state *st, const char *val)
{
	if (sbx_mode_parse(val, &st->cfg->mode) < 0)
		return bad(st, "bad mode " QUOTE " (expected read-only, workspace-write or "
			       "danger-full-access)", val);
	st->cfg->has_mode = true;
	return 0;
}

static int value_workspace_root(struct parse_state *st, const char *val)
{
	size_t len = strlen(val);

	if (val[0] != '/')
		return bad(st, "workspace_root must be an absolute path, got " QUOTE, val);
	if (len >= sizeof(st->cfg->workspace_root))
		return bad(st, "workspace_root is too long (max %zu bytes)",
			   sizeof(st->cfg->workspace_root) - 1);
	memcpy(st->cfg->workspace_root, val, len + 1);
	st->cfg->has_workspace_root = true;
	return 0;
}

static int value_runner(struct parse_state *st, const char *val)
{
	if (sbx_runner_parse(val, &st->cfg->runner) < 0)
		return bad(st, "bad runner " QUOTE " (expected auto, namespace or landlock)", val);
	st->cfg->has_runner = true;
	return 0;
}

static int value_escalation(struct parse_state *st, const char *val)
{
	if (strcmp(val, "true") == 0)
		st->cfg->escalation = true;
	else if (strcmp(val, "false") == 0)
		st->cfg->escalation = false;
	else
		return bad(st, "bad escalation " QUOTE " (expected true or false)", val);
	st->cfg->has_escalation = true;
	return 0;
}

static int value_output_limit(struct parse_state *st, const char *val)
{
	uint64_t v;

	switch (parse_uint(val, strlen(val), POLICY_MAX_OUTPUT_LIMIT, &v)) {
	case NUM_JUNK:
		return bad(st, "bad output_limit " QUOTE " (expected a whole number of bytes)",
			   val);
	case NUM_TOO_BIG:
		return bad(st, "output_limit " QUOTE " is too large (max %zu bytes, 1 GiB)", val,
			   POLICY_MAX_OUTPUT_LIMIT);
	case NUM_OK:
		break;
	}
	if (v == 0)
		return bad(st, "output_limit must be at least 1 byte");
	st->cfg->output_limit = (size_t)v;
	st->cfg->has_output_limit = true;
	return 0;
}

/* Seconds with an optional fraction ("1.5"); kept in milliseconds, extra
 * fraction digits truncated. Both sides of '.' need a digit. */
static int timeout_ms(const char *val, uint64_t *out)
{
	const char *dot = strchr(val, '.');
	size_t int_len = dot ? (size_t)(dot - val) : strlen(val);
	uint64_t secs, frac_ms = 0;

	switch (parse_uint(val, int_len, POLICY_MAX_TIMEOUT_MS / 1000, &secs)) {
	case NUM_JUNK:
		return -EINVAL;
	case NUM_TOO_BIG:
		return -ERANGE;
	case NUM_OK:
		break;
	}
	if (dot) {
		const char *frac = dot + 1;
		size_t frac_len = strlen(frac);
		uint64_t ignored;

		if (parse_uint(frac, frac_len, UINT64_MAX, &ignored) == NUM_JUNK)
			return -EINVAL; /* digits only; NUM_TOO_BIG just means many digits */
		for (size_t i = 0; i < 3; i++)
			frac_ms = frac_ms * 10 + (i < frac_len ? (uint64_t)(frac[i] - '0') : 0);
	}
	/* secs <= POLICY_MAX_TIMEOUT_MS / 1000, so this cannot overflow. */
	*out = secs * 1000 + frac_ms;
	return *out > POLICY_MAX_TIMEOUT_MS ? -ERANGE : 0;
}

static int value_timeout(struct parse_state *st, const char *val)
{
	uint64_t ms;
	int rc = timeout_ms(val, &ms);

	if (rc == -EINVAL)
		return bad(st, "bad timeout " QUOTE " (expected seconds, e.g. 30 or 1.5)", val);
	if (rc == -ERANGE)
		return bad(st, "timeout " QUOTE " is too large (max %llu seconds)", val,
			   (unsigned long long)(POLICY_MAX_TIMEOUT_MS / 1000));
	if (ms == 0)
		return bad(st, "timeout must be positive (at least 0.001 seconds)");
	st->cfg->timeout_ms = ms;
	st->cfg->has_timeout = true;
	return 0;
}

static int value_net(struct parse_state *st, const char *val)
{
	if (strcmp(val, "allow") == 0)
		st->cfg->net = SBX_NET_ALLOW;
	else if (strcmp(val, "none") == 0)
		st->cfg->net = SBX_NET_NONE;
	else
		return bad(st, "bad net " QUOTE " (expected allow or none)", val);
	st->cfg->has_net = true;
	return 0;
}

static int value_max_background(struct parse_state *st, const char *val)
{
	uint64_t v;
	enum num_rc rc = parse_uint(val, strlen(val), POLICY_MAX_BACKGROUND_LIMIT, &v);

	if (rc == NUM_JUNK || (rc == NUM_OK && v == 0))
		return bad(st, "bad max_background " QUOTE " (expected 1 to %u)", val,
			   POLICY_MAX_BACKGROUND_LIMIT);
	if (rc == NUM_TOO_BIG)
		return bad(st, "max_background " QUOTE " is too large (max %u)", val,
			   POLICY_MAX_BACKGROUND_LIMIT);
	st->cfg->max_background = (unsigned)v;
	st->cfg->has_max_background = true;
	return 0;
}

static int value_max_processes(struct parse_state *st, const char *val)
{
	uint64_t v;
	enum num_rc rc = parse_uint(val, strlen(val), POLICY_MAX_PROCESSES_LIMIT, &v);

	if (rc == NUM_JUNK || (rc == NUM_OK && v == 0))
		return bad(st, "bad max_processes " QUOTE " (expected 1 to %llu)", val,
			   POLICY_MAX_PROCESSES_LIMIT);
	if (rc == NUM_TOO_BIG)
		return bad(st, "max_processes " QUOTE " is too large (max %llu)", val,
			   POLICY_MAX_PROCESSES_LIMIT);
	st->cfg->max_processes = v;
	st->cfg->has_max_processes = true;
	return 0;
}

/* A size in bytes ("64M" style) of at least min, or "off" when off_ok. */
static int limit_bytes(struct parse_state *st, const char *key, const char *val, uint64_t min,
		       bool off_ok, uint64_t *out)
{
	int rc;

	if (off_ok && strcmp(val, "off") == 0) {
		*out = POLICY_LIMIT_OFF;
		return 0;
	}
	rc = policy_parse_bytes(val, POLICY_MAX_LIMIT_BYTES, out);
	if (rc == -ERANGE)
		return bad(st, "%s " QUOTE " is too large (max %llu bytes, 1 EiB)", key, val,
			   POLICY_MAX_LIMIT_BYTES);
	if (rc < 0 || *out < min)
		return bad(st, "bad %s " QUOTE " (expected bytes, e.g. 64M or 2G, at least %llu%s)",
			   key, val, (unsigned long long)min, off_ok ? ", or off" : "");
	return 0;
}

static int value_memory_limit(struct parse_state *st, const char *val)
{
	if (limit_bytes(st, "memory_limit", val, POLICY_MIN_MEMORY_LIMIT, true,
			&st->cfg->memory_limit) < 0)
		return -1;
	st->cfg->has_memory_limit = true;
	return 0;
}

static int value_file_size_limit(struct parse_state *st, const char *val)
{
	if (limit_bytes(st, "file_size_limit", val, 1, true, &st->cfg->file_size_limit) < 0)
		return -1;
	st->cfg->has_file_size_limit = true;
	return 0;
}

static int value_tmp_size(struct parse_state *st, const char *val)
{
	if (limit_bytes(st, "tmp_size", val, POLICY_MIN_TMP_SIZE, false, &st->cfg->tmp_size) < 0)
		return -1;
	st->cfg->has_tmp_size = true;
	return 0;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool pattern_char_ok(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '*';
}

/* One comma-separated item, [start, start+len), blanks already trimmed. */
static int add_scrub_pattern(struct parse_state *st, const char *start, size_t len)
{
	struct sbx_config *cfg = st->cfg;

	if (len == 0)
		return bad(st, "empty pattern in scrub_env");
	if (len >= POLICY_PATTERN_MAX)
		return bad(st, "scrub_env pattern '%.64s...' is too long (max %d bytes)", start,
			   POLICY_PATTERN_MAX - 1);
	for (size_t i = 0; i < len; i++) {
		if (!pattern_char_ok(start[i]))
			return bad(st, "bad scrub_env pattern '%.*s' (only A-Z a-z 0-9 _ *)",
				   (int)(len < 64 ? len : 64), start);
	}
	for (size_t i = 0; i < cfg->n_scrub; i++) {
		if (strlen(cfg->scrub_env[i]) == len && memcmp(cfg->scrub_env[i], start, len) == 0)
			return 0; /* already listed: a repeat is harmless */
	}
	if (cfg->n_scrub >= POLICY_MAX_SCRUB)
		return bad(st, "too many scrub_env patterns (max %d)", POLICY_MAX_SCRUB);
	memcpy(cfg->scrub_env[cfg->n_scrub], start, len);
	cfg->scrub_env[cfg->n_scrub][len] = '\0';
	cfg->n_scrub++;
	return 0;
}

static int value_scrub_env(struct parse_state *st, const char *val)
{
	const char *p = val;

	for (;;) {
		const char *comma = strchr(p, ',');
		const char *end = comma ? comma : p + strlen(p);
		while (p < end && is_blank(*p))
			p++;
		while (end > p && is_blank(end[-1]))
			end--;
		if (add_scrub_pattern(st, p, (size_t)(end - p)) < 0)
			return -1;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

static int value_path_list(struct parse_state *st, const char *val, const char *key,
			   enum policy_path_kind kind, char *dst, size_t dst_size)
{
	char why[160];

	if (strlen(val) >= dst_size)
		return bad(st, "%s is too long (max %zu bytes)", key, dst_size - 1);
	if (!policy_path_list_ok(kind, val, why, sizeof(why)))
		return bad(st, "bad %s: %s", key, why);
	strcpy(dst, val);
	return 0;
}

static int value_protected_paths(struct parse_state *st, const char *val)
{
	return value_path_list(st, val, "protected_paths", POLICY_PATHS_IN_ROOT,
			       st->cfg->protected_paths, sizeof(st->cfg->protected_paths));
}

static int value_deny_read(struct parse_state *st, const char *val)
{
	return value_path_list(st, val, "deny_read", POLICY_PATHS_ABSOLUTE, st->cfg->deny_read,
			       sizeof(st->cfg->deny_read));
}

static int value_cache_dir(struct parse_state *st, const char *val)
{
	if (strcmp(val, "off") != 0 && val[0] != '/')
		return bad(st, "cache_dir must be an absolute path or off, got " QUOTE, val);
	if (strlen(val) >= sizeof(st->cfg->cache_dir))
		return bad(st, "cache_dir is too long (max %zu bytes)", sizeof(st->cfg->cache_dir) - 1);
	strcpy(st->cfg->cache_dir, val);
	return 0;
}

/* ---- lines ---- */

static const struct config_key {
	const char *name;
	value_fn parse;
	bool repeatable;
} config_keys[] = {
	{ "mode", value_mode, false },
	{ "workspace_root", value_workspace_root, false },
	{ "runner", value_runner, false },
	{ "escalation", value_escalation, false },
	{ "output_limit", value_output_limit, false },
	{ "timeout", value_timeout, false },
	{ "net", value_net, false },
	{ "max_background", value_max_background, false },
	{ "scrub_env", value_scrub_env, true },
	{ "protected_paths", value_protected_paths, false },
	{ "deny_read", value_deny_read, false },
	{ "cache_dir", value_cache_dir, false },
	{ "max_processes", value_max_processes, false },
	{ "memory_limit", value_memory_limit, false },
	{ "file_size_limit", value_file_size_limit, false },
	{ "tmp_size", value_tmp_size, false },
};

#define N_KEYS (sizeof(config_keys) / sizeof(config_keys[0]))

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

/* line: NUL-terminated, end of line already removed. */
static int parse_line(struct parse_state *st, size_t seen[N_KEYS], char *line)
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

	size_t k = 0;
	while (k < N_KEYS && strcmp(key, config_keys[k].name) != 0)
		k++;
	if (k == N_KEYS)
		return bad(st, "unknown key " QUOTE, key);
	if (val[0] == '\0')
		return bad(st, "empty value for '%s'", config_keys[k].name);
	if (seen[k] && !config_keys[k].repeatable)
		return bad(st, "duplicate key '%s' (first set on line %zu)", config_keys[k].name,
			   seen[k]);
	if (!seen[k])
		seen[k] = st->line;
	return config_keys[k].parse(st, val);
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
}

int config_parse_buffer(const char *name, const char *buf, size_t len, struct sbx_config *cfg,
			struct sbx_error *err)
{
	struct parse_state st = { .name = name ? name : "(config)", .cfg = cfg, .err = err };
	size_t seen[N_KEYS] = { 0 };
	char line[CONFIG_LINE_MAX + 1];
	size_t pos = 0;

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
