// saxpy_gridstride: y[i] = a*x[i] + y[i] with a grid-stride loop
// (the grid is capped, so each thread handles several elements).
extern "C" __global__ void saxpy_gridstride(const float* __restrict__ x, float* __restrict__ y,
                                            float a, unsigned int n)
{
    unsigned int stride = gridDim.x * blockDim.x;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        y[i] = a * x[i] + y[i];
}
