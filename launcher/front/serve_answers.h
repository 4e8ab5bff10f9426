/* SPDX-License-Identifier: MIT */
/* The fixed-shape answers of `sbx serve`, built as JSON (no I/O here). */
#ifndef SBX_SERVE_ANSWERS_H
#define SBX_SERVE_ANSWERS_H

#include <jansson.h>

#include "policy.h"

/* {"sandbox_mode","runners","escalation","max_background","probe"} */
json_t *serve_capabilities_json(const struct sbx_config *cfg, const json_t *facts,
				unsigned max_background);
/* {"type":"object","properties":{...}}: what a bash tool gains when
 * confinement is on. */
json_t *serve_schema_json(const struct sbx_config *cfg);
/* The settled result of a background run whose runner failed: no output,
 * the third marker, and the error. */
json_t *serve_runner_failed_result(enum sbx_mode mode, const struct sbx_error *err);

#endif
