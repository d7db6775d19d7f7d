// examples/nvcc/kernels.cu — a small real CUDA file for `ptxgen-nvcc` (README,
// "nvcc wrapper"): an elementwise update, a clamp and a block reduction, the
// shapes the super-optimization mode was trained on.
//   ptxgen-nvcc -O3 -arch=sm_90 -c examples/nvcc/kernels.cu -o kernels.o --ptxgen-out out/
#include <cuda_runtime.h>

extern "C" __global__ void axpby(const float *x, float *y, float a, float b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + b * y[i];
}

extern "C" __global__ void clamp_scale(const float *in, float *out, float s, float lo, float hi, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = fminf(fmaxf(in[i] * s, lo), hi);
}

// One partial sum per block of 256 threads, through shared memory.
extern "C" __global__ void block_sum(const float *in, float *partial, int n) {
    __shared__ float buf[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    buf[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = buf[0];
}
