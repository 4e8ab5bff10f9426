/* SPDX-License-Identifier: MIT */
/* What a confined run sees besides its mode: the workspace's own /tmp and tool
 * cache, protected paths inside the root, hidden paths outside it. Prepared by
 * the parent, once per run, into run_state.view (view_prepare.c). */
#ifndef SBX_VIEW_PREPARE_H
#define SBX_VIEW_PREPARE_H

#include "run.h"

/* The built-in lists (documented in sbx(1) and docs/workspace.md). */
extern const char *const view_default_protected[];
/* A default credential store: where it is relative to. */
struct view_hidden {
	enum { VIEW_HOME, VIEW_CONFIG, VIEW_DATA, VIEW_RUNTIME } base;
	const char *rel;
};
extern const struct view_hidden view_default_hidden[];
/* A default credential store that the tool's own variable moves: rel below
 * the directory it names, or (rel NULL) the file it names; list: a list of
 * files separated by ':' (KUBECONFIG). */
struct view_env_hidden {
	const char *var, *rel;
	bool list;
};
extern const struct view_env_hidden view_env_hidden[];

int view_prepare(struct run_state *r, const struct sbx_run *cfg, struct sbx_error *err);
/* workspace-write, before the command starts: join or record the root's
 * baseline of its protected paths (protect_base.c). */
int view_protect_begin(struct run_state *r, struct sbx_error *err);
void view_release(struct run_state *r);

/* The caller's home as the user database has it (the passwd file itself in
 * the static build, which loads no NSS module), or NULL. */
const char *view_passwd_home(void);

#endif
