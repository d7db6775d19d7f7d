/* gpu_internal.h — what the GPU harness's tests read of its inner state (not the public API). */
#ifndef PTXGEN_GPU_INTERNAL_H
#define PTXGEN_GPU_INTERNAL_H
#include "ptxgen/gpu.h"

/* Size s's input sets in the region m's workers share (published by gpu_memo_prepare's process or by an
 * exiting worker): *ins and *ref each point at *n instances (size s, distribution k / seeds, seed
 * k % seeds + 1), owned by the memo.  False when size s is not published (or m has no region). */
bool gpu_memo_shared_sets(gpu_memo *m, int s, const task_inst **ins, const task_inst **ref, int *n);
#endif
