/* SPDX-License-Identifier: MIT */
/* Inside classify/: what its files share. */
#ifndef SBX_DIALECT_INT_H
#define SBX_DIALECT_INT_H

#include "classify.h"

/* One text a dialect is spoken in: English (several per dialect: glibc's,
 * musl's) or the command's own language. */
struct phrase_ref {
	unsigned dialect;
	const char *text;
	size_t len;
	bool localized;
};

#define PHRASES_MAX 12
struct phrase_set {
	size_t n;
	struct phrase_ref p[PHRASES_MAX];
};

/* The English texts of the dialects in mask, then local's. */
void phrase_set_build(struct phrase_set *ps, unsigned mask, const struct dialect_texts *local);

bool ascii_ieq(const char *a, const char *b, size_t n);
bool is_digit(char c);
/* s[0..n) into path as a C string; false for "", a NUL or no room. */
bool path_set(const char *p, size_t n, char *path, size_t path_size);
/* "'a'" or "'a' -> 'b'" (quotes ' or "), exactly s[0..len): the last path. */
bool quoted_list_path(const char *s, size_t len, char *path, size_t path_size);

/* dialect_match_line, and also a line in an error line's shape whose path
 * cannot be read from it: the DIALECT_* bit with DIALECT_MATCH_NOPATH (the
 * file may be on the line before or after it: evidence.c). */
#define DIALECT_MATCH_NOPATH (1u << 17)
/* With BARE or NOPATH: the text matched was the command's language. */
#define DIALECT_MATCH_LOCAL (1u << 18)
unsigned dialect_match(const char *line, size_t len, unsigned mask, const struct dialect_texts *local,
		       char *path, size_t path_size);

/* Shapes of other runtimes (dialect_runtime.c), each 0 or a DIALECT_* bit. */
unsigned match_node(const char *s, size_t len, unsigned mask, char *path, size_t path_size);
unsigned match_java(const char *s, size_t len, const struct phrase_set *ps, unsigned mask,
		    char *path, size_t path_size);
unsigned match_ruby(const char *s, size_t len, unsigned mask, char *path, size_t path_size);

/* The first look at a line (first_look.c): could it be evidence at all?
 * first_look_init builds the keys from ev->dialects and ev->local. */
void first_look_init(struct evidence *ev);
bool first_look(const struct evidence *ev, const char *s, size_t len);

#endif
