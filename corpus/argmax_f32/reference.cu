// argmax_f32: per-block (max value, first index of it) over 2048-element chunks (CUDA C baseline).
__device__ __forceinline__ void better(float& v, unsigned& i, float ov, unsigned oi)
{
    // total order: larger value wins, equal values -> smaller index
    if (ov > v || (ov == v && oi < i)) { v = ov; i = oi; }
}

extern "C" __global__ void __launch_bounds__(256)
argmax_f32(const float* __restrict__ x, float* __restrict__ out_val, int* __restrict__ out_idx, unsigned n)
{
    __shared__ float swv[8];
    __shared__ unsigned swi[8];
    const unsigned t = threadIdx.x;
    const unsigned e0 = blockIdx.x * 2048u + 4u * t, e1 = e0 + 1024u;
    float v[8];
    if (e1 + 4u <= n) {
        const float4 a = __ldg(reinterpret_cast<const float4*>(x + e0));
        const float4 b = __ldg(reinterpret_cast<const float4*>(x + e1));
        v[0] = a.x; v[1] = a.y; v[2] = a.z; v[3] = a.w;
        v[4] = b.x; v[5] = b.y; v[6] = b.z; v[7] = b.w;
    } else {
        #pragma unroll
        for (unsigned k = 0; k < 4; k++) {
            v[k] = e0 + k < n ? x[e0 + k] : -__int_as_float(0x7f800000);
            v[4 + k] = e1 + k < n ? x[e1 + k] : -__int_as_float(0x7f800000);
        }
    }
    // elements in increasing index order: strict '>' keeps the first index
    float bv = v[0];
    unsigned bi = e0;
    #pragma unroll
    for (unsigned k = 1; k < 8; k++) {
        const unsigned idx = k < 4 ? e0 + k : e1 + (k - 4);
        if (v[k] > bv) { bv = v[k]; bi = idx; }
    }
    #pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        const float ov = __shfl_xor_sync(0xffffffffu, bv, o);
        const unsigned oi = __shfl_xor_sync(0xffffffffu, bi, o);
        better(bv, bi, ov, oi);
    }
    const unsigned lane = t & 31u, warp = t >> 5;
    if (lane == 0) { swv[warp] = bv; swi[warp] = bi; }
    __syncthreads();
    if (warp == 0) {
        bv = lane < 8 ? swv[lane] : -__int_as_float(0x7f800000);
        bi = lane < 8 ? swi[lane] : 0xffffffffu;
        #pragma unroll
        for (int o = 4; o > 0; o >>= 1) {
            const float ov = __shfl_xor_sync(0xffffffffu, bv, o);
            const unsigned oi = __shfl_xor_sync(0xffffffffu, bi, o);
            better(bv, bi, ov, oi);
        }
        if (lane == 0) { out_val[blockIdx.x] = bv; out_idx[blockIdx.x] = (int)bi; }
    }
}
