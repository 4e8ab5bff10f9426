/* SPDX-License-Identifier: MIT */
/* The subset of classic BPF that libseccomp emits for sbx's rules and that
 * seccomp_filter_join adds: absolute word loads from seccomp_data, AND with a
 * constant, conditional and unconditional jumps, constant returns. */
#include <errno.h>
#include <string.h>

#include "bpf_eval.h"

int bpf_eval(const struct sock_fprog *prog, const struct seccomp_data *d, uint32_t *verdict,
	     unsigned *at)
{
	const unsigned char *mem = (const unsigned char *)d;
	uint32_t a = 0;
	unsigned pc;

	for (pc = 0; pc < prog->len; pc++) {
		const struct sock_filter *f = &prog->filter[pc];

		switch (f->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			if (f->k > sizeof(*d) - 4 || (f->k & 3))
				goto bad;
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
			*verdict = f->k;
			return 0;
		default:
			goto bad;
		}
	}
bad:
	if (at)
		*at = pc;
	return -EINVAL;
}
