/* SPDX-License-Identifier: MIT */
/* Shell-style name patterns with '*' only. */
#include <stdbool.h>
#include <stddef.h>

#include "policy.h"

/* Two pointers plus the position of the last '*' seen: on a mismatch, let that
 * star swallow one more character and retry from just after it. Only the last
 * star ever needs revisiting, so this is O(len(pattern) * len(name)) at worst,
 * never exponential, and uses no recursion. */
bool pattern_match(const char *pattern, const char *name)
{
	if (!pattern || !name)
		return false;

	const char *p = pattern, *n = name;
	const char *star = NULL; /* last '*' in pattern */
	const char *retry = NULL; /* where in name that star's match ends */

	while (*n) {
		if (*p == '*') {
			star = p++;
			retry = n;
		} else if (*p == *n) {
			p++;
			n++;
		} else if (star) {
			p = star + 1;
			n = ++retry;
		} else {
			return false;
		}
	}
	while (*p == '*')
		p++;
	return *p == '\0';
}
