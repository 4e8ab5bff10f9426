/* SPDX-License-Identifier: MIT */
/* What a confined run sees besides its mode: the workspace's own /tmp and tool
 * cache, protected paths inside the root, hidden paths outside it. Prepared by
 * the parent, once per run, into run_state.view (view_prepare.c). */
#ifndef SBX_VIEW_PREPARE_H
#define SBX_VIEW_PREPARE_H

#include "run.h"

/* The built-in lists (documented in sbx(1) and docs/security.md). */
extern const char *const view_default_protected[];
extern const char *const view_default_hidden[]; /* relative to $HOME */

int view_prepare(struct run_state *r, const struct sbx_run *cfg, struct sbx_error *err);
/* workspace-write, before the command starts: join or record the root's
 * baseline of its protected paths (protect_base.c). */
int view_protect_begin(struct run_state *r, struct sbx_error *err);
void view_release(struct run_state *r);

#endif
