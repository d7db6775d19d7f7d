// lj_shifted_aos: per-atom shifted LJ energy with cutoff; xyz triples; 128-position tiles in shared memory.
#define NT 128
extern "C" __global__ void lj_shifted_aos(const float* __restrict__ pos, float* __restrict__ energy,
                                          float eps, float sigma, float cutoff, unsigned int N)
{
    __shared__ float sp[3 * NT];
    unsigned int i = blockIdx.x * NT + threadIdx.x;
    float xi = 0.0f, yi = 0.0f, zi = 0.0f;
    if (i < N) { xi = pos[3 * i]; yi = pos[3 * i + 1]; zi = pos[3 * i + 2]; }
    float s2 = sigma * sigma, rmin2 = 0.25f * s2, rc2 = cutoff * cutoff;
    float sc = s2 / rc2, sc6 = sc * sc * sc, ec = 4.0f * eps * (sc6 * sc6 - sc6);
    float e = 0.0f;
    for (unsigned int t0 = 0; t0 < N; t0 += NT) {
        for (unsigned int k = threadIdx.x; k < 3 * NT; k += NT) sp[k] = 3 * t0 + k < 3 * N ? pos[3 * t0 + k] : 0.0f;
        __syncthreads();
        unsigned int cnt = min(NT, N - t0);
        for (unsigned int j = 0; j < cnt; j++) {
            float dx = sp[3 * j] - xi, dy = sp[3 * j + 1] - yi, dz = sp[3 * j + 2] - zi;
            float r2 = dx * dx + dy * dy + dz * dz;
            if (t0 + j != i && r2 < rc2) {
                float sr2 = s2 / fmaxf(r2, rmin2);
                float sr6 = sr2 * sr2 * sr2;
                e += 4.0f * eps * (sr6 * sr6 - sr6) - ec;
            }
        }
        __syncthreads();
    }
    if (i < N) energy[i] = e;
}
