/* SPDX-License-Identifier: MIT */
/* `sbx probe`: the kernel's facts in plain words, or as JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_options.h"
#include "probe.h"

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static bool flag(const json_t *o, const char *key)
{
	return json_is_true(json_object_get(o, key));
}

static void print_supervisor(const json_t *s)
{
	const json_t *allow = json_object_get(s, "unix_sockets");
	const json_t *cov = json_object_get(s, "covers");
	size_t i;
	json_t *v;

	if (flag(s, "available"))
		printf("supervisor: yes; landlock runner: %s; namespace runner: %s\n  listener "
		       "check: %s\n", str(cov, "landlock"), str(cov, "namespace"),
		       str(s, "listener_check"));
	else
		printf("supervisor: no: %s (needs %s)\n  without it: %s\n", str(s, "reason"),
		       str(s, "requires"), str(s, "without"));
	printf("  unix_sockets allow-list:");
	if (json_array_size(allow) == 0)
		printf(" (empty: only sockets a run made in its writable set)");
	json_array_foreach(allow, i, v)
		printf("%s %s", i ? "," : "", json_string_value(v));
	printf("\n");
}

static void print_text(const json_t *f)
{
	const json_t *u = json_object_get(f, "user_namespaces");
	const json_t *l = json_object_get(f, "landlock");
	const json_t *io = json_object_get(f, "io_uring");
	const json_t *sc = json_object_get(f, "seccomp");
	const json_t *m = json_object_get(f, "mount_api");
	const json_t *modes = json_object_get(f, "modes");

	if (flag(u, "available"))
		printf("user namespaces: yes (the namespace runner works here)\n");
	else
		printf("user namespaces: no: %s\n  fix: %s\n", str(u, "reason"), str(u, "fix"));
	if (json_integer_value(json_object_get(l, "abi")) > 0)
		printf("landlock: ABI %lld, enforcement %s: covers %s\n  gap: %s\n",
		       (long long)json_integer_value(json_object_get(l, "abi")), str(l, "enforcement"),
		       str(l, "covers"), str(l, "gap"));
	else
		printf("landlock: no: %s\n", str(l, "reason"));
	if (flag(io, "available"))
		printf("io_uring: yes (output is collected with io_uring)\n");
	else
		printf("io_uring: no: %s (output is collected with poll; same bytes)\n", str(io, "reason"));
	if (flag(sc, "available"))
		printf("seccomp: yes (TIOCSTI and TIOCLINUX are refused in confined modes)\n");
	else
		printf("seccomp: no: %s\n", str(sc, "reason"));
	printf("mount API: mount_setattr %s (read-only view by %s)\n",
	       flag(m, "mount_setattr") ? "yes" : "no", str(m, "read_only_view"));
	print_supervisor(json_object_get(f, "supervisor"));
	for (const char *const *mode = (const char *const[]){ "read-only", "workspace-write", NULL };
	     *mode; mode++) {
		const json_t *pick = json_object_get(modes, *mode);

		if (json_string_value(json_object_get(pick, "runner")))
			printf("%s: runner %s, enforcement %s\n", *mode, str(pick, "runner"),
			       str(pick, "enforcement"));
		else
			printf("%s: refused (SANDBOX_UNAVAILABLE): %s\n", *mode, str(pick, "reason"));
	}
	printf("danger-full-access: no runner (no confinement)\n");
	printf("network and process visibility are not restricted by the modes; --net none "
	       "gives a run loopback only\n");
}

int cli_probe(int argc, char **argv)
{
	bool json = false;
	const char *config = NULL;
	struct sbx_config cfg;
	struct sbx_error cerr = { 0 };
	json_t *facts, *allow;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0) {
			json = true;
		} else if (strcmp(argv[i], "--config") == 0 && i + 1 < argc) {
			config = argv[++i];
		} else {
			struct sbx_error err;

			sbx_error_set(&err, 0, SBX_E_USAGE, NULL, "unknown option '%s' (sbx probe [--json] [--config FILE])", argv[i]);
			return cli_fail(&err, false);
		}
	}
	if (cli_load_config(config, &cfg, &cerr) < 0)
		return cli_fail(&cerr, json);
	facts = probe_facts();
	if (!facts)
		return SBX_EXIT_FAILURE;
	/* The deployment's allow-list, as runs under this config get it. */
	allow = json_array();
	for (size_t i = 0; i < cfg.n_unix_sockets; i++)
		json_array_append_new(allow, json_string(cfg.unix_sockets[i]));
	json_object_set_new(json_object_get(facts, "supervisor"), "unix_sockets", allow);
	if (json) {
		char *s = json_dumps(facts, JSON_COMPACT | JSON_PRESERVE_ORDER);

		puts(s ? s : "{}");
		free(s);
	} else {
		print_text(facts);
	}
	json_decref(facts);
	return 0;
}
