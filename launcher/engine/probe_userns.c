/* SPDX-License-Identifier: MIT */
/* Why user namespaces are missing or useless here, and what fixes it: what
 * an attempt saw (refused at creation, or made but holding no capabilities),
 * explained by what the host shows (userns_host.c: the sysctls, AppArmor,
 * SELinux, a seccomp filter on us, a chroot). For sbx probe, and for the
 * namespace runner's reason when a run is refused. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fds.h"
#include "probe.h"
#include "userns.h"
#include "userns_host.h"

#define APPARMOR_FIX                                                                           \
	"load sbx's AppArmor profile, which allows userns: apparmor_parser -r "                 \
	"/etc/apparmor.d/sbx (make install lays it out), or sysctl -w "                        \
	"kernel.apparmor_restrict_unprivileged_userns=0"
#define SYSCTL_KEEP " (and in /etc/sysctl.d/ to keep it)"

void probe_userns_try(struct userns_seen *s)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	struct userns_seen r;
	size_t got = 0;
	ssize_t n;
	int p[2];
	pid_t pid;

	memset(s, 0, sizeof(*s));
	if (pipe2(p, O_CLOEXEC) < 0) {
		s->create_err = errno;
		return;
	}
	pid = fork();
	if (pid == 0) {
		struct child_status st;

		memset(&r, 0, sizeof(r));
		close(p[0]);
		/* As the namespace runner does it, step by step: the maps (with
		 * the runner's own writes), then a mount namespace and the
		 * first mount in it. */
		if (unshare(CLONE_NEWUSER) < 0) {
			r.create_err = errno;
		} else if (userns_write_identity_maps(uid, gid, &st) < 0) {
			r.inside_err = st.err;
			memcpy(r.inside_what, st.what, sizeof(r.inside_what));
		} else if (unshare(CLONE_NEWNS) < 0) {
			r.inside_err = errno;
			child_status_set(&st, STAGE_MOUNT_PRIVATE, errno, "unshare", "CLONE_NEWNS");
			memcpy(r.inside_what, st.what, sizeof(r.inside_what));
		} else if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
			r.inside_err = errno;
			child_status_set(&st, STAGE_MOUNT_PRIVATE, errno, "make private", "/");
			memcpy(r.inside_what, st.what, sizeof(r.inside_what));
		}
		if (write(p[1], &r, sizeof(r)) != (ssize_t)sizeof(r))
			_exit(1);
		/* see made_one in supervisor_refusal.c: exit without a last
		 * close that waits */
		fds_close_from_bounded(0);
		_exit(0);
	}
	close(p[1]);
	if (pid < 0) {
		s->create_err = errno;
		close(p[0]);
		return;
	}
	/* The answer comes through the pipe: serve may reap the child first. */
	while (got < sizeof(r) && ((n = read(p[0], (char *)&r + got, sizeof(r) - got)) > 0 ||
				   (n < 0 && errno == EINTR)))
		got += n > 0 ? (size_t)n : 0;
	close(p[0]);
	waitpid(pid, NULL, 0);
	if (got == sizeof(r))
		*s = r;
	else
		s->create_err = EIO;
}

static void cause(struct probe_cause *c, const char *why, const char *fix)
{
	snprintf(c->cause, sizeof(c->cause), "%s", why);
	snprintf(c->fix, sizeof(c->fix), "%s", fix);
}

/* A user namespace was made, then a step inside it refused. */
static void explain_inside(const struct userns_host *h, bool privileged, struct probe_cause *c)
{
	if (!privileged && h->apparmor_restrict == 1) {
		snprintf(c->cause, sizeof(c->cause),
			 "AppArmor restricts them (kernel.apparmor_restrict_unprivileged_userns=1) "
			 "and sbx's AppArmor label (%.60s) does not allow userns",
			 h->apparmor_label[0] ? h->apparmor_label : "not readable");
		snprintf(c->fix, sizeof(c->fix), "%s", APPARMOR_FIX);
	} else if (h->seccomp_mode == 2) {
		cause(c, "a seccomp filter on sbx refuses calls inside them (a container's "
			 "profile, or an outer sbx's)",
		      "a container seccomp profile that allows mount, umount2, pivot_root and the "
		      "mount API (open_tree, move_mount, fsopen, fsmount, fsconfig, mount_setattr) "
		      "to sbx");
	} else if (h->selinux_enforce == 1) {
		cause(c, "SELinux is enforcing and its policy may deny capabilities inside them "
			 "(class cap_userns)",
		      "allow cap_userns { sys_admin setuid setgid } to sbx's domain in the SELinux "
		      "policy (audit2allow on the denials in the audit log)");
	} else {
		cause(c, "no cause this host shows (no AppArmor restriction, seccomp filter or "
			 "SELinux)",
		      "find what denies them in the kernel's audit log (journalctl -k); "
		      "docs/kernels.md, restricted user namespaces, lists the known causes");
	}
}

/* Creating a user namespace was refused with err (EPERM, EACCES, ...). */
static void explain_create(const struct userns_host *h, int err, int chrooted,
			   struct probe_cause *c)
{
	/* The kernel refuses a chrooted process whatever a filter or a
	 * security module says: the chroot must go in any case. */
	if (err == EPERM && (chrooted > 0 || (chrooted < 0 && userns_host_chrooted("/proc")))) {
		cause(c, "sbx runs in a chroot, where the kernel refuses user namespaces",
		      "run sbx in a container or a mount namespace with its own root (pivot_root, "
		      "as container runtimes do) rather than a chroot");
	} else if (h->seccomp_mode == 2) {
		cause(c, "a seccomp filter on sbx refuses it (a container's profile, or an "
			 "outer sbx's)",
		      "a container seccomp profile that allows clone/unshare with CLONE_NEWUSER, "
		      "or the runtime's unconfined profile");
	} else if (h->selinux_enforce == 1) {
		cause(c, "SELinux is enforcing and its policy denies sbx's domain user_namespace "
			 "{ create }",
		      "allow user_namespace { create } to sbx's domain in the SELinux policy "
		      "(audit2allow on the denial in the audit log)");
	} else if (h->apparmor_restrict == 1) {
		snprintf(c->cause, sizeof(c->cause),
			 "AppArmor refuses it (kernel.apparmor_restrict_unprivileged_userns=1, sbx's "
			 "label: %.60s)", h->apparmor_label[0] ? h->apparmor_label : "not readable");
		snprintf(c->fix, sizeof(c->fix), "%s", APPARMOR_FIX);
	} else {
		cause(c, "no cause this host shows (no sysctl switch, seccomp filter, SELinux or "
			 "AppArmor restriction): a BPF security module, or a chroot no other "
			 "process shows",
		      "find what refuses it in the kernel's audit log (journalctl -k); "
		      "docs/kernels.md, restricted user namespaces, lists the known causes");
	}
}

void probe_userns_explain(const struct userns_host *h, bool privileged,
			  const struct userns_seen *s, int chrooted, struct probe_cause *c)
{
	char seen[320] = "";
	enum userns_switch k;

	c->reason[0] = c->cause[0] = c->fix[0] = '\0';
	if (s && s->create_err == 0 && s->inside_err == 0)
		return;
	if (s && s->create_err == 0)
		snprintf(seen, sizeof(seen), "user namespaces are made but %s (%.200s: %s)",
			 s->inside_err == EPERM || s->inside_err == EACCES
				 ? "hold no capabilities" : "cannot be set up",
			 s->inside_what, strerror(s->inside_err));
	else if (s && s->create_err != ENOSPC && s->create_err != EINVAL)
		snprintf(seen, sizeof(seen), "creating a user namespace is refused (%s)",
			 strerror(s->create_err));

	k = userns_host_switch(h, privileged, c->cause, sizeof(c->cause));
	if (k == USERNS_SWITCH_MAX_ZERO)
		snprintf(c->fix, sizeof(c->fix), "sysctl -w user.max_user_namespaces=15000" SYSCTL_KEEP);
	else if (k == USERNS_SWITCH_UNPRIVILEGED)
		snprintf(c->fix, sizeof(c->fix), "sysctl -w kernel.unprivileged_userns_clone=1" SYSCTL_KEEP);
	else if (k == USERNS_SWITCH_APPARMOR)
		snprintf(c->fix, sizeof(c->fix), "%s", APPARMOR_FIX);
	else if (!s)
		return; /* not tried, and no switch (any longer) says why */
	else if (s->create_err == ENOSPC) {
		snprintf(c->cause, sizeof(c->cause), "user namespaces used up "
			 "(user.max_user_namespaces=%ld)", h->max_user_namespaces);
		snprintf(c->fix, sizeof(c->fix), "sysctl -w user.max_user_namespaces=15000");
	} else if (s->create_err == EINVAL)
		cause(c, "this kernel has no user namespaces (built without CONFIG_USER_NS)",
		      "a kernel built with CONFIG_USER_NS=y");
	else if (s->create_err)
		explain_create(h, s->create_err, chrooted, c);
	else
		explain_inside(h, privileged, c);

	if (seen[0])
		snprintf(c->reason, sizeof(c->reason), "%s: %s", seen, c->cause);
	else
		snprintf(c->reason, sizeof(c->reason), "%s", c->cause);
}

void probe_userns_cause(struct probe_cause *c, bool *created)
{
	struct userns_host h;
	struct userns_seen s;

	probe_userns_try(&s);
	userns_host_read("", &h);
	probe_userns_explain(&h, geteuid() == 0, &s, -1, c);
	*created = s.create_err == 0;
}

void probe_namespace_refusal(const char *described, const struct userns_seen *s, char *out,
			     size_t size)
{
	struct userns_host h;
	struct probe_cause c;

	userns_host_read("", &h);
	probe_userns_explain(&h, geteuid() == 0, s, -1, &c);
	if (!c.cause[0])
		snprintf(out, size, "%s", described);
	else if (!s) /* the runner's probe: its reason is the switch */
		snprintf(out, size, "%s (fix: %s)", described, c.fix);
	else if (s->create_err == 0 && (s->inside_err == EPERM || s->inside_err == EACCES))
		/* The step that found it out (a root caller's differs) is
		 * sbx probe's to show. */
		snprintf(out, size, "user namespaces are made here but hold no capabilities: %s "
			 "(fix: %s)", c.cause, c.fix);
	else
		snprintf(out, size, "%s: %s (fix: %s)", described, c.cause, c.fix);
}
