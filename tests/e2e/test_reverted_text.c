/* SPDX-License-Identifier: MIT */
/* Without --json, what sbx put back after a run is said on stderr: a run
 * that exited 0 has no marker, and `sandbox.reverted` is in the JSON result
 * only, so a protected path the command made (.envrc, a git hook) vanished
 * with nothing said. The file is checked on disk, the line on stderr, and a
 * run that changed nothing protected says nothing. Both runners, as the
 * caller and as nobody. */
#define RUN_FIXTURE_SUITE reverted_text
#include "run_fixture.h"
#include "classify.h"
#include <jansson.h>

#define SAID "[sandbox: put back after this run, as they were before it (protected paths changed while a confined run of this root was live, by it or by you):"

static int run_plain(struct fx *f, const char *cmd, struct e2e_out *o)
{
	char *argv[] = { (char *)e2e_sbx(), "run", "--config", f->conf, "--runner", f->p.runner,
			 "--mode", "workspace-write", "--root", f->ws, "--", (char *)cmd, NULL };
	char *env[] = { e2e_fmt("HOME=%s", f->home), NULL };

	return e2e_run(f->p.who, argv, env, o);
}

PARAMS(said_on_stderr, params_both);
ParameterizedTest(struct rp *p, reverted_text, said_on_stderr, .timeout = 120)
{
	struct fx f;
	struct e2e_out o;
	char *envrc;

	fx_setup(&f, p);
	envrc = e2e_fmt("%s/.envrc", f.ws);
	/* The last stderr line unterminated: sbx's line still starts its own. */
	int status = run_plain(&f, "echo 'export X=1' > .envrc; printf partial >&2", &o);

	cr_assert_eq(status, 0, "%s exit %d: %s", f.tag, status, o.err);
	cr_assert(!e2e_exists(envrc), "%s .envrc stayed on disk", f.tag);
	cr_assert(strstr(o.err, "partial\n" SAID " .envrc]\n"),
		  "%s no line of what was put back on stderr:\n%s", f.tag, o.err);
	cr_assert(!strstr(o.out, "[sandbox"), "%s stdout: %s", f.tag, o.out);
	e2e_out_free(&o);

	status = run_plain(&f, "echo kept > notes.txt", &o);
	cr_assert_eq(status, 0, "%s exit %d: %s", f.tag, status, o.err);
	cr_assert_str_eq(o.err, "", "%s a run that changed nothing protected said: %s", f.tag, o.err);
	e2e_out_free(&o);
}

/* The names in that line are the command's choice (adversarial pass 3,
 * finding 01): a directory whose name held a newline and the escalation
 * marker, with a repository and a hook in it, made sbx's own line carry a
 * bare marker after sbx's terminal reset, for a run that printed nothing.
 * Every byte but printable ASCII is written \xNN; the path on disk is
 * still the one put back. */
PARAMS(names_quoted, params_both);
ParameterizedTest(struct rp *p, reverted_text, names_quoted, .timeout = 120)
{
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	int status = run_plain(&f,
			       "d=$(printf 'x\\n%s\\n\\033[2Ky' '" MARKER_ESCALATION "'); "
			       "mkdir -p \"$d\" && git init -q \"$d\" && "
			       "echo '#!/bin/sh' > \"$d/.git/hooks/post-checkout\"",
			       &o);

	cr_assert_eq(status, 0, "%s exit %d: %s", f.tag, status, o.err);
	cr_assert(strstr(o.err, SAID), "%s nothing said of what was put back:\n%s", f.tag, o.err);
	cr_assert(!strstr(o.err, "\n" MARKER_ESCALATION), "%s a bare marker in sbx's line:\n%s",
		  f.tag, o.err);
	cr_assert(!strchr(o.err, '\033'), "%s an escape of the command's in sbx's line:\n%s", f.tag,
		  o.err);
	cr_assert(strstr(o.err, " x\\x0a\\x5bsandbox: escalation available \\xe2\\x80\\x94 retry"),
		  "%s the name not quoted as \\xNN:\n%s", f.tag, o.err);
	e2e_out_free(&o);
}

/* What a shell, a login or a session runs from $HOME, beyond the rc files
 * (adversarial pass 3b, finding 04: with the root at $HOME, Debian's
 * .bashrc sourced the .bash_aliases a run wrote, and the user's next
 * interactive bash ran it; fish's config, systemd user units, autostart
 * entries, X session scripts and ~/.local/bin/git the same way). Gone
 * after the run, under both runners. */
PARAMS(startup_files_put_back, params_both);
ParameterizedTest(struct rp *p, reverted_text, startup_files_put_back, .timeout = 120)
{
	static const char *const made[] = { ".bash_aliases", ".config/fish/config.fish",
					    ".config/systemd/user/x.service",
					    ".config/autostart/x.desktop", ".xprofile", ".xsessionrc",
					    ".local/bin/git" };
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	int status = run_plain(&f,
			       "mkdir -p .config/fish .config/systemd/user .config/autostart "
			       ".local/bin && for f in .bash_aliases .config/fish/config.fish "
			       ".config/systemd/user/x.service .config/autostart/x.desktop "
			       ".xprofile .xsessionrc .local/bin/git; do echo 'id' > $f; done; "
			       "mkdir -p src && echo kept > src/a",
			       &o);

	cr_assert_eq(status, 0, "%s exit %d: %s", f.tag, status, o.err);
	for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++)
		cr_expect(!e2e_exists(e2e_fmt("%s/%s", f.ws, made[i])), "%s %s stayed on disk",
			  f.tag, made[i]);
	cr_expect(e2e_exists(e2e_fmt("%s/src/a", f.ws)), "%s the run's own file went", f.tag);
	e2e_out_free(&o);
}

/* More paths put back than the result lists (16): the rest was dropped in
 * silence (adversarial pass 7, finding 06). Every one is gone from disk,
 * and both the JSON result and the line on stderr count the rest. */
PARAMS(more_than_listed_counted, params_both);
ParameterizedTest(struct rp *p, reverted_text, more_than_listed_counted, .timeout = 120)
{
	static const char *const made[] = {
		".envrc", ".gitmodules", ".mcp.json", ".bashrc", ".bash_profile", ".bash_login",
		".bash_logout", ".profile", ".zshrc", ".zshenv", ".zprofile", ".zlogin",
		".bash_aliases", ".xprofile", ".xsessionrc", ".nvim.lua", ".lazy.lua", ".exrc",
		".nvimrc", "mise.toml",
	};
	const size_t n = sizeof(made) / sizeof(made[0]);
	char *cmd = strdup("touch");
	struct fx f;
	struct e2e_out o;

	for (size_t i = 0; i < n; i++)
		cmd = e2e_fmt("%s %s", cmd, made[i]);
	fx_setup(&f, p);
	run_plain(&f, cmd, &o);
	cr_expect(strstr(o.err, e2e_fmt(" and %zu more]\n", n - 16)), "%s stderr: %s", f.tag, o.err);
	e2e_out_free(&o);
	for (size_t i = 0; i < n; i++)
		cr_expect(!e2e_exists(e2e_fmt("%s/%s", f.ws, made[i])), "%s %s stayed", f.tag,
			  made[i]);

	run_x(&f, "workspace-write", NULL, cmd, &o);
	json_t *j = json_loads(o.out, 0, NULL);
	json_t *sb = json_object_get(j, "sandbox");

	cr_expect(json_array_size(json_object_get(sb, "reverted")) == 16, "%s %s", f.tag, o.out);
	cr_expect(json_integer_value(json_object_get(sb, "reverted_more")) == (json_int_t)(n - 16),
		  "%s reverted_more: %s", f.tag, o.out);
	json_decref(j);
	e2e_out_free(&o);
}
