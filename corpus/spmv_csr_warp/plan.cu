// spmv_csr_warp: y = A x for a CSR matrix A, one 32-thread warp per row:
//   y[r] = sum over j in [row_ptr[r], row_ptr[r+1]) of vals[j] * x[col_idx[j]].
// Warp w of the grid owns row w; lane l handles nonzeros start+l, start+l+32, ... so the col_idx
// and vals reads are coalesced across the warp.  The loop is unrolled by 2 (two accumulators) to
// keep more gathers in flight on long rows; a butterfly shuffle combines the 32 partial sums.
extern "C" __global__ void spmv_csr_warp(const int* __restrict__ row_ptr, const int* __restrict__ col_idx, const float* __restrict__ vals, const float* __restrict__ x, float* __restrict__ y, unsigned rows)
{
    unsigned row = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;   // the global warp id
    unsigned lane = threadIdx.x & 31;
    if (row >= rows) return;   // warp-uniform (blockDim is a multiple of 32): the whole warp leaves
    int start = __ldg(&row_ptr[row]), end = __ldg(&row_ptr[row + 1]);   // broadcast loads
    int j = start + (int)lane;
    float s0 = 0.0f, s1 = 0.0f;
    for (; j + 32 < end; j += 64) {   // j and j+32 both valid
        int c0 = __ldg(&col_idx[j]), c1 = __ldg(&col_idx[j + 32]);
        float v0 = __ldg(&vals[j]), v1 = __ldg(&vals[j + 32]);
        float x0 = __ldg(&x[c0]), x1 = __ldg(&x[c1]);   // the gathers
        s0 = fmaf(v0, x0, s0); s1 = fmaf(v1, x1, s1);
    }
    if (j < end) s0 = fmaf(__ldg(&vals[j]), __ldg(&x[__ldg(&col_idx[j])]), s0);   // at most one more for this lane
    float sum = s0 + s1;   // all 32 lanes converge here
    #pragma unroll
    for (int off = 16; off > 0; off >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, off);   // butterfly
    if (lane == 0) y[row] = sum;
}
