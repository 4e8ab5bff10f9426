/* SPDX-License-Identifier: MIT */
/* `sbx serve`: JSON lines in, JSON lines out, every run on one event loop. */
#ifndef SBX_SERVE_H
#define SBX_SERVE_H

#include "policy.h"

/* Serve requests from in_fd, answers to out_fd, until end of input. Returns 0
 * (end of input: whatever still runs is killed) or -errno on a loop failure. */
/* cancel_fd (-1: none) readable means stop as at end of input. */
int serve_main(const struct sbx_config *cfg, int in_fd, int out_fd, int cancel_fd,
	       struct sbx_error *err);

#endif
