// grav_potential: phi[i] = -sum_{j != i} m_j / sqrt(r_ij^2 + soft^2), bodies staged 256 at a time in shared memory.
#define NT 256
extern "C" __global__ void grav_potential(const float* __restrict__ pos, const float* __restrict__ mass,
                                          float* __restrict__ phi, float soft, unsigned int n)
{
    __shared__ float4 sh[NT];
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    float xi = 0.0f, yi = 0.0f, zi = 0.0f;
    if (i < n) { xi = pos[3 * (size_t)i]; yi = pos[3 * (size_t)i + 1]; zi = pos[3 * (size_t)i + 2]; }
    float s2 = soft * soft, acc = 0.0f;
    for (unsigned int base = 0; base < n; base += NT) {   // every thread takes part in the staging
        unsigned int j = base + threadIdx.x;
        sh[threadIdx.x] = j < n ? make_float4(pos[3 * (size_t)j], pos[3 * (size_t)j + 1], pos[3 * (size_t)j + 2], mass[j])
                                : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        __syncthreads();
        unsigned int lim = n - base < NT ? n - base : NT;
        for (unsigned int k = 0; k < lim; k++) {
            if (base + k == i) continue;
            float dx = sh[k].x - xi, dy = sh[k].y - yi, dz = sh[k].z - zi;
            acc += sh[k].w * rsqrtf(dx * dx + dy * dy + dz * dz + s2);
        }
        __syncthreads();
    }
    if (i < n) phi[i] = -acc;
}
