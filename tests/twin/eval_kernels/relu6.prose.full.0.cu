// a twin nvcc rejects (an undeclared name): eval says nvcc-failed with nvcc's error line
extern "C" __global__ void relu6(const float* __restrict__ x, float* __restrict__ y, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fminf(fmaxf(x[i], 0.0f), six);
}
