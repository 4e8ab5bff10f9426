/* SPDX-License-Identifier: MIT */
/* Where a path lies in the namespace runner's workspace-write view (see
 * ns_view.h): pure, allocation-free, so every step of the view's build
 * (the covers, the rebuilt directories, the read-only walk) asks it without
 * calling back up into another. */
#include <stddef.h>

#include "classify.h" /* path_is_within */
#include "ns_view.h"

enum ns_place ns_place_of(const struct ns_view_spec *v, const char *root, const char *path)
{
	if (!root)
		return NS_OUTSIDE;
	if (path_is_within(path, root))
		return NS_IN_ROOT;
	for (size_t i = 0; i < v->n_homes && i < NS_VIEW_MAX_HOMES; i++)
		if (v->home_path[i] && path_is_within(path, v->home_path[i]))
			return NS_IN_HOME;
	return NS_OUTSIDE;
}
