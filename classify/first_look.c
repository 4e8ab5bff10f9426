/* SPDX-License-Identifier: MIT */
/* The first look at every line of output: does it hold anything the
 * matchers could take for evidence? Most lines do not, so this is the part
 * of the classifier that runs over every byte, and it must be cheap: a bit
 * table of byte pairs of the texts that matter ("keys"), looked up two
 * bytes at a time, eight bytes per load; a hit compares the 4-byte windows
 * around it with the keys. Also: an errno named by number whatever the
 * text (Python's "[Errno N]", Rust's "(os error N)", Ruby's "(Errno::E..)"). */
#include <string.h>

#include "dialect_int.h"

/* Four bytes as one word, ASCII letters lower-cased ('-', ' ', '(' and ':'
 * are left alone; other bytes change, but keys and text alike). */
static uint32_t word_at(const char *s)
{
	uint32_t w;

	memcpy(&w, s, 4);
	return w | 0x20202020u;
}

/* How rare a byte is in ordinary output, after folding: letters by their
 * frequency in English, blanks the most common, the punctuation of paths
 * and compiler messages common too, anything else (UTF-8 included) rare. */
static int rarity(unsigned char c)
{
	static const char freq[] = "etaoinshrdlcumwfgypbvkjxqz";
	const char *p;

	if (c >= 'a' && c <= 'z') {
		p = strchr(freq, c);
		return (int)(p - freq);
	}
	if (c >= '0' && c <= '9')
		return 10;
	switch (c) {
	case ' ':
		return 0;
	case ':': case '.': case '/':
		return 5;
	case ',': case '_':
		return 10;
	case '-': case '(': case ')': case '\'': case '"':
		return 15;
	case '{': case '}':
		return 20;
	default:
		return 30;
	}
}

static uint16_t pair_at(const char *s)
{
	uint16_t p;

	memcpy(&p, s, 2);
	return p | 0x2020u;
}

/* A key, and two of its byte pairs side by side in the first-look filter:
 * the look steps two bytes at a time, and one of any two adjacent pairs
 * of a key starts at an even offset. The rarer two are taken. */
static void add_key(struct evidence *ev, const char *four)
{
	int best = 0, score = -1;

	if (ev->n_keys == EVIDENCE_KEYS)
		return;
	ev->keys[ev->n_keys++] = word_at(four);
	for (int o = 0; o < 2; o++) {
		int a = rarity((unsigned char)(four[o] | 0x20)) + rarity((unsigned char)(four[o + 1] | 0x20));
		int b = rarity((unsigned char)(four[o + 1] | 0x20)) + rarity((unsigned char)(four[o + 2] | 0x20));
		int r = a < b ? a : b;

		if (r > score) {
			score = r;
			best = o;
		}
	}
	for (int o = best; o < best + 2; o++) {
		uint16_t p = pair_at(four + o);

		ev->pair_filter[p >> 3] |= (uint8_t)(1u << (p & 7));
	}
}

void first_look_init(struct evidence *ev)
{
	/* Every English phrase holds "d-on" (read-only), "ermi" (permission
	 * denied, not permitted) or "s-de" (cross-device); "DeniedException"
	 * is Java's; "rrno" is in Python's "[Errno N]" (anywhere in a line,
	 * with a text in any language) and Ruby's "(Errno::E...)". Rust's
	 * "(os error N)" is looked for apart. */
	static const char *const base[] = { "d-on", "ermi", "s-de", "dExc", "rrno" };

	for (size_t i = 0; i < sizeof(base) / sizeof(base[0]); i++)
		add_key(ev, base[i]);
	/* node's recursive mkdir reports EROFS as "ENOENT: ..., mkdir '/p'" */
	if (ev->dialects & DIALECT_EROFS)
		add_key(ev, "mkdi");
	/* "Device or resource busy": a rename over a protected path */
	if (ev->dialects & DIALECT_EBUSY)
		add_key(ev, "busy");
	for (size_t i = 0; i < DIALECT_KINDS; i++) {
		size_t n = strlen(ev->local.text[i]);

		if (n == 0 || !(ev->dialects & dialect_bit((unsigned)i)))
			continue;
		/* the localized text ends every line shape it appears in but
		 * Python's, whose "[Errno N]" is looked for apart */
		if (n < 4)
			ev->look_at_all = true;
		else
			add_key(ev, ev->local.text[i] + n - 4);
	}
}

/* Python's "[Errno N]" anywhere, or a line ending in Rust's "(os error
 * N)" or Ruby's "(Errno::E...)": the errno named whatever the text. */
static bool names_an_errno(const char *s, size_t len)
{
	while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '.'))
		len--;
	if (len > 0 && s[len - 1] == ')') {
		size_t k = len - 1;

		while (k > 0 && s[k - 1] != '(')
			k--;
		if (k > 0 && (memcmp(s + k, "os error ", len - k < 9 ? len - k : 9) == 0 ||
			      memcmp(s + k, "Errno::", len - k < 7 ? len - k : 7) == 0) &&
		    len - k >= 7)
			return true;
	}
	/* Python's evidence ends with the quoted file name */
	if (len == 0 || (s[len - 1] != '\'' && s[len - 1] != '"'))
		return false;
	for (const char *p = s; (p = memchr(p, '[', (size_t)(s + len - p))) != NULL; p++)
		if ((size_t)(s + len - p) >= 7 && memcmp(p, "[Errno ", 7) == 0)
			return true;
	return false;
}

/* The quick first look: does any 4-byte window of the line hold a key?
 * Every other byte pair is looked up in a bit table of the keys' pairs (no
 * chain from step to step, one load per two bytes); only a hit compares
 * the windows around it with the keys. */
static bool pair_hit(const struct evidence *ev, unsigned p)
{
	return ev->pair_filter[p >> 3] >> (p & 7) & 1;
}

/* A key's window around the pair at s[i]: it starts at i, i-1 or i-2. */
static bool key_near(const struct evidence *ev, const char *s, size_t len, size_t i)
{
	for (size_t o = 0; o < 3; o++) {
		if (i < o || i - o + 4 > len)
			continue;
		uint32_t w = word_at(s + i - o);
		for (size_t k = 0; k < ev->n_keys; k++)
			if (ev->keys[k] == w)
				return true;
	}
	return false;
}

bool first_look(const struct evidence *ev, const char *s, size_t len)
{
	size_t i = 0;

	if (ev->look_at_all)
		return true;
	/* eight bytes at a time: four pairs from one load */
	for (; i + 8 <= len; i += 8) {
		uint64_t w;

		memcpy(&w, s + i, 8);
		w |= 0x2020202020202020ull;
		if (!(pair_hit(ev, (unsigned)(w & 0xffff)) | pair_hit(ev, (unsigned)(w >> 16 & 0xffff)) |
		      pair_hit(ev, (unsigned)(w >> 32 & 0xffff)) | pair_hit(ev, (unsigned)(w >> 48))))
			continue;
		for (size_t j = i; j < i + 8; j += 2)
			if (pair_hit(ev, pair_at(s + j)) && key_near(ev, s, len, j))
				return true;
	}
	for (; i + 2 <= len; i += 2)
		if (pair_hit(ev, pair_at(s + i)) && key_near(ev, s, len, i))
			return true;
	return names_an_errno(s, len);
}
