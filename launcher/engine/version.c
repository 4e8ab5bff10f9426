/* SPDX-License-Identifier: MIT */
#include "sbx.h"

const char *sbx_version(void)
{
	return SBX_VERSION;
}
