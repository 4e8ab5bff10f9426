/* SPDX-License-Identifier: MIT */
/* One run's supervisor as an object: its references (the engine, the
 * dispatcher, each worker), its end, its refusal count, and the one way an
 * answer reaches the kernel. The bottom of the supervisor: every other file
 * here may call it; it calls none of them but the noted refusals' release. */
#include <errno.h>
#include <linux/capability.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pty_pool.h"
#include "scope_thread.h"
#include "supervisor_int.h"

int sv_lower_caps(uint64_t keep)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &hdr, data) < 0)
		return -errno;
	for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++) {
		uint32_t word = (uint32_t)(keep >> (32 * i));

		data[i].effective &= word;
		data[i].permitted &= word;
		data[i].inheritable = 0;
	}
	return syscall(SYS_capset, &hdr, data) < 0 ? -errno : 0;
}

void sv_ref(struct supervisor *sv)
{
	__atomic_add_fetch(&sv->refs, 1, __ATOMIC_SEQ_CST);
}

static void free_list(char **list, size_t n)
{
	for (size_t i = 0; list && i < n; i++)
		free(list[i]);
	free(list);
}

void sv_unref(struct supervisor *sv)
{
	if (__atomic_sub_fetch(&sv->refs, 1, __ATOMIC_SEQ_CST) != 0)
		return;
	/* No op is left: the dispatcher's end freed the ones never taken,
	 * and its drain waited for the workers. */
	for (size_t i = 0; i < SV_MAX_INFLIGHT; i++)
		if (sv->inflight[i].used && sv->inflight[i].pidfd >= 0)
			close(sv->inflight[i].pidfd);
	/* Closing the listener makes any call still waiting fail (ENOSYS):
	 * nothing passes unchecked once we are gone. */
	close(sv->listener);
	close(sv->wake_fd);
	if (sv->opener >= 0)
		close(sv->opener);
	free_list(sv->allow, sv->n_allow);
	free_list(sv->hidden, sv->n_hidden);
	free_list(sv->revealed, sv->n_revealed);
	for (size_t i = 0; i < sv->n_past; i++)
		free((char *)sv->past[i].below);
	free(sv->past);
	free(sv->listeners);
	sv_noted_free(sv);
	pty_pool_unref(sv->pty_pool);
	scope_thread_unref(sv->scope);
	pthread_cond_destroy(&sv->work[0]);
	pthread_cond_destroy(&sv->work[1]);
	pthread_mutex_destroy(&sv->lock);
	/* Empty by now (the drain waited for every copy in flight). */
	if (sv->handoff[0] >= 0) {
		close(sv->handoff[0]);
		close(sv->handoff[1]);
	}
	free(sv->held);
	pthread_cond_destroy(&sv->drop_work);
	pthread_cond_destroy(&sv->drop_room);
	pthread_mutex_destroy(&sv->drop_lock);
	free(sv);
}

int sv_refuse(struct supervisor *sv, int err)
{
	__atomic_add_fetch(&sv->refusals, 1, __ATOMIC_RELAXED);
	return -err;
}

unsigned supervisor_refusals(const struct supervisor *sv)
{
	return sv ? __atomic_load_n(&sv->refusals, __ATOMIC_RELAXED) : 0;
}

void sv_wake(struct supervisor *sv)
{
	uint64_t one = 1;
	ssize_t n = write(sv->wake_fd, &one, sizeof(one));

	(void)n;
}

void sv_respond(struct supervisor *sv, uint64_t id, const struct sv_answer *a)
{
	struct seccomp_notif_resp resp = { .id = id, .val = a->val, .error = -a->err };

	if (a->abandon)
		return;
	if (a->cont)
		resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	/* ENOENT: the caller was killed meanwhile; nothing to tell. */
	ioctl(sv->listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}
