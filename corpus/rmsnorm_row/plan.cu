// rmsnorm_row: per row r of a rows x cols row-major f32 matrix
//   y[r][c] = x[r][c] * rsqrt(sum over c of x[r][c]^2 / cols + eps) * w[c]
// One 256-thread block (.reqntid) per row, two passes: pass 1 streams the row from DRAM, pass 2
// re-reads it from L1/L2 (an 8 KB row per block stays cached); w is shared by all rows (L2).
// Both passes are unrolled by 4 (columns j, j+256, j+512, j+768 at immediate byte offsets) with a
// scalar tail; cols is arbitrary, so rows are not 16-byte aligned and vector loads are not used.
// Block reduction: butterflies in each warp, one partial per warp in shared memory, one barrier,
// then every warp reduces the 8 partials itself: all threads get the same sum without a second one.
extern "C" __global__ void __launch_bounds__(256) rmsnorm_row(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y, float eps, unsigned rows, unsigned cols)
{
    __shared__ float part[8];
    unsigned row = blockIdx.x;
    if (row >= rows) return;   // block-uniform: the exit cannot split a block
    size_t base = (size_t)row * cols;   // the 64-bit row offset
    unsigned t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const float* px = x + base + t;   // &x[row][t]
    float* py = y + base + t;         // &y[row][t]
    const float* pw = w + t;          // &w[t]
    unsigned lim = cols - 768;        // the 4-way step is allowed while j < cols - 768
    bool wide = cols > 768;
    // ================= pass 1: the sum of x^2 =================
    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;   // 4 independent FMA chains
    unsigned j = t;
    const float* p = px;
    if (wide) for (; j < lim; j += 1024, p += 1024) {
        float a = __ldg(p), b = __ldg(p + 256), c = __ldg(p + 512), d = __ldg(p + 768);
        s0 = fmaf(a, a, s0); s1 = fmaf(b, b, s1); s2 = fmaf(c, c, s2); s3 = fmaf(d, d, s3);
    }
    for (; j < cols; j += 256, p += 256) { float a = __ldg(p); s0 = fmaf(a, a, s0); }   // the scalar tail
    float s = (s0 + s1) + (s2 + s3);
    #pragma unroll
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (lane == 0) part[warp] = s;
    __syncthreads();
    s = part[lane & 7];
    #pragma unroll
    for (int o = 4; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);   // the sum of squares
    float mean = __fdiv_rn(s, (float)cols);   // the mean of squares
    float scale = rsqrtf(mean + eps);   // rsqrt.approx (~2 ulp) instead of an exact sqrt and division
    // ================= pass 2: y = x * scale * w =================
    j = t; p = px;
    float* q = py;
    const float* r = pw;
    if (wide) for (; j < lim; j += 1024, p += 1024, q += 1024, r += 1024) {
        float a = __ldg(p), b = __ldg(p + 256), c = __ldg(p + 512), d = __ldg(p + 768);
        float wa = __ldg(r), wb = __ldg(r + 256), wc = __ldg(r + 512), wd = __ldg(r + 768);
        q[0] = a * scale * wa; q[256] = b * scale * wb; q[512] = c * scale * wc; q[768] = d * scale * wd;
    }
    for (; j < cols; j += 256, p += 256, q += 256, r += 256) *q = __ldg(p) * scale * __ldg(r);
}
