/* SPDX-License-Identifier: MIT */
/* `sbx mcp`: a Model Context Protocol server on stdio with the tools bash,
 * task_output and task_stop, a thin vocabulary over the JSON-RPC engine and
 * the sessions serve uses (CONTRACT section 7). */
#ifndef SBX_MCP_H
#define SBX_MCP_H

#include "jsonrpc.h"
#include "work.h"

#define MCP_PROGRESS_MS 5000

struct mcp_opts {
	const char *root;           /* NULL: the client's roots, else the cwd */
	bool has_mode;
	enum sbx_mode mode;
	bool escalation;            /* --escalation */
};

/* A tools/call in flight (or waiting for the root). */
struct mcp_call {
	struct mcp *mc;
	json_t *id;
	json_t *params;             /* kept while it waits for the root */
	json_t *progress_token;     /* NULL: none asked for */
	uint64_t next_progress_ms;
	struct rpc_job *job;
	struct work_task *task;     /* task_stop waiting for its task */
	bool cancelled;             /* notifications/cancelled: no answer */
	struct mcp_call *next;
};

struct mcp {
	struct work w;
	struct mcp_opts o;
	struct work_session *sess;  /* the pinned workspace */
	struct sbx_error root_err;  /* why there is none, once tried */
	bool root_tried;
	bool client_roots;          /* the client declared the roots capability */
	bool roots_pending;         /* roots/list asked, not answered */
	struct mcp_call *calls;
};

int mcp_main(const struct sbx_config *cfg, const struct mcp_opts *o, int in_fd, int out_fd,
	     int cancel_fd, struct sbx_error *err);

/* mcp_tools.c: the tool list and the results */
json_t *mcp_tools_list(const struct work_session *sess);
json_t *mcp_tool_result(const struct sbx_result *result, size_t budget);
json_t *mcp_tool_error(const struct sbx_error *err);
json_t *mcp_tool_started(const struct work_task *task);
json_t *mcp_tool_task_output(json_t *output, const struct work_omitted *om);

/* mcp_call.c: tools/call */
void mcp_call_start(struct rpc_server *s, struct mcp *mc, json_t *id, json_t *params);
void mcp_call_cancel(struct rpc_server *s, struct mcp *mc, const json_t *request_id);
void mcp_calls_progress(struct rpc_server *s, struct mcp *mc, uint64_t now, int *timeout_ms);
/* The root is pinned (or failed): run the calls that waited for it. */
void mcp_calls_release(struct rpc_server *s, struct mcp *mc);

#endif
