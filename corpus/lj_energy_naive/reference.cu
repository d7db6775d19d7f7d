// lj_energy_naive: Lennard-Jones energy per atom, every thread loops over all
// atoms straight from global memory (no shared-memory tiles).
extern "C" __global__ void lj_energy_naive(const float* __restrict__ x, const float* __restrict__ y,
                                           const float* __restrict__ z, float* __restrict__ energy,
                                           float eps, float sigma, float cutoff, unsigned int N)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    float s2 = sigma * sigma, rmin2 = 0.25f * s2, rc2 = cutoff * cutoff;
    float xi = x[i], yi = y[i], zi = z[i];
    float e = 0.0f;
    for (unsigned int j = 0; j < N; j++) {
        float dx = x[j] - xi, dy = y[j] - yi, dz = z[j] - zi;
        float r2 = dx * dx + dy * dy + dz * dz;
        if (r2 < rc2 && j != i) {
            float sr2 = s2 / fmaxf(r2, rmin2);
            float sr6 = sr2 * sr2 * sr2;
            e += sr6 * (sr6 - 1.0f);
        }
    }
    energy[i] = 4.0f * eps * e;
}
