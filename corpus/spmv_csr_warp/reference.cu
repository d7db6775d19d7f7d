// CSR SpMV, one warp per row, shuffle reduction.
extern "C" __global__ void spmv_csr_warp(const int* __restrict__ row_ptr,
                                         const int* __restrict__ col_idx,
                                         const float* __restrict__ vals,
                                         const float* __restrict__ x,
                                         float* __restrict__ y,
                                         unsigned rows)
{
    unsigned gtid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned row = gtid / 32;
    unsigned lane = threadIdx.x % 32;
    if (row >= rows) return;
    int start = row_ptr[row], end = row_ptr[row + 1];
    float sum = 0.0f;
    for (int j = start + (int)lane; j < end; j += 32)
        sum = fmaf(vals[j], x[col_idx[j]], sum);
    for (int off = 16; off > 0; off >>= 1)
        sum += __shfl_xor_sync(0xffffffffu, sum, off);
    if (lane == 0) y[row] = sum;
}
