/* SPDX-License-Identifier: MIT */
/* The run's own session keyring (raw keyctl: no libkeyutils). */
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "keyring.h"

#define KEYCTL_JOIN_SESSION_KEYRING 1

int keyring_join_new_session(struct child_status *st)
{
	/* A NULL name: always a new anonymous keyring ("_ses"), never one
	 * found by name. Why before exec and for every confined run: an
	 * inherited session keyring is the caller's, and its keys (tokens,
	 * Kerberos tickets) would be readable and replaceable by the command. */
	if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL, 0, 0, 0) >= 0)
		return 0;
	if (errno == ENOSYS || errno == EPERM)
		return 0;
	/* EDQUOT: the caller's key quota is used up. Running on with the
	 * caller's keyring would be the side door; refuse. */
	return child_status_set(st, STAGE_KEYRING, errno, "keyctl(JOIN_SESSION_KEYRING)", NULL);
}
