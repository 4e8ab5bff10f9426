/* SPDX-License-Identifier: MIT */
/* What a host shows about its user namespaces, read from the files where it
 * shows it (/proc/sys, /proc/self, /sys/fs/selinux). The namespace runner's
 * cheap probe refuses on a switch that settles it; sbx probe and the
 * refusals explain with the rest what an attempt saw (probe_causes.c). The
 * reader takes a root directory so that the unit tests can give it a
 * fixture. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "userns_host.h"

/* The first line of root/path without its newline ("" if unreadable). */
static void read_line(const char *root, const char *path, char *buf, size_t size)
{
	char full[512];
	int fd;
	ssize_t n = -1;

	snprintf(full, sizeof(full), "%s%s", root, path);
	fd = open(full, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, size - 1);
		close(fd);
	}
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/* A whole number, or -1 where the file is absent or holds none. */
static long read_number(const char *root, const char *path)
{
	char buf[32], *end;
	long v;

	read_line(root, path, buf, sizeof(buf));
	errno = 0;
	v = strtol(buf, &end, 10);
	return buf[0] && end != buf && errno == 0 && v >= 0 ? v : -1;
}

/* "Key:\tN" in /proc/self/status, or -1. */
static long status_field(const char *status, const char *key)
{
	char want[40];
	const char *p;

	snprintf(want, sizeof(want), "\n%s:", key);
	p = strstr(status, want);
	return p ? strtol(p + strlen(want), NULL, 10) : -1;
}

void userns_host_read(const char *root, struct userns_host *h)
{
	char status[4096], path[512];
	ssize_t n = -1;
	int fd;

	h->max_user_namespaces = read_number(root, "/proc/sys/user/max_user_namespaces");
	h->unprivileged_userns_clone = read_number(root, "/proc/sys/kernel/unprivileged_userns_clone");
	h->apparmor_restrict =
		read_number(root, "/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
	/* AppArmor's own attr directory (5.8+): attr/current may be another
	 * module's (SELinux) where several are stacked. */
	read_line(root, "/proc/self/attr/apparmor/current", h->apparmor_label,
		  sizeof(h->apparmor_label));
	h->selinux_enforce = read_number(root, "/sys/fs/selinux/enforce");

	snprintf(path, sizeof(path), "%s/proc/self/status", root);
	status[0] = '\n';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, status + 1, sizeof(status) - 2);
		close(fd);
	}
	status[n > 0 ? n + 1 : 1] = '\0';
	h->seccomp_mode = status_field(status, "Seccomp");
	h->seccomp_filters = status_field(status, "Seccomp_filters");
}

enum userns_switch userns_host_switch(const struct userns_host *h, bool privileged, char *reason,
				      size_t size)
{
	if (h->max_user_namespaces == 0) {
		snprintf(reason, size, "user namespaces disabled (user.max_user_namespaces=0)");
		return USERNS_SWITCH_MAX_ZERO;
	}
	/* Both switches below spare a caller with CAP_SYS_ADMIN. */
	if (privileged) {
		reason[0] = '\0';
		return USERNS_SWITCH_NONE;
	}
	if (h->unprivileged_userns_clone == 0) {
		snprintf(reason, size, "unprivileged user namespaces disabled "
			 "(kernel.unprivileged_userns_clone=0)");
		return USERNS_SWITCH_UNPRIVILEGED;
	}
	/* Ubuntu 23.10+: an unconfined process's new user namespace lands in
	 * AppArmor's unprivileged_userns profile, which holds no capability.
	 * A process under a profile of its own (sbx's, granting userns) is
	 * spared: there the attempt decides. */
	if (h->apparmor_restrict == 1 && strcmp(h->apparmor_label, "unconfined") == 0) {
		snprintf(reason, size, "unprivileged user namespaces restricted by AppArmor "
			 "(kernel.apparmor_restrict_unprivileged_userns=1) and no AppArmor profile "
			 "for sbx allows them");
		return USERNS_SWITCH_APPARMOR;
	}
	reason[0] = '\0';
	return USERNS_SWITCH_NONE;
}

/* Whether proc/PID/mountinfo shows the mount `id` at a mount point other
 * than "/": then that mount is not the root of the mount namespace. */
static bool shown_below_root(int procfd, const char *pid, unsigned long long id)
{
	char path[64], *line = NULL, mp[16];
	size_t cap = 0;
	bool below = false;
	unsigned long long mid;
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "%s/mountinfo", pid);
	fd = openat(procfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	f = fdopen(fd, "re");
	if (!f) {
		close(fd);
		return false;
	}
	/* "ID PARENT MAJ:MIN ROOT MOUNTPOINT ...": only whether the mount
	 * point is exactly "/" matters, so a truncated one is fine. */
	while (!below && getline(&line, &cap, f) > 0)
		if (sscanf(line, "%llu %*u %*s %*s %15s", &mid, mp) == 2 && mid == id)
			below = strcmp(mp, "/") != 0;
	free(line);
	fclose(f);
	return below;
}

bool userns_host_chrooted(const char *proc)
{
	struct statx st;
	char pid[24];
	struct dirent *e;
	bool found = false;
	unsigned scanned = 0;
	int procfd;
	DIR *d = NULL;

	if (statx(AT_FDCWD, "/", 0, STATX_MNT_ID, &st) != 0)
		return false;
	/* A chroot into a plain directory: our root is no mount's root. */
	if ((st.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
	    !(st.stx_attributes & STATX_ATTR_MOUNT_ROOT))
		return true;
	if (!(st.stx_mask & STATX_MNT_ID))
		return false;
	/* A chroot onto a mount point: our root is a mount, but not the top of
	 * the namespace's root. Mount ids are unique across namespaces, so a
	 * process that lists our root's mount below its "/" shares our mount
	 * namespace and proves it (sbx's parent, init, or any other: a
	 * mountinfo is readable by every user). Without such a witness, no
	 * claim. */
	procfd = open(proc, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (procfd < 0)
		return false;
	snprintf(pid, sizeof(pid), "%d", (int)getppid());
	found = shown_below_root(procfd, pid, st.stx_mnt_id) ||
		shown_below_root(procfd, "1", st.stx_mnt_id);
	if (!found) {
		int dirfd = fcntl(procfd, F_DUPFD_CLOEXEC, 0);

		d = dirfd < 0 ? NULL : fdopendir(dirfd);
		if (!d && dirfd >= 0)
			close(dirfd);
	}
	while (d && !found && scanned++ < 4096 && (e = readdir(d)))
		if (e->d_name[0] >= '1' && e->d_name[0] <= '9')
			found = shown_below_root(procfd, e->d_name, st.stx_mnt_id);
	if (d)
		closedir(d);
	close(procfd);
	return found;
}
