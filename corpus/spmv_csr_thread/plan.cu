// spmv_csr_thread: y = A x for a CSR matrix A (rows x cols), one thread per row:
//   y[r] = sum over j in [row_ptr[r], row_ptr[r+1]) of vals[j] * x[col_idx[j]].
// Each thread walks its own row; the nonzero loop is unrolled by 4 so that 4 col_idx loads, 4
// vals loads and then 4 dependent x gathers are in flight at once (the gathers dominate latency).
// All inputs go through the read-only path.  col_idx/vals accesses are not coalesced across a warp
// (each thread streams its own row): the nature of one thread per row.
extern "C" __global__ void spmv_csr_thread(const int* __restrict__ row_ptr, const int* __restrict__ col_idx, const float* __restrict__ vals, const float* __restrict__ x, float* __restrict__ y, unsigned rows)
{
    unsigned row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    int start = __ldg(&row_ptr[row]), end = __ldg(&row_ptr[row + 1]);
    int left = end - start;   // remaining nonzeros
    const int* pc = col_idx + start;   // &col_idx[start]
    const float* pv = vals + start;    // &vals[start]
    float sum = 0.0f;
    for (; left >= 4; left -= 4, pc += 4, pv += 4) {   // 4 nonzeros per trip
        int c0 = __ldg(pc), c1 = __ldg(pc + 1), c2 = __ldg(pc + 2), c3 = __ldg(pc + 3);
        float v0 = __ldg(pv), v1 = __ldg(pv + 1), v2 = __ldg(pv + 2), v3 = __ldg(pv + 3);
        float x0 = __ldg(&x[c0]), x1 = __ldg(&x[c1]), x2 = __ldg(&x[c2]), x3 = __ldg(&x[c3]);   // the gathers
        sum = fmaf(v0, x0, sum); sum = fmaf(v1, x1, sum); sum = fmaf(v2, x2, sum); sum = fmaf(v3, x3, sum);
    }
    for (; left >= 1; left--, pc++, pv++) sum = fmaf(__ldg(pv), __ldg(&x[__ldg(pc)]), sum);   // 0..3 left
    y[row] = sum;
}
