#include <cuda_runtime.h>
extern "C" {
__global__ void gemv(const float *A, const float *x, float *y, int rows, int cols) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    float acc = 0.0f;
    for (int c = 0; c < cols; ++c) acc += A[row * cols + c] * x[c];
    y[row] = acc;
}
}
