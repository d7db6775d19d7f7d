// relu6 written as plain ReLU (the clamp at 6 dropped): a twin as wrong as its PTX
extern "C" __global__ void relu6(const float* __restrict__ x, float* __restrict__ y, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.0f);
}
