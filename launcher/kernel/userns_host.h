/* SPDX-License-Identifier: MIT */
/* What a host shows about its user namespaces: the switches that turn them
 * off or restrict them, a seccomp filter on us, a chroot. */
#ifndef SBX_USERNS_HOST_H
#define SBX_USERNS_HOST_H

#include <stdbool.h>
#include <stddef.h>

/* Each number is -1 where the host does not show it. */
struct userns_host {
	long max_user_namespaces;       /* user.max_user_namespaces */
	long unprivileged_userns_clone; /* kernel.unprivileged_userns_clone (Debian) */
	long apparmor_restrict;         /* kernel.apparmor_restrict_unprivileged_userns (Ubuntu 23.10+) */
	char apparmor_label[128];       /* ours: "unconfined", "sbx (unconfined)"; "" if not shown */
	long selinux_enforce;           /* /sys/fs/selinux/enforce */
	long seccomp_mode;              /* "Seccomp:" of /proc/self/status (2: a filter) */
	long seccomp_filters;           /* "Seccomp_filters:" (5.9+) */
};

/* Read the files under root: "" for this machine, a fixture directory in the
 * unit tests (ROOT/proc/sys/..., ROOT/proc/self/status, ROOT/sys/fs/selinux). */
void userns_host_read(const char *root, struct userns_host *h);

/* A switch that settles it without trying: an unprivileged caller's new user
 * namespace would be refused or hold no capabilities. Its words go in reason. */
enum userns_switch {
	USERNS_SWITCH_NONE = 0,
	USERNS_SWITCH_MAX_ZERO,         /* user.max_user_namespaces=0 (anyone) */
	USERNS_SWITCH_UNPRIVILEGED,     /* kernel.unprivileged_userns_clone=0 */
	USERNS_SWITCH_APPARMOR,         /* restricted, and sbx under no profile of its own */
};
enum userns_switch userns_host_switch(const struct userns_host *h, bool privileged, char *reason,
				      size_t size);

/* Whether this process is chrooted (the kernel then refuses it a new user
 * namespace, EPERM). proc: "/proc", or a fixture in the unit tests. */
bool userns_host_chrooted(const char *proc);

#endif
