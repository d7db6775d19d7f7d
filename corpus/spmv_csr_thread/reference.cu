// CSR SpMV, one thread per row: y[r] = sum_j vals[j] * x[col_idx[j]].
extern "C" __global__ void spmv_csr_thread(const int* __restrict__ row_ptr,
                                           const int* __restrict__ col_idx,
                                           const float* __restrict__ vals,
                                           const float* __restrict__ x,
                                           float* __restrict__ y,
                                           unsigned rows)
{
    unsigned row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    int start = row_ptr[row], end = row_ptr[row + 1];
    float sum = 0.0f;
    for (int j = start; j < end; ++j)
        sum = fmaf(vals[j], x[col_idx[j]], sum);
    y[row] = sum;
}
