/* SPDX-License-Identifier: MIT */
/* The deployment config's keys: one table entry each (config_keys.c).
 *
 * Adding a key takes three lines and no parser code for the usual kinds:
 *   1. policy.h: the value and its flag in struct sbx_config, named
 *      `has_<key>` (e.g. `bool has_max_processes; uint64_t max_processes;`);
 *   2. config_keys.c: one entry, e.g.
 *        KEY_NUMBER(max_processes, max_processes, 1, 1000000, "processes"),
 *   3. tests/unit/test_config.c: one row of good and bad values (the test
 *      fails for a key without one), and the key in man/sbx.conf.5 with the
 *      same range (the test checks that too).
 * A comma-separated list (paths, patterns) is KEY_LIST: an item check and
 * the sentence that says what a good value looks like. A value the kinds
 * below cannot express gets KEY_CUSTOM: a parse function and that sentence. Every error then
 * reads "FILE:LINE: KEY: <what is wrong> (expected <what is allowed>)". */
#ifndef SBX_CONFIG_KEYS_H
#define SBX_CONFIG_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy.h"

enum config_kind {
	CONFIG_CHOICE,  /* one of .words; stores the word's index as an int (an enum) */
	CONFIG_BOOL,    /* true or false */
	CONFIG_NUMBER,  /* a whole number of .unit in [min, max], or .word */
	CONFIG_BYTES,   /* a size in [min, max]: digits and at most one suffix k, m, g, t
			 * (powers of 1024), or .word */
	CONFIG_SECONDS, /* seconds, decimals allowed; stored in ms, [min, max] in ms, or .word */
	CONFIG_PATH,    /* an absolute path that fits .size, or .word (stored as is) */
	CONFIG_LIST,    /* comma-separated items, each checked by .item_ok, kept in a
			 * char[N][.item_size] array with a size_t count; lines
			 * accumulate, repeats are dropped, .word alone empties it */
	CONFIG_CUSTOM,  /* .parse decides */
};

struct config_key {
	const char *name;
	enum config_kind kind;
	size_t offset;                /* the value in struct sbx_config */
	size_t size;                  /* its size in bytes */
	size_t has_offset;            /* its has_<key> flag; (size_t)-1: none */
	bool repeatable;              /* may appear on several lines (lists accumulate) */
	uint64_t min, max;            /* NUMBER, BYTES; SECONDS in milliseconds */
	const char *unit;             /* NUMBER: "bytes", "processes", ... */
	const char *const *words;     /* CHOICE: NULL-terminated, in enum order */
	const char *word;             /* NUMBER, BYTES, SECONDS, PATH, LIST: one word also allowed */
	uint64_t word_value;          /* what .word stores (NUMBER, BYTES, SECONDS) */
	/* LIST */
	size_t count_offset;          /* the size_t count of items */
	size_t word_offset;           /* LIST with .word: a bool set when the word came */
	size_t item_size;             /* bytes per item, its NUL included */
	const char *item_name;        /* "pattern", "path": for messages */
	bool (*item_ok)(const char *item, size_t len);
	/* CUSTOM: parse val into cfg; on error write what is wrong into why
	 * ("bad pattern 'A-B'") and return -1. */
	int (*parse)(struct sbx_config *cfg, const char *val, char *why, size_t why_size);
	const char *expected;         /* LIST, CUSTOM: what a good value looks like */
};

#define CONFIG_NO_FLAG ((size_t)-1)
#define CONFIG_FIELD(key, field)                                                             \
	.name = #key, .offset = offsetof(struct sbx_config, field),                           \
	.size = sizeof(((struct sbx_config *)0)->field),                                     \
	.has_offset = offsetof(struct sbx_config, has_##key)

#define KEY_CHOICE(key, field, word_list) { CONFIG_FIELD(key, field), .kind = CONFIG_CHOICE, .words = (word_list) }
#define KEY_BOOL(key, field) { CONFIG_FIELD(key, field), .kind = CONFIG_BOOL }
#define KEY_NUMBER(key, field, lo, hi, unit_)                                                 \
	{ CONFIG_FIELD(key, field), .kind = CONFIG_NUMBER, .min = (lo), .max = (hi), .unit = (unit_) }
#define KEY_NUMBER_OR(key, field, lo, hi, unit_, word_, value)                                \
	{ CONFIG_FIELD(key, field), .kind = CONFIG_NUMBER, .min = (lo), .max = (hi),           \
	  .unit = (unit_), .word = (word_), .word_value = (value) }
#define KEY_BYTES(key, field, lo, hi)                                                          \
	{ CONFIG_FIELD(key, field), .kind = CONFIG_BYTES, .min = (lo), .max = (hi) }
#define KEY_BYTES_OR(key, field, lo, hi, word_, value)                                          \
	{ CONFIG_FIELD(key, field), .kind = CONFIG_BYTES, .min = (lo), .max = (hi),            \
	  .word = (word_), .word_value = (value) }
#define KEY_SECONDS(key, field, lo_ms, hi_ms)                                                  \
	{ CONFIG_FIELD(key, field), .kind = CONFIG_SECONDS, .min = (lo_ms), .max = (hi_ms) }
#define KEY_SECONDS_OR(key, field, lo_ms, hi_ms, word_, value)                                 \
	{ CONFIG_FIELD(key, field), .kind = CONFIG_SECONDS, .min = (lo_ms), .max = (hi_ms),    \
	  .word = (word_), .word_value = (value) }
#define KEY_PATH(key, field) { CONFIG_FIELD(key, field), .kind = CONFIG_PATH }
#define KEY_PATH_OR(key, field, word_) { CONFIG_FIELD(key, field), .kind = CONFIG_PATH, .word = (word_) }
/* A list: field is a char[N][M] array, count_field its size_t count. */
#define KEY_LIST(key, field, count_field, item, ok_fn, expected_text)                          \
	{ CONFIG_FIELD(key, field), .kind = CONFIG_LIST, .repeatable = true,                  \
	  .count_offset = offsetof(struct sbx_config, count_field),                           \
	  .item_size = sizeof(((struct sbx_config *)0)->field[0]), .item_name = (item),       \
	  .item_ok = (ok_fn), .expected = (expected_text) }
#define KEY_LIST_OR(key, field, count_field, item, ok_fn, expected_text, word_)                \
	{ CONFIG_FIELD(key, field), .kind = CONFIG_LIST, .repeatable = true,                  \
	  .count_offset = offsetof(struct sbx_config, count_field),                           \
	  .item_size = sizeof(((struct sbx_config *)0)->field[0]), .item_name = (item),       \
	  .item_ok = (ok_fn), .expected = (expected_text), .word = (word_),                    \
	  .word_offset = offsetof(struct sbx_config, field##_none) }
/* A custom key keeps its own state: no flag. */
#define KEY_CUSTOM(key, fn, expected_text, repeat)                                            \
	{ .name = #key, .kind = CONFIG_CUSTOM, .has_offset = CONFIG_NO_FLAG, .parse = (fn),     \
	  .expected = (expected_text), .repeatable = (repeat) }

#define CONFIG_MAX_KEYS 64
extern const struct config_key config_keys[];
extern const size_t config_n_keys;

const struct config_key *config_key_find(const char *name);
/* Parse val for key k into cfg. On error, why gets "<what is wrong>
 * (expected <what is allowed>)" and the result is -1. */
int config_key_apply(const struct config_key *k, struct sbx_config *cfg, const char *val,
		     char *why, size_t why_size);
/* "<what is allowed>" for k, e.g. "2 to 1073741824 bytes" (also the man page's). */
/* A size as sbx writes it: 16777216 -> "16M", 1 -> "1" (exact binary suffixes only). */
void config_format_bytes(uint64_t v, char *out, size_t size);
void config_key_expected(const struct config_key *k, char *out, size_t out_size);
/* Whether the key was set (false for custom keys, which keep their own count). */
bool config_key_is_set(const struct config_key *k, const struct sbx_config *cfg);

/* For custom list keys: call item(start, len, ...) on each comma-separated
 * item of val, blanks trimmed (an empty item included). Stops at the first
 * item that returns non-zero and returns that. */
int config_each_item(const char *val, int (*item)(const char *start, size_t len, void *ctx),
		     void *ctx);

#endif
