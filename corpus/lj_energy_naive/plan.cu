// lj_energy_naive: the Lennard-Jones energy of lj_energy without shared memory, the speed
// baseline for the tiled version:
//   energy[i] = sum over j != i with r^2 < cutoff^2 of 4*eps*(sr2^6 - sr2^3), sr2 = sigma^2 / max(r^2, (sigma/2)^2)
// Positions are three arrays x, y, z (SoA).  One thread per atom i, 256 threads per block.  Each
// thread walks j = 0..N-1 straight from global memory: all lanes of a warp load the same x[j],
// y[j], z[j] (one broadcast request each, served by L1 after the first warp).  It spends 3 scalar
// global loads per pair where the tiled kernel spends 1 shared vector load: the point of the pair.

// One pair, branch-free: adds sr6^2 - sr6 to acc when r^2 < rc2 and the atom is not i itself.
// r^2 is clamped at rmin2 = (sigma/2)^2 (as in the C reference): near-coincident atoms stay finite.
__device__ __forceinline__ void lj_add(float& acc, float dx, float dy, float dz, bool other, float s2, float rmin2, float rc2)
{
    float r2 = fmaf(dx, dx, fmaf(dy, dy, dz * dz));
    bool in = r2 < rc2 && other;   // the cutoff and the j != i test in one predicate
    float sr2 = __fdividef(1.0f, fmaxf(r2, rmin2)) * s2;   // rcp.approx (one MUFU op) of the clamped r^2
    float sr6 = sr2 * sr2 * sr2;
    float e = fmaf(sr6, sr6, -sr6);   // sr6^2 - sr6
    if (in) acc += e;   // a predicated add
}

extern "C" __global__ void __launch_bounds__(256) lj_energy_naive(const float* __restrict__ x, const float* __restrict__ y, const float* __restrict__ z, float* __restrict__ energy, float eps, float sigma, float cutoff, unsigned N)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;   // no barriers here: threads past N exit at once
    float xi = __ldg(&x[i]), yi = __ldg(&y[i]), zi = __ldg(&z[i]);
    float s2 = sigma * sigma, rmin2 = s2 * 0.25f, rc2 = cutoff * cutoff;
    float e0 = 0.0f, e1 = 0.0f;   // two accumulators (times 4*eps at the end)
    // the self test for the u-th atom of a group of 4: j + u == i <=> j == i - u
    unsigned i1 = i - 1, i2 = i - 2, i3 = i - 3;
    unsigned n4 = N & ~3u;   // N rounded down to a multiple of 4
    unsigned j = 0;
    const float* px = x; const float* py = y; const float* pz = z;   // &x[j], &y[j], &z[j]
    for (; j < n4; j += 4, px += 4, py += 4, pz += 4) {   // unrolled by 4: 12 independent loads before the arithmetic
        float xa = __ldg(px), xb = __ldg(px + 1), xc = __ldg(px + 2), xd = __ldg(px + 3);
        float ya = __ldg(py), yb = __ldg(py + 1), yc = __ldg(py + 2), yd = __ldg(py + 3);
        float za = __ldg(pz), zb = __ldg(pz + 1), zc = __ldg(pz + 2), zd = __ldg(pz + 3);
        lj_add(e0, xa - xi, ya - yi, za - zi, j != i, s2, rmin2, rc2);
        lj_add(e1, xb - xi, yb - yi, zb - zi, j != i1, s2, rmin2, rc2);
        lj_add(e0, xc - xi, yc - yi, zc - zi, j != i2, s2, rmin2, rc2);
        lj_add(e1, xd - xi, yd - yi, zd - zi, j != i3, s2, rmin2, rc2);
    }
    for (; j < N; j++, px++, py++, pz++) lj_add(e0, __ldg(px) - xi, __ldg(py) - yi, __ldg(pz) - zi, j != i, s2, rmin2, rc2);   // the last N % 4
    float fe = eps * 4.0f;   // 4*eps, applied once
    energy[i] = (e0 + e1) * fe;
}
