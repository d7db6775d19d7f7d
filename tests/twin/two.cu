extern "C" __global__ void first(float *x, int n) { if (threadIdx.x < n) x[threadIdx.x] = 1.0f; }
extern "C" __global__ void second(float *x, int n) { if (threadIdx.x < n) x[threadIdx.x] = 2.0f; }
