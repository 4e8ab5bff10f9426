/* SPDX-License-Identifier: MIT */
/* Classic BPF as seccomp runs it, in user space: what a filter answers for
 * one call. The supervisor asks it which calls the errno rules refuse (the
 * joined filter hands those to it to count); the unit tests check filters
 * with it. */
#ifndef SBX_BPF_EVAL_H
#define SBX_BPF_EVAL_H

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdint.h>

/* The filter's return value for d in *verdict: 0, or -EINVAL for a program
 * that uses an instruction seccomp filters of ours do not (or loads past
 * the data, or runs off its end); *at is then the instruction's index. */
int bpf_eval(const struct sock_fprog *prog, const struct seccomp_data *d, uint32_t *verdict,
	     unsigned *at);

#endif
