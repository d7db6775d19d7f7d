// histogram_smem: 256-bin byte histogram, shared-memory privatisation + global atomics (CUDA C baseline).
// bins starts at 0; grid-stride over 16-byte vectors, the n%16 tail bytes go to threads g < n%16.
extern "C" __global__ void __launch_bounds__(256)
histogram_smem(const unsigned char* __restrict__ data, unsigned* __restrict__ bins, unsigned n)
{
    __shared__ unsigned shist[256];
    const unsigned t = threadIdx.x;
    shist[t] = 0;
    __syncthreads();
    const unsigned g = blockIdx.x * 256u + t, stride = gridDim.x * 256u;
    const unsigned nvec = n >> 4;
    const uint4* v4 = reinterpret_cast<const uint4*>(data);
    for (unsigned v = g; v < nvec; v += stride) {
        const uint4 w = __ldg(v4 + v);
        const unsigned words[4] = {w.x, w.y, w.z, w.w};
        #pragma unroll
        for (int q = 0; q < 4; q++) {
            #pragma unroll
            for (int s = 0; s < 32; s += 8) atomicAdd(&shist[(words[q] >> s) & 0xffu], 1u);
        }
    }
    if (g < (n & 15u)) atomicAdd(&shist[data[nvec * 16u + g]], 1u);
    __syncthreads();
    const unsigned c = shist[t];
    if (c) atomicAdd(&bins[t], c);
}
