// reduce_sum_smem: per-block partial sums of a float vector with a classic shared-memory tree.
// Block b reduces the chunk x[b*2048 .. b*2048+2047] (clipped to n) and writes out[b].  Thread t
// loads two float4 vectors, at b*2048 + 4t and b*2048 + 1024 + 4t: each warp-wide load is 512
// contiguous bytes, and two independent loads per thread keep enough bytes in flight for HBM.
// Tree: the 256 thread sums go to shared memory; strides 128, 64, 32 with block barriers between
// steps; strides 16..1 stay inside warp 0, which needs only warp barriers (memory ordering within
// the warp).  Assumes n <= 2^32 - 2048 (u32 element indices).
extern "C" __global__ void __launch_bounds__(256) reduce_sum_smem(const float* __restrict__ x, float* __restrict__ out, unsigned n)
{
    __shared__ __align__(16) float sdata[256];
    const unsigned t = threadIdx.x;
    const unsigned e0 = blockIdx.x * 2048u + 4u * t, e1 = e0 + 1024u;   // the first elements of the two vectors
    const float* p = x + e0;   // &x[e1] = p + 1024 (4096 bytes further); chunk starts are 8 KiB aligned
    float4 a, b;
    if (e1 + 4u <= n) {   // fast path: both vectors entirely inside [0, n)
        a = __ldg(reinterpret_cast<const float4*>(p));
        b = __ldg(reinterpret_cast<const float4*>(p + 1024));
    } else {   // only the last block: element-wise guarded loads, missing elements contribute 0
        a = make_float4(0.0f, 0.0f, 0.0f, 0.0f); b = a;
        bool k0 = e0 < n, k1 = e0 + 1 < n, k2 = e0 + 2 < n, k3 = e0 + 3 < n;
        bool k4 = e1 < n, k5 = e1 + 1 < n, k6 = e1 + 2 < n, k7 = e1 + 3 < n;
        if (k0) a.x = __ldg(p); if (k1) a.y = __ldg(p + 1); if (k2) a.z = __ldg(p + 2); if (k3) a.w = __ldg(p + 3);
        if (k4) b.x = __ldg(p + 1024); if (k5) b.y = __ldg(p + 1025); if (k6) b.z = __ldg(p + 1026); if (k7) b.w = __ldg(p + 1027);
    }
    float s = ((a.x + a.y) + (a.z + a.w)) + ((b.x + b.y) + (b.z + b.w));   // pairwise: a shorter chain than a serial sum
    // ---- shared-memory tree: every thread executes every block barrier (the work is predicated) ----
    float* sp = &sdata[t];
    *sp = s;
    __syncthreads();
    if (t < 128) { s += sp[128]; *sp = s; }   // stride 128
    __syncthreads();
    if (t < 64) { s += sp[64]; *sp = s; }
    __syncthreads();
    if (t < 32) { s += sp[32]; *sp = s; }
    __syncthreads();
    if (t >= 32) return;   // only warp 0 continues (warp-uniform; no block barriers follow)
    if (t < 16) { s += sp[16]; *sp = s; }
    __syncwarp();
    if (t < 8) { s += sp[8]; *sp = s; }
    __syncwarp();
    if (t < 4) { s += sp[4]; *sp = s; }
    __syncwarp();
    if (t < 2) { s += sp[2]; *sp = s; }
    __syncwarp();
    if (t != 0) return;   // stride 1, thread 0 only
    out[blockIdx.x] = s + sp[1];
}
