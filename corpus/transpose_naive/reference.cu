// Naive matrix transpose out = in^T (in: rows x cols), one thread per element.
extern "C" __global__ void transpose_naive(const float* __restrict__ in, float* __restrict__ out,
                                           unsigned rows, unsigned cols)
{
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x;   // input column
    unsigned y = blockIdx.y * blockDim.y + threadIdx.y;   // input row
    if (x < cols && y < rows)
        out[(size_t)x * rows + y] = in[(size_t)y * cols + x];
}
