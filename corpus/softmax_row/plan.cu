// softmax_row: y[r][c] = exp(x[r][c] - m_r) / sum over c' of exp(x[r][c'] - m_r), m_r = max over c
// of x[r][c]; rows x cols row-major f32, one 256-thread block (.reqntid) per row.  Three passes over
// the row (pass 1 streams it from DRAM, passes 2 and 3 re-read it from L1/L2): 1. the row max M,
// 2. the sum S of exp(x - M), 3. y = exp(x - M) * (1/S).  Every pass is unrolled by 4 (columns j,
// j+256, j+512, j+768) with independent accumulators and a scalar tail (cols is arbitrary, so rows
// are not 16-byte aligned: no vector loads).  Block reductions: butterflies in each warp, one
// partial per warp in shared memory, a barrier, then every warp re-reduces the 8 partials itself.
extern "C" __global__ void __launch_bounds__(256) softmax_row(const float* __restrict__ x, float* __restrict__ y, unsigned rows, unsigned cols)
{
    __shared__ float part_max[8], part_sum[8];   // separate arrays: no barrier between the two reductions
    unsigned row = blockIdx.x;
    if (row >= rows) return;   // block-uniform: the exit cannot split a block
    size_t base = (size_t)row * cols;   // the 64-bit row offset
    unsigned t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const float* px = x + base + t;   // &x[row][t]
    float* py = y + base + t;         // &y[row][t]
    unsigned lim = cols - 768;        // j + 768 < cols <=> j < cols - 768 (when cols > 768)
    bool wide = cols > 768;           // the 4-way loop runs at all
    // ================= pass 1: the row max =================
    float m0 = -INFINITY, m1 = -INFINITY, m2 = -INFINITY, m3 = -INFINITY;
    unsigned j = t;
    const float* p = px;
    if (wide) for (; j < lim; j += 1024, p += 1024) {
        float a = __ldg(p), b = __ldg(p + 256), c = __ldg(p + 512), d = __ldg(p + 768);
        m0 = fmaxf(m0, a); m1 = fmaxf(m1, b); m2 = fmaxf(m2, c); m3 = fmaxf(m3, d);
    }
    for (; j < cols; j += 256, p += 256) m0 = fmaxf(m0, __ldg(p));
    float m = fmaxf(fmaxf(m0, m1), fmaxf(m2, m3));
    #pragma unroll
    for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    if (lane == 0) part_max[warp] = m;
    __syncthreads();
    m = part_max[lane & 7];
    #pragma unroll
    for (int o = 4; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));   // M, the same in every thread
    // exp(x - M) = 2^(x*log2e - M*log2e) with one fma and ex2.approx: the rounding of M*log2e scales
    // every term of the row by the same factor, which cancels in the normalisation
    float nml = m * -1.44269504f;   // -M*log2(e)
    const float l2e = 1.44269504f;
    // ================= pass 2: the sum of exp(x - M) =================
    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
    j = t; p = px;
    if (wide) for (; j < lim; j += 1024, p += 1024) {
        float a = __ldg(p), b = __ldg(p + 256), c = __ldg(p + 512), d = __ldg(p + 768);
        a = exp2f(fmaf(a, l2e, nml)); b = exp2f(fmaf(b, l2e, nml)); c = exp2f(fmaf(c, l2e, nml)); d = exp2f(fmaf(d, l2e, nml));
        s0 += a; s1 += b; s2 += c; s3 += d;
    }
    for (; j < cols; j += 256, p += 256) s0 += exp2f(fmaf(__ldg(p), l2e, nml));
    float s = (s0 + s1) + (s2 + s3);
    #pragma unroll
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (lane == 0) part_sum[warp] = s;
    __syncthreads();
    s = part_sum[lane & 7];
    #pragma unroll
    for (int o = 4; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);   // S
    float inv = __frcp_rn(s);   // 1/S
    // ================= pass 3: y = exp(x - M) * (1/S) =================
    j = t; p = px;
    float* q = py;
    if (wide) for (; j < lim; j += 1024, p += 1024, q += 1024) {
        float a = __ldg(p), b = __ldg(p + 256), c = __ldg(p + 512), d = __ldg(p + 768);
        a = exp2f(fmaf(a, l2e, nml)); b = exp2f(fmaf(b, l2e, nml)); c = exp2f(fmaf(c, l2e, nml)); d = exp2f(fmaf(d, l2e, nml));
        q[0] = a * inv; q[256] = b * inv; q[512] = c * inv; q[768] = d * inv;
    }
    for (; j < cols; j += 256, p += 256, q += 256) *q = exp2f(fmaf(__ldg(p), l2e, nml)) * inv;
}
