/* SPDX-License-Identifier: MIT */
/* sbx mcp: the handshake (initialize, notifications/initialized, ping), the
 * workspace root (--root, else the client's first file:// root, else the
 * current directory; pinned once, as a serve session), tools/list, and the
 * dispatch of tools/call and notifications/cancelled (mcp_call.c). stdout
 * carries protocol messages only. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mcp.h"

static const char *const versions[] = { "2025-11-25", "2025-06-18", "2025-03-26",
					"2024-11-05", NULL };

#define ROOTS_ID "sbx-roots-1"

static void m_initialize(struct rpc_server *s, struct mcp *mc, struct rpc_msg *m)
{
	const char *asked = rpc_str(m->params, "protocolVersion");
	const char *version = versions[0];
	json_t *caps = m->params ? json_object_get(m->params, "capabilities") : NULL;

	for (size_t i = 0; asked && versions[i]; i++)
		if (strcmp(asked, versions[i]) == 0)
			version = versions[i];
	mc->client_roots = json_is_object(caps) && json_object_get(caps, "roots");
	rpc_send(s, rpc_result(json_incref(m->id),
			       json_pack("{s:s, s:{s:{s:b}}, s:{s:s, s:s}, s:s}", "protocolVersion",
					 version, "capabilities", "tools", "listChanged", 0,
					 "serverInfo", "name", "sbx", "version", sbx_version(),
					 "instructions",
					 "Use the bash tool for shell commands: it runs them under "
					 "sbx's file-write policy and says plainly when the sandbox "
					 "refused something.")));
}

/* Pin the workspace: the session every call of this server uses. */
static void pin_root(struct rpc_server *s, struct mcp *mc, const char *root)
{
	char cwd[PATH_MAX];
	bool from_config = !root && mc->w.cfg->has_workspace_root;

	if (mc->root_tried)
		return;

	/* No --root and no client root: the deployment's workspace_root
	 * (sbx.conf(5)), else the current directory. */
	if (from_config)
		root = mc->w.cfg->workspace_root;
	if (!root) {
		if (!getcwd(cwd, sizeof(cwd))) {
			sbx_error_set(&mc->root_err, errno, SBX_E_USAGE, NULL,
				      "no workspace root: unable to read the current directory: %s",
				      strerror(errno));
			goto done;
		}
		root = cwd;
	}
	/* why only the flag: the client's approval prompt is escalation's only
	 * gate (mcp.md), so it is offered where the one who wired the client
	 * asked for it, never by a config's escalation = true alone. */
	if (work_session_open(&mc->w, root, mc->o.has_mode, mc->o.mode, true, mc->o.escalation,
			      NULL, &mc->sess, &mc->root_err) < 0 &&
	    from_config) {
		size_t n = strlen(mc->root_err.message);

		snprintf(mc->root_err.message + n, sizeof(mc->root_err.message) - n,
			 " (the config's workspace_root; --root or the client's roots override it)");
	}
done:
	mc->root_tried = true;
	mcp_calls_release(s, mc);
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* file:///a%20b -> /a b (host part empty or "localhost"); 0 or -EINVAL. */
static int file_uri_path(const char *uri, char *out, size_t size)
{
	const char *p;
	size_t n = 0;

	if (strncmp(uri, "file://", 7) != 0)
		return -EINVAL;
	p = uri + 7;
	if (strncmp(p, "localhost/", 10) == 0)
		p += 9;
	if (*p != '/')
		return -EINVAL;
	for (; *p && n + 1 < size; p++) {
		if (*p == '%' && hexval(p[1]) >= 0 && hexval(p[2]) >= 0) {
			out[n++] = (char)(hexval(p[1]) * 16 + hexval(p[2]));
			p += 2;
		} else if (*p == '?' || *p == '#') {
			break;
		} else {
			out[n++] = *p;
		}
	}
	out[n] = '\0';
	return *p && *p != '?' && *p != '#' ? -ENAMETOOLONG : (memchr(out, 0, n) ? -EINVAL : 0);
}

static void on_roots(struct rpc_server *s, struct mcp *mc, struct rpc_msg *m)
{
	json_t *roots = m->result ? json_object_get(m->result, "roots") : NULL;
	char path[PATH_MAX];
	size_t i;
	json_t *r;

	mc->roots_pending = false;
	json_array_foreach(roots, i, r) {
		const char *uri = json_string_value(json_object_get(r, "uri"));

		if (uri && file_uri_path(uri, path, sizeof(path)) == 0) {
			pin_root(s, mc, path);
			return;
		}
	}
	pin_root(s, mc, NULL);
}

static void on_initialized(struct rpc_server *s, struct mcp *mc)
{
	if (mc->root_tried || mc->roots_pending)
		return;
	if (mc->client_roots) {
		mc->roots_pending = true;
		rpc_send(s, rpc_request(json_string(ROOTS_ID), "roots/list", NULL));
		return;
	}
	pin_root(s, mc, NULL);
}

static void method_not_found(struct rpc_server *s, struct rpc_msg *m)
{
	char q[RPC_QUOTE_MAX + 4];

	rpc_send(s, rpc_error(json_incref(m->id), RPC_METHOD_NOT_FOUND, "method not found",
			      json_pack("{s:s, s:s}", "code", SBX_E_BAD_REQUEST, "detail",
					rpc_quote(q, m->method, strlen(m->method)))));
}

static void on_message(struct rpc_server *s, void *ctx, struct rpc_msg *m)
{
	struct mcp *mc = ctx;

	mc->w.srv = s;
	if (m->kind == RPC_RESPONSE) {
		if (json_is_string(m->id) && strcmp(json_string_value(m->id), ROOTS_ID) == 0)
			on_roots(s, mc, m);
		return;
	}
	if (m->kind == RPC_NOTIFICATION) {
		if (strcmp(m->method, "notifications/initialized") == 0)
			on_initialized(s, mc);
		else if (strcmp(m->method, "notifications/cancelled") == 0 && m->params &&
			 json_object_get(m->params, "requestId"))
			mcp_call_cancel(s, mc, json_object_get(m->params, "requestId"));
		/* Others (roots/list_changed among them: the root was pinned at
		 * start and does not follow the client) need nothing. */
		return;
	}
	if (strcmp(m->method, "initialize") == 0) {
		m_initialize(s, mc, m);
	} else if (strcmp(m->method, "ping") == 0) {
		rpc_send(s, rpc_result(json_incref(m->id), json_object()));
	} else if (strcmp(m->method, "tools/list") == 0) {
		struct work_session none = { .mode = SBX_MODE_READ_ONLY };

		/* The schema depends on the session's escalation: before the
		 * root is pinned, the flags say the same. */
		none.mode = mc->o.has_mode ? mc->o.mode
			    : mc->w.cfg->has_mode ? mc->w.cfg->mode : SBX_MODE_READ_ONLY;
		none.escalation = mc->o.escalation && none.mode != SBX_MODE_DANGER_FULL_ACCESS;
		rpc_send(s, rpc_result(json_incref(m->id),
				       mcp_tools_list(mc->sess ? mc->sess : &none)));
	} else if (strcmp(m->method, "tools/call") == 0) {
		/* A client that skipped notifications/initialized still works. */
		on_initialized(s, mc);
		mcp_call_start(s, mc, m->id, m->params);
	} else {
		method_not_found(s, m);
	}
}

static void on_eof(struct rpc_server *s, void *ctx)
{
	struct mcp *mc = ctx;

	/* Calls still waiting for a root that cannot come any more. */
	if (!mc->root_tried) {
		sbx_error_set(&mc->root_err, EPIPE, SBX_E_USAGE, NULL,
			      "no workspace root: the client closed before answering roots/list");
		mc->root_tried = true;
		mcp_calls_release(s, mc);
	}
	/* The session stays while calls in flight finish (they are answered). */
	work_close_all(&mc->w);
}

static void on_tick(struct rpc_server *s, void *ctx, uint64_t now_ms, int *timeout_ms)
{
	struct mcp *mc = ctx;

	mcp_calls_progress(s, mc, now_ms, timeout_ms);
	work_spill_sweep(&mc->w, now_ms, timeout_ms);
}

int mcp_main(const struct sbx_config *cfg, const struct mcp_opts *o, int in_fd, int out_fd,
	     int cancel_fd, struct sbx_error *err)
{
	struct mcp mc = { .o = *o };
	struct rpc_vocab v = { .ctx = &mc, .on_message = on_message, .on_eof = on_eof,
			       .on_tick = on_tick };
	struct rpc_server_opts ro = { .in_fd = in_fd, .out_fd = out_fd, .cancel_fd = cancel_fd };
	int rc;

	work_init(&mc.w, cfg);
	mc.w.escalation_fix = "start sbx mcp with --escalation, where the deployment allows it";
	mc.w.line_max = RPC_LINE_MAX_DEFAULT;
	mc.w.cwd_name = "workdir";
	if (o->escalation && cfg->has_escalation && !cfg->escalation)
		return sbx_error_set(err, EPERM, SBX_E_CONFIG, NULL,
				     "--escalation: escalation is off in this deployment (config "
				     "escalation = false)");
	/* Given on the command line: pinned now, and a bad root stops here. */
	if (o->root) {
		rc = work_session_open(&mc.w, o->root, o->has_mode, o->mode, true, o->escalation,
				       NULL, &mc.sess, err);
		if (rc < 0) {
			work_free(&mc.w);
			return rc;
		}
		mc.root_tried = true;
	}
	rc = rpc_server_run(&ro, &v, err);
	work_free(&mc.w);
	return rc;
}
