/* SPDX-License-Identifier: MIT */
// libFuzzer target for the deployment config parser (policy/config.c).
//
// Build (one command) and run:
//   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
//     -D_GNU_SOURCE -Iinclude -Ipolicy tests/fuzz/fuzz_config.c policy/*.c launcher/engine/error.c
//     -o /tmp/fuzz_config
//   /tmp/fuzz_config -max_total_time=60 CORPUS_DIR tests/fuzz/corpus_config
//
/* Besides "no crash, no leak", it checks the parser's promises: success leaves
 * a config whose values are all in range; failure leaves config_init() state
 * and a CONFIG error whose message names the file. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config_keys.h"
#include "policy.h"

static uint64_t load(const struct sbx_config *cfg, const struct config_key *k)
{
	const char *p = (const char *)cfg + k->offset;
	uint64_t v = 0;
	uint32_t v32;

	if (k->size == sizeof(v32)) {
		memcpy(&v32, p, sizeof(v32));
		return v32;
	}
	memcpy(&v, p, sizeof(v));
	return v;
}

/* Every key that was set holds a value its table entry allows. */
static void check_ok(const struct sbx_config *cfg)
{
	for (size_t i = 0; i < config_n_keys; i++) {
		const struct config_key *k = &config_keys[i];
		const char *field = (const char *)cfg + k->offset;

		if (!config_key_is_set(k, cfg))
			continue;
		if (k->kind == CONFIG_NUMBER || k->kind == CONFIG_BYTES || k->kind == CONFIG_SECONDS) {
			uint64_t v = load(cfg, k);

			if ((v < k->min || v > k->max) && !(k->word && v == k->word_value))
				abort();
		}
		if (k->kind == CONFIG_PATH && field[0] != '/' && !(k->word && strcmp(field, k->word) == 0))
			abort();
	}
	if (cfg->n_scrub > POLICY_MAX_SCRUB)
		abort();
	for (size_t i = 0; i < cfg->n_scrub; i++) {
		size_t len = strnlen(cfg->scrub_env[i], POLICY_PATTERN_MAX);
		if (len == 0 || len == POLICY_PATTERN_MAX)
			abort();
		/* Every pattern matches its own text ('*' matches itself too). */
		if (!pattern_match(cfg->scrub_env[i], cfg->scrub_env[i]))
			abort();
	}
}

static void check_failed(const struct sbx_config *cfg, const struct sbx_error *err)
{
	struct sbx_config fresh;

	config_init(&fresh);
	if (memcmp(cfg, &fresh, sizeof(fresh)) != 0)
		abort();
	if (strcmp(err->code, SBX_E_CONFIG) != 0 || strncmp(err->message, "f.conf:", 7) != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Heap-allocated and exactly sized, so ASan sees any read past the end
	 * (the buffer is not NUL-terminated, as a mapped file would not be). */
	char *buf = malloc(size ? size : 1);
	struct sbx_config *cfg = malloc(sizeof(*cfg));
	struct sbx_error err;

	if (!buf || !cfg)
		abort();
	memcpy(buf, data, size);
	memset(&err, 0, sizeof(err));
	if (config_parse_buffer("f.conf", buf, size, cfg, &err) == 0)
		check_ok(cfg);
	else
		check_failed(cfg, &err);
	free(cfg);
	free(buf);
	return 0;
}
