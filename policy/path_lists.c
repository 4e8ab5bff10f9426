/* SPDX-License-Identifier: MIT */
/* The path-list values of the config (protected_paths, deny_read) and the
 * cache_dir value: syntax only, pure. A list is comma-separated, blanks
 * around entries ignored; the single word `none` turns the default off. */
#include <stdio.h>
#include <string.h>

#include "policy.h"

/* Root-relative: no leading '/', no '.' or '..' component, no empty one.
 * Home-relative: "~/..." or absolute. */
static bool entry_ok(enum policy_path_kind kind, const char *s, size_t len, char *why,
		     size_t why_size)
{
	const char *p = s, *end = s + len;

	if (len == 0) {
		snprintf(why, why_size, "empty entry (two commas, or a comma at an end)");
		return false;
	}
	if (kind == POLICY_PATHS_IN_ROOT && s[0] == '/') {
		snprintf(why, why_size, "'%.*s': protected paths are relative to the workspace root "
			 "(e.g. .git/hooks)", (int)(len < 64 ? len : 64), s);
		return false;
	}
	if (kind == POLICY_PATHS_ABSOLUTE && s[0] != '/' && !(len >= 2 && s[0] == '~' && s[1] == '/')) {
		snprintf(why, why_size, "'%.*s': expected an absolute path or one starting with ~/",
			 (int)(len < 64 ? len : 64), s);
		return false;
	}
	if (s[0] == '~')
		p += 2;
	else if (s[0] == '/')
		p += 1;
	while (p < end) {
		const char *slash = memchr(p, '/', (size_t)(end - p));
		size_t n = slash ? (size_t)(slash - p) : (size_t)(end - p);

		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.')) {
			snprintf(why, why_size, "'%.*s': no empty, '.' or '..' component allowed",
				 (int)(len < 64 ? len : 64), s);
			return false;
		}
		p += n + (slash ? 1 : 0);
	}
	return true;
}

bool policy_protected_item_ok(const char *item, size_t len)
{
	char why[8];

	return len < POLICY_PATH_ITEM_MAX && entry_ok(POLICY_PATHS_IN_ROOT, item, len, why, sizeof(why));
}

bool policy_deny_read_item_ok(const char *item, size_t len)
{
	char why[8];

	return len < POLICY_PATH_ITEM_MAX && entry_ok(POLICY_PATHS_ABSOLUTE, item, len, why, sizeof(why));
}

bool policy_path_list_ok(enum policy_path_kind kind, const char *val, char *why, size_t why_size)
{
	const char *p = val;
	size_t n = 0;

	if (strcmp(val, "none") == 0)
		return true;
	for (;;) {
		const char *comma = strchr(p, ',');
		const char *end = comma ? comma : p + strlen(p);

		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		if (!entry_ok(kind, p, (size_t)(end - p), why, why_size))
			return false;
		if (++n > POLICY_MAX_PATHS) {
			snprintf(why, why_size, "too many entries (max %d)", POLICY_MAX_PATHS);
			return false;
		}
		if (!comma)
			return true;
		p = comma + 1;
	}
}
