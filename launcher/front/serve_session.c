/* SPDX-License-Identifier: MIT */
/* The session a serve request names (its "session" parameter): found among
 * the open ones, or the request is answered with NOT_FOUND. Below both
 * serve_main.c (session/close, schema) and serve_run.c (run, tasks). */
#include <errno.h>
#include <string.h>

#include "serve.h"

struct work_session *serve_session_of(struct rpc_server *s, struct serve *sv, struct rpc_msg *m)
{
	const char *name = rpc_str(m->params, "session");
	struct work_session *sess = name ? work_session_find(&sv->w, name) : NULL;
	char q[RPC_QUOTE_MAX + 4];

	if (!sess) {
		struct sbx_error err;

		sbx_error_set(&err, ENOENT, SBX_E_NOT_FOUND,
			      "open one with session/open (its answer names it), or use one it named",
			      "no open session '%s'",
			      name ? rpc_quote(q, name, strlen(name)) : "");
		rpc_send(s, rpc_error_sbx(json_incref(m->id), &err));
	}
	return sess;
}
