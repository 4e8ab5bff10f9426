/* SPDX-License-Identifier: MIT */
/* libsbx as a harness embeds it (docs/embedding.md): what a setter accepts
 * is what the run does. The test process runs the library itself. */
#include <criterion/criterion.h>
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "sbx.h"

/* A timeout the run cannot honour is refused by the setter, never turned
 * into one that ends the command at once: UINT64_MAX (SBX_LIMIT_OFF's
 * value, a harness's natural "no limit") used to overflow the deadline and
 * kill every command as timed out. The bound is --timeout's, a week. */
Test(library, timeout_out_of_range_is_refused, .timeout = 60)
{
	struct sbx_run *run = sbx_run_new();
	struct sbx_result *res = NULL;
	struct sbx_error err = { 0 };
	char *root = e2e_tmpdir(AS_CALLER);

	cr_assert_not_null(run);
	cr_assert_eq(sbx_run_set_command(run, "sleep 0.2; echo done"), 0);
	cr_assert_eq(sbx_run_set_root(run, root), 0);
	cr_assert_eq(sbx_run_set_timeout_ms(run, UINT64_MAX), -EINVAL);
	cr_assert_eq(sbx_run_set_timeout_ms(run, 604800001), -EINVAL);
	cr_assert_eq(sbx_run_set_timeout_ms(run, 604800000), 0);
	cr_assert_eq(sbx_run_execute(run, &res, &err), 0, "%s: %s", err.code, err.message);
	char *js = sbx_result_to_json(res);
	json_t *j = json_loads(js, 0, NULL);

	cr_assert_not_null(j, "%s", js);
	cr_assert(json_is_false(json_object_get(j, "timed_out")), "%s", js);
	cr_assert_eq(json_integer_value(json_object_get(j, "exit_code")), 0, "%s", js);
	cr_assert_str_eq(json_string_value(json_object_get(j, "stdout")), "done\n", "%s", js);
	json_decref(j);
	free(js);
	sbx_result_free(res);
	sbx_run_free(run);
	free(root);
}
