/* SPDX-License-Identifier: MIT */
/* Reading /proc/self/cgroup and /proc/self/mountinfo (see cgroup.h). Pure. */
#include <errno.h>
#include <string.h>

#include "cgroup.h"

bool cgroup_has_word(const char *list, const char *word)
{
	size_t wl = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += wl) {
		bool start = p == list || p[-1] == ' ' || p[-1] == '\n' || p[-1] == ',';
		char end = p[wl];

		if (start && (end == '\0' || end == ' ' || end == '\n' || end == ','))
			return true;
	}
	return false;
}

int cgroup_parse_self(const char *text, const char *controller, char *out, size_t size)
{
	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		const char *c1 = memchr(line, ':', len);
		const char *c2 = c1 ? memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - line)) : NULL;

		if (c2) {
			char ctrls[256];
			size_t cl = (size_t)(c2 - c1 - 1);
			size_t pl = len - (size_t)(c2 + 1 - line);
			bool match;

			if (cl < sizeof(ctrls)) {
				memcpy(ctrls, c1 + 1, cl);
				ctrls[cl] = '\0';
				match = controller ? cgroup_has_word(ctrls, controller)
						   : (cl == 0 && c1 - line == 1 && line[0] == '0');
				if (match && pl > 0 && pl < size && c2[1] == '/') {
					memcpy(out, c2 + 1, pl);
					out[pl] = '\0';
					return 0;
				}
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	return -ENOENT;
}

/* The nth blank-separated field of a line (0-based), as [start, len). */
static const char *field(const char *line, size_t line_len, int n, size_t *len)
{
	const char *p = line, *end = line + line_len;

	for (int i = 0; p < end; i++) {
		const char *sp = memchr(p, ' ', (size_t)(end - p));
		size_t fl = sp ? (size_t)(sp - p) : (size_t)(end - p);

		if (i == n) {
			*len = fl;
			return p;
		}
		if (!sp)
			break;
		p = sp + 1;
	}
	return NULL;
}

int cgroup_parse_mount(const char *text, const char *controller, char *out, size_t size)
{
	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		const char *dash = NULL;

		for (const char *p = line; p + 2 < line + len; p++)
			if (p[0] == ' ' && p[1] == '-' && p[2] == ' ') {
				dash = p + 3;
				break;
			}
		if (dash) {
			size_t rest = len - (size_t)(dash - line), tl = 0, ol = 0, rl = 0, ml = 0;
			const char *type = field(dash, rest, 0, &tl);
			const char *opts = field(dash, rest, 2, &ol);
			const char *root = field(line, len, 3, &rl);
			const char *mnt = field(line, len, 4, &ml);
			char o[512];
			bool match = false;

			if (type && controller && tl == 6 && memcmp(type, "cgroup", 6) == 0 && opts &&
			    ol < sizeof(o)) {
				memcpy(o, opts, ol);
				o[ol] = '\0';
				match = cgroup_has_word(o, controller);
			} else if (type && !controller) {
				match = tl == 7 && memcmp(type, "cgroup2", 7) == 0;
			}
			/* Only a mount of the hierarchy's root (a bind of a
			 * sub-cgroup would shift every path), and no escaped
			 * characters in its mount point. */
			if (match && root && rl == 1 && root[0] == '/' && mnt && ml < size &&
			    !memchr(mnt, '\\', ml)) {
				memcpy(out, mnt, ml);
				out[ml] = '\0';
				return 0;
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	return -ENOENT;
}
