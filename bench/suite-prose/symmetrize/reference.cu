// symmetrize: out = (A + A^T) / 2; the transposed 16x16 tile goes through shared memory.
#define TS 16
extern "C" __global__ void symmetrize(const float* __restrict__ A, float* __restrict__ out, unsigned int n)
{
    __shared__ float t[TS][TS + 1];
    unsigned int tx = threadIdx.x, ty = threadIdx.y;
    unsigned int i = blockIdx.y * TS + ty, j = blockIdx.x * TS + tx;
    unsigned int ti = blockIdx.x * TS + ty, tj = blockIdx.y * TS + tx;   // the mirrored tile, read coalesced
    if (ti < n && tj < n) t[ty][tx] = A[(size_t)ti * n + tj];
    __syncthreads();
    if (i < n && j < n) out[(size_t)i * n + j] = 0.5f * (A[(size_t)i * n + j] + t[tx][ty]);
}
