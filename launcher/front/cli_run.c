/* SPDX-License-Identifier: MIT */
/* `sbx run`: one command, streamed live or answered as one JSON object. */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_options.h"
#include "launcher.h"

/* Flags over config over defaults, through the same resolution serve uses. */
static int build_run(const struct cli_options *o, const struct sbx_config *cfg,
		     struct sbx_run *run, struct sbx_error *err)
{
	struct sbx_policy pol;
	struct sbx_session session = { .root = o->root, .has_mode = o->has_mode, .mode = o->mode };
	char cwd[PATH_MAX];
	int rc;

	if (!session.root && !cfg->has_workspace_root) {
		if (!getcwd(cwd, sizeof(cwd)))
			return sbx_error_set(err, errno, SBX_E_USAGE, NULL,
					     "unable to read the current directory: %s", strerror(errno));
		session.root = cwd;
	}
	/* A relative --root is taken from the current directory, as written:
	 * the launcher follows it (and refuses planted symlinks) itself. */
	if (session.root && session.root[0] != '/') {
		char here[PATH_MAX];

		if (!getcwd(here, sizeof(here)))
			return sbx_error_set(err, errno, SBX_E_USAGE, NULL,
					     "unable to read the current directory: %s", strerror(errno));
		if (snprintf(cwd, sizeof(cwd), "%s/%s", strcmp(here, "/") ? here : "", session.root) >=
		    (int)sizeof(cwd))
			return sbx_error_set(err, ENAMETOOLONG, SBX_E_USAGE, NULL, "root too long");
		session.root = cwd;
	}
	/* The deployment's ceiling, as for serve and mcp (new-user pass 10:
	 * only sbx run let the flag past it). */
	if (o->escalation && cfg->has_escalation && !cfg->escalation)
		return sbx_error_set(err, EPERM, SBX_E_CONFIG, NULL,
				     "--escalation: escalation is off in this deployment (config "
				     "escalation = false)");
	rc = policy_resolve(cfg, &session, NULL, &pol, err);
	if (rc < 0)
		return rc;
	if (o->has_runner)
		pol.runner = o->runner;
	if (o->has_timeout)
		pol.timeout_ms = o->timeout_ms;
	if (o->has_output_limit)
		pol.output_limit = o->output_limit;
	if (o->has_net)
		pol.net = o->net;
	if (o->escalation)
		pol.escalation = true;
	if (o->has_max_processes)
		pol.max_processes = o->max_processes;
	if (o->has_memory)
		pol.memory_limit = o->memory;
	if (o->has_file_size)
		pol.file_size_limit = o->file_size;

	rc = run_apply_policy(run, &pol, err);
	if (rc < 0)
		return rc;

	char *command = cli_join_command(o->command_argv, o->command_argc);

	if (!command)
		return sbx_error_set(err, ENOMEM, SBX_E_INTERNAL, NULL, "out of memory");
	rc = sbx_run_set_command(run, command);
	free(command);
	if (rc < 0)
		return sbx_error_set(err, -rc, SBX_E_USAGE, NULL, "unable to set the command: %s",
				     strerror(-rc));
	run->cwd_name = "--cwd";
	rc = sbx_run_set_landlock_abi(run, o->landlock_abi);
	if (rc == 0 && o->cwd)
		rc = sbx_run_set_cwd(run, o->cwd);
	if (rc == 0 && o->spill_dir)
		rc = sbx_run_set_spill_dir(run, o->spill_dir);
	if (rc < 0)
		return sbx_error_set(err, -rc, SBX_E_INTERNAL, NULL, "unable to set up the run: %s",
				     strerror(-rc));
	rc = sbx_run_set_syscalls_as_of(run, o->syscalls_as_of);
	if (rc < 0)
		return sbx_error_set(err, -rc, SBX_E_USAGE, NULL,
				     rc == -ENOSYS ? "--syscalls-as-of: no system call table for this "
						     "architecture (x86_64 and aarch64 have one)"
						   : "--syscalls-as-of: bad value '%s' (expected a kernel "
						     "release from 3.10 to 6.17, e.g. 5.4)",
				     o->syscalls_as_of);
	if (!o->json)
		sbx_run_set_passthrough(run, STDOUT_FILENO, STDERR_FILENO);
	return 0;
}

/* A root that came from the config's workspace_root, not from --root: say so,
 * or the user looks for the path on a command line that does not hold it. */
static void blame_config_root(const struct cli_options *o, const struct sbx_config *cfg,
			      struct sbx_error *err)
{
	size_t len = strlen(err->message);

	if (o->root || strcmp(err->code, SBX_E_USAGE) != 0)
		return;
	/* No --root and no workspace_root: the current directory was it. */
	if (!cfg->has_workspace_root && strncmp(err->message, "refusing root / ", 16) == 0) {
		snprintf(err->message + len, sizeof(err->message) - len,
			 " (the current directory: no --root was given)");
		return;
	}
	if (!cfg->has_workspace_root || strncmp(err->message, "root ", 5) != 0)
		return;
	snprintf(err->message + len, sizeof(err->message) - len,
		 " (the config's workspace_root; --root overrides it)");
}

/* Does the kept output of a stream end inside a line? */
static bool unterminated(const char *buf, size_t len)
{
	return len > 0 && buf[len - 1] != '\n';
}

/* The markers on stderr, each on a line of its own (CONTRACT section 2),
 * never inside what the command left: its last line is ended first (on a
 * terminal stdout's too, which shares the screen), and on a terminal an
 * escape sequence the command left open is cancelled (CAN) and the text
 * attributes and character set it set are reset (SGR 0, G0 ASCII, SI),
 * so that neither "conceal" nor a colour nor a swallowing OSC string can
 * hide sbx's line. Files and pipes get the bare lines. */
static void start_own_line(const struct sbx_result *result)
{
	size_t out_len, err_len;
	const char *out = sbx_result_stdout(result, &out_len);
	const char *err = sbx_result_stderr(result, &err_len);
	bool tty = isatty(STDERR_FILENO) == 1;

	if (tty)
		fputs("\030\033[0m\033(B\017", stderr);
	if (unterminated(err, err_len) ||
	    (tty && isatty(STDOUT_FILENO) == 1 && unterminated(out, out_len)))
		fputc('\n', stderr);
}

/* Without --json, what sbx put back after the run is said on stderr too:
 * a run that exited 0 carries no marker, and `sandbox.reverted` is in the
 * JSON result only, so the change would vanish unannounced. */
static void print_after(const struct sbx_result *result)
{
	const char *markers = sbx_result_markers(result);
	bool timed_out = sbx_result_timed_out(result);

	if (!markers[0] && !result->n_reverted && !timed_out)
		return;
	start_own_line(result);
	/* Exit 124 alone does not say who ended the command (new-user
	 * pass 5): --json has timed_out, the stream gets a line. */
	if (timed_out)
		fputs("sbx: the run timed out: every process of it was ended (exit 124; "
		      "--timeout or the config's timeout sets the limit)\n",
		      stderr);
	fputs(markers, stderr);
	if (!result->n_reverted)
		return;
	/* Not "this command changed": sbx cannot tell who wrote a file, and
	 * the user's own edit made while a run was live is put back too
	 * (new-user pass 9); the git rules also hold what an earlier run
	 * changed below the root (another root's tool cache in sbx's state). */
	fputs("[sandbox: put back after this run, as they were before it (protected paths "
	      "changed while a confined run of this root was live, by it or by you):",
	      stderr);
	for (size_t i = 0; i < result->n_reverted; i++) {
		char q[PATH_MAX * 4];

		/* Names the command chose, quoted: no marker or escape of its
		 * own after sbx's reset. */
		markers_quote_path(result->reverted[i], q, sizeof(q));
		fprintf(stderr, " %s", q);
	}
	if (result->reverted_more)
		fprintf(stderr, " and %zu more", result->reverted_more);
	fputs("]\n", stderr);
}

int cli_run(int argc, char **argv)
{
	struct cli_options o;
	struct sbx_config cfg;
	struct sbx_error err = { 0 };
	struct sbx_result *result = NULL;
	struct sbx_run *run;
	int status;

	/* A reader that goes away must not kill sbx before it reaps the tree. */
	signal(SIGPIPE, SIG_IGN);
	if (cli_parse_run(argc, argv, &o, &err) < 0)
		return cli_fail(&err, cli_wants_json(argc, argv));
	if (o.help) {
		cli_run_usage(stdout);
		return fflush(stdout) == EOF ? SBX_EXIT_FAILURE : 0;
	}
	if (cli_load_config(o.config, &cfg, &err) < 0)
		return cli_fail(&err, o.json);
	/* Only --json spills; its old spills are cleaned up when it starts. */
	if (o.json)
		sbx_spill_cleanup(cfg.spill_max_age_ms);
	run = sbx_run_new();
	if (!run) {
		sbx_error_set(&err, ENOMEM, SBX_E_INTERNAL, NULL, "out of memory");
		return cli_fail(&err, o.json);
	}
	int cancel_fd = cli_cancel_install();

	if (cancel_fd >= 0)
		sbx_run_set_cancel_fd(run, cancel_fd);
	/* The answer first; the run's last helper is reaped after it. */
	run->defer_reap = true;
	if (build_run(&o, &cfg, run, &err) < 0 || sbx_run_execute(run, &result, &err) < 0) {
		sbx_run_free(run);
		blame_config_root(&o, &cfg, &err);
		return cli_fail(&err, o.json);
	}
	sbx_run_free(run);
	status = sbx_result_exit_status(result);
	/* Cancelled from outside: sbx reports the signal it got, as a shell
	 * would for a process that signal ended. */
	if (sbx_result_cancelled(result) && cli_cancel_signal())
		status = 128 + cli_cancel_signal();
	if (o.json) {
		char *s = sbx_result_to_json(result);

		if (!s) {
			sbx_result_free(result);
			sbx_error_set(&err, ENOMEM, SBX_E_INTERNAL, NULL, "out of memory");
			return cli_fail(&err, false);
		}
		fputs(s, stdout);
		fputc('\n', stdout);
		free(s);
	} else {
		print_after(result);
	}
	sbx_result_free(result);
	if (fflush(stdout) == EOF && o.json)
		status = SBX_EXIT_FAILURE;
	fflush(stderr);
	reap_all();
	return status;
}
