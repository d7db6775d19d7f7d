// saxpy_v2: y = a*x + y, two elements per thread (float2).
extern "C" __global__ void saxpy_v2(const float* __restrict__ x, float* __restrict__ y, float a, unsigned int n)
{
    unsigned int i = 2u * (blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= n) return;
    if (i + 1 < n) {
        float2 xv = *reinterpret_cast<const float2*>(x + i);
        float2 yv = *reinterpret_cast<float2*>(y + i);
        yv.x = a * xv.x + yv.x;
        yv.y = a * xv.y + yv.y;
        *reinterpret_cast<float2*>(y + i) = yv;
    } else {
        y[i] = a * x[i] + y[i];
    }
}
