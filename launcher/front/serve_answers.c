/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "classify.h"
#include "launcher.h"
#include "probe.h"
#include "serve_answers.h"

json_t *serve_capabilities_json(const struct sbx_config *cfg, const json_t *facts,
				unsigned max_background)
{
	enum sbx_mode mode = cfg->has_mode ? cfg->mode : SBX_MODE_READ_ONLY;

	return json_pack("{s:s, s:o, s:b, s:i, s:O}", "sandbox_mode", sbx_mode_name(mode),
			 "runners", probe_usable_runners(facts), "escalation",
			 cfg->has_escalation && cfg->escalation, "max_background",
			 (int)max_background, "probe", facts);
}

/* None when the deployment runs everything unconfined: there is nothing to
 * escalate from. */
json_t *serve_schema_json(const struct sbx_config *cfg)
{
	bool confined = !(cfg->has_mode && cfg->mode == SBX_MODE_DANGER_FULL_ACCESS);
	json_t *props = json_object();

	if (confined) {
		json_object_set_new(
			props, "sandbox_permissions",
			json_pack("{s:s, s:[s,s], s:s}", "type", "string", "enum", "workspace-write",
				  "danger-full-access", "description",
				  "Only after a sandbox denial: the narrowest wider mode that lets "
				  "this exact command succeed. The user is asked to approve it."));
		json_object_set_new(
			props, "justification",
			json_pack("{s:s, s:s}", "type", "string", "description",
				  "Why the command needs the wider mode, shown to the user in the "
				  "approval prompt."));
	}
	return json_pack("{s:s, s:o}", "type", "object", "properties", props);
}

json_t *serve_runner_failed_result(enum sbx_mode mode, const struct sbx_error *err)
{
	char markers[1024];
	size_t n = markers_build(markers, sizeof(markers), sbx_mode_name(mode), false, false, true);
	json_t *marker_list = json_array();

	if (n > 0 && markers[n - 1] == '\n')
		json_array_append_new(marker_list, json_stringn(markers, n - 1));
	return json_pack("{s:n, s:n, s:b, s:i, s:s, s:s, s:i, s:i, s:b, s:n, s:{s:s, s:b}, s:o, "
			 "s:s, s:o}",
			 "exit_code", "signal", "timed_out", 0, "duration_ms", 0, "stdout", "",
			 "stderr", "", "stdout_bytes", 0, "stderr_bytes", 0, "truncated", 0, "spill",
			 "sandbox", "mode", sbx_mode_name(mode), "denied", 0, "markers", marker_list,
			 "text", markers, "error", error_to_json_object(err));
}
