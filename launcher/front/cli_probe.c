/* SPDX-License-Identifier: MIT */
/* `sbx probe`: the kernel's facts in plain words, or as JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_options.h"
#include "output.h"
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

static void print_limits(const json_t *lim)
{
	const json_t *c = json_object_get(lim, "cgroup");

	printf("limits: %lld processes per run by default, /dev/shm of %lld bytes (namespace runner)\n",
	       (long long)json_integer_value(json_object_get(lim, "default_max_processes")),
	       (long long)json_integer_value(json_object_get(lim, "default_tmp_size")));
	if (json_is_object(c))
		printf("  a cgroup per run: %s %s (pids.max%s)\n", str(c, "version"), str(c, "dir"),
		       flag(c, "memory") ? ", memory.max" : "");
	else
		printf("  no cgroup per run: %s\n", str(lim, "cgroup_reason"));
	if (!flag(lim, "rlimit_nproc_holds_caller"))
		printf("  root is exempt from RLIMIT_NPROC: without a cgroup its runs have no "
		       "process limit\n");
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
	else if (strstr(str(s, "reason"), "which has it"))
		/* the kernel has what it needs: a filter hides it */
		printf("supervisor: no: %s\n  without it: %s\n", str(s, "reason"), str(s, "without"));
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

/* "  fix: ..." under a missing piece, when there is one. */
static void print_fix(const json_t *o)
{
	if (*str(o, "fix"))
		printf("  fix: %s\n", str(o, "fix"));
}

static void print_text(const json_t *f)
{
	const json_t *u = json_object_get(f, "user_namespaces");
	const json_t *l = json_object_get(f, "landlock");
	const json_t *io = json_object_get(f, "io_uring");
	const json_t *sc = json_object_get(f, "seccomp");
	const json_t *m = json_object_get(f, "mount_api");
	const json_t *runners = json_object_get(f, "runners");
	const json_t *modes = json_object_get(f, "modes");
	const json_t *rc = json_object_get(f, "root_caller");
	const json_t *keeps = json_object_get(rc, "keeps");

	printf("sbx %s\n", str(f, "version"));
	if (flag(u, "available"))
		printf("user namespaces: yes\n");
	else
		printf("user namespaces: no: %s\n", str(u, "reason"));
	print_fix(u);
	if (json_integer_value(json_object_get(l, "abi")) > 0)
		printf("landlock: ABI %lld, enforcement %s: covers %s\n  scopes: %s\n  gap: %s\n",
		       (long long)json_integer_value(json_object_get(l, "abi")), str(l, "enforcement"),
		       str(l, "covers"), str(l, "scopes"), str(l, "gap"));
	else
		printf("landlock: no: %s\n", str(l, "reason"));
	print_fix(l);
	if (flag(io, "available"))
		printf("io_uring: yes (sbx serve and sbx mcp collect output with it; sbx run with "
		       "poll, cheaper for one command; SBX_COLLECTOR picks)\n");
	else
		printf("io_uring: no: %s (output is collected with poll; same bytes)\n", str(io, "reason"));
	print_fix(io);
	if (flag(sc, "available") && json_string_value(json_object_get(sc, "refuses")))
		printf("seccomp: yes; refused to confined commands: %s; under the landlock "
		       "runner also %s\n", str(sc, "refuses"), str(sc, "refuses_landlock"));
	else if (flag(sc, "available"))
		printf("seccomp: yes, but this build has no filter (CONFIG_SECCOMP=n): setuid bits, "
		       "keyrings, nested mounts and dnotify are not refused\n");
	else
		printf("seccomp: no: %s\n", str(sc, "reason"));
	if (json_array_size(keeps) && flag(rc, "applies")) {
		printf("root caller: keeps ");
		for (size_t i = 0; i < json_array_size(keeps); i++)
			printf("%s%s", i ? ", " : "", json_string_value(json_array_get(keeps, i)));
		printf(" and nothing else (%s); identity map: %s\n", str(rc, "why"),
		       str(rc, "identity_map"));
	}
	printf("mount API: mount_setattr %s (read-only view by %s)\n",
	       flag(m, "mount_setattr") ? "yes" : "no", str(m, "read_only_view"));
	print_supervisor(json_object_get(f, "supervisor"));
	for (const char *const *name = (const char *const[]){ "namespace", "landlock", NULL };
	     *name; name++) {
		const json_t *r = json_object_get(runners, *name);

		if (json_string_value(json_object_get(r, "runner")))
			printf("%s runner: yes, enforcement %s\n", *name, str(r, "enforcement"));
		else
			printf("%s runner: no: %s\n", *name, str(r, "reason"));
		print_fix(r);
		if (*str(r, "instead"))
			printf("  instead: %s\n", str(r, "instead"));
	}
	for (const char *const *mode = (const char *const[]){ "read-only", "workspace-write", NULL };
	     *mode; mode++) {
		const json_t *pick = json_object_get(modes, *mode);

		if (!pick)
			printf("%s: not tried (no temporary directory for a trial root)\n", *mode);
		else if (json_string_value(json_object_get(pick, "runner")))
			printf("%s: runner %s, enforcement %s, processes %s\n", *mode,
			       str(pick, "runner"), str(pick, "enforcement"), str(pick, "processes"));
		else
			printf("%s: refused (SANDBOX_UNAVAILABLE): %s\n", *mode, str(pick, "reason"));
		print_fix(pick);
	}
	printf("danger-full-access: no runner (no confinement)\n");
	print_limits(json_object_get(f, "limits"));
	printf("network is not restricted by the modes (--net none gives a run loopback only); "
	       "processes: \"private\" means the run sees and signals only its own\n");
}

static const char probe_usage[] =
	"usage: sbx probe [--json] [--config FILE]\n"
	"What this kernel offers (user namespaces, Landlock, io_uring, seccomp, the mount\n"
	"API) and which runner and enforcement each confined mode would get here.\n\n"
	"Options:\n"
	"  --json               the same facts as one JSON object\n"
	"  --config FILE        the config whose unix_sockets allow-list to show\n"
	"                       (default: $SBX_CONFIG, /etc/sbx.conf)\n"
	"  --help               print this help and exit\n";

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
		} else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(probe_usage, stdout);
			return fflush(stdout) == EOF ? SBX_EXIT_FAILURE : 0;
		} else if (strcmp(argv[i], "--config") == 0 && i + 1 < argc) {
			config = argv[++i];
		} else {
			struct sbx_error err;

			sbx_error_set(&err, 0, SBX_E_USAGE, NULL, "unknown option '%s' (sbx probe --help lists them)", argv[i]);
			return cli_fail(&err, cli_wants_json(argc, argv));
		}
	}
	/* A bad SBX_COLLECTOR refuses every run, probe's trial runs too: said
	 * as what it is, not as runners that do not work. */
	if (cli_load_config(config, &cfg, &cerr) < 0 || loop_collector_check(&cerr) < 0)
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
