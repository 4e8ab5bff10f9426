/* SPDX-License-Identifier: MIT */
/* x32, the third x86-64 ABI (x86-64's table, numbers with the x32 bit, 32-bit
 * pointers), is refused whole by the filters: every x32 call answers ENOSYS,
 * as a kernel built without x32 answers (this one: CONFIG_X86_X32_ABI is
 * unset), and nothing is performed for it. Before, the supervisor took
 * x32's opens for writing as native ones and had the run's opener perform
 * them, on a kernel that has no x32 at all. Checked from outside, under both
 * runners, as the caller (root here) and as nobody, in both modes: an x32
 * openat, open, creat and truncate of files inside the root (which the
 * policy lets workspace-write write) and outside it (which it refuses)
 * create nothing and truncate nothing. */
#define RUN_FIXTURE_SUITE x32
#include "run_fixture.h"

#include <jansson.h>

static void expect_untouched(struct fx *f, const char *mode, const char *base, const char *out)
{
	static const char *const made[] = { "", ".open", ".creat" };
	char *trunc = e2e_fmt("%s.trunc", base), *got = e2e_read_file(trunc);

	for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++)
		cr_expect(!e2e_exists(e2e_fmt("%s%s", base, made[i])),
			  "%s %s: an x32 call made %s%s:\n%s", f->tag, mode, base, made[i], out);
	cr_expect(got && strcmp(got, "keep\n") == 0, "%s %s: an x32 truncate reached %s:\n%s",
		  f->tag, mode, trunc, out);
	free(got);
}

PARAMS(x32_refused_whole, params_both);
ParameterizedTest(struct rp *p, x32, x32_refused_whole, .timeout = 120)
{
	static const char *const modes[] = { "workspace-write", "read-only" };
	static const char *const calls[] = { "x32_openat", "x32_open", "x32_creat",
					     "x32_truncate" };
	struct fx f;

	fx_setup(&f, p);
	char *out_dir = e2e_fmt("%s/out", f.base);

	cr_assert(e2e_mkdir(p->who, out_dir) == 0);
	for (size_t m = 0; m < 2; m++) {
		char *in = e2e_fmt("%s/new%zu", f.ws, m), *outside = e2e_fmt("%s/new%zu", out_dir, m);
		struct e2e_out o;
		json_error_t jerr;

		cr_assert(e2e_write_file(p->who, e2e_fmt("%s.trunc", in), "keep\n") == 0 &&
			  e2e_write_file(p->who, e2e_fmt("%s.trunc", outside), "keep\n") == 0);
		run_x(&f, modes[m], NULL,
		      e2e_fmt("%s open %s; %s open %s", helper(&f, "abi32"), in,
			      helper(&f, "abi32"), outside),
		      &o);
		json_t *j = json_loads(o.out, 0, &jerr);
		const char *out = j ? json_string_value(json_object_get(j, "stdout")) : NULL;

		cr_assert(out, "%s %s: no result:\n%s\n%s", f.tag, modes[m], o.out, o.err);
		/* each call, for both paths: ENOSYS */
		for (size_t c = 0; c < sizeof(calls) / sizeof(calls[0]); c++) {
			const char *at = out;

			for (int k = 0; k < 2; k++) {
				at = strstr(at, e2e_fmt("%s ", calls[c]));
				cr_assert(at, "%s %s: %s not tried:\n%s", f.tag, modes[m], calls[c], out);
				at += strlen(calls[c]) + 1;
				cr_expect(atoi(at) == ENOSYS, "%s %s: %s answered %d, not ENOSYS:\n%s",
					  f.tag, modes[m], calls[c], atoi(at), out);
			}
		}
		expect_untouched(&f, modes[m], in, out);
		expect_untouched(&f, modes[m], outside, out);
		json_decref(j);
		e2e_out_free(&o);
	}
}
