// lj_force: the Lennard-Jones force on every atom, all pairs with a cutoff, f32:
//   f_i = sum over j != i with r^2 < cutoff^2 of 24*eps*(2*sr6^2 - sr6) / r2c * (p_i - p_j),
//   r2c = max(r^2, (sigma/2)^2), sr2 = sigma^2 / r2c, sr6 = sr2^3.
// Positions are three arrays x, y, z (SoA); outputs fx, fy, fz.  The clamp keeps near-coincident
// atoms finite; the displacement itself is not clamped, so the pair force still goes to 0 as r -> 0.
// One thread per atom i, 256 threads per block (.reqntid); the j loop walks the atoms in tiles of
// 256 staged in shared memory as float4 {x, y, z, 0}, read back by every thread (a broadcast).

// One pair, branch-free: adds g * d to the force when r^2 < rc2 and the atom is not i itself.
__device__ __forceinline__ void lj_force_add(float& sx, float& sy, float& sz, float dx, float dy, float dz, bool other, float s2, float rmin2, float rc2)
{
    float r2 = fmaf(dx, dx, fmaf(dy, dy, dz * dz));
    bool in = r2 < rc2 && other;   // the cutoff and the j != i test in one predicate
    float inv = __fdividef(1.0f, fmaxf(r2, rmin2));   // 1/r2c: rcp.approx (one MUFU op) of the clamped r^2
    float sr2 = inv * s2;
    float sr6 = sr2 * sr2 * sr2;
    float g = fmaf(sr6, 2.0f, -1.0f) * sr6 * inv;   // (2*sr6 - 1) * sr6 / r2c
    if (in) { sx = fmaf(g, dx, sx); sy = fmaf(g, dy, sy); sz = fmaf(g, dz, sz); }   // predicated fmas
}

extern "C" __global__ void __launch_bounds__(256) lj_force(const float* __restrict__ x, const float* __restrict__ y, const float* __restrict__ z, float* __restrict__ fx, float* __restrict__ fy, float* __restrict__ fz, float eps, float sigma, float cutoff, unsigned N)
{
    __shared__ float4 tile[256];   // 256 x {x, y, z, pad}
    unsigned t = threadIdx.x;
    unsigned i = blockIdx.x * 256 + t;
    bool own = i < N;   // threads with i >= N join the loads and barriers and skip only the store
    float xi = 0.0f, yi = 0.0f, zi = 0.0f;   // the own position (0 for i >= N: never stored)
    if (own) { xi = __ldg(&x[i]); yi = __ldg(&y[i]); zi = __ldg(&z[i]); }
    float s2 = sigma * sigma, rmin2 = s2 * 0.25f, rc2 = cutoff * cutoff;
    float sx = 0.0f, sy = 0.0f, sz = 0.0f;   // the force accumulators (times 24*eps at the end)
    float4* mine = &tile[t];
    unsigned tb = 0;   // the tile base
    do {   // the block-uniform tile loop
        unsigned j = tb + t;
        // stage atoms tb .. tb+255; slots past N get a far-away sentinel (r^2 ~ 3e20 > cutoff^2)
        bool real = j < N;
        float4 a = make_float4(1e10f, 1e10f, 1e10f, 0.0f);
        if (real) { a.x = __ldg(&x[j]); a.y = __ldg(&y[j]); a.z = __ldg(&z[j]); }
        *mine = a;
        __syncthreads();
        // the self-pair test: atom tb+k+u is i <=> k == i - tb - u
        unsigned d0 = i - tb, d1 = d0 - 1, d2 = d0 - 2, d3 = d0 - 3;
        for (unsigned k = 0; k < 256; k += 4) {   // the whole tile, unrolled by 4: no per-tile bound
            float4 b0 = tile[k];
            lj_force_add(sx, sy, sz, xi - b0.x, yi - b0.y, zi - b0.z, k != d0, s2, rmin2, rc2);   // d = p_i - p_j
            float4 b1 = tile[k + 1];
            lj_force_add(sx, sy, sz, xi - b1.x, yi - b1.y, zi - b1.z, k != d1, s2, rmin2, rc2);
            float4 b2 = tile[k + 2];
            lj_force_add(sx, sy, sz, xi - b2.x, yi - b2.y, zi - b2.z, k != d2, s2, rmin2, rc2);
            float4 b3 = tile[k + 3];
            lj_force_add(sx, sy, sz, xi - b3.x, yi - b3.y, zi - b3.z, k != d3, s2, rmin2, rc2);
        }
        __syncthreads();   // the tile is consumed before the next one overwrites it
        tb += 256;
    } while (tb < N);
    if (!own) return;
    float fe = eps * 24.0f;   // 24*eps, applied once
    fx[i] = sx * fe; fy[i] = sy * fe; fz[i] = sz * fe;
}
