// diff_flags: flags = |a - b| > tol.
extern "C" __global__ void diff_flags(const float* __restrict__ a, const float* __restrict__ b,
                                      unsigned char* __restrict__ flags, float tol, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) flags[i] = fabsf(a[i] - b[i]) > tol ? 1 : 0;
}
