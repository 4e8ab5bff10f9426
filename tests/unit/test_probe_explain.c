/* SPDX-License-Identifier: MIT */
/* launcher/engine/probe.c's explanations from the trials' results: a runner
 * that fails while setting up a run stops auto (which then takes no other
 * runner), and probe names the runner that confines instead of saying none
 * can (new-user pass 12, finding 3: inside another sbx's run). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <string.h>

#include "probe.h"

static json_t *parse(const char *text)
{
	json_error_t e;
	json_t *j = json_loads(text, 0, &e);

	cr_assert_not_null(j, "%s", e.text);
	return j;
}

Test(probe_explain, auto_stopped_by_a_failing_runner)
{
	json_t *runners = parse("{\"namespace\": {\"runner\": null, \"reason\": \"the namespace runner "
				"failed while setting up read-only mode: mount: mount_setattr /: Device "
				"or resource busy\", \"fix\": \"see the reason\"},"
				" \"landlock\": {\"runner\": \"landlock\", \"enforcement\": \"partial\"}}");
	json_t *modes = parse("{\"read-only\": {\"runner\": null, \"reason\": \"x\", \"fix\": \"make "
			      "one runner work\"}, \"danger-full-access\": {\"runner\": null}}");

	probe_explain(runners, modes);
	const char *instead = json_string_value(json_object_get(json_object_get(runners, "namespace"),
								"instead"));
	const char *fix = json_string_value(json_object_get(json_object_get(modes, "read-only"), "fix"));

	cr_assert(instead && strstr(instead, "--runner landlock (enforcement partial)") &&
			  !strstr(instead, "no other runner can either"),
		  "instead: %s", instead);
	cr_assert(fix && strstr(fix, "give --runner landlock"), "fix: %s", fix);
	json_decref(runners);
	json_decref(modes);
}

Test(probe_explain, none_when_none_confines)
{
	json_t *runners = parse("{\"namespace\": {\"runner\": null, \"reason\": \"a\"},"
				" \"landlock\": {\"runner\": null, \"reason\": \"b\"}}");
	json_t *modes = parse("{\"read-only\": {\"runner\": null, \"reason\": \"x\", \"fix\": \"f\"}}");

	probe_explain(runners, modes);
	const char *instead = json_string_value(json_object_get(json_object_get(runners, "landlock"),
								"instead"));

	cr_assert(instead && strstr(instead, "none: no other runner can either"), "%s", instead);
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(modes, "read-only"), "fix")),
			 "f");
	json_decref(runners);
	json_decref(modes);
}
