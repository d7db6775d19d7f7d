// dequant_int4: out[e] = (nibble e of packed - 8) * scales[e / 32], low nibble first.
extern "C" __global__ void dequant_int4(const unsigned char* __restrict__ packed, const float* __restrict__ scales,
                                        float* __restrict__ out, unsigned int ngroups)
{
    unsigned int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= 32u * ngroups) return;
    unsigned int byte = packed[e >> 1];
    int q = (int)((e & 1u) ? byte >> 4 : byte & 15u);
    out[e] = (float)(q - 8) * scales[e >> 5];
}
