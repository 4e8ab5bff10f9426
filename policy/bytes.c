/* SPDX-License-Identifier: MIT */
/* Sizes as people write them: "1048576", "64M", "2g". Pure. */
#include <errno.h>
#include <string.h>

#include "policy.h"

/* Decimal digits, then at most one binary suffix (k, m, g, t; either case,
 * powers of 1024). No sign, no space, no fraction. */
int policy_parse_bytes(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0, unit = 1;
	size_t len = s ? strlen(s) : 0, digits = len;

	if (len == 0)
		return -EINVAL;
	switch (s[len - 1]) {
	case 'k': case 'K': unit = 1ULL << 10; break;
	case 'm': case 'M': unit = 1ULL << 20; break;
	case 'g': case 'G': unit = 1ULL << 30; break;
	case 't': case 'T': unit = 1ULL << 40; break;
	default: break;
	}
	if (unit != 1)
		digits--;
	if (digits == 0)
		return -EINVAL;
	for (size_t i = 0; i < digits; i++)
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
	for (size_t i = 0; i < digits; i++) {
		unsigned d = (unsigned)(s[i] - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	if (v > max / unit)
		return -ERANGE;
	*out = v * unit;
	return 0;
}
