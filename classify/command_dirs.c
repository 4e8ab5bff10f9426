/* SPDX-License-Identifier: MIT */
/* The directories a command line tells its tools to work in: a relative
 * path in an error line is relative to where the tool was, which need not
 * be the command's cwd (`cd "my dir" && touch x`, `tar -C DIR`, `unzip -d
 * DIR`, `make --directory=DIR`, `cmake -B DIR`). Read from the words of the
 * bash command as the shell would split and unquote them ('...', "...",
 * backslashes); a word with an expansion in it ($X, `...`, ~) is not
 * guessed at. Pure: strings in, strings out. */
#include <string.h>

#include "classify.h"

#define WORD_MAX 4096

struct words {
	const char *s;
	size_t at;
	char word[WORD_MAX];
	bool expands; /* holds $, ` or a leading ~: not a literal */
	bool op;      /* an operator: ; & | ( ) < > newline */
};

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool op_char(char c)
{
	return c && strchr(";&|()<>\n", c) != NULL;
}

/* The next word (or operator) into w->word; false at the end. */
static bool next_word(struct words *w)
{
	const char *s = w->s;
	size_t o = 0;
	bool any = false;

	w->expands = w->op = false;
	while (blank(s[w->at]))
		w->at++;
	if (!s[w->at])
		return false;
	if (op_char(s[w->at])) {
		w->word[0] = s[w->at++];
		w->word[1] = '\0';
		w->op = true;
		return true;
	}
	if (s[w->at] == '~')
		w->expands = true;
	while (s[w->at] && !blank(s[w->at]) && !op_char(s[w->at])) {
		char c = s[w->at++];

		any = true;
		if (c == '\'') {
			while (s[w->at] && s[w->at] != '\'' && o + 1 < WORD_MAX)
				w->word[o++] = s[w->at++];
			if (s[w->at])
				w->at++;
			continue;
		}
		if (c == '"') {
			while (s[w->at] && s[w->at] != '"' && o + 1 < WORD_MAX) {
				c = s[w->at++];
				if (c == '\\' && s[w->at] && strchr("\"\\$`\n", s[w->at]))
					c = s[w->at++];
				else if (c == '$' || c == '`')
					w->expands = true;
				w->word[o++] = c;
			}
			if (s[w->at])
				w->at++;
			continue;
		}
		if (c == '\\' && s[w->at])
			c = s[w->at++];
		else if (c == '$' || c == '`')
			w->expands = true;
		if (o + 1 < WORD_MAX)
			w->word[o++] = c;
	}
	w->word[o] = '\0';
	return any;
}

/* The directory an option names in this word or the next one: "-C DIR",
 * "-CDIR", "--directory DIR", "--directory=DIR", ... NULL if none;
 * *takes_next when it is the next word. */
static const char *option_dir(const char *word, bool *takes_next)
{
	static const char *const shorts[] = { "-C", "-d", "-B" };
	static const char *const longs[] = { "--directory", "--target-directory", "--prefix",
					      "--work-tree", "--cwd" };

	*takes_next = false;
	for (size_t i = 0; i < sizeof(shorts) / sizeof(shorts[0]); i++)
		if (strncmp(word, shorts[i], 2) == 0) {
			if (word[2] == '\0')
				*takes_next = true;
			return word[2] ? word + 2 : NULL;
		}
	for (size_t i = 0; i < sizeof(longs) / sizeof(longs[0]); i++) {
		size_t n = strlen(longs[i]);

		if (strncmp(word, longs[i], n) != 0)
			continue;
		if (word[n] == '\0')
			*takes_next = true;
		else if (word[n] == '=')
			return word + n + 1;
		return NULL;
	}
	return NULL;
}

static void add_dir(const char *base, const char *dir, char out[][CLASSIFY_DIR_MAX], size_t *n,
		    size_t max)
{
	if (*n < max && dir[0] && path_normalize(base, dir, out[*n], CLASSIFY_DIR_MAX))
		(*n)++;
}

size_t command_dirs(const char *command, const char *cwd, char out[][CLASSIFY_DIR_MAX], size_t max)
{
	struct words w = { .s = command };
	char base[CLASSIFY_DIR_MAX];
	enum { NONE, CD, OPTION } want = NONE;
	bool first = true; /* the word is a command's name */
	size_t n = 0;

	if (!command || !cwd || cwd[0] != '/' || strlen(cwd) >= sizeof(base))
		return 0;
	strcpy(base, cwd);
	while (n < max && next_word(&w)) {
		bool takes_next;
		const char *dir;

		if (w.op) {
			want = NONE;
			first = true;
			continue;
		}
		if (want != NONE) {
			if (!w.expands && w.word[0] != '-') {
				add_dir(base, w.word, out, &n, max);
				/* later relative words are relative to a cd's target */
				if (want == CD && n > 0)
					strcpy(base, out[n - 1]);
			}
			want = NONE;
			first = false;
			continue;
		}
		if (first && (strcmp(w.word, "cd") == 0 || strcmp(w.word, "pushd") == 0)) {
			want = CD;
		} else if (!first && (dir = option_dir(w.word, &takes_next)) != NULL) {
			if (!w.expands)
				add_dir(base, dir, out, &n, max);
		} else if (!first && takes_next) {
			want = OPTION;
		}
		/* "VAR=x cmd": an assignment does not name the command */
		if (!(first && strchr(w.word, '=') && w.word[0] != '='))
			first = false;
	}
	return n;
}
