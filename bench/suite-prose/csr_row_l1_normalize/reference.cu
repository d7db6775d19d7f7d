// csr_row_l1_normalize: out[k] = val[k] / sum_{k' in row} |val[k']|, 0 for a row summing to 0.
extern "C" __global__ void csr_row_l1_normalize(const int* __restrict__ rowptr, const float* __restrict__ val,
                                                float* __restrict__ out, unsigned int rows, unsigned int nnz)
{
    unsigned int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    int b = rowptr[r], e = rowptr[r + 1];
    float s = 0.0f;
    for (int k = b; k < e; k++) s += fabsf(val[k]);
    for (int k = b; k < e; k++) out[k] = s > 0.0f ? val[k] / s : 0.0f;
}
