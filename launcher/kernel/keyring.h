/* SPDX-License-Identifier: MIT */
#ifndef SBX_KEYRING_H
#define SBX_KEYRING_H

#include "child_status.h"

/* Child (no allocation): join a fresh anonymous session keyring, so the
 * command neither sees nor changes the caller's session keyring, and the
 * kernel's own key lookups on its behalf search only this empty one. A
 * kernel without keyrings (ENOSYS) or an outer filter that refuses them
 * (EPERM, which then refuses the command's calls too) is not an error.
 * 0, or -1 with st (STAGE_KEYRING). */
int keyring_join_new_session(struct child_status *st);

#endif
