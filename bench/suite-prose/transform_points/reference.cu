// transform_points: out[i] = M * pts[i] for homogeneous float4 points, M row-major 4x4.
extern "C" __global__ void transform_points(const float* __restrict__ M, const float* __restrict__ pts,
                                            float* __restrict__ out, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = reinterpret_cast<const float4*>(pts)[i];
    float4 o;
    o.x = M[0] * p.x + M[1] * p.y + M[2] * p.z + M[3] * p.w;
    o.y = M[4] * p.x + M[5] * p.y + M[6] * p.z + M[7] * p.w;
    o.z = M[8] * p.x + M[9] * p.y + M[10] * p.z + M[11] * p.w;
    o.w = M[12] * p.x + M[13] * p.y + M[14] * p.z + M[15] * p.w;
    reinterpret_cast<float4*>(out)[i] = o;
}
