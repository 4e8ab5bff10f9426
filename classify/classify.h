/* SPDX-License-Identifier: MIT */
/* classify/: what happened. Pure: bytes and facts in, facts out. No system
 * calls here; the one fact that needs the file system (could the caller have
 * written this path without the sandbox?) is asked through a callback. */
#ifndef SBX_CLASSIFY_H
#define SBX_CLASSIFY_H

#include <stdbool.h>
#include <stddef.h>

/* Which denial texts a runner speaks (bit mask). */
enum dialect {
	DIALECT_EROFS = 1u << 0,    /* namespace runner: "Read-only file system" */
	DIALECT_EACCES = 1u << 1,   /* landlock runner: "Permission denied" */
	DIALECT_EXDEV = 1u << 2,    /* landlock: "Invalid cross-device link" (refused REFER) */
	DIALECT_SEATBELT = 1u << 3, /* macOS Seatbelt: "Operation not permitted" */
};

#define EVIDENCE_LINES 16
#define EVIDENCE_LINE_MAX 512

/* One stderr line that speaks a watched dialect, with the path it names. */
struct evidence_line {
	unsigned dialect;                 /* exactly one DIALECT_* bit */
	char path[EVIDENCE_LINE_MAX];     /* "" when the line names no path */
	char line[EVIDENCE_LINE_MAX];     /* the line itself, cut to fit */
};

/* Bounded evidence gathered while stderr flows: memory does not grow with the
 * stream. Keeps the newest EVIDENCE_LINES matching lines. */
struct evidence {
	unsigned dialects;                /* mask of dialects to look for */
	char partial[EVIDENCE_LINE_MAX];  /* the current line so far (cut to fit) */
	size_t partial_len;
	bool partial_cut;                 /* current line was longer than the buffer */
	struct evidence_line ring[EVIDENCE_LINES];
	size_t count;                     /* lines kept, <= EVIDENCE_LINES */
	size_t next;                      /* ring slot for the next line */
};

void evidence_init(struct evidence *ev, unsigned dialects);
/* Feed a chunk of stderr exactly as it arrived (any split, NULs, bad UTF-8). */
void evidence_feed(struct evidence *ev, const char *buf, size_t len);
/* The stream ended: a last line without '\n' is considered too. */
void evidence_finish(struct evidence *ev);

/* If line (no trailing newline) speaks one of the dialects in mask, return that
 * DIALECT_* bit and copy the path it names (or "") into path; else return 0. */
unsigned dialect_match_line(const char *line, size_t len, unsigned mask, char *path,
			    size_t path_size);

/* The path an error line names, from the text before its ": <phrase>" field
 * (e.g. "touch: cannot touch '/x'", "bash: line 1: /x", "tar: x: Cannot open").
 * Returns false (and leaves path alone) when no path can be read from it. */
bool dialect_extract_path(const char *prefix, size_t len, char *path, size_t path_size);

/* Asked for a path named by an evidence line, already absolute and normalised:
 * would the caller, without the sandbox, have been able to write it (existing
 * file writable, or nearest existing parent directory writable)? */
typedef bool (*caller_could_write_fn)(const char *abs_path, void *ctx);

struct classify_input {
	const struct evidence *evidence;
	bool exited;                /* true: exit_code is valid; false: ended by a signal */
	int exit_code;
	bool confined;              /* false for danger-full-access: never denied */
	const char *cwd;            /* command's cwd, absolute; relative paths resolve here */
	const char *const *writable; /* absolute directories the policy lets it write, NULL-terminated */
	caller_could_write_fn could_write;
	void *could_write_ctx;
};

/* The denial fact (CONTRACT section 5, README "how a denial is decided"). */
bool classify_denied(const struct classify_input *in);

/* Lexically make path absolute against cwd and remove ".", "..", "//".
 * Returns false if it does not fit out_size. */
bool path_normalize(const char *cwd, const char *path, char *out, size_t out_size);
/* True if abs_path is dir itself or lies below it ("/a/bc" is not below "/a/b"). */
bool path_is_within(const char *abs_path, const char *dir);

/* Markers (CONTRACT section 5), byte for byte, each followed by '\n', appended
 * to out (NUL-terminated, cut to out_size). mode_name is e.g. "read-only". */
#define MARKER_DENIED_FMT "[sandbox: file access denied under %s mode]"
#define MARKER_ESCALATION                                                                     \
	"[sandbox: escalation available \xe2\x80\x94 retry this exact command once with "       \
	"sandbox_permissions (the narrowest wider mode that suffices) + justification; the "      \
	"approval prompt asks the user]"
#define MARKER_RUNNER_FAILED_FMT                                                              \
	"[sandbox: the sandbox runner itself failed under %s mode \xe2\x80\x94 the command did " \
	"not run; this is a sandbox problem, not a command failure]"

size_t markers_build(char *out, size_t out_size, const char *mode_name, bool denied,
		     bool escalation, bool runner_failed);

/* Command output shown to a model must not pass for sbx's markers: a line of
 * it that holds "[sandbox" (any case, blanks or control characters allowed
 * after the '[') gets this visible prefix. Copies in (len bytes) to out with
 * the prefixes added and returns the new length; out NULL: only the length. */
#define MARKER_FORGED_PREFIX "(command output) "
size_t markers_neutralise(const char *in, size_t len, char *out);

#endif
