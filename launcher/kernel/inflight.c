/* SPDX-License-Identifier: MIT */
/* See inflight.h. Why it matters: a command that fills its user's in-flight
 * count (fds sent to a socket nobody reads) would otherwise make every later
 * run of that user fail its setup (the listener's hand-off is an SCM_RIGHTS
 * send), in other sessions too, for as long as it runs. The hand-off sends
 * under the hard limit; every send sbx makes for a command is checked against
 * the soft one, kept a margin below it, and never exempt. */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/capability.h>

#include "inflight.h"

#define EXEMPT ((1ULL << CAP_SYS_RESOURCE) | (1ULL << CAP_SYS_ADMIN))

/* A send of 253 fds passes the check with the count just at the limit, and
 * senders racing in the same instant each add theirs: 4096 is sixteen of
 * them. A small hard limit keeps three quarters. */
static rlim_t margin_for(rlim_t hard)
{
	return hard >= 16384 ? 4096 : hard / 4;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static uint64_t caller_soft;

static void reserve_once(void)
{
	struct rlimit rl;
	rlim_t want;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_max == RLIM_INFINITY)
		return;
	want = rl.rlim_max - margin_for(rl.rlim_max);
	/* Raised too: a serve with many sessions holds many fds, and copies
	 * of a command's fds (its sends) must not fill our table first. */
	if (rl.rlim_cur != want && rl.rlim_cur != 0) {
		uint64_t had = rl.rlim_cur;

		rl.rlim_cur = want;
		if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
			__atomic_store_n(&caller_soft, had, __ATOMIC_RELEASE);
	}
}

static pthread_mutex_t send_lock = PTHREAD_MUTEX_INITIALIZER;

long inflight_sendmsg(int sock, const struct msghdr *msg, int flags, bool own)
{
	struct rlimit rl, raised;
	bool raise = false;
	int old, err;
	long n;

	/* Never cancelled holding the lock: the send does not wait. */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	pthread_mutex_lock(&send_lock);
	if (own && getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		raised = rl;
		raised.rlim_cur = rl.rlim_max;
		raise = setrlimit(RLIMIT_NOFILE, &raised) == 0;
	}
	n = sendmsg(sock, msg, flags);
	err = errno;
	if (raise)
		setrlimit(RLIMIT_NOFILE, &rl);
	pthread_mutex_unlock(&send_lock);
	pthread_setcancelstate(old, NULL);
	errno = err;
	return n;
}

uint64_t inflight_room_reserve(void)
{
	pthread_once(&once, reserve_once);
	return caller_soft;
}

uint64_t inflight_room_caller_soft(void)
{
	return __atomic_load_n(&caller_soft, __ATOMIC_ACQUIRE);
}

int inflight_room_take(void)
{
	struct rlimit rl;

	if (syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &rl) < 0)
		return -errno;
	if (rl.rlim_cur == rl.rlim_max)
		return 0;
	rl.rlim_cur = rl.rlim_max;
	return syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &rl, NULL) < 0 ? -errno : 0;
}

int inflight_room_restore(uint64_t soft)
{
	struct rlimit rl;

	if (!soft)
		return 0;
	if (syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &rl) < 0)
		return -errno;
	rl.rlim_cur = rl.rlim_max != RLIM_INFINITY && soft > rl.rlim_max ? rl.rlim_max : soft;
	return syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &rl, NULL) < 0 ? -errno : 0;
}

static int caps_rw(bool set, uint64_t *eff, uint64_t *prm, uint64_t *inh)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct d[2];

	if (set) {
		for (int i = 0; i < 2; i++) {
			d[i].effective = (uint32_t)(*eff >> (32 * i));
			d[i].permitted = (uint32_t)(*prm >> (32 * i));
			d[i].inheritable = (uint32_t)(*inh >> (32 * i));
		}
		return (int)syscall(SYS_capset, &h, d);
	}
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d) < 0)
		return -1;
	*eff = d[0].effective | (uint64_t)d[1].effective << 32;
	*prm = d[0].permitted | (uint64_t)d[1].permitted << 32;
	*inh = d[0].inheritable | (uint64_t)d[1].inheritable << 32;
	return 0;
}

uint64_t inflight_exempt_drop(void)
{
	uint64_t eff, prm, inh, less;

	if (caps_rw(false, &eff, &prm, &inh) < 0 || !(eff & EXEMPT))
		return 0;
	less = eff & ~EXEMPT;
	return caps_rw(true, &less, &prm, &inh) == 0 ? eff & EXEMPT : 0;
}

void inflight_exempt_restore(uint64_t saved)
{
	uint64_t eff, prm, inh;

	if (!saved || caps_rw(false, &eff, &prm, &inh) < 0)
		return;
	eff |= saved & prm;
	caps_rw(true, &eff, &prm, &inh);
}
