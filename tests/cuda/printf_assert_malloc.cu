// PTX: vprintf calls with .local arg buffers and .global string constants, __assertfail (assert), malloc/free (.extern .func malloc), __trap -> trap, __brkpt -> brkpt, __nanosleep -> nanosleep.u32, pmevent, exit
#include <cstdio>
#include <cassert>
#include <cuda_runtime.h>

__global__ void kernel_printf(const float* __restrict__ x, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n) printf("thread %d block %d value %f double %e char %c str %s ptr %p ll %lld\n", t, blockIdx.x, x[t], (double)x[t] * 2.0, 'A' + (t % 26), "ok", (void*)x, (long long)t << 40);
    if (t == 0) printf("no-arg message\n");
}

__global__ void kernel_assert(const int* __restrict__ x, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    assert(t < n);
    assert(x[t] >= 0 && "value must be non-negative");
}

__global__ void kernel_malloc(int** slots, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int* p = (int*)malloc(n * sizeof(int));
    if (!p) { printf("malloc failed\n"); return; }
    for (int i = 0; i < n; ++i) p[i] = i * t;
    slots[t] = p;
    __syncthreads();
    if (t % 2) { free(slots[t]); slots[t] = nullptr; }
    int* q = new int[4];
    q[0] = t;
    slots[t + 1024] = q;
    delete[] q;
}

__global__ void kernel_trap_sleep(int* flag, int n)
{
    if (n < 0) __trap();
    if (n == 12345) __brkpt();
    if (n == 54321) asm volatile("brkpt;");
    while (atomicAdd(flag, 0) == 0) {
#if __CUDA_ARCH__ >= 700
        __nanosleep(100);
        asm volatile("nanosleep.u32 %0;" :: "r"(n & 1023));
#endif
    }
    asm volatile("pmevent 3;");
    asm volatile("pmevent.mask 0x5;");
    if (n == 7) asm volatile("trap;");
    flag[threadIdx.x + 1] = n;
}
