// pairwise_dist: dist[i][j] = ||a_i - b_j||_2, 16x16 output tiles, d-chunks of a and b in shared memory.
#define TS 16
extern "C" __global__ void pairwise_dist(const float* __restrict__ a, const float* __restrict__ b,
                                         float* __restrict__ dist, unsigned int m, unsigned int n, unsigned int d)
{
    __shared__ float sa[TS][TS + 1], sb[TS][TS + 1];
    unsigned int tx = threadIdx.x, ty = threadIdx.y;
    unsigned int i = blockIdx.y * TS + ty, j = blockIdx.x * TS + tx;
    unsigned int ib = blockIdx.y * TS, jb = blockIdx.x * TS;
    float s = 0.0f;
    for (unsigned int k0 = 0; k0 < d; k0 += TS) {
        // sa[r][k] = a[ib + r][k0 + k], sb[r][k] = b[jb + r][k0 + k]
        sa[ty][tx] = (ib + ty < m && k0 + tx < d) ? a[(size_t)(ib + ty) * d + k0 + tx] : 0.0f;
        sb[ty][tx] = (jb + ty < n && k0 + tx < d) ? b[(size_t)(jb + ty) * d + k0 + tx] : 0.0f;
        __syncthreads();
        unsigned int kn = d - k0 < TS ? d - k0 : TS;
        for (unsigned int k = 0; k < kn; k++) {
            float t = sa[ty][k] - sb[tx][k];
            s += t * t;
        }
        __syncthreads();
    }
    if (i < m && j < n) dist[(size_t)i * n + j] = sqrtf(s);
}
