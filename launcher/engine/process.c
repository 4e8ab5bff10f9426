/* SPDX-License-Identifier: MIT */
/* What libsbx changes in the whole process, and only when asked: by default
 * a run leaves its caller as it found it (no subreaper, the caller's
 * resource limits and signal dispositions, only its own processes waited
 * for). sbx's own commands (run, serve, mcp) opt in: the process is theirs,
 * and a run without a keeper (keeper.c) starts faster. */
#include <errno.h>
#include <sys/prctl.h>

#include "inflight.h"
#include "launcher.h"

static unsigned opted;

int sbx_process_opt_in(unsigned flags)
{
	if (flags & ~(unsigned)(SBX_PROCESS_SUBREAPER | SBX_PROCESS_NOFILE_MARGIN))
		return -EINVAL;
	if ((flags & SBX_PROCESS_SUBREAPER) && prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
		return -errno;
	if (flags & SBX_PROCESS_NOFILE_MARGIN)
		inflight_room_reserve();
	__atomic_or_fetch(&opted, flags, __ATOMIC_SEQ_CST);
	return 0;
}

bool process_is_subreaper(void)
{
	return __atomic_load_n(&opted, __ATOMIC_SEQ_CST) & SBX_PROCESS_SUBREAPER;
}
