// nbody_accel: softened gravitational acceleration (G = 1); pos is float4
// {x, y, z, mass} per body; shared-memory tiles of 256 bodies.
#define NT 256
extern "C" __global__ void nbody_accel(const float4* __restrict__ pos, float* __restrict__ ax,
                                       float* __restrict__ ay, float* __restrict__ az,
                                       float soft2, unsigned int N)
{
    __shared__ float4 tile[NT];
    unsigned int i = blockIdx.x * NT + threadIdx.x;
    float4 pi = i < N ? pos[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    float3 a = make_float3(0.0f, 0.0f, 0.0f);
    for (unsigned int tb = 0; tb < N; tb += NT) {
        unsigned int j = tb + threadIdx.x;
        tile[threadIdx.x] = j < N ? pos[j] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        __syncthreads();
#pragma unroll 8
        for (int k = 0; k < NT; k++) {
            float4 pj = tile[k];
            float dx = pj.x - pi.x, dy = pj.y - pi.y, dz = pj.z - pi.z;
            float r2 = dx * dx + dy * dy + dz * dz + soft2;
            float inv = rsqrtf(r2);
            float s = pj.w * inv * inv * inv;
            a.x += s * dx; a.y += s * dy; a.z += s * dz;
        }
        __syncthreads();
    }
    if (i < N) { ax[i] = a.x; ay[i] = a.y; az[i] = a.z; }
}
