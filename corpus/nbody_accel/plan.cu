// nbody_accel: gravitational acceleration with Plummer softening (G = 1):
//   a_i = sum over j of m_j * (p_j - p_i) / (|p_j - p_i|^2 + soft2)^(3/2)
// pos is an interleaved float4 array {x, y, z, mass} per body (16-byte aligned); the outputs are
// three arrays ax, ay, az.  The j == i term is included: its displacement is 0, so it adds 0.
// The GPU Gems 3 scheme: one thread per body, 256 threads per block (.reqntid); the j loop runs
// over tiles of 256 bodies, each thread loading one float4 (coalesced) into shared memory, read
// back after a barrier by every thread (the same address across the warp: a broadcast).
extern "C" __global__ void __launch_bounds__(256) nbody_accel(const float* __restrict__ pos, float* __restrict__ ax, float* __restrict__ ay, float* __restrict__ az, float soft2, unsigned N)
{
    __shared__ float4 tile[256];   // 256 x {x, y, z, m}
    const float4* p4 = reinterpret_cast<const float4*>(pos);
    unsigned t = threadIdx.x;
    unsigned i = blockIdx.x * 256 + t;
    bool own = i < N;   // threads with i >= N join the loads and barriers and skip only the stores
    float4 pi = own ? __ldg(&p4[i]) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);   // the own position (mass unused)
    float sx = 0.0f, sy = 0.0f, sz = 0.0f;   // the ax, ay, az accumulators
    float4* mine = &tile[t];
    unsigned tb = 0;   // the tile's first body
    do {   // block-uniform tile loop
        unsigned j = tb + t;
        *mine = j < N ? __ldg(&p4[j]) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);   // past N: mass 0 adds exactly 0
        __syncthreads();
        // all 256 bodies of every tile (no per-tile bound), unrolled by 4; per pair 12 FP ops + 1 MUFU
        #pragma unroll 4
        for (const float4* q = tile; q < tile + 256; q++) {
            float4 b = *q;
            float dx = b.x - pi.x, dy = b.y - pi.y, dz = b.z - pi.z;   // d = p_j - p_i
            float r2 = fmaf(dz, dz, fmaf(dy, dy, fmaf(dx, dx, soft2)));   // r^2 + soft2 >= soft2 > 0: rsqrt stays finite
            float inv = rsqrtf(r2);   // 1/r: rsqrt.approx
            float s = inv * inv * inv * b.w;   // m_j / r^3
            sx = fmaf(s, dx, sx); sy = fmaf(s, dy, sy); sz = fmaf(s, dz, sz);
        }
        __syncthreads();   // the tile is consumed before it is overwritten
        tb += 256;
    } while (tb < N);
    if (!own) return;
    ax[i] = sx; ay[i] = sy; az[i] = sz;
}
