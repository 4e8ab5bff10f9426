/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sbx.h"

static void copy_bounded(char *dst, size_t size, const char *src)
{
	if (!src)
		src = "";
	snprintf(dst, size, "%s", src);
}

int sbx_error_set(struct sbx_error *err, int errnum, const char *code, const char *detail,
		  const char *fmt, ...)
{
	if (err) {
		va_list ap;

		copy_bounded(err->code, sizeof(err->code), code);
		copy_bounded(err->detail, sizeof(err->detail), detail);
		va_start(ap, fmt);
		vsnprintf(err->message, sizeof(err->message), fmt, ap);
		va_end(ap);
	}
	return errnum > 0 ? -errnum : -EINVAL;
}
