/* SPDX-License-Identifier: MIT */
/* What this kernel offers and what sbx does with it (CONTRACT section 8). */
#ifndef SBX_PROBE_H
#define SBX_PROBE_H

#include <jansson.h>

/* The facts as a JSON object (caller owns it). Runs `true` once under each
 * runner and mode to report what `auto` really picks, not what it might. */
json_t *probe_facts(void);
/* Runner names that can enforce here (a JSON array, caller owns it). */
json_t *probe_usable_runners(const json_t *facts);

#endif
