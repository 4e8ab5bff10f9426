/* SPDX-License-Identifier: MIT */
/* A HOME in the host's /tmp, as many CI containers have (new-user pass,
 * issue 32): the namespace runner gives a workspace-write run a /tmp of its
 * own, and the home vanished with the host's /tmp (`ls -d ~` failed, git
 * found no identity). It is brought into the run's /tmp now, read-only,
 * with its credential stores and sbx's state covered as in any home; the
 * landlock runner still refuses such a run. As the caller and as nobody;
 * every effect is checked on disk from outside. */
#define RUN_FIXTURE_SUITE home_in_tmp
#include "run_fixture.h"

#include <sched.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/wait.h>

/* DIR/sbx-e2e-WHAT-PID-N-WHO: a path of this test's own in a shared
 * directory (the host's /tmp or /dev/shm), removed if it is there. */
static char *unique_in(const char *dir, const char *what, enum e2e_user who)
{
	static unsigned seq;
	char *path = e2e_fmt("%s/sbx-e2e-%s-%d-%u-%s", dir, what, (int)getpid(), seq++,
			     e2e_user_name(who));

	e2e_rm_rf(path);
	return path;
}

/* A home at /tmp/sbx-e2e-home-PID-N-WHO, made as who: a git identity, an
 * ssh key with its known_hosts and public key, an AWS login, and a file in
 * sbx's state directory there. f->home names it (run_x's HOME). */
static void tmp_home(struct fx *f)
{
	const char *dirs[] = { "", "/.ssh", "/.aws", "/.cache", "/.cache/sbx" };

	f->home = unique_in("/tmp", "home", f->p.who);
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		cr_assert(e2e_mkdir(f->p.who, e2e_fmt("%s%s", f->home, dirs[i])) == 0, "mkdir %s%s",
			  f->home, dirs[i]);
	cr_assert(chmod(e2e_fmt("%s/.cache/sbx", f->home), 0700) == 0);
	cr_assert(e2e_write_file(f->p.who, e2e_fmt("%s/.gitconfig", f->home),
				 "[user]\n\tname = Home In Tmp\n") == 0);
	cr_assert(e2e_write_file(f->p.who, e2e_fmt("%s/.ssh/id_rsa", f->home), "SECRET key\n") == 0);
	cr_assert(e2e_write_file(f->p.who, e2e_fmt("%s/.ssh/known_hosts", f->home),
				 "KNOWN host\n") == 0);
	cr_assert(e2e_write_file(f->p.who, e2e_fmt("%s/.ssh/id_rsa.pub", f->home),
				 "PUBLIC key\n") == 0);
	cr_assert(e2e_write_file(f->p.who, e2e_fmt("%s/.aws/credentials", f->home),
				 "SECRET aws\n") == 0);
	cr_assert(e2e_write_file(f->p.who, e2e_fmt("%s/.cache/sbx/other-run", f->home),
				 "SECRET state\n") == 0);
}

static bool has(const struct e2e_out *o, const char *s)
{
	return strstr(o->out, s) != NULL;
}

/* (1) ~ is there, and what reads its settings finds them. */
PARAMS(home_visible, params_ns);
ParameterizedTest(struct rp *p, home_in_tmp, home_visible, .timeout = 120)
{
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	tmp_home(&f);
	run_x(&f, "workspace-write", NULL, "ls -d ~ && cat ~/.gitconfig && git config user.name", &o);
	cr_expect(exit_code(&o) == 0 && has(&o, "Home In Tmp\\n\"") && has(&o, "name = Home In Tmp"),
		  "%s ~ or its git identity missing: %s\n%s", f.tag, o.out, o.err);
	e2e_out_free(&o);
	e2e_rm_rf(f.home);
}

/* (2) Nothing of it is writable, a mount inside it included (a tmpfs that
 * anyone may write, mounted in a mount namespace of this test's own, which
 * sbx inherits). old_kernel: without mount_setattr (before 5.12), where the
 * home is bound after every mount was made read-only. */
static void check_read_only(const struct rp *p, bool old_kernel)
{
	struct fx f;
	struct e2e_out o;
	struct stat before, after;

	fx_setup(&f, p);
	tmp_home(&f);
	char *mnt = e2e_fmt("%s/mnt", f.home);

	cr_assert(e2e_mkdir(p->who, mnt) == 0);
	cr_assert(unshare(CLONE_NEWNS) == 0, "unshare: %s", strerror(errno));
	cr_assert(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0);
	cr_assert(mount("tmpfs", mnt, "tmpfs", 0, "mode=1777,size=1m") == 0, "mount: %s",
		  strerror(errno));
	cr_assert(stat(f.home, &before) == 0);
	char *cmd = "touch ~/new; echo changed > ~/.gitconfig; echo x >> ~/.ssh/known_hosts; "
		    "mv ~/.gitconfig ~/moved; rm -f ~/.ssh/id_rsa.pub; rm -rf ~/.aws; mkdir ~/dir; "
		    "chmod 700 ~; touch ~/mnt/inside; touch ~/.cache/sbx/planted; echo end";
	char *argv[] = { (char *)e2e_helper("nofeature"), "mount_setattr", "--", (char *)e2e_sbx(),
			 "run", "--json", "--config", f.conf, "--runner", "namespace", "--mode",
			 "workspace-write", "--root", f.ws, "--", cmd, NULL };
	char *env[] = { e2e_fmt("HOME=%s", f.home), NULL };

	if (old_kernel)
		e2e_run(p->who, argv, env, &o);
	else
		run_x(&f, "workspace-write", NULL, cmd, &o);
	cr_expect(exit_code(&o) == 0 && has(&o, "end"), "%s did not run: %s\n%s", f.tag, o.out,
		  o.err);
	cr_expect(has(&o, "Read-only file system"), "%s no EROFS: %s", f.tag, o.out);
	e2e_out_free(&o);
	char *gitconfig = e2e_read_file(e2e_fmt("%s/.gitconfig", f.home));
	char *known = e2e_read_file(e2e_fmt("%s/.ssh/known_hosts", f.home));

	cr_expect(gitconfig && strcmp(gitconfig, "[user]\n\tname = Home In Tmp\n") == 0,
		  "%s ~/.gitconfig changed: %s", f.tag, gitconfig);
	cr_expect(known && strcmp(known, "KNOWN host\n") == 0, "%s known_hosts changed: %s", f.tag,
		  known);
	cr_expect(!e2e_exists(e2e_fmt("%s/new", f.home)), "%s ~/new made", f.tag);
	cr_expect(!e2e_exists(e2e_fmt("%s/moved", f.home)), "%s ~/.gitconfig renamed", f.tag);
	cr_expect(!e2e_exists(e2e_fmt("%s/dir", f.home)), "%s ~/dir made", f.tag);
	cr_expect(e2e_exists(e2e_fmt("%s/.ssh/id_rsa.pub", f.home)), "%s id_rsa.pub removed", f.tag);
	cr_expect(e2e_exists(e2e_fmt("%s/.aws/credentials", f.home)), "%s ~/.aws removed", f.tag);
	cr_expect(!e2e_exists(e2e_fmt("%s/inside", mnt)), "%s the mount inside ~ was written",
		  f.tag);
	cr_expect(!e2e_exists(e2e_fmt("%s/.cache/sbx/planted", f.home)),
		  "%s sbx's state was written", f.tag);
	cr_assert(stat(f.home, &after) == 0);
	cr_expect(before.st_mode == after.st_mode, "%s ~'s mode changed: %o", f.tag,
		  after.st_mode & 07777);
	umount(mnt);
	e2e_rm_rf(f.home);
}

PARAMS(home_read_only, params_ns);
ParameterizedTest(struct rp *p, home_in_tmp, home_read_only, .timeout = 120)
{
	check_read_only(p, false);
}

PARAMS(home_read_only_without_mount_setattr, params_ns);
ParameterizedTest(struct rp *p, home_in_tmp, home_read_only_without_mount_setattr, .timeout = 120)
{
	check_read_only(p, true);
}

/* (3) Its credential stores are hidden, what a hidden ~/.ssh keeps readable
 * is shown; (4) sbx's state there is hidden. Read-only mode as before. */
PARAMS(home_stores_hidden, params_ns);
ParameterizedTest(struct rp *p, home_in_tmp, home_stores_hidden, .timeout = 120)
{
	static const char *const modes[] = { "workspace-write", "read-only" };
	struct fx f;

	fx_setup(&f, p);
	tmp_home(&f);
	for (size_t m = 0; m < 2; m++) {
		struct e2e_out o;

		run_x(&f, modes[m], NULL,
		      "cat ~/.ssh/id_rsa ~/.aws/credentials ~/.cache/sbx/other-run; "
		      "ls -a ~/.cache/sbx; cat ~/.ssh/known_hosts ~/.ssh/id_rsa.pub; echo end",
		      &o);
		cr_expect(exit_code(&o) != -1 && has(&o, "end"), "%s %s did not run: %s\n%s", f.tag,
			  modes[m], o.out, o.err);
		cr_expect(!has(&o, "SECRET") && !has(&o, "other-run\\n"),
			  "%s %s a hidden path was readable: %s", f.tag, modes[m], o.out);
		cr_expect(has(&o, "KNOWN host") && has(&o, "PUBLIC key"),
			  "%s %s known_hosts or the public key not shown: %s", f.tag, modes[m], o.out);
		e2e_out_free(&o);
	}
	e2e_rm_rf(f.home);
}

/* A watch on ~ would name ~/.netrc each time the user's tools use it (its
 * contents hidden): refused there as in any home. With more entries than
 * the view shows as they were (1024), ~ is the host's directory itself, and
 * the supervisor took all of /tmp for the run's own. The user reads
 * ~/.netrc meanwhile (a watch of the test's own shows it). */
PARAMS(home_folder_unwatchable, params_ns);
ParameterizedTest(struct rp *p, home_in_tmp, home_folder_unwatchable, .timeout = 120)
{
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	tmp_home(&f);
	char *netrc = e2e_fmt("%s/.netrc", f.home), *tool = helper(&f, "sidedoor");

	cr_assert(e2e_write_file(p->who, netrc, "machine x\n") == 0);
	for (int i = 0; i < 1100; i++)
		cr_assert(e2e_write_file(p->who, e2e_fmt("%s/entry-%d", f.home, i), "") == 0);
	int control = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);

	cr_assert(control >= 0 && inotify_add_watch(control, f.home, IN_OPEN | IN_ACCESS) >= 0);
	pid_t user = fork();

	cr_assert(user >= 0);
	if (user == 0) {
		for (;;) {
			char got[16];
			int fd = open(netrc, O_RDONLY | O_CLOEXEC);

			if (fd < 0 || read(fd, got, sizeof(got)) <= 0)
				_exit(1);
			close(fd);
			usleep(10000);
		}
	}
	run_x(&f, "workspace-write", NULL, e2e_fmt("%s watchdir ~ .netrc", tool), &o);
	kill(user, SIGKILL);
	waitpid(user, NULL, 0);
	char buf[8192] __attribute__((aligned(8)));
	ssize_t r = read(control, buf, sizeof(buf));

	cr_assert(r > 0, "%s .netrc was not used while the command ran", f.tag);
	cr_expect(has(&o, "NAME_EVENTS=0\\n") && has(&o, "IN_DIR=13\\n"),
		  "%s the command watched ~ (EACCES expected): %s\n%s", f.tag, o.out, o.err);
	e2e_out_free(&o);
	close(control);
	e2e_rm_rf(f.home);
}

/* A root inside that home (cd ~/project): the root is the command's to
 * write, the rest of the home is not. */
PARAMS(root_inside_home, params_ns);
ParameterizedTest(struct rp *p, home_in_tmp, root_inside_home, .timeout = 120)
{
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	tmp_home(&f);
	f.ws = e2e_fmt("%s/project", f.home);
	cr_assert(e2e_mkdir(p->who, f.ws) == 0);
	run_x(&f, "workspace-write", NULL,
	      "echo made > ~/project/made; touch ~/outside; git config user.name; cat ~/.ssh/id_rsa",
	      &o);
	cr_expect(has(&o, "Home In Tmp") && !has(&o, "SECRET"), "%s %s\n%s", f.tag, o.out, o.err);
	e2e_out_free(&o);
	cr_expect(e2e_exists(e2e_fmt("%s/made", f.ws)), "%s the root was not writable", f.tag);
	cr_expect(!e2e_exists(e2e_fmt("%s/outside", f.home)), "%s the home was writable", f.tag);
	e2e_rm_rf(f.home);
}

/* A write the read-only home refused is the sandbox's, marked as any other
 * (new-user pass 6, finding 3: it was taken for one in the run's own /tmp,
 * where the sandbox refuses nothing, and the failed run was not denied);
 * one that fails in the run's own /tmp for a cause of its own is not. */
PARAMS(refusal_in_home_is_a_denial, params_ns);
ParameterizedTest(struct rp *p, home_in_tmp, refusal_in_home_is_a_denial, .timeout = 120)
{
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	tmp_home(&f);
	run_x(&f, "workspace-write", NULL, "touch ~/h1", &o);
	cr_expect(exit_code(&o) != 0 && has(&o, "\"denied\":true") &&
			  has(&o, "[sandbox: file access denied under workspace-write mode]"),
		  "%s a refused write in ~ not marked: %s", f.tag, o.out);
	cr_expect(!e2e_exists(e2e_fmt("%s/h1", f.home)), "%s ~/h1 was made", f.tag);
	e2e_out_free(&o);
	run_x(&f, "workspace-write", NULL, "touch /tmp/no-such-dir/x", &o);
	cr_expect(exit_code(&o) != 0 && has(&o, "\"denied\":false"),
		  "%s a failure in the run's own /tmp marked: %s", f.tag, o.out);
	e2e_out_free(&o);
	e2e_rm_rf(f.home);
}

/* (5) The landlock runner, which grants the host's /tmp whole, still
 * refuses: sbx's state (and the stores) there cannot be hidden. */
static struct rp params_ll[] = {
	{ "landlock", AS_CALLER },
	{ "landlock", AS_NOBODY },
};

PARAMS(landlock_refuses, params_ll);
ParameterizedTest(struct rp *p, home_in_tmp, landlock_refuses, .timeout = 120)
{
	struct fx f;
	struct e2e_out o;

	e2e_require_runner(p->who, p->runner);
	fx_setup(&f, p);
	tmp_home(&f);
	int rc = run_x(&f, "workspace-write", NULL, e2e_fmt("touch %s/ran", f.ws), &o);

	cr_expect(rc == 125 && strstr(o.out, "SANDBOX_UNAVAILABLE") && strstr(o.out, "inside /tmp"),
		  "%s exit %d: %s\n%s", f.tag, rc, o.out, o.err);
	cr_expect(!e2e_exists(e2e_fmt("%s/ran", f.ws)), "%s the command ran", f.tag);
	e2e_out_free(&o);
	e2e_rm_rf(f.home);
}

/* A home reached through a symlink into /tmp, with nothing hidden in it
 * yet: the landlock runner took the run (sbx's state was not made behind a
 * link, so nothing there was hidden), and its command, granted the host's
 * /tmp whole, appended to ~/.bashrc and ~/.gitconfig on the host
 * (adversarial pass 5, finding 01). It is refused now; nothing is written. */
PARAMS(landlock_refuses_home_through_a_link, params_ll);
ParameterizedTest(struct rp *p, home_in_tmp, landlock_refuses_home_through_a_link,
		  .timeout = 120)
{
	struct fx f;
	struct e2e_out o;

	e2e_require_runner(p->who, p->runner);
	fx_setup(&f, p);
	char *real = e2e_fmt("/tmp/sbx-e2e-linkhome-%d-%s", (int)getpid(), e2e_user_name(p->who));
	char *link = e2e_fmt("%s/homelink", f.base);

	e2e_rm_rf(real);
	cr_assert(e2e_mkdir(p->who, real) == 0);
	cr_assert(e2e_write_file(p->who, e2e_fmt("%s/.bashrc", real), "# mine\n") == 0);
	cr_assert(symlink(real, link) == 0);
	f.home = link;
	int rc = run_x(&f, "workspace-write", NULL,
		       e2e_fmt("echo PWNED >> ~/.bashrc; touch %s/ran", f.ws), &o);
	char *bashrc = e2e_read_file(e2e_fmt("%s/.bashrc", real));

	cr_expect(rc == 125 && strstr(o.out, "SANDBOX_UNAVAILABLE") && strstr(o.out, "the home"),
		  "%s exit %d: %s\n%s", f.tag, rc, o.out, o.err);
	cr_expect(!e2e_exists(e2e_fmt("%s/ran", f.ws)), "%s the command ran", f.tag);
	cr_expect(bashrc && strcmp(bashrc, "# mine\n") == 0, "%s ~/.bashrc changed: %s", f.tag,
		  bashrc);
	e2e_out_free(&o);
	e2e_rm_rf(real);
}

/* The /tmp a workspace keeps is the command's between runs, but the
 * directories on the way to what sbx mounts there (a root or a home under
 * the host's /tmp) are sbx's: a command that put a file or a link in their
 * place made every later workspace-write run of the root fail with 125 until
 * the state was removed by hand (adversarial pass 5, finding 02). What it
 * put there is moved aside, kept, and the next run starts. */
PARAMS(planted_way_moved_aside, params_ns);
ParameterizedTest(struct rp *p, home_in_tmp, planted_way_moved_aside, .timeout = 120)
{
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	char *way = unique_in("/tmp", "way", p->who);
	static const char *const plants[] = {
		"mv %1$s %1$s.a && echo planted > %1$s",
		"mv %1$s %1$s.b && ln -s %1$s.a %1$s",
		"mv %1$s %1$s.c && mkfifo %1$s",
	};

	cr_assert(e2e_mkdir(p->who, way) == 0);
	f.ws = e2e_fmt("%s/proj", way);
	cr_assert(e2e_mkdir(p->who, f.ws) == 0);
	for (size_t i = 0; i < sizeof(plants) / sizeof(plants[0]); i++) {
		run_x(&f, "workspace-write", NULL, e2e_fmt(plants[i], way), &o);
		cr_expect(exit_code(&o) == 0, "%s plant %zu: %s\n%s", f.tag, i, o.out, o.err);
		e2e_out_free(&o);
		run_x(&f, "workspace-write", NULL, e2e_fmt("echo ok%zu > ok%zu; ls /tmp", i, i), &o);
		cr_expect(exit_code(&o) == 0, "%s after plant %zu: %s\n%s", f.tag, i, o.out, o.err);
		cr_expect(has(&o, e2e_fmt("%s.sbx-moved-%zu", strrchr(way, '/') + 1, i)),
			  "%s the planted entry %zu was not kept: %s", f.tag, i, o.out);
		e2e_out_free(&o);
		char *ok = e2e_read_file(e2e_fmt("%s/ok%zu", f.ws, i));

		cr_expect(ok && strcmp(ok, e2e_fmt("ok%zu\n", i)) == 0, "%s the root was not written", f.tag);
	}
	/* Outside: the host's /tmp saw none of it. */
	cr_expect(!e2e_exists(e2e_fmt("%s.a", way)) && !e2e_exists(e2e_fmt("%s.sbx-moved-0", way)),
		  "%s the host's /tmp was changed", f.tag);
	e2e_rm_rf(way);
}

/* A root that holds a home of the caller's below its top (a root around
 * the home: /tmp/x with HOME=/tmp/x/home, or a project folder that holds a
 * test home): the home's start-up files stay read-only, as at a root that
 * is the home (adversarial pass 5, finding 03: ~/.bashrc, fish's config and
 * ~/.local/bin were written there, and run in the user's next shell). */
static void check_startup_kept(struct fx *f)
{
	static const char *const files[] = { ".bashrc", ".config/fish/config.fish",
					     ".local/bin/git", ".profile" };
	struct e2e_out o;

	for (size_t i = 0; i < 4; i++) {
		char *path = e2e_fmt("%s/%s", f->home, files[i]);
		char *dir = strdup(path);

		*strrchr(dir, '/') = '\0';
		if (!e2e_exists(dir)) {
			cr_assert(e2e_run(f->p.who, (char *[]){ "mkdir", "-p", dir, NULL }, NULL, &o) == 0,
				  "mkdir %s", dir);
			e2e_out_free(&o);
		}
		cr_assert(e2e_write_file(f->p.who, path, "ORIGINAL\n") == 0, "%s", path);
		free(dir);
	}
	run_x(f, "workspace-write", NULL,
	      "for f in .bashrc .config/fish/config.fish .local/bin/git .profile; do "
	      "echo PWNED >> ~/$f; done; echo made > ~/made; echo fine",
	      &o);
	cr_expect(has(&o, "fine"), "%s %s\n%s", f->tag, o.out, o.err);
	e2e_out_free(&o);
	for (size_t i = 0; i < 4; i++) {
		char *got = e2e_read_file(e2e_fmt("%s/%s", f->home, files[i]));

		cr_expect(got && strcmp(got, "ORIGINAL\n") == 0, "%s ~/%s was written: %s", f->tag,
			  files[i], got ? got : "(gone)");
	}
	/* control: the rest of the home is the root's, writable */
	cr_expect(e2e_exists(e2e_fmt("%s/made", f->home)), "%s the root was not writable", f->tag);
}

PARAMS(root_around_home_in_tmp, params_ns);
ParameterizedTest(struct rp *p, home_in_tmp, root_around_home_in_tmp, .timeout = 120)
{
	struct fx f;

	fx_setup(&f, p);
	tmp_home(&f);
	char *around = f.home;

	f.home = e2e_fmt("%s/home", around);
	cr_assert(e2e_mkdir(p->who, f.home) == 0);
	f.ws = around;
	check_startup_kept(&f);
	e2e_rm_rf(around);
}

/* (Namespace only: the landlock runner refuses a root that holds a home,
 * whose ~/.cache/sbx it cannot hide there.) */
PARAMS(root_around_home, params_ns);
ParameterizedTest(struct rp *p, home_in_tmp, root_around_home, .timeout = 120)
{
	struct fx f;

	fx_setup(&f, p);
	f.home = e2e_fmt("%s/testhome", f.ws);
	cr_assert(e2e_mkdir(p->who, f.home) == 0);
	check_startup_kept(&f);
}

/* Each of names (relative to dir) made as who with "ORIGINAL\n"; then cmd
 * in the root; then each must still hold it. */
static void expect_kept(struct fx *f, const char *dir, const char *const *names, size_t n,
			const char *cmd)
{
	struct e2e_out o;

	for (size_t i = 0; i < n; i++) {
		char *path = e2e_fmt("%s/%s", dir, names[i]);
		char *d = strdup(path);

		*strrchr(d, '/') = '\0';
		cr_assert(e2e_run(f->p.who, (char *[]){ "mkdir", "-p", d, NULL }, NULL, &o) == 0);
		e2e_out_free(&o);
		cr_assert(e2e_write_file(f->p.who, path, "ORIGINAL\n") == 0, "%s", path);
		free(d);
	}
	run_x(f, "workspace-write", NULL, e2e_fmt("%s; echo made > made; echo fine", cmd), &o);
	cr_expect(has(&o, "fine"), "%s %s\n%s", f->tag, o.out, o.err);
	e2e_out_free(&o);
	for (size_t i = 0; i < n; i++) {
		char *got = e2e_read_file(e2e_fmt("%s/%s", dir, names[i]));

		cr_expect(got && strcmp(got, "ORIGINAL\n") == 0, "%s %s/%s was written: %s", f->tag,
			  dir, names[i], got ? got : "(gone)");
	}
	cr_expect(e2e_exists(e2e_fmt("%s/made", f->ws)), "%s the root was not writable", f->tag);
}

/* The same with the targets not made yet (~/.bashrc -> dotfiles/bashrc, a
 * dangling link): what a run makes there is taken away, or the user's
 * next shell would read it (adversarial pass 7, finding 11). */
PARAMS(dotfiles_root_missing_targets, params_both);
ParameterizedTest(struct rp *p, home_in_tmp, dotfiles_root_missing_targets, .timeout = 120)
{
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	f.ws = e2e_fmt("%s/dotfiles", f.home);
	cr_assert(e2e_mkdir(p->who, f.ws) == 0);
	cr_assert(symlink("dotfiles/bashrc", e2e_fmt("%s/.bashrc", f.home)) == 0);
	cr_assert(symlink("dotfiles/zsh/zshrc", e2e_fmt("%s/.zshrc", f.home)) == 0);
	run_x(&f, "workspace-write", NULL,
	      "echo PWNED > bashrc; mkdir zsh && echo PWNED > zsh/zshrc; echo made > made; echo fine",
	      &o);
	cr_expect(has(&o, "fine"), "%s %s\n%s", f.tag, o.out, o.err);
	e2e_out_free(&o);
	cr_expect(!e2e_exists(e2e_fmt("%s/bashrc", f.ws)), "%s dotfiles/bashrc was kept", f.tag);
	cr_expect(!e2e_exists(e2e_fmt("%s/zsh/zshrc", f.ws)), "%s dotfiles/zsh/zshrc was kept",
		  f.tag);
	cr_expect(e2e_exists(e2e_fmt("%s/made", f.ws)), "%s the root was not writable", f.tag);
}

/* A file the user's git config includes, in the root (include.path =
 * ~/ws/gitconfig.local, an includeIf one relative to the config, one that
 * does not exist yet): every git the user runs reads it, and a run's
 * core.fsmonitor there ran in the next git status (adversarial pass 7,
 * finding 07). */
PARAMS(git_user_config_includes_in_root, params_both);
ParameterizedTest(struct rp *p, home_in_tmp, git_user_config_includes_in_root, .timeout = 120)
{
	static const char *const files[] = { "local.inc", "cond.inc" };
	struct fx f;

	fx_setup(&f, p);
	cr_assert(e2e_write_file(p->who, e2e_fmt("%s/.gitconfig", f.home),
				 e2e_fmt("[include]\n\tpath = %s/local.inc\n"
					 "[includeIf \"gitdir:/\"]\n\tpath = %s/cond.inc\n"
					 "[include]\n\tpath = %s/missing.inc\n",
					 f.ws, f.ws, f.ws)) == 0);
	expect_kept(&f, f.ws, files, 2,
		    "for f in local.inc cond.inc; do printf '[core]\\n\\tfsmonitor = x\\n' >> $f; "
		    "done; printf '[core]\\n\\tfsmonitor = x\\n' > missing.inc");
	cr_expect(!e2e_exists(e2e_fmt("%s/missing.inc", f.ws)), "%s missing.inc was kept", f.tag);
}

/* $XDG_CONFIG_HOME, $XDG_DATA_HOME and $ZDOTDIR inside the root (a project
 * that keeps its developers' shell setup): every login reads the start-up
 * files there, which a run rewrote (adversarial pass 7, finding 05). */
PARAMS(moved_startup_files_in_root, params_both);
ParameterizedTest(struct rp *p, home_in_tmp, moved_startup_files_in_root, .timeout = 120)
{
	static const char *const files[] = { "cfg/fish/config.fish", "cfg/systemd/user/x.service",
					     "cfg/environment.d/x.conf", "data/systemd/user/y.service",
					     "zsh/.zshrc", "zsh/.zshenv" };
	struct fx f;

	fx_setup(&f, p);
	setenv("XDG_CONFIG_HOME", e2e_fmt("%s/cfg", f.ws), 1);
	setenv("XDG_DATA_HOME", e2e_fmt("%s/data", f.ws), 1);
	setenv("ZDOTDIR", e2e_fmt("%s/zsh", f.ws), 1);
	expect_kept(&f, f.ws, files, 6,
		    "for f in cfg/fish/config.fish cfg/systemd/user/x.service "
		    "cfg/environment.d/x.conf data/systemd/user/y.service zsh/.zshrc zsh/.zshenv; "
		    "do echo PWNED >> $f; done");
	unsetenv("XDG_CONFIG_HOME");
	unsetenv("XDG_DATA_HOME");
	unsetenv("ZDOTDIR");
}

/* A dotfiles repository as the root, the home's start-up files and git
 * config links into it (adversarial pass 6, finding 02): what they lead to
 * stays as it was. */
PARAMS(dotfiles_root, params_both);
ParameterizedTest(struct rp *p, home_in_tmp, dotfiles_root, .timeout = 120)
{
	static const char *const files[] = { "bashrc", "gitconfig", "git/config" };
	struct fx f;

	fx_setup(&f, p);
	f.ws = e2e_fmt("%s/dotfiles", f.home);
	cr_assert(e2e_mkdir(p->who, f.ws) == 0);
	cr_assert(e2e_mkdir(p->who, e2e_fmt("%s/.config", f.home)) == 0);
	cr_assert(symlink("dotfiles/bashrc", e2e_fmt("%s/.bashrc", f.home)) == 0);
	cr_assert(symlink("dotfiles/gitconfig", e2e_fmt("%s/.gitconfig", f.home)) == 0);
	cr_assert(symlink("../dotfiles/git", e2e_fmt("%s/.config/git", f.home)) == 0);
	expect_kept(&f, f.ws, files, 3,
		    "echo PWNED >> bashrc; printf '[core]\\n\\tfsmonitor = touch /x\\n' >> gitconfig; "
		    "echo PWNED >> git/config");
}

/* A root at ~/.config (or ~/.local): the entries of the home below it
 * (adversarial pass 6, finding 07). */
PARAMS(root_at_dot_config, params_both);
ParameterizedTest(struct rp *p, home_in_tmp, root_at_dot_config, .timeout = 120)
{
	static const char *const files[] = { "fish/config.fish", "systemd/user/evil.service",
					     "environment.d/evil.conf" };
	struct fx f;

	fx_setup(&f, p);
	f.ws = e2e_fmt("%s/.config", f.home);
	cr_assert(e2e_mkdir(p->who, f.ws) == 0);
	/* autostart does not exist: one the run makes is taken away */
	expect_kept(&f, f.ws, files, 3,
		    "for f in fish/config.fish systemd/user/evil.service environment.d/evil.conf; "
		    "do echo PWNED >> $f; done; mkdir autostart && echo x > autostart/x.desktop");
	cr_expect(!e2e_exists(e2e_fmt("%s/autostart", f.ws)), "%s ~/.config/autostart was made",
		  f.tag);
}

/* A root at the home: the start-up files of other shells, session scripts
 * and ~/bin (adversarial pass 6, finding 06). Namespace only: the landlock
 * runner refuses a root that holds ~/.cache/sbx. */
PARAMS(home_root_other_startup_files, params_ns);
ParameterizedTest(struct rp *p, home_in_tmp, home_root_other_startup_files, .timeout = 120)
{
	static const char *const files[] = {
		".kshrc", ".cshrc", ".xsession", ".zlogout", "bin/git",
		".local/share/systemd/user/x.service", ".cursor/mcp.json",
		".devcontainer/devcontainer.json",
		/* adversarial pass 7, finding 01 */
		".bash_completion", ".local/lib/python3/site-packages/x.pth", ".cargo/bin/cargo",
		".tmux.conf", ".config/nvim/init.lua",
		/* adversarial pass 9, finding 01 */
		".lesskey", ".inputrc", ".gdbinit", ".psqlrc", ".ipython/profile_default/startup/x.py",
		".gradle/init.d/x.gradle", ".bashrc.d/x.sh",
		/* new-user pass 13, finding 7 */
		".config/pip/pip.conf", ".pip/pip.conf", ".curlrc", ".wgetrc"
	};
	struct fx f;

	fx_setup(&f, p);
	f.ws = f.home;
	expect_kept(&f, f.home, files, 24,
		    "for f in .kshrc .cshrc .xsession .zlogout bin/git "
		    ".local/share/systemd/user/x.service .cursor/mcp.json "
		    ".devcontainer/devcontainer.json .bash_completion "
		    ".local/lib/python3/site-packages/x.pth .cargo/bin/cargo .tmux.conf "
		    ".config/nvim/init.lua .lesskey .inputrc .gdbinit .psqlrc "
		    ".ipython/profile_default/startup/x.py .gradle/init.d/x.gradle .bashrc.d/x.sh "
		    ".config/pip/pip.conf .pip/pip.conf .curlrc .wgetrc; "
		    "do echo PWNED >> $f; done");
}

/* What runs on entering or opening a project (mise's tasks, lazy.nvim's and
 * Vim's local config, Mercurial's hooks): a run rewrote them for the user's
 * next cd or editor (adversarial pass 7, finding 13). */
PARAMS(project_entry_files_kept, params_both);
ParameterizedTest(struct rp *p, home_in_tmp, project_entry_files_kept, .timeout = 120)
{
	static const char *const files[] = { "mise.toml", ".config/mise/config.toml", ".lazy.lua",
					     ".exrc", ".hg/hgrc" };
	struct fx f;

	fx_setup(&f, p);
	expect_kept(&f, f.ws, files, 5,
		    "for f in mise.toml .config/mise/config.toml .lazy.lua .exrc .hg/hgrc; "
		    "do echo PWNED >> $f; done");
}

/* A root at the home whose credential stores do not exist yet: what a run
 * makes there (an authorized key, ssh's ProxyCommand, AWS's
 * credential_process, kube's exec plugin, npm's config) is taken away, and
 * the run says so (adversarial pass 6, finding 04). Namespace only: the
 * landlock runner refuses a root that holds ~/.cache/sbx. */
PARAMS(home_root_missing_stores_not_kept, params_ns);
ParameterizedTest(struct rp *p, home_in_tmp, home_root_missing_stores_not_kept, .timeout = 120)
{
	static const char *const made[] = { ".ssh", ".aws", ".kube", ".npmrc", ".config/gh" };
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	f.ws = f.home;
	run_x(&f, "workspace-write", NULL,
	      "mkdir -p ~/.ssh ~/.aws ~/.kube ~/.config/gh && echo ssh-ed25519 AAAA > "
	      "~/.ssh/authorized_keys && echo 'credential_process = touch /x' > ~/.aws/config && "
	      "echo 'exec: x' > ~/.kube/config && echo 'registry=http://evil' > ~/.npmrc && "
	      "echo t > ~/.config/gh/hosts.yml && echo made > made; echo fine",
	      &o);
	cr_expect(has(&o, "fine"), "%s %s\n%s", f.tag, o.out, o.err);
	e2e_out_free(&o);
	for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++)
		cr_expect(!e2e_exists(e2e_fmt("%s/%s", f.home, made[i])), "%s ~/%s was kept", f.tag,
			  made[i]);
	cr_expect(e2e_exists(e2e_fmt("%s/made", f.home)), "%s the root was not writable", f.tag);
}

/* The same, with $HOME a symlink to the root (the home on another disk,
 * /home/me -> /data/me): the stores' places, by $HOME's name, are not in
 * the resolved root, and were not protected (adversarial pass 7, finding
 * 10). */
PARAMS(home_link_root_missing_stores_not_kept, params_ns);
ParameterizedTest(struct rp *p, home_in_tmp, home_link_root_missing_stores_not_kept,
		  .timeout = 120)
{
	static const char *const made[] = { ".ssh", ".aws", ".config/gh" };
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	f.ws = f.home;
	f.home = e2e_fmt("%s/home-link", f.base);
	cr_assert(symlink(f.ws, f.home) == 0);
	run_x(&f, "workspace-write", NULL,
	      "mkdir -p ~/.ssh ~/.aws ~/.config/gh && echo ssh-ed25519 AAAA > "
	      "~/.ssh/authorized_keys && echo 'credential_process = touch /x' > ~/.aws/config && "
	      "echo t > ~/.config/gh/hosts.yml && echo made > made; echo fine",
	      &o);
	cr_expect(has(&o, "fine"), "%s %s\n%s", f.tag, o.out, o.err);
	e2e_out_free(&o);
	for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++)
		cr_expect(!e2e_exists(e2e_fmt("%s/%s", f.ws, made[i])), "%s ~/%s was kept", f.tag,
			  made[i]);
	cr_expect(e2e_exists(e2e_fmt("%s/made", f.ws)), "%s the root was not writable", f.tag);
}

/* sbx's state in the host's /dev/shm (XDG_CACHE_HOME=/dev/shm/...): the
 * landlock runner grants /dev/shm whole in workspace-write, so its command
 * could rewrite sbx's state (a baseline a later run recovers: adversarial
 * pass 6, finding 03). The landlock runner is not used for such a run; the
 * namespace runner (a private /dev/shm) runs it. */
PARAMS(state_in_dev_shm, params_both);
ParameterizedTest(struct rp *p, home_in_tmp, state_in_dev_shm, .timeout = 120)
{
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	char *xdg = unique_in("/dev/shm", "xdg", p->who);

	cr_assert(e2e_mkdir(p->who, xdg) == 0);
	setenv("XDG_CACHE_HOME", xdg, 1);
	run_x(&f, "read-only", NULL, "true", &o); /* sbx's state made there */
	e2e_out_free(&o);
	int rc = run_x(&f, "workspace-write", NULL,
		       e2e_fmt("mkdir -p %s/sbx/planted && echo planted; echo fine", xdg), &o);
	unsetenv("XDG_CACHE_HOME");
	if (strcmp(p->runner, "landlock") == 0)
		cr_expect(rc == 125 && has(&o, "SANDBOX_UNAVAILABLE") && has(&o, "/dev/shm"),
			  "%s a landlock run with sbx's state in /dev/shm: %d %s", f.tag, rc, o.out);
	else
		cr_expect(rc == 0 && has(&o, "fine"), "%s %d %s\n%s", f.tag, rc, o.out, o.err);
	e2e_out_free(&o);
	cr_expect(!e2e_exists(e2e_fmt("%s/sbx/planted", xdg)), "%s sbx's state was written", f.tag);
	e2e_rm_rf(xdg);
}

/* Git's user config or the moved start-up files in the host's /tmp
 * ($GIT_CONFIG_GLOBAL, $XDG_CONFIG_HOME, $ZDOTDIR): workspace-write grants
 * it whole under Landlock, and a core.fsmonitor planted there ran in the
 * user's next git status (adversarial pass 7, finding 12). The landlock
 * runner is not used for such a run; the namespace runner's /tmp is its
 * own. The file on the host is checked. */
PARAMS(user_config_in_tmp, params_both);
ParameterizedTest(struct rp *p, home_in_tmp, user_config_in_tmp, .timeout = 120)
{
	static const char *const vars[] = { "GIT_CONFIG_GLOBAL", "XDG_CONFIG_HOME", "ZDOTDIR" };

	for (size_t i = 0; i < 3; i++) {
		struct fx f;
		struct e2e_out o;

		fx_setup(&f, p);
		char *dir = unique_in("/tmp", "ucfg", p->who);
		char *file = e2e_fmt("%s/config", dir);

		cr_assert(e2e_mkdir(p->who, dir) == 0);
		cr_assert(e2e_write_file(p->who, file, "ORIGINAL\n") == 0);
		setenv(vars[i], i == 0 ? file : dir, 1);
		int rc = run_x(&f, "workspace-write", NULL,
			       e2e_fmt("echo '[core] fsmonitor = x' >> %s; echo fine", file), &o);
		unsetenv(vars[i]);
		if (strcmp(p->runner, "landlock") == 0)
			cr_expect(rc == 125 && has(&o, "SANDBOX_UNAVAILABLE") && has(&o, vars[i]),
				  "%s %s in /tmp: %d %s", f.tag, vars[i], rc, o.out);
		else
			cr_expect(rc == 0 && has(&o, "fine"), "%s %d %s\n%s", f.tag, rc, o.out, o.err);
		e2e_out_free(&o);
		char *now = e2e_read_file(file);

		cr_expect(now && strcmp(now, "ORIGINAL\n") == 0, "%s %s: %s was written: %s", f.tag,
			  vars[i], file, now);
		free(now);
		e2e_rm_rf(dir);
	}
}

/* A cache_dir in the host's /tmp: each root's cache lies beside the others'
 * there, which a landlock workspace-write run could all write (adversarial
 * pass 6, finding 03c). The landlock runner is not used for it; the
 * namespace runner (a private /tmp, the run's own cache bound back) is. */
PARAMS(cache_dir_in_tmp, params_both);
ParameterizedTest(struct rp *p, home_in_tmp, cache_dir_in_tmp, .timeout = 120)
{
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	char *cache = unique_in("/tmp", "cachedir", p->who);
	char *other = e2e_fmt("%s/other-0123456789abcdef", cache);

	cr_assert(e2e_mkdir(p->who, cache) == 0 && e2e_mkdir(p->who, other) == 0);
	cr_assert(e2e_write_file(p->who, e2e_fmt("%s/tool", other), "ORIGINAL\n") == 0);
	cr_assert(e2e_write_file(p->who, f.conf, e2e_fmt("cache_dir = %s\n", cache)) == 0);
	int rc = run_x(&f, "workspace-write", NULL,
		       e2e_fmt("echo PWNED > %s/tool; echo fine", other), &o);

	if (strcmp(p->runner, "landlock") == 0)
		cr_expect(rc == 125 && has(&o, "tool cache"), "%s %d %s", f.tag, rc, o.out);
	else
		cr_expect(rc == 0 && has(&o, "fine"), "%s %d %s\n%s", f.tag, rc, o.out, o.err);
	e2e_out_free(&o);
	char *got = e2e_read_file(e2e_fmt("%s/tool", other));

	cr_expect(got && strcmp(got, "ORIGINAL\n") == 0, "%s another root's cache was written",
		  f.tag);
	e2e_rm_rf(cache);
}

/* The root by another name, a bind mount of it (adversarial pass 8): a
 * file ~/.gitconfig includes through the other name, $HOME as the other
 * name (its .gitconfig), and a --config through it were not seen as in the
 * root, and a run's core.fsmonitor or policy stayed. The bind is made in a
 * mount namespace of this test's own. */
PARAMS(root_by_another_name, params_both);
ParameterizedTest(struct rp *p, home_in_tmp, root_by_another_name, .timeout = 120)
{
	struct fx f;
	struct e2e_out o;

	fx_setup(&f, p);
	char *alias = e2e_fmt("%s/alias", f.base), *conf = e2e_fmt("%s/sbx.conf", f.ws);

	cr_assert(e2e_mkdir(p->who, alias) == 0);
	cr_assert(e2e_write_file(p->who, e2e_fmt("%s/.gitconfig", f.home),
				 e2e_fmt("[include]\n\tpath = %s/inc.gitconfig\n", alias)) == 0);
	cr_assert(e2e_write_file(p->who, conf, "timeout = 60\n") == 0);
	cr_assert(unshare(CLONE_NEWNS) == 0, "unshare: %s", strerror(errno));
	cr_assert(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0);
	cr_assert(mount(f.ws, alias, NULL, MS_BIND, NULL) == 0, "bind: %s", strerror(errno));
	run_x(&f, "workspace-write", NULL, "echo '[core] fsmonitor = x' > inc.gitconfig; echo fine",
	      &o);
	e2e_out_free(&o);
	cr_expect(!e2e_exists(e2e_fmt("%s/inc.gitconfig", f.ws)), "%s the included file stayed",
		  f.tag);
	if (strcmp(p->runner, "namespace") == 0) {
		f.home = alias;
		run_x(&f, "workspace-write", NULL, "echo '[core] fsmonitor = x' > .gitconfig", &o);
		e2e_out_free(&o);
		cr_expect(!e2e_exists(e2e_fmt("%s/.gitconfig", f.ws)),
			  "%s $HOME as the other name: its .gitconfig stayed", f.tag);
	}
	char *argv[] = { (char *)e2e_sbx(), "run", "--config", e2e_fmt("%s/sbx.conf", alias),
			 "--runner", f.p.runner, "--mode", "workspace-write", "--root", f.ws, "--",
			 "echo 'deny_read = none' >> sbx.conf", NULL };
	int rc = e2e_run(p->who, argv, NULL, &o);
	char *now = e2e_read_file(conf);

	cr_expect(rc == 125 && strstr(o.err, "the root by another name"), "%s config: %d %s",
		  f.tag, rc, o.err);
	cr_expect(now && strcmp(now, "timeout = 60\n") == 0, "%s the config was rewritten: %s",
		  f.tag, now);
	e2e_out_free(&o);
}
