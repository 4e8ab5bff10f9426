/* SPDX-License-Identifier: MIT */
/* A small classic-BPF interpreter for the unit tests of sbx's seccomp
 * filters: the subset of instructions a seccomp filter may use and sbx's
 * filters do. The kernel runs the same programs; the e2e tests check the
 * effects there. Include after <criterion/criterion.h>. */
#ifndef SBX_TEST_BPF_RUN_H
#define SBX_TEST_BPF_RUN_H

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdint.h>
#include <string.h>

static inline uint32_t bpf_run(const struct sock_fprog *prog, const struct seccomp_data *d)
{
	uint32_t a = 0;
	const unsigned char *mem = (const unsigned char *)d;

	for (unsigned pc = 0; pc < prog->len; pc++) {
		const struct sock_filter *f = &prog->filter[pc];

		switch (f->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			cr_assert_leq(f->k + 4, sizeof(*d), "load past seccomp_data at %u", pc);
			memcpy(&a, mem + f->k, 4);
			break;
		case BPF_ALU | BPF_AND | BPF_K:
			a &= f->k;
			break;
		case BPF_JMP | BPF_JA:
			pc += f->k;
			break;
		case BPF_JMP | BPF_JEQ | BPF_K:
			pc += a == f->k ? f->jt : f->jf;
			break;
		case BPF_JMP | BPF_JGT | BPF_K:
			pc += a > f->k ? f->jt : f->jf;
			break;
		case BPF_JMP | BPF_JGE | BPF_K:
			pc += a >= f->k ? f->jt : f->jf;
			break;
		case BPF_JMP | BPF_JSET | BPF_K:
			pc += (a & f->k) ? f->jt : f->jf;
			break;
		case BPF_RET | BPF_K:
			return f->k;
		default:
			cr_assert_fail("unexpected BPF code 0x%x at %u", f->code, pc);
		}
	}
	cr_assert_fail("the filter fell off its end");
	return 0;
}

#endif
