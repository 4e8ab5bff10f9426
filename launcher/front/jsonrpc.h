/* SPDX-License-Identifier: MIT */
/* The one protocol engine of `sbx serve` and `sbx mcp`: JSON-RPC 2.0, one
 * message per line on stdin/stdout. jsonrpc_msg.c and jsonrpc_params.c are
 * pure (jansson only: the fuzz target links them alone); jsonrpc_server.c owns
 * the event loop, the writer and the runs in flight. Each front end is a thin
 * vocabulary of methods over it. */
#ifndef SBX_JSONRPC_H
#define SBX_JSONRPC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sbx.h"

/* JSON-RPC 2.0 error codes, and the one sbx uses for its own errors (the
 * sbx code is in error.data.code). */
#define RPC_PARSE_ERROR (-32700)
#define RPC_INVALID_REQUEST (-32600)
#define RPC_METHOD_NOT_FOUND (-32601)
#define RPC_INVALID_PARAMS (-32602)
#define RPC_INTERNAL_ERROR (-32603)
#define RPC_SBX_ERROR (-32000)
#define RPC_CANCELLED (-32800)

#define RPC_LINE_MAX_DEFAULT (1024 * 1024)  /* bytes of one input line */
#define RPC_ANSWER_MAX_DEFAULT (256 * 1024) /* bytes of one output line */
#define RPC_ID_MAX 256                      /* bytes of a string id */
#define RPC_QUOTE_MAX 64                    /* bytes of user text in a message */

/* ---- jsonrpc_msg.c: one line <-> one message ---- */

enum rpc_kind { RPC_REQUEST, RPC_NOTIFICATION, RPC_RESPONSE };

struct rpc_msg {
	enum rpc_kind kind;
	json_t *id;        /* request, response: integer or string (owned) */
	char method[64];   /* request, notification */
	json_t *params;    /* object, or NULL when absent (owned) */
	json_t *result;    /* response (owned) */
	json_t *error;     /* response (owned) */
};

/* Parse one line (without '\n'; any bytes). 0: *m filled (rpc_msg_free).
 * Else the JSON-RPC error code (RPC_PARSE_ERROR, RPC_INVALID_REQUEST), err
 * filled (code BAD_REQUEST, a printable message) and *id_out the request's id
 * when one could be read (caller decrefs), else NULL. */
int rpc_parse(const char *line, size_t len, struct rpc_msg *m, json_t **id_out,
	      struct sbx_error *err);
void rpc_msg_free(struct rpc_msg *m);

/* Builders; each steals its json_t arguments and returns a new message. */
json_t *rpc_result(json_t *id, json_t *result);
json_t *rpc_error(json_t *id, int code, const char *message, json_t *data);
/* An sbx error: {"code": -32000 (or -32602 for BAD_REQUEST, -32603 for
 * INTERNAL), "message": err->message, "data": {"code": err->code, "detail"}}. */
json_t *rpc_error_sbx(json_t *id, const struct sbx_error *err);
json_t *rpc_notification(const char *method, json_t *params);
json_t *rpc_request(json_t *id, const char *method, json_t *params);

/* src (n bytes, any content) as printable UTF-8 of at most RPC_QUOTE_MAX
 * bytes into dst (RPC_QUOTE_MAX + 4 bytes): controls and invalid bytes become
 * '?', a longer text ends in "...". */
const char *rpc_quote(char dst[RPC_QUOTE_MAX + 4], const char *src, size_t n);

/* ---- jsonrpc_params.c: strict params ---- */

enum rpc_type {
	RPC_T_STRING,      /* non-empty, at most max bytes (0: any) */
	RPC_T_TEXT,        /* a string, may be empty */
	RPC_T_BOOL,
	RPC_T_UINT,        /* integer 1..max */
	RPC_T_OFFSET,      /* integer >= 0 */
	RPC_T_SINCE,       /* an offset, or {"stdout": N, "stderr": N} */
	RPC_T_ID,          /* a JSON-RPC id: integer or short string */
	RPC_T_OBJECT,
	RPC_T_ANY,
};

struct rpc_field {
	const char *name;
	enum rpc_type type;
	bool required;
	uint64_t max;
};

/* params (NULL: none) must be an object with only these fields (NULL name
 * ends the list), each of its type. 0, or -EINVAL with err (BAD_REQUEST)
 * naming the field; where names what is checked ("params", "arguments"). */
int rpc_params_check(const json_t *params, const struct rpc_field *fields, const char *where,
		     struct sbx_error *err);
/* Values of checked params (absent: the default). */
const char *rpc_str(const json_t *params, const char *name);
bool rpc_bool(const json_t *params, const char *name, bool dflt);
uint64_t rpc_uint(const json_t *params, const char *name, uint64_t dflt);
/* A since value: both offsets (absent: 0). */
void rpc_since(const json_t *params, const char *name, uint64_t *out, uint64_t *err_off);

/* ---- jsonrpc_server.c: the loop ---- */

struct rpc_server;
struct rpc_job;
struct sbx_run;
struct sbx_result;
struct stream_view;

/* A run is over: result (NULL when sbx could not finish it: err says why),
 * and, for a job started with keep_output, the views of both streams
 * (ownership passes to the callback: stream_view_free them). */
typedef void (*rpc_done_fn)(struct rpc_server *s, void *job_ctx, struct sbx_result *result,
			    const struct sbx_error *err, struct stream_view *out,
			    struct stream_view *errv);

struct rpc_vocab {
	void *ctx;
	/* One message from the client (owned by the server, freed after). */
	void (*on_message)(struct rpc_server *s, void *ctx, struct rpc_msg *m);
	/* End of input: no more messages; end background work. In-flight
	 * foreground jobs still finish and are answered after this. */
	void (*on_eof)(struct rpc_server *s, void *ctx);
	/* Called after every wake-up; *timeout_ms (-1: none) may be lowered. */
	void (*on_tick)(struct rpc_server *s, void *ctx, uint64_t now_ms, int *timeout_ms);
};

struct rpc_server_opts {
	int in_fd, out_fd;
	int cancel_fd;        /* readable: stop now (signals); -1: none */
	size_t line_max;      /* 0: RPC_LINE_MAX_DEFAULT */
};

/* Serve until end of input and every job is over. 0, or -errno (loop). */
int rpc_server_run(const struct rpc_server_opts *o, const struct rpc_vocab *v,
		   struct sbx_error *err);
/* Send one message (stolen): one line, queued for the writer. */
void rpc_send(struct rpc_server *s, json_t *msg);
/* Start a run; done is called once when it is over (never from inside this
 * call). NULL with err filled when it could not start. */
struct rpc_job *rpc_job_start(struct rpc_server *s, const struct sbx_run *run, bool keep_output,
			      rpc_done_fn done, void *job_ctx, struct sbx_error *err);
/* A start through serve's spawner thread (the loop goes on serving while
 * the child builds its sandbox); takes run. started (may be NULL) is called
 * on the loop once the spawn is over: err NULL when the run started, else
 * why not (then done is not called, and the job is gone). Without started,
 * a failed start is reported through done (result NULL). NULL: out of
 * memory (err filled). */
typedef void (*rpc_started_fn)(struct rpc_server *s, void *job_ctx, const struct sbx_error *err);
struct rpc_job *rpc_job_start_async(struct rpc_server *s, struct sbx_run *run, bool keep_output,
				    rpc_started_fn started, rpc_done_fn done, void *job_ctx,
				    struct sbx_error *err);
/* End the job's whole process tree now (kill, cancel, end of input); its
 * result says cancelled. */
void rpc_job_end(struct rpc_job *j, bool cancelled);
/* The job's streams so far (copies; stream_view_free them). */
int rpc_job_peek(const struct rpc_job *j, struct stream_view *out, struct stream_view *errv);
uint64_t rpc_job_elapsed_ms(const struct rpc_job *j);
/* Whether input has ended (no more messages will come). */
bool rpc_input_ended(const struct rpc_server *s);

#endif
