/* SPDX-License-Identifier: MIT */
/* sbx probe: each fact is read from the kernel by trying the feature, never
 * inferred from a version number. */
#include <errno.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "caps.h"
#include "landlock.h"
#include "mount_api.h"
#include "userns.h"
#include "launcher.h"
#include "probe.h"
#include "statedir.h"
#include "runner.h"
#include "run_limits.h"
#include "supervisor.h"


#define LANDLOCK_GAP                                                                           \
	"Landlock confines paths, not metadata: chmod, chown, utimes and extended attributes "   \
	"are decided by the syscall supervisor (see \"supervisor\"); without it they are not "    \
	"covered (the namespace runner covers them)"

/* One trial run of `true`: which runner, which enforcement, or why not. */
static json_t *trial(enum sbx_mode mode, enum sbx_runner runner, const char *root)
{
	struct sbx_run *run = sbx_run_new();
	struct sbx_result *res = NULL;
	struct sbx_error err = { 0 };
	json_t *o;

	if (!run)
		return json_pack("{s:n, s:s}", "runner", "reason", "out of memory");
	sbx_run_set_command(run, "true");
	sbx_run_set_mode(run, mode);
	sbx_run_set_runner(run, runner);
	sbx_run_set_root(run, root);
	if (sbx_run_execute(run, &res, &err) < 0) {
		o = json_pack("{s:n, s:s}", "runner", "reason", err.message);
	} else if (sbx_result_exit_status(res) != 0) {
		o = json_pack("{s:n, s:s}", "runner", "reason", "a trial command failed");
	} else {
		o = json_pack("{s:s, s:s, s:s}", "runner", res->runner, "enforcement",
			      res->enforcement == SBX_ENFORCEMENT_FULL ? "full" : "partial",
			      "processes", res->private_processes ? "private" : "host");
	}
	sbx_result_free(res);
	sbx_run_free(run);
	return o;
}

static json_t *io_uring_fact(void)
{
	struct loop *l = loop_new(false);
	struct probe_cause c;
	json_t *o;

	if (l && loop_backend_of(l) == LOOP_URING) {
		o = json_pack("{s:b, s:n}", "available", 1, "reason");
	} else {
		probe_io_uring_cause(loop_uring_unavailable_reason(), &c);
		o = json_pack("{s:b, s:s, s:s}", "available", 0, "reason", c.reason, "fix", c.fix);
	}
	loop_free(l);
	return o;
}

#if defined(__aarch64__)
/* arm64: the filters know the native ABI alone (kernel/seccomp_compile.c) */
#define SECCOMP_REFUSES                                                                        \
	"setuid and setgid bits, the kernel keyrings, io_uring, TIOCSTI and TIOCLINUX; "      \
	"a 32-bit ARM program (the compat ABI) is killed at its first system call"
#else
#define SECCOMP_REFUSES                                                                        \
	"setuid and setgid bits, the kernel keyrings, io_uring, TIOCSTI and TIOCLINUX"
#endif
#define SECCOMP_REFUSES_LANDLOCK "new user namespaces, setns, every mount call and dnotify (F_NOTIFY)"

static json_t *seccomp_fact(void)
{
	/* Asking for an action the kernel must know tells whether it has
	 * seccomp filters at all, without installing anything. */
	unsigned int action = SECCOMP_RET_ERRNO;
	long rc = syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action);

	if (rc != 0)
		return json_pack("{s:b, s:s}", "available", 0, "reason", strerror(errno));
#ifdef CONFIG_SECCOMP
	return json_pack("{s:b, s:n, s:s, s:s}", "available", 1, "reason", "refuses",
			 SECCOMP_REFUSES, "refuses_landlock", SECCOMP_REFUSES_LANDLOCK);
#else
	return json_pack("{s:b, s:n, s:n}", "available", 1, "reason", "refuses");
#endif
}

/* What a root caller's confined command keeps (CONTRACT section 1). */
static json_t *root_caller_fact(void)
{
	json_t *keeps = json_array();

	for (size_t i = 0; i < caps_root_keeps_count; i++)
		json_array_append_new(keeps, json_string(caps_root_keeps[i].name));
	/* applies: this caller is root (the text leaves the line out otherwise). */
	return json_pack("{s:b, s:o, s:s, s:s}", "applies", geteuid() == 0, "keeps", keeps,
			 "identity_map",
			 userns_can_map_all() ? "full (namespace runner: every id onto itself)"
					      : "own id only (sbx lacks CAP_SETUID/CAP_SETGID)",
			 "why", "a workspace owned by another user works as it does for root; "
				"the mount view, Landlock and the filters still decide where");
}

static json_t *mount_api_fact(void)
{
	/* An invalid fd: EBADF means the call exists, ENOSYS that it does not. */
	long rc = syscall(SYS_mount_setattr, -1, "", 0, NULL, 0);
	bool have = !(rc < 0 && errno == ENOSYS);

	return json_pack("{s:b, s:s}", "mount_setattr", have, "read_only_view",
			 have ? "one recursive mount_setattr" : "per-mount remount walk");
}

static json_t *landlock_fact(struct probe_cause *c)
{
	char reason[160], why[240];
	int abi = landlock_abi_probe(reason, sizeof(reason));
	bool supervised = false;

#ifdef CONFIG_SUPERVISOR
	supervised = supervisor_probe(why, sizeof(why)) == 0;
#endif
	(void)why;
	c->reason[0] = c->cause[0] = c->fix[0] = '\0';
	if (abi < 1) {
		probe_landlock_cause(-abi, c);
		return json_pack("{s:n, s:s, s:s, s:s}", "abi", "reason", c->reason, "fix", c->fix,
				 "gap", LANDLOCK_GAP);
	}
	return json_pack("{s:i, s:n, s:s, s:s, s:s, s:s}", "abi", abi, "reason", "enforcement",
			 abi >= 3 && supervised ? "full" : "partial", "covers",
			 abi >= 3 ? "create, write, truncate, remove, rename and link of files"
				  : "create, write, remove, rename and link of files; not truncate(2) (needs ABI 3)",
			 "scopes",
			 abi >= 6 ? "signals and abstract unix sockets stay inside the run"
				  : "none (ABI 6 confines signals and abstract unix sockets)",
			 "gap", LANDLOCK_GAP);
}

/* The syscall supervisor (CONTRACT section 10): whether this kernel runs it,
 * and what it then decides under each runner. */
static json_t *supervisor_fact(void)
{
	char reason[240] = "not in this build (CONFIG_SUPERVISOR=n)";
	int rc = -ENOSYS;
	json_t *o;

#ifdef CONFIG_SUPERVISOR
	rc = supervisor_probe(reason, sizeof(reason));
#endif
	o = json_pack("{s:b, s:s, s:s, s:{s:s, s:s}}", "available", rc == 0, "requires",
		      "Linux 5.6+ (seccomp user notification 5.0, pidfd_getfd and openat2 5.6; "
		      "5.19+ keeps a signal from restarting a call in flight)",
		      "without",
		      "the landlock runner reports enforcement partial (metadata uncovered); "
		      "pathname unix sockets stay open; the namespace runner's command can open a "
		      "FIFO outside the writable set for writing; file watches are not checked (a watch "
		      "on the caller's terminal times its keystrokes); a failure after a refused "
		      "mkdir that names its directory is not marked; runs are not refused",
		      "covers", "landlock",
		      "chmod, chown, utimes and xattrs outside the writable set; connects and sends "
		      "to unix sockets; file watches (none on devices, /dev, hidden paths); "
		      "refused mkdirs noted",
		      "namespace",
		      "connects and sends to unix sockets; opens for writing (no FIFO outside the "
		      "writable set); file watches (none on devices, /dev, "
		      "hidden paths); refused mkdirs noted");
	json_object_set_new(o, "reason", rc == 0 ? json_null() : json_string(reason));
#ifdef CONFIG_SUPERVISOR
	if (rc == 0)
		json_object_set_new(o, "listener_check",
				    json_string(supervisor_peer_pidfd()
						? "pidfd (SO_PEERPIDFD)"
						: "pid and socket file age (no SO_PEERPIDFD before "
						  "Linux 6.5: weaker against a recycled pid)"));
#endif
	return o;
}

static json_t *build_fact(void)
{
	return json_pack("{s:b, s:b, s:b, s:b, s:b, s:b}",
#ifdef CONFIG_IO_URING
			 "io_uring", 1,
#else
			 "io_uring", 0,
#endif
#ifdef CONFIG_RUNNER_NAMESPACE
			 "runner_namespace", 1,
#else
			 "runner_namespace", 0,
#endif
#ifdef CONFIG_RUNNER_LANDLOCK
			 "runner_landlock", 1,
#else
			 "runner_landlock", 0,
#endif
#ifdef CONFIG_SECCOMP
			 "seccomp", 1,
#else
			 "seccomp", 0,
#endif
#ifdef CONFIG_NETNS
			 "netns", 1,
#else
			 "netns", 0,
#endif
#ifdef CONFIG_SUPERVISOR
			 "supervisor", 1
#else
			 "supervisor", 0
#endif
	);
}

/* A refused trial gets the fix that would make its runner work. */
static json_t *with_fix(json_t *trial_result, const char *runner, const struct probe_cause *userns,
			const struct probe_cause *landlock)
{
	const char *reason = json_string_value(json_object_get(trial_result, "reason"));
	char fix[1200];

	if (!reason)
		return trial_result;
	if (runner) {
		probe_runner_fix(runner, reason, userns, landlock, fix, sizeof(fix));
		/* The namespace runner's own line names the cause found above,
		 * not only the refusal of its trial. */
		if (strcmp(runner, "namespace") == 0 && userns->reason[0])
			json_object_set_new(trial_result, "reason", json_string(userns->reason));
	} else {
		char a[512], b[512];

		probe_runner_fix("namespace", reason, userns, landlock, a, sizeof(a));
		probe_runner_fix("landlock", reason, userns, landlock, b, sizeof(b));
		snprintf(fix, sizeof(fix), "make one runner work: namespace: %s; landlock: %s", a, b);
	}
	json_object_set_new(trial_result, "fix", json_string(fix));
	return trial_result;
}

/* A runner other than `failed` whose own trial confined (its name and
 * enforcement). */
static bool works_instead(json_t *runners, const char *failed, const char **by, const char **enf)
{
	const char *name;
	json_t *r;

	json_object_foreach(runners, name, r) {
		const char *runner = json_string_value(json_object_get(r, "runner"));

		if (strcmp(name, failed) != 0 && runner) {
			*by = runner;
			*enf = json_string_value(json_object_get(r, "enforcement"));
			return *enf != NULL;
		}
	}
	return false;
}

/* What `auto` uses where a runner cannot: the other runner, for the modes
 * it confines here, or nothing (then those modes are refused). */
static void set_instead(json_t *runners, json_t *modes)
{
	static const char *const confined[] = { "read-only", "workspace-write" };
	const char *name;
	json_t *r;

	json_object_foreach(runners, name, r) {
		const char *by[2], *enf[2];
		char text[320];

		if (json_string_value(json_object_get(r, "runner")))
			continue;
		for (size_t i = 0; i < 2; i++) {
			/* A mode without a trial (no /tmp for its root) counts as
			 * neither confined nor refused. */
			const json_t *pick = json_object_get(modes, confined[i]);

			by[i] = json_string_value(json_object_get(pick, "runner"));
			enf[i] = json_string_value(json_object_get(pick, "enforcement"));
			if (by[i] && (!enf[i] || strcmp(by[i], name) == 0))
				by[i] = NULL;
		}
		if (by[0] && by[1] && strcmp(by[0], by[1]) == 0 && strcmp(enf[0], enf[1]) == 0)
			snprintf(text, sizeof(text), "the %s runner confines read-only and "
				 "workspace-write here (enforcement %s)", by[0], enf[0]);
		else if (by[0] && by[1])
			snprintf(text, sizeof(text), "the %s runner confines read-only (enforcement "
				 "%s), the %s runner workspace-write (enforcement %s)", by[0], enf[0],
				 by[1], enf[1]);
		else if (by[0] || by[1]) {
			size_t yes = by[0] ? 0 : 1, no = 1 - yes;

			snprintf(text, sizeof(text), "the %s runner confines %s here (enforcement %s)%s%s",
				 by[yes], confined[yes], enf[yes],
				 json_object_get(modes, confined[no]) ? "; refused: " : "",
				 json_object_get(modes, confined[no]) ? confined[no] : "");
		}
		else if (works_instead(runners, name, &by[0], &enf[0]))
			snprintf(text, sizeof(text), "--runner %s (enforcement %s): auto takes no "
				 "other runner once this one fails while setting up a run, so it is "
				 "refused here", by[0], enf[0]);
		else
			snprintf(text, sizeof(text), "none: no other runner can either, so the "
				 "confined modes are refused");
		json_object_set_new(r, "instead", json_string(text));
	}
}

/* A mode auto refused while a runner's own trial confined it: auto stopped
 * at a runner that fails while setting up (by design it then takes no
 * other), and the fix names the one that works (new-user pass 12: inside
 * another sbx's run, probe said "no other runner can either" beside
 * "landlock runner: yes"). */
static void auto_stops(json_t *runners, json_t *modes)
{
	static const char *const confined[] = { "read-only", "workspace-write" };

	for (size_t i = 0; i < 2; i++) {
		json_t *m = json_object_get(modes, confined[i]);
		const char *by, *enf, *failed = NULL, *name;
		char fix[600];
		json_t *r;

		if (!m || json_string_value(json_object_get(m, "runner")))
			continue;
		json_object_foreach(runners, name, r)
			if (!json_string_value(json_object_get(r, "runner")))
				failed = name;
		if (!failed || !works_instead(runners, failed, &by, &enf))
			continue;
		snprintf(fix, sizeof(fix), "give --runner %s (enforcement %s): auto stops at the %s "
			 "runner, which fails here while setting up, and takes no other after that",
			 by, enf, failed);
		json_object_set_new(m, "fix", json_string(fix));
	}
}

void probe_explain(json_t *runners, json_t *modes)
{
	set_instead(runners, modes);
	auto_stops(runners, modes);
}

json_t *probe_facts(void)
{
	char root[] = "/tmp/sbx-probe-XXXXXX";
	struct probe_cause userns, landlock;
	bool created = false;
	json_t *facts = json_object(), *runners = json_object(), *modes = json_object();
	json_t *ll_fact = landlock_fact(&landlock);

	probe_userns_cause(&userns, &created);
	if (!mkdtemp(root))
		snprintf(root, sizeof(root), "/");
	json_object_set_new(runners, "namespace",
			    with_fix(trial(SBX_MODE_READ_ONLY, SBX_RUNNER_NAMESPACE, root),
				     "namespace", &userns, &landlock));
	json_object_set_new(runners, "landlock",
			    with_fix(trial(SBX_MODE_READ_ONLY, SBX_RUNNER_LANDLOCK, root), "landlock",
				     &userns, &landlock));
	json_object_set_new(modes, "read-only",
			    with_fix(trial(SBX_MODE_READ_ONLY, SBX_RUNNER_AUTO, root), NULL, &userns,
				     &landlock));
	if (strcmp(root, "/") != 0)
		json_object_set_new(modes, "workspace-write",
				    with_fix(trial(SBX_MODE_WORKSPACE_WRITE, SBX_RUNNER_AUTO, root),
					     NULL, &userns, &landlock));
	json_object_set_new(modes, "danger-full-access", json_pack("{s:n}", "runner"));
	probe_explain(runners, modes);

	json_object_set_new(facts, "version", json_string(sbx_version()));
	/* created: made, but unusable (no capabilities inside: a restricted
	 * host such as Ubuntu 23.10+). */
	json_object_set_new(facts, "user_namespaces",
			    userns.reason[0] ? json_pack("{s:b, s:b, s:s, s:s}", "available", 0,
							 "created", created, "reason",
							 userns.reason, "fix", userns.fix)
					     : json_pack("{s:b, s:b, s:n}", "available", 1, "created",
							 1, "reason"));
	json_object_set_new(facts, "landlock", ll_fact);
	json_object_set_new(facts, "io_uring", io_uring_fact());
	json_object_set_new(facts, "seccomp", seccomp_fact());
	json_object_set_new(facts, "root_caller", root_caller_fact());
	json_object_set_new(facts, "mount_api", mount_api_fact());
	json_object_set_new(facts, "supervisor", supervisor_fact());
	json_object_set_new(facts, "runners", runners);
	json_object_set_new(facts, "modes", modes);
	json_object_set_new(facts, "build", build_fact());
	json_object_set_new(facts, "limits", run_limits_probe_json(0));
	if (strcmp(root, "/") != 0) {
		rmdir(root);
		/* Its trial runs' state: one set per probe, piling up
		 * (new-user pass 6, finding 4). */
		statedir_forget_root(root);
	}
	return facts;
}

json_t *probe_usable_runners(const json_t *facts)
{
	json_t *out = json_array();
	const char *name;
	json_t *r;

	json_object_foreach(json_object_get(facts, "runners"), name, r)
		if (json_string_value(json_object_get(r, "runner")))
			json_array_append_new(out, json_string(name));
	return out;
}
