/* SPDX-License-Identifier: MIT */
/* Credential stores that appear while a run is going (the user runs `gh auth
 * login` or `docker login` in another terminal while a long run or a serve
 * session's background task goes on) stay unreadable to it: a store made
 * where none was (its directory absent too, or present), and one a tool
 * replaced by writing a new file and renaming it over the old (as git's
 * credential store, npm and docker do), by a process outside the sandbox
 * after the command started, read by the command afterwards. What existed
 * before and is not a store stays readable. Both runners, as the caller
 * (root here) and as nobody, in both modes. */
#define RUN_FIXTURE_SUITE late_stores
#include "run_fixture.h"

#include <dirent.h>
#include <pthread.h>
#include <time.h>

/* Relative to the home (or, "X/...", to the moved XDG_CONFIG_HOME). */
static const char *const made[] = {
	".config/gh/hosts.yml",    /* ~/.config there, gh not */
	".netrc",                  /* straight in the home */
	".aws/credentials",        /* its directory made too */
	".local/share/keyrings/login.keyring", /* ~/.local/share absent */
	"X/gh/hosts.yml",          /* where XDG_CONFIG_HOME moves it */
};
static const char *const replaced[] = {
	".docker/config.json",
	".git-credentials",
	".cargo/credentials.toml",
};
/* Not stores, there before the run: still readable. */
static const char *const kept[] = { ".gitconfig", ".config/git/config", ".cargo/config.toml" };

struct outside {
	struct fx *f;
	char *xdg, *token;
	enum e2e_user who;
	int err; /* what went wrong outside, 0 if nothing */
	bool started;
};

static char *place(struct outside *o, const char *rel)
{
	return rel[0] == 'X' ? e2e_fmt("%s%s", o->xdg, rel + 1) : e2e_fmt("%s/%s", o->f->home, rel);
}

/* mkdir -p of path's directories, then path with content, as who. */
static int write_as(enum e2e_user who, const char *path, const char *content)
{
	char *d = strdup(path);

	for (char *s = strchr(d + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (!e2e_exists(d) && e2e_mkdir(who, d) != 0)
			return -1;
		*s = '/';
	}
	free(d);
	return e2e_write_file(who, path, content);
}

/* The command's bash (argv "bash -c ...token...") is running: its view is
 * built. sbx's own argv holds the token too, but not as bash's. */
static bool command_running(const char *token)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	bool found = false;

	while (d && !found && (e = readdir(d))) {
		char buf[4096];
		int fd;
		ssize_t n;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		fd = open(e2e_fmt("/proc/%s/cmdline", e->d_name), O_RDONLY | O_CLOEXEC);
		n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
		if (fd >= 0)
			close(fd);
		if (n <= 8)
			continue;
		buf[n] = '\0';
		found = strcmp(buf, "bash") == 0 && strcmp(buf + 5, "-c") == 0 &&
			memmem(buf, (size_t)n, token, strlen(token)) != NULL;
	}
	if (d)
		closedir(d);
	return found;
}

/* The user's other terminal: once the command runs, the stores appear and
 * the old ones are replaced, then the command is told to go on. */
static void *outside_main(void *arg)
{
	struct outside *o = arg;
	struct timespec pause = { 0, 20 * 1000 * 1000 };

	for (int i = 0; i < 1500 && !command_running(o->token); i++)
		nanosleep(&pause, NULL);
	o->started = command_running(o->token);
	for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++)
		if (write_as(o->who, place(o, made[i]), e2e_fmt("SECRET new %s\n", made[i])) != 0)
			o->err = errno ? errno : EIO;
	for (size_t i = 0; i < sizeof(replaced) / sizeof(replaced[0]); i++) {
		char *p = place(o, replaced[i]), *tmp = e2e_fmt("%s.tmp", p);

		if (e2e_write_file(o->who, tmp, e2e_fmt("SECRET new %s\n", replaced[i])) != 0 ||
		    rename(tmp, p) != 0)
			o->err = errno ? errno : EIO;
	}
	if (e2e_write_file(o->who, e2e_fmt("%s/go", o->f->ws), "") != 0)
		o->err = errno ? errno : EIO;
	return NULL;
}

PARAMS(appearing_stores_unreadable, params_both);
ParameterizedTest(struct rp *p, late_stores, appearing_stores_unreadable, .timeout = 300)
{
	static const char *const modes[] = { "read-only", "workspace-write" };
	struct fx f;

	fx_setup(&f, p);
	char *xdg = e2e_fmt("%s/xdg-config", f.base);

	cr_assert(e2e_mkdir(p->who, xdg) == 0 && e2e_mkdir(p->who, e2e_fmt("%s/.config", f.home)) == 0);
	for (size_t m = 0; m < 2; m++) {
		struct outside o = { .f = &f, .xdg = xdg, .who = p->who,
				     .token = e2e_fmt("late-%d-%zu", (int)getpid(), m) };
		char *cmd = e2e_fmt("until [ -e go ]; do sleep 0.02; done; : %s", o.token);
		struct e2e_out out;
		pthread_t t;

		/* the run starts with the old stores, no new ones, no go */
		for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++)
			e2e_rm_rf(place(&o, made[i]));
		e2e_rm_rf(e2e_fmt("%s/.config/gh", f.home));
		e2e_rm_rf(e2e_fmt("%s/.aws", f.home));
		e2e_rm_rf(e2e_fmt("%s/.local", f.home));
		e2e_rm_rf(e2e_fmt("%s/gh", xdg));
		unlink(e2e_fmt("%s/go", f.ws));
		for (size_t i = 0; i < sizeof(replaced) / sizeof(replaced[0]); i++)
			cr_assert(write_as(p->who, place(&o, replaced[i]),
					   e2e_fmt("SECRET old %s\n", replaced[i])) == 0);
		for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
			cr_assert(write_as(p->who, place(&o, kept[i]), e2e_fmt("KEPT %s\n", kept[i])) == 0);
		for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++)
			cmd = e2e_fmt("%s; cat '%s'", cmd, place(&o, made[i]));
		for (size_t i = 0; i < sizeof(replaced) / sizeof(replaced[0]); i++)
			cmd = e2e_fmt("%s; cat '%s'", cmd, place(&o, replaced[i]));
		for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
			cmd = e2e_fmt("%s; cat '%s'", cmd, place(&o, kept[i]));
		cmd = e2e_fmt("%s; echo end", cmd);

		char *argv[] = { (char *)e2e_sbx(), "run", "--config", f.conf, "--runner", f.p.runner,
				 "--mode", (char *)modes[m], "--root", f.ws, "--", cmd, NULL };
		char *env[] = { e2e_fmt("HOME=%s", f.home), e2e_fmt("XDG_CONFIG_HOME=%s", xdg), NULL };

		cr_assert(pthread_create(&t, NULL, outside_main, &o) == 0);
		e2e_run(p->who, argv, env, &out);
		pthread_join(t, NULL);
		cr_assert(o.started && !o.err, "%s %s: the outside's part failed (%s)", f.tag, modes[m],
			  strerror(o.err));
		/* they are there, outside */
		for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++) {
			char *got = e2e_read_file(place(&o, made[i]));

			cr_assert(got && strncmp(got, "SECRET new", 10) == 0, "%s %s", f.tag, made[i]);
		}
		cr_assert(strstr(out.out, "end\n"), "%s %s: the command did not finish:\n%s\n%s", f.tag,
			  modes[m], out.out, out.err);
		cr_expect(!strstr(out.out, "SECRET new"), "%s %s: a store that appeared during the run "
			  "was read:\n%s", f.tag, modes[m], out.out);
		for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
			cr_expect(strstr(out.out, e2e_fmt("KEPT %s\n", kept[i])),
				  "%s %s: %s, there before, unreadable:\n%s\n%s", f.tag, modes[m],
				  kept[i], out.out, out.err);
		e2e_out_free(&out);
	}
}
