// lj_energy: Lennard-Jones energy per atom with a cutoff, positions as SoA
// arrays x, y, z; r^2 is clamped to (sigma/2)^2 before the power terms.
// Launch: 256 threads, grid cdiv(N,256); positions cached in shared tiles.
#define NT 256
extern "C" __global__ void lj_energy(const float* __restrict__ x, const float* __restrict__ y,
                                     const float* __restrict__ z, float* __restrict__ energy,
                                     float eps, float sigma, float cutoff, unsigned int N)
{
    __shared__ float4 tile[NT];
    unsigned int i = blockIdx.x * NT + threadIdx.x;
    float s2 = sigma * sigma, rmin2 = 0.25f * s2, rc2 = cutoff * cutoff;
    float xi = 0.0f, yi = 0.0f, zi = 0.0f;
    if (i < N) { xi = x[i]; yi = y[i]; zi = z[i]; }
    float e = 0.0f;
    for (unsigned int tb = 0; tb < N; tb += NT) {
        unsigned int j = tb + threadIdx.x;
        if (j < N) tile[threadIdx.x] = make_float4(x[j], y[j], z[j], 0.0f);
        __syncthreads();
        unsigned int cnt = min(NT, N - tb);
#pragma unroll 4
        for (unsigned int k = 0; k < cnt; k++) {
            float4 p = tile[k];
            float dx = p.x - xi, dy = p.y - yi, dz = p.z - zi;
            float r2 = dx * dx + dy * dy + dz * dz;
            if (r2 < rc2 && tb + k != i) {
                float sr2 = s2 / fmaxf(r2, rmin2);
                float sr6 = sr2 * sr2 * sr2;
                e += sr6 * (sr6 - 1.0f);
            }
        }
        __syncthreads();
    }
    if (i < N) energy[i] = 4.0f * eps * e;
}
