/* SPDX-License-Identifier: MIT */
/* The confined command's filter: the BPF that libseccomp made of
 * seccomp_rules.c at build time (seccomp_filters.c), installed in the child.
 * Compiling it per run cost ~0.45 ms here (three ABIs, ~200 instructions). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <string.h>
#include <sys/prctl.h>

#include "syscall_filter.h"

const struct sock_fprog *seccomp_filter_get(enum seccomp_rules_for runner, int *err)
{
	if ((unsigned)runner >= SECCOMP_RULES_COUNT || !seccomp_embedded[runner].len) {
		*err = EINVAL;
		return NULL;
	}
	return &seccomp_embedded[runner];
}

/* One program that answers as the two filters would: first's verdict,
 * unless it allows, then after's (first's refusals notified, see below). Each filter attached costs the kernel a
 * JIT compile and a run over every syscall number of every ABI (~50 us
 * here, and cross-CPU TLB flushes), so the supervisor's filter carries
 * these rules too. Every "return allow" of first becomes a jump to after's
 * start (an unconditional jump reaches anywhere). Kept per process. */
#define JOINED_MAX 16

const struct sock_fprog *seccomp_filter_join(enum seccomp_rules_for rules,
					     const struct sock_fprog *after)
{
	static struct {
		enum seccomp_rules_for rules;
		const struct sock_fprog *after;
		struct sock_fprog prog;
	} joined[JOINED_MAX];
	static size_t n_joined;
	/* Why a lock: runs started at once on several threads (the library's
	 * caller) joined at once, and one could take an entry another was
	 * still writing, or both wrote the same slot. */
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	const struct sock_fprog *first, *found = NULL;
	struct sock_filter *f;
	size_t len;
	int err;

	if (!after || !(first = seccomp_filter_get(rules, &err)))
		return NULL;
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < n_joined && !found; i++)
		if (joined[i].rules == rules && joined[i].after == after)
			found = &joined[i].prog;
	len = (size_t)first->len + after->len;
	if (found || n_joined == JOINED_MAX || len > BPF_MAXINSNS ||
	    !(f = malloc(len * sizeof(*f)))) {
		pthread_mutex_unlock(&lock);
		return found;
	}
	for (size_t i = 0; i < first->len; i++) {
		struct sock_filter in = first->filter[i];

		if (BPF_CLASS(in.code) == BPF_RET && BPF_RVAL(in.code) != BPF_K) {
			free(f); /* a verdict from A: not one we can follow */
			pthread_mutex_unlock(&lock);
			return NULL;
		}
		if (in.code == (BPF_RET | BPF_K) && in.k == SECCOMP_RET_ALLOW)
			in = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA,
							  (unsigned)(first->len - i - 1), 0, 0);
		/* A refusal of the rules goes to the supervisor, which answers
		 * it with the same errno (it runs first itself) and counts it:
		 * a run that failed after one is marked denied. A call is
		 * never performed on this path, and with no supervisor left
		 * the kernel fails it (ENOSYS). ENOSYS verdicts ("absent", not
		 * refused: clone3 on every fork) stay in the kernel. */
		else if (in.code == (BPF_RET | BPF_K) && in.k == SECCOMP_RULES_REFUSED)
			in.k = SECCOMP_RET_USER_NOTIF;
		f[i] = in;
	}
	memcpy(f + first->len, after->filter, after->len * sizeof(*f));
	joined[n_joined].rules = rules;
	joined[n_joined].after = after;
	joined[n_joined].prog = (struct sock_fprog){ .len = (unsigned short)len, .filter = f };
	found = &joined[n_joined++].prog;
	pthread_mutex_unlock(&lock);
	return found;
}

int seccomp_filter_install(const struct sock_fprog *prog, struct child_status *st)
{
	/* no_new_privs is already set by the runner (caps_keep_only), which is
	 * what lets an unprivileged process install a filter at all. */
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, prog, 0, 0) < 0)
		return child_status_set(st, STAGE_SECCOMP, errno, "PR_SET_SECCOMP", NULL);
	return 0;
}
