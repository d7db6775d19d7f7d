// segmented_row_sum: out[r] = the sum of row r of a row-major rows x cols float matrix, one warp
// per row (8 rows per 256-thread block).  cols is in general not a multiple of 32 (nor of 4), so
// rows start at arbitrary 4-byte alignment and 128-bit loads would need a per-row prologue; the
// lanes read consecutive floats instead (each warp-wide load is 128 contiguous bytes).  To keep
// enough bytes in flight, the main loop issues 8 independent loads per lane into 4 accumulators;
// a remainder loop takes the last < 256 columns 32 at a time; then a butterfly combines the lanes.
extern "C" __global__ void __launch_bounds__(256) segmented_row_sum(const float* __restrict__ x, float* __restrict__ out, unsigned rows, unsigned cols)
{
    const unsigned warp = threadIdx.x >> 5, lane = threadIdx.x & 31u;
    const unsigned row = blockIdx.x * 8u + warp;
    if (row >= rows) return;   // whole warps exit; there is no barrier
    const float* p = x + ((size_t)row * cols + lane);   // 64-bit offset of x[row][lane]
    unsigned c = lane;         // u32 column: assumes cols <= 2^32 - 256
    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
    for (; c + 224 < cols; c += 256, p += 256) {   // a full group of 8 columns per lane
        float v0 = __ldg(p), v1 = __ldg(p + 32), v2 = __ldg(p + 64), v3 = __ldg(p + 96);
        float v4 = __ldg(p + 128), v5 = __ldg(p + 160), v6 = __ldg(p + 192), v7 = __ldg(p + 224);
        s0 += v0; s1 += v1; s2 += v2; s3 += v3;
        s0 += v4; s1 += v5; s2 += v6; s3 += v7;
    }
    for (; c < cols; c += 32, p += 32) s0 += __ldg(p);   // the remainder, 32 columns at a time
    float s = (s0 + s1) + (s2 + s3);
    #pragma unroll
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);   // butterfly
    if (lane == 0) out[row] = s;
}
