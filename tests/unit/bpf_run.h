/* SPDX-License-Identifier: MIT */
/* bpf_eval for the unit tests of sbx's seccomp filters: a program it cannot
 * run fails the test. The kernel runs the same programs; the e2e tests check
 * the effects there. Include after <criterion/criterion.h>. */
#ifndef SBX_TEST_BPF_RUN_H
#define SBX_TEST_BPF_RUN_H

#include "bpf_eval.h"

static inline uint32_t bpf_run(const struct sock_fprog *prog, const struct seccomp_data *d)
{
	uint32_t verdict = 0;
	unsigned at = 0;

	cr_assert_eq(bpf_eval(prog, d, &verdict, &at), 0, "BPF the evaluator cannot run at %u", at);
	return verdict;
}

#endif
