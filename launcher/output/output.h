/* SPDX-License-Identifier: MIT */
/* launcher/output: collecting a run's output. One event loop (io_uring, or
 * poll(2) where io_uring is refused or a one-shot run is cheaper without it)
 * watches the command's pipes and its pidfd; each stream keeps a bounded head
 * and tail in memory, is passed through live when the caller asked, and is
 * kept whole in a spill file past the limit (spill.h: where, how big, how
 * long). Below the engine, which owns the run; above nothing but the kernel
 * and the public error type. Nothing here knows about runners or policy. */
#ifndef SBX_OUTPUT_H
#define SBX_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "spill.h"

/* ---- pipes.c ---- */
/* pipe2(O_CLOEXEC), enlarged to COLLECT_PIPE_SIZE where the per-user budget
 * allows. */
#define COLLECT_PIPE_SIZE (1 << 20)
int pipe_open_collect(int fds[2]);
/* write(2) until all of buf is written; 0 or -errno. */
int io_write_all(int fd, const char *buf, size_t len);

/* ---- stream.c: bounded head + tail, spill past the limit ---- */
struct stream {
	const char *name;       /* "stdout" / "stderr" */
	size_t limit;           /* head + tail kept */
	char *first;            /* the first `limit` bytes */
	size_t first_len;
	char *tail;             /* ring of the last limit/2 bytes once over */
	size_t tail_size;
	size_t tail_pos;
	bool tail_full;
	uint64_t total;
	int pass_fd;            /* live copy (human mode), -1: none */
	int error;              /* first passthrough error (errno), 0 if none */
	struct spill_place *spill; /* where past the limit goes; NULL: nowhere */
	bool spill_started;
	char *spill_path;       /* the file (whole or stopped), NULL: none */
	int spill_fd;
	uint64_t spilled;       /* bytes in the spill file */
	uint64_t next_room_check;
	enum spill_stop spill_stop;
	int spill_errno;        /* with SPILL_STOP_ERROR */
	/* stream_splice.c: past the head, spliced out, its tail kept in a pipe */
	bool spliced;
	int dup_r, dup_w, null_fd;
	size_t dup_len, dup_cap;
};
/* spill: the run's spill place (NULL: no spill, e.g. with passthrough). */
int stream_init(struct stream *s, const char *name, size_t limit, int pass_fd,
		struct spill_place *spill);
void stream_feed(struct stream *s, const char *buf, size_t len);
/* head, "\n[... N bytes omitted ...]\n", tail (or all when it fit). malloc'd. */
char *stream_render(const struct stream *s, size_t *len);
/* Where stream_render puts that line: at and len within what it returns
 * (a reader's guard must leave sbx's own line alone); false, 0 and 0 when
 * nothing was omitted. */
bool stream_render_omitted(const struct stream *s, size_t *at, size_t *len);
bool stream_truncated(const struct stream *s);
/* Bytes past the head, in order (the last tail_size of them are kept). */
void stream_set_tail(struct stream *s, const char *buf, size_t len);
/* stream_splice.c. Whether the passthrough can be spliced from the pipe src
 * (then src is made non-blocking); stream_pump moves what src holds: bytes
 * moved, 0 at its end, -EAGAIN when empty for now, -errno; buf is for the
 * head. stream_splice_finish reads the tail out at the end. */
bool stream_splice_open(struct stream *s, int src);
ssize_t stream_pump(struct stream *s, int src, char *buf, size_t buf_size);
void stream_splice_finish(struct stream *s);
void stream_close(struct stream *s); /* frees buffers, closes the spill fd, keeps spill_path */

/* ---- stream_view.c: what a stream keeps, read by byte offset ---- */
struct stream_view {
	char *head;             /* bytes [0, head_len) */
	size_t head_len;
	char *tail;             /* bytes [total - tail_len, total) */
	size_t tail_len;
	uint64_t total;
};
int stream_view_take(const struct stream *s, struct stream_view *v);
void stream_view_free(struct stream_view *v);
/* The bytes after since, at most max of them (plus one "[... N bytes omitted
 * ...]" line where the middle was not kept: *mid_at and *mid_len say where,
 * *mid_len 0 when there is none). malloc'd; *next is the offset to ask from
 * next time. */
char *stream_view_since(const struct stream_view *v, uint64_t since, size_t max, size_t *len,
			uint64_t *next, size_t *mid_at, size_t *mid_len);

/* ---- utf8.c ---- */
/* A valid UTF-8 copy (invalid sequences become U+FFFD; NULs kept). malloc'd. */
char *utf8_sanitize(const char *buf, size_t len, size_t *out_len);

/* ---- loop.c: one event loop, io_uring or poll behind it ---- */
struct loop;
struct loop_watch;
/* n > 0: bytes in buf (or, for a readiness watch, the fd is readable);
 * n == 0: end of file; n < 0: -errno. The watch is re-armed after the call
 * unless it was removed or hit EOF/error. */
typedef void (*loop_cb)(struct loop_watch *w, const char *buf, ssize_t n);
struct loop_watch {
	int fd;
	bool readiness;         /* only report readability (pidfd), do not read */
	char *buf;
	size_t buf_size;
	loop_cb cb;
	void *ctx;
	/* owned by the loop */
	bool active;
	bool in_flight;
	size_t slot;
};
enum loop_backend { LOOP_URING, LOOP_POLL };
/* io_uring when built and allowed (EPERM/ENOSYS -> poll); prefer_poll forces poll. */
struct loop *loop_new(bool prefer_poll);
/* prefer_poll for a loop of one run (one_shot) or of a whole serve. */
bool loop_prefer_poll(bool one_shot);
/* SBX_COLLECTOR is unset, empty, io_uring or poll; else USAGE. */
int loop_collector_check(struct sbx_error *err);
enum loop_backend loop_backend_of(const struct loop *l);
const char *loop_backend_name(const struct loop *l);
int loop_add(struct loop *l, struct loop_watch *w);
void loop_remove(struct loop *l, struct loop_watch *w);
/* Wait at most timeout_ms (-1: forever) and dispatch. Returns events handled or -errno. */
int loop_wait(struct loop *l, int timeout_ms);
void loop_free(struct loop *l);

struct loop_ops {
	int (*add)(struct loop *l, struct loop_watch *w);
	void (*remove)(struct loop *l, struct loop_watch *w);
	int (*wait)(struct loop *l, int timeout_ms);
	void (*free)(struct loop *l);
	const char *name;
	enum loop_backend backend;
};
struct loop {
	const struct loop_ops *ops;
};
struct loop *loop_poll_new(void);
#ifdef CONFIG_IO_URING
/* NULL with *err set when io_uring is refused (EPERM, ENOSYS, ...). */
struct loop *loop_uring_new(int *err);
#endif
/* Why io_uring is not used, or "" (filled by loop_new). */
const char *loop_uring_unavailable_reason(void);

#endif
