/* SPDX-License-Identifier: MIT */
/* One line of `sbx serve` input (CONTRACT section 7) parsed into a request.
 * Pure apart from jansson: no system calls, no globals. */
#ifndef SBX_SERVE_REQUEST_H
#define SBX_SERVE_REQUEST_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sbx.h"

#define SERVE_LINE_MAX (1024 * 1024) /* a longer line is a BAD_REQUEST */

enum serve_op {
	SERVE_OP_RUN,
	SERVE_OP_TASK_OUTPUT,
	SERVE_OP_KILL,
	SERVE_OP_CAPABILITIES,
	SERVE_OP_SCHEMA,
};

struct serve_request {
	json_t *id;                 /* the request's id (a JSON integer or string), owned */
	enum serve_op op;
	/* op "run" */
	char *command;              /* non-empty */
	char *session_root;         /* NULL if the session gives none */
	bool has_session_mode;
	enum sbx_mode session_mode;
	char *sandbox_permissions;  /* NULL, "workspace-write" or "danger-full-access" */
	char *justification;        /* NULL or the caller's text (not used by sbx) */
	bool has_timeout;
	uint64_t timeout_ms;        /* > 0 */
	bool background;
	/* ops "task_output" and "kill" */
	char *task;
};

/* Parse one line (without its '\n'; may contain anything). On success 0 and
 * *req filled (free with serve_request_free). On failure -EINVAL, err filled
 * with code BAD_REQUEST and a message naming the problem, and *id_out set to
 * the request's id if one could be read (else NULL; caller decrefs). */
int serve_request_parse(const char *line, size_t len, struct serve_request *req,
			json_t **id_out, struct sbx_error *err);
void serve_request_free(struct serve_request *req);

#endif
