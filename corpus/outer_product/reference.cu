// Outer product C = x y^T (C: m x n row-major); grid.y = row, grid.x*block.x = column.
extern "C" __global__ void outer_product(const float* __restrict__ x, const float* __restrict__ y,
                                         float* __restrict__ C, unsigned m, unsigned n)
{
    unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned i = blockIdx.y;
    if (i < m && j < n)
        C[(size_t)i * n + j] = x[i] * y[j];
}
