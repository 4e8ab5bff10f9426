/* SPDX-License-Identifier: MIT */
/* classify/: what happened. Pure: bytes and facts in, facts out. No system
 * calls here; the one fact that needs the file system (could the caller have
 * written this path without the sandbox?) is asked through a callback. */
#ifndef SBX_CLASSIFY_H
#define SBX_CLASSIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Which denial texts a runner speaks (bit mask). */
enum dialect {
	DIALECT_EROFS = 1u << 0,    /* namespace runner: "Read-only file system" */
	DIALECT_EACCES = 1u << 1,   /* landlock runner: "Permission denied" */
	DIALECT_EXDEV = 1u << 2,    /* landlock: "Invalid cross-device link" (refused REFER) */
	DIALECT_SEATBELT = 1u << 3, /* macOS Seatbelt: "Operation not permitted" */
	DIALECT_EBUSY = 1u << 4,    /* namespace: "Device or resource busy", a rename over
				     * a protected path's mount point (counts there only) */
};

#define EVIDENCE_LINES 16
#define EVIDENCE_LINE_MAX 512

/* How many DIALECT_* bits there are, and the errno value each one is the
 * text of (EROFS, EACCES, EXDEV, EPERM, EBUSY): from <errno.h>, not a table. */
#define DIALECT_KINDS 5
unsigned dialect_bit(unsigned index);
int dialect_errno(unsigned dialect_bit);
/* The DIALECT_* bit an errno number or name ("EROFS") stands for, or 0. */
unsigned dialect_of_errno(long number);
unsigned dialect_of_errno_name(const char *name, size_t len);

/* The command's own language: strerror(3) texts of the dialects' errno
 * values as its C library would print them in its locale (LC_ALL /
 * LC_MESSAGES / LANG / LANGUAGE), derived by the engine from the C
 * library's message catalogs (launcher/engine/locale_dialect.c). An empty
 * text means the command prints the English one. Matched as well as the
 * English texts, never instead of them. */
#define DIALECT_TEXT_MAX 128
struct dialect_texts {
	char text[DIALECT_KINDS][DIALECT_TEXT_MAX]; /* by dialect index */
};

/* One line that speaks a watched dialect, with the path it names. */
struct evidence_line {
	unsigned dialect;                 /* exactly one DIALECT_* bit */
	unsigned stream;                  /* enum evidence_stream it came from */
	char path[EVIDENCE_LINE_MAX];     /* never "": a line must name a path */
	char line[EVIDENCE_LINE_MAX];     /* the line as matched (escapes undone), cut to fit */
};

enum evidence_stream { EVIDENCE_STDOUT = 0, EVIDENCE_STDERR = 1, EVIDENCE_STREAMS = 2 };

/* What one stream carries over from line to line: the line in progress
 * (only when a chunk ends inside it), the path the last "error: ..." line
 * named (for a chain's "Caused by:" line that names none), and an npm error
 * block ("npm error code EROFS" ... "npm error path /p") being read. */
struct evidence_lane {
	char partial[EVIDENCE_LINE_MAX];  /* the current line so far (cut to fit) */
	size_t partial_len;
	bool partial_cut;                 /* current line was longer than the buffer */
	char context[EVIDENCE_LINE_MAX];  /* the latest "error: ..." line, "" if none */
	size_t context_len;
	unsigned context_age;             /* lines seen since it */
	const char *prev_at;              /* the line before this one (in prev, or in the
					   * chunk being fed), "" after a blank or cut line */
	size_t prev_len;
	char prev[EVIDENCE_LINE_MAX];     /* where it is kept when the chunk ends */
	unsigned pending;                 /* a dialect line named no file: the next
					   * lines may (CMake, zip) */
	unsigned pending_age;
	bool npm_open;                    /* inside an npm error block */
	unsigned npm_dialect;             /* from its "code" or "errno" line */
	char npm_path[EVIDENCE_LINE_MAX];
	char npm_dest[EVIDENCE_LINE_MAX];
};

/* Bounded evidence gathered while both streams flow: memory does not grow
 * with them. Keeps the newest EVIDENCE_LINES matching lines. */
#define EVIDENCE_KEYS 16
struct evidence {
	unsigned dialects;                /* mask of dialects to look for */
	struct dialect_texts local;       /* the command's language ("" each: English) */
	uint32_t keys[EVIDENCE_KEYS];     /* 4-byte windows a candidate line holds */
	size_t n_keys;
	uint8_t pair_filter[8192];        /* a bit per byte pair of a key: the quick first look */
	bool look_at_all;                 /* a text too short to have a key */
	struct evidence_lane lane[EVIDENCE_STREAMS];
	char scratch[EVIDENCE_LINE_MAX];  /* a line with terminal escapes removed */
	char joined[EVIDENCE_LINE_MAX];   /* a line with the one before it */
	const char *chunk;                /* the chunk evidence_feed is reading */
	size_t chunk_len;
	char piece[EVIDENCE_LINE_MAX];    /* a quoted string of it, unescaped */
	struct evidence_line ring[EVIDENCE_LINES];
	size_t count;                     /* lines kept, <= EVIDENCE_LINES */
	size_t next;                      /* ring slot for the next line */
};

/* local: the command's language (NULL: English only). */
void evidence_init(struct evidence *ev, unsigned dialects, const struct dialect_texts *local);
/* Feed a chunk of one stream exactly as it arrived (any split, NULs, bad
 * UTF-8, terminal escapes). Only the copy the ring keeps is ever changed. */
void evidence_feed(struct evidence *ev, enum evidence_stream s, const char *buf, size_t len);
/* Both streams ended: a last line without '\n' is considered too. */
void evidence_finish(struct evidence *ev);

/* Result flags of dialect_match_line besides the DIALECT_* bit. */
#define DIALECT_MATCH_BARE (1u << 16) /* the line is only the message: a chain's cause */

/* If line (no trailing newline) speaks one of the dialects in mask, in
 * English or in local's language (may be NULL), return that DIALECT_* bit
 * (with DIALECT_MATCH_BARE when the line is only the message) and copy the
 * path it names into path; else return 0. A line in a shape that names a
 * path it cannot be read from is not evidence. */
unsigned dialect_match_line(const char *line, size_t len, unsigned mask,
			    const struct dialect_texts *local, char *path, size_t path_size);

/* The path an error line names, from the text before its ": <phrase>"
 * field (e.g. "touch: cannot touch '/x'", "bash: line 1: /x", "tar: x:
 * Cannot open"). localized: the phrase was not English, so only the rules
 * that need no English words apply. Returns false (and leaves path alone)
 * when no path can be read from it. */
bool dialect_extract_path(const char *prefix, size_t len, bool localized, char *path,
			  size_t path_size);
/* A hard link's target in ln's "'link' => 'target'" (the file linked to,
 * not the link dialect_extract_path names). false: no such form. */
bool dialect_link_target(const char *line, size_t len, char *path, size_t path_size);
/* The path an "error: ..." line names for the lines after it: a quoted
 * token (quotes, backticks) or a word starting with '/'. */
bool dialect_context_path(const char *line, size_t len, char *path, size_t path_size);

/* Text clean-up for the evidence copy (clean.c). Both write at most
 * out_size - 1 bytes and NUL-terminate; they return the length written. */
/* Terminal escape sequences (CSI, OSC, two-byte ESC) removed. */
size_t text_strip_escapes(const char *s, size_t len, char *out, size_t out_size);
/* The JSON string body s[0..len) (no quotes) with its escapes undone
 * (\" \\ \/ \n \t \uXXXX incl. surrogate pairs; a broken escape is kept
 * as it is). */
size_t text_json_unescape(const char *s, size_t len, char *out, size_t out_size);

/* Asked for a path named by an evidence line, already absolute and normalised:
 * would the caller, without the sandbox, have been able to write it? */
enum caller_access {
	CALLER_CANNOT = 0,    /* the file, or (missing) its directory, is not the caller's to write */
	CALLER_CAN = 1,       /* the file is writable, or missing in a writable directory */
	CALLER_NO_PARENT = 2, /* its directory does not exist: nobody could have made it */
};
typedef enum caller_access (*caller_could_write_fn)(const char *abs_path, void *ctx);

struct classify_input {
	const struct evidence *evidence;
	bool exited;                /* true: exit_code is valid; false: ended by a signal */
	int exit_code;
	bool confined;              /* false for danger-full-access: never denied */
	const char *cwd;            /* command's cwd, absolute; relative paths resolve here */
	/* the bash command (NULL: none): the directories it tells its tools
	 * to work in are where else a relative path may lie */
	const char *command;
	const char *const *writable; /* absolute directories the policy lets it write, NULL-terminated */
	/* absolute paths inside them that stay read-only (protected paths),
	 * NULL-terminated or NULL: a refusal there is the sandbox's */
	const char *const *protected_paths;
	/* absolute paths hidden from the command (deny_read, sbx's state),
	 * NULL-terminated or NULL: a refusal there is not counted */
	const char *const *hidden_paths;
	caller_could_write_fn could_write;
	void *could_write_ctx;
};

/* The denial fact (CONTRACT section 5, README "how a denial is decided"). */
bool classify_denied(const struct classify_input *in);

/* The directories command (a bash command line) tells its tools to work
 * in (cd DIR, -C DIR, -d DIR, -B DIR, --directory=DIR, ...), absolute and
 * normalised against cwd, at most max of them. */
#define CLASSIFY_DIR_MAX 4096
#define CLASSIFY_DIRS 8
size_t command_dirs(const char *command, const char *cwd, char out[][CLASSIFY_DIR_MAX], size_t max);

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

/* Command output shown to a model must not pass for sbx's markers nor for
 * its "[... N bytes omitted ...]" line. Lines end at every break a reader
 * honours (\n, \r, VT, FF, FS, GS, RS, NEL, U+2028, U+2029), and a line is
 * left bare only if it cannot be read as sbx's (the allow-list in
 * markers.c, start_unclear); any other gets this visible prefix. Copies in
 * (len bytes) to out with the prefixes added and returns the new length;
 * out NULL: only the length. Output holding sbx's own omitted line is
 * guarded around it (markers_neutralise_around). */
#define MARKER_FORGED_PREFIX "(command output) "
size_t markers_neutralise(const char *in, size_t len, char *out);
/* The same for output that holds sbx's own omitted line at [mid_at,
 * mid_at + mid_len) (mid_len 0: none): what comes before and after it is
 * guarded, each part on its own, and that line is copied as it is. */
size_t markers_neutralise_around(const char *in, size_t len, size_t mid_at, size_t mid_len,
				 char *out);
/* Output guarded already, cut so that in starts where a line of it did not
 * (a serve answer cut to fit): in copied to out, with the prefix before it
 * if its first line could pass for sbx's now that it starts a line. */
size_t markers_guard_cut(const char *in, size_t len, char *out);
/* A path written into one of sbx's own lines (what was put back): printable
 * ASCII as it is, a backslash doubled, every other byte as \xNN, so that no
 * name a command chose can break the line or pass for a marker. Written
 * to out (NUL-terminated, cut to size); returns the whole length. */
size_t markers_quote_path(const char *path, char *out, size_t size);

#endif
