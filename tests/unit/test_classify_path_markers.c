/* SPDX-License-Identifier: MIT */
/* path_normalize, path_is_within and the markers, byte for byte. */
#include <criterion/criterion.h>
#include <string.h>

#include "classify.h"

static const char *norm(const char *cwd, const char *p)
{
	static char out[256];

	if (!path_normalize(cwd, p, out, sizeof(out)))
		return "(fail)";
	return out;
}

Test(path, normalize)
{
	cr_expect_str_eq(norm(NULL, "/a/./b/../c"), "/a/c");
	cr_expect_str_eq(norm(NULL, "/.."), "/");
	cr_expect_str_eq(norm(NULL, "/../../x"), "/x");
	cr_expect_str_eq(norm(NULL, "/"), "/");
	cr_expect_str_eq(norm(NULL, "//a//b//"), "/a/b");
	cr_expect_str_eq(norm(NULL, "/a/b/"), "/a/b");
	cr_expect_str_eq(norm(NULL, "/a/.../b"), "/a/.../b");
	cr_expect_str_eq(norm(NULL, "/a/..b/.c"), "/a/..b/.c");
	cr_expect_str_eq(norm("/ws/sub", "x"), "/ws/sub/x");
	cr_expect_str_eq(norm("/ws/sub", "../x"), "/ws/x");
	cr_expect_str_eq(norm("/ws/sub", "../../../../x"), "/x");
	cr_expect_str_eq(norm("/ws/sub/", "./"), "/ws/sub");
	cr_expect_str_eq(norm("/ws", ""), "/ws");
	cr_expect_str_eq(norm("/ignored", "/abs"), "/abs");
	cr_expect_str_eq(norm(NULL, "rel"), "(fail)");
	cr_expect_str_eq(norm("relative-cwd", "rel"), "(fail)");
}

Test(path, normalize_bounds)
{
	char out[8];

	memset(out, 'Q', sizeof(out));
	cr_expect(path_normalize(NULL, "/abcdef", out, 8));
	cr_expect_str_eq(out, "/abcdef");
	cr_expect_not(path_normalize(NULL, "/abcdefg", out, 8));
	cr_expect(path_normalize(NULL, "/abcdefg/..", out, 8) == false,
		  "an intermediate that does not fit is refused, not guessed");
	cr_expect_not(path_normalize(NULL, "/", out, 1));
	cr_expect(path_normalize(NULL, "/", out, 2));
	cr_expect_str_eq(out, "/");
}

Test(path, is_within)
{
	cr_expect(path_is_within("/ws", "/ws"));
	cr_expect(path_is_within("/ws/a/b", "/ws"));
	cr_expect(path_is_within("/ws/a", "/ws/"));
	cr_expect_not(path_is_within("/ws-sibling", "/ws"));
	cr_expect_not(path_is_within("/ws-sibling/x", "/ws"));
	cr_expect_not(path_is_within("/w", "/ws"));
	cr_expect_not(path_is_within("/", "/ws"));
	cr_expect(path_is_within("/anything", "/"));
	cr_expect(path_is_within("/", "/"));
	cr_expect_not(path_is_within("rel", "/"));
	cr_expect_not(path_is_within("/ws", ""));
}

#define DENIED_RO "[sandbox: file access denied under read-only mode]\n"
#define ESCALATION                                                                               \
	"[sandbox: escalation available \xe2\x80\x94 retry this exact command once with "          \
	"sandbox_permissions (the narrowest wider mode that suffices) + justification; the "         \
	"approval prompt asks the user]\n"
#define RUNNER_FAILED_WW                                                                         \
	"[sandbox: the sandbox runner itself failed under workspace-write mode \xe2\x80\x94 the "   \
	"command did not run; this is a sandbox problem, not a command failure]\n"

static void expect_markers(const char *mode, bool d, bool e, bool f, const char *want)
{
	char out[1024];
	size_t n;

	memset(out, 'Q', sizeof(out));
	n = markers_build(out, sizeof(out), mode, d, e, f);
	cr_expect_eq(n, strlen(want), "length %zu, want %zu", n, strlen(want));
	cr_expect_eq(memcmp(out, want, strlen(want) + 1), 0, "got \"%s\"", out);
}

Test(markers, byte_for_byte)
{
	expect_markers("read-only", false, false, false, "");
	expect_markers("read-only", false, true, false, "");
	expect_markers("read-only", true, false, false, DENIED_RO);
	expect_markers("read-only", true, true, false, DENIED_RO ESCALATION);
	expect_markers("workspace-write", false, false, true, RUNNER_FAILED_WW);
	expect_markers("workspace-write", false, true, true, RUNNER_FAILED_WW);
	expect_markers("workspace-write", true, true, true,
		       "[sandbox: file access denied under workspace-write mode]\n" ESCALATION
			       RUNNER_FAILED_WW);
}

Test(markers, cut_keeps_whole_markers_only)
{
	char out[300];
	size_t n;

	/* room for the denied marker, not for the escalation one */
	memset(out, 'Q', sizeof(out));
	n = markers_build(out, 100, "read-only", true, true, true);
	cr_expect_eq(n, strlen(DENIED_RO));
	cr_expect_str_eq(out, DENIED_RO);
	cr_expect_eq(out[100], 'Q');
	/* exactly the denied marker and its NUL */
	n = markers_build(out, strlen(DENIED_RO) + 1, "read-only", true, false, false);
	cr_expect_eq(n, strlen(DENIED_RO));
	n = markers_build(out, strlen(DENIED_RO), "read-only", true, false, false);
	cr_expect_eq(n, 0u);
	cr_expect_str_eq(out, "");
	cr_expect_eq(markers_build(out, 0, "read-only", true, false, false), 0u);
}
