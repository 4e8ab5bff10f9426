/* SPDX-License-Identifier: MIT */
/* The deployment config's keys (sbx.conf(5)) and the value kinds they
 * are made of. See config_keys.h for how to add one. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "config_keys.h"

/* Values quoted in messages are cut here: enough to recognise, bounded. */
#define QUOTE "'%.64s'"

static const char *const mode_words[] = { "read-only", "workspace-write", "danger-full-access", NULL };
static const char *const runner_words[] = { "auto", "namespace", "landlock", NULL };
static const char *const net_words[] = { "allow", "none", NULL };

static bool scrub_pattern_ok(const char *item, size_t len);

#define SCRUB_EXPECTED                                                                         \
	"comma-separated name patterns of A-Z a-z 0-9 _ and *, each at most 127 bytes, 64 in all"

#define PROTECTED_EXPECTED                                                                     \
	"comma-separated paths relative to the workspace root (no '..'), at most 48, or none"
#define DENY_READ_EXPECTED                                                                     \
	"comma-separated absolute or ~/ paths (no '..'), at most 48, or none"

#define UNIX_SOCKETS_EXPECTED                                                                  \
	"comma-separated absolute socket paths or * patterns (no '.', '..' or '//'), or @abstract "  \
	"names, each at most 255 bytes, 32 in all"

/* The supervisor's own rules for one entry (policy/supervise.c). */
static bool unix_socket_item_ok(const char *item, size_t len)
{
	char why[200];

	return len < POLICY_SOCKET_PATTERN_MAX &&
	       unix_socket_pattern_check(item, len, why, sizeof(why)) == 0;
}

/* One line per key, in the order sbx.conf(5) lists them. */
const struct config_key config_keys[] = {
	KEY_CHOICE(mode, mode, mode_words),
	KEY_PATH(workspace_root, workspace_root),
	KEY_CHOICE(runner, runner, runner_words),
	KEY_BOOL(escalation, escalation),
	/* Two bytes at least: one of head and one of tail. */
	KEY_BYTES(output_limit, output_limit, 2, POLICY_MAX_OUTPUT_LIMIT),
	KEY_SECONDS(timeout, timeout_ms, 1, POLICY_MAX_TIMEOUT_MS),
	KEY_CHOICE(net, net, net_words),
	KEY_NUMBER(max_background, max_background, 1, POLICY_MAX_BACKGROUND_LIMIT, "tasks"),
	KEY_LIST(scrub_env, scrub_env, n_scrub, "pattern", scrub_pattern_ok, SCRUB_EXPECTED),
	KEY_BYTES(spill_max_bytes, spill_max_bytes, 0, POLICY_MAX_SPILL_BYTES),
	KEY_SECONDS_OR(spill_max_age, spill_max_age_ms, POLICY_MIN_SPILL_AGE_MS,
		       POLICY_MAX_SPILL_AGE_MS, "never", 0),
	/* Resource limits (docs/limits.md). */
	KEY_NUMBER(max_processes, max_processes, 1, POLICY_MAX_PROCESSES_LIMIT, "processes"),
	KEY_BYTES_OR(memory_limit, memory_limit, POLICY_MIN_MEMORY_LIMIT, POLICY_MAX_LIMIT_BYTES,
		     "off", POLICY_LIMIT_OFF),
	KEY_BYTES_OR(file_size_limit, file_size_limit, 1, POLICY_MAX_LIMIT_BYTES, "off",
		     POLICY_LIMIT_OFF),
	KEY_BYTES(tmp_size, tmp_size, POLICY_MIN_TMP_SIZE, POLICY_MAX_LIMIT_BYTES),
	/* What a confined command sees (docs/workspace.md). */
	KEY_LIST_OR(protected_paths, protected_paths, n_protected, "path",
		    policy_protected_item_ok, PROTECTED_EXPECTED, "none"),
	KEY_LIST_OR(deny_read, deny_read, n_deny_read, "path", policy_deny_read_item_ok,
		    DENY_READ_EXPECTED, "none"),
	KEY_PATH_OR(cache_dir, cache_dir, "off"),
	/* The supervisor's allow-list (docs/supervisor.md). */
	KEY_LIST(unix_sockets, unix_sockets, n_unix_sockets, "socket", unix_socket_item_ok,
		 UNIX_SOCKETS_EXPECTED),
};

const size_t config_n_keys = sizeof(config_keys) / sizeof(config_keys[0]);
_Static_assert(sizeof(config_keys) / sizeof(config_keys[0]) <= CONFIG_MAX_KEYS,
	       "raise CONFIG_MAX_KEYS");

const struct config_key *config_key_find(const char *name)
{
	for (size_t i = 0; i < config_n_keys; i++)
		if (strcmp(config_keys[i].name, name) == 0)
			return &config_keys[i];
	return NULL;
}

__attribute__((format(printf, 3, 4))) static int say(char *out, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out, size, fmt, ap);
	va_end(ap);
	return -1;
}

/* ---- numbers ---- */

/* Plain decimal digits only: no sign, no space, no base prefix, no suffix.
 * -1: not digits; -2: above max. */
static int parse_uint(const char *s, size_t len, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (len == 0)
		return -1;
	for (size_t i = 0; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return -1;
	for (size_t i = 0; i < len; i++) {
		unsigned d = (unsigned)(s[i] - '0');

		if (v > (max - d) / 10)
			return -2;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* Seconds with an optional fraction ("1.5", ".5", "5.") in milliseconds,
 * further digits truncated. A digit on one side of '.' at least. */
static int parse_ms(const char *val, uint64_t *out)
{
	const char *dot = strchr(val, '.');
	size_t int_len = dot ? (size_t)(dot - val) : strlen(val);
	uint64_t secs = 0, frac_ms = 0, ignored;

	if ((int_len > 0 || !dot) && parse_uint(val, int_len, UINT64_MAX / 1000 - 1, &secs) < 0)
		return -1;
	if (dot) {
		const char *frac = dot + 1;
		size_t frac_len = strlen(frac);

		if ((frac_len > 0 || int_len == 0) &&
		    parse_uint(frac, frac_len, UINT64_MAX, &ignored) == -1)
			return -1; /* digits only; -2 just means many digits */
		for (size_t i = 0; i < 3; i++)
			frac_ms = frac_ms * 10 + (i < frac_len ? (uint64_t)(frac[i] - '0') : 0);
	}
	*out = secs * 1000 + frac_ms;
	return 0;
}

int policy_parse_seconds(const char *s, uint64_t *ms)
{
	return s && parse_ms(s, ms) == 0 ? 0 : -EINVAL;
}

/* 1500 -> "1.5", 60000 -> "60", 1 -> "0.001" */
static void format_ms(uint64_t ms, char *out, size_t size)
{
	int n = snprintf(out, size, "%" PRIu64 ".%03u", ms / 1000, (unsigned)(ms % 1000));

	if (n <= 0 || (size_t)n >= size)
		return;
	while (out[n - 1] == '0')
		out[--n] = '\0';
	if (out[n - 1] == '.')
		out[n - 1] = '\0';
}

void config_format_bytes(uint64_t v, char *out, size_t size)
{
	static const char suffix[] = "KMGT";
	int i = -1;

	while (i < 3 && v >= 1024 && v % 1024 == 0) {
		v /= 1024;
		i++;
	}
	if (i < 0)
		snprintf(out, size, "%" PRIu64, v);
	else
		snprintf(out, size, "%" PRIu64 "%c", v, suffix[i]);
}

static void store_uint(void *p, size_t size, uint64_t v)
{
	if (size == sizeof(uint64_t))
		memcpy(p, &v, sizeof(v));
	else if (size == sizeof(uint32_t)) {
		uint32_t v32 = (uint32_t)v;

		memcpy(p, &v32, sizeof(v32));
	}
}

/* ---- what each kind allows, in words ---- */

void config_key_expected(const struct config_key *k, char *out, size_t size)
{
	char lo[32], hi[32];
	size_t used = 0;

	out[0] = '\0';
	switch (k->kind) {
	case CONFIG_CHOICE:
		for (size_t i = 0; k->words[i]; i++) {
			const char *sep = i == 0 ? "" : k->words[i + 1] ? ", " : " or ";
			int n = snprintf(out + used, size - used, "%s%s", sep, k->words[i]);

			if (n < 0 || (size_t)n >= size - used)
				return;
			used += (size_t)n;
		}
		return;
	case CONFIG_BOOL:
		snprintf(out, size, "true or false");
		return;
	case CONFIG_NUMBER:
		snprintf(out, size, "%" PRIu64 " to %" PRIu64 " %s%s%s", k->min, k->max, k->unit,
			 k->word ? ", or " : "", k->word ? k->word : "");
		return;
	case CONFIG_BYTES:
		config_format_bytes(k->min, lo, sizeof(lo));
		config_format_bytes(k->max, hi, sizeof(hi));
		snprintf(out, size, "%s to %s bytes (suffix k, m, g or t: powers of 1024)%s%s", lo, hi,
			 k->word ? ", or " : "", k->word ? k->word : "");
		return;
	case CONFIG_SECONDS:
		format_ms(k->min, lo, sizeof(lo));
		format_ms(k->max, hi, sizeof(hi));
		snprintf(out, size, "%s to %s seconds%s%s", lo, hi, k->word ? ", or " : "",
			 k->word ? k->word : "");
		return;
	case CONFIG_PATH:
		snprintf(out, size, "an absolute path of at most %zu bytes%s%s", k->size - 1,
			 k->word ? ", or " : "", k->word ? k->word : "");
		return;
	case CONFIG_LIST:
	case CONFIG_CUSTOM:
		snprintf(out, size, "%s", k->expected);
		return;
	}
}

/* ---- lists ---- */

struct list_ctx {
	const struct config_key *k;
	char *items;     /* the array */
	size_t *count;
	size_t cap;      /* how many items the array holds */
	char *why;
	size_t why_size;
};

static int add_item(const char *start, size_t len, void *ctx_)
{
	struct list_ctx *c = ctx_;
	const struct config_key *k = c->k;

	if (len == 0)
		return say(c->why, c->why_size, "empty %s", k->item_name);
	if (len >= k->item_size)
		return say(c->why, c->why_size, "%s '%.64s...' is too long", k->item_name, start);
	if (!k->item_ok(start, len))
		return say(c->why, c->why_size, "bad %s '%.*s'", k->item_name,
			   (int)(len < 64 ? len : 64), start);
	for (size_t i = 0; i < *c->count; i++) {
		const char *item = c->items + i * k->item_size;

		if (strlen(item) == len && memcmp(item, start, len) == 0)
			return 0; /* already listed: a repeat is harmless */
	}
	if (*c->count >= c->cap)
		return say(c->why, c->why_size, "too many %ss", k->item_name);
	memcpy(c->items + *c->count * k->item_size, start, len);
	c->items[*c->count * k->item_size + len] = '\0';
	(*c->count)++;
	return 0;
}

static int apply_list(const struct config_key *k, struct sbx_config *cfg, const char *val,
		      char *why, size_t why_size)
{
	struct list_ctx c = {
		.k = k,
		.items = (char *)cfg + k->offset,
		.count = (size_t *)((char *)cfg + k->count_offset),
		.cap = k->size / k->item_size,
		.why = why,
		.why_size = why_size,
	};

	if (k->word && strcmp(val, k->word) == 0) {
		*c.count = 0; /* e.g. "none": an explicitly empty list */
		if (k->word_offset)
			*(bool *)((char *)cfg + k->word_offset) = true;
		return 0;
	}
	return config_each_item(val, add_item, &c) ? -1 : 0;
}

/* ---- applying a value ---- */

static int apply_value(const struct config_key *k, struct sbx_config *cfg, const char *val,
		       char *why, size_t why_size)
{
	char *field = (char *)cfg + k->offset;
	uint64_t v;

	switch (k->kind) {
	case CONFIG_CHOICE:
		for (int i = 0; k->words[i]; i++)
			if (strcmp(val, k->words[i]) == 0) {
				memcpy(field, &i, sizeof(i));
				return 0;
			}
		break;
	case CONFIG_BOOL:
		if (strcmp(val, "true") == 0 || strcmp(val, "false") == 0) {
			bool b = val[0] == 't';

			memcpy(field, &b, sizeof(b));
			return 0;
		}
		break;
	case CONFIG_NUMBER:
	case CONFIG_BYTES:
	case CONFIG_SECONDS:
		if (k->word && strcmp(val, k->word) == 0)
			v = k->word_value;
		else if ((k->kind == CONFIG_NUMBER  ? parse_uint(val, strlen(val), UINT64_MAX, &v)
			  : k->kind == CONFIG_BYTES ? policy_parse_bytes(val, UINT64_MAX, &v)
						    : parse_ms(val, &v)) < 0 ||
			 v < k->min || v > k->max)
			break;
		store_uint(field, k->size, v);
		return 0;
	case CONFIG_PATH:
		if ((val[0] == '/' || (k->word && strcmp(val, k->word) == 0)) &&
		    strlen(val) < k->size) {
			memcpy(field, val, strlen(val) + 1);
			return 0;
		}
		break;
	case CONFIG_LIST:
		return apply_list(k, cfg, val, why, why_size);
	case CONFIG_CUSTOM:
		return k->parse(cfg, val, why, why_size);
	}
	return say(why, why_size, "bad value " QUOTE, val);
}

int config_key_apply(const struct config_key *k, struct sbx_config *cfg, const char *val,
		     char *why, size_t why_size)
{
	char problem[192], expected[192];

	if (apply_value(k, cfg, val, problem, sizeof(problem)) == 0) {
		if (k->has_offset != CONFIG_NO_FLAG)
			*((bool *)((char *)cfg + k->has_offset)) = true;
		return 0;
	}
	config_key_expected(k, expected, sizeof(expected));
	return say(why, why_size, "%s (expected %s)", problem, expected);
}

bool config_key_is_set(const struct config_key *k, const struct sbx_config *cfg)
{
	return k->has_offset != CONFIG_NO_FLAG && *((const bool *)((const char *)cfg + k->has_offset));
}

int config_each_item(const char *val, int (*item)(const char *start, size_t len, void *ctx),
		     void *ctx)
{
	const char *p = val;

	for (;;) {
		const char *comma = strchr(p, ',');
		const char *end = comma ? comma : p + strlen(p);
		int rc;

		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		rc = item(p, (size_t)(end - p), ctx);
		if (rc || !comma)
			return rc;
		p = comma + 1;
	}
}

/* ---- scrub_env ---- */

static bool scrub_pattern_ok(const char *item, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		char c = item[i];

		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '*'))
			return false;
	}
	return true;
}
