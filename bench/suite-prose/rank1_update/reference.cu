// rank1_update: A[i][j] += alpha * x[i] * y[j], one thread per element.
extern "C" __global__ void rank1_update(float* __restrict__ A, const float* __restrict__ x, const float* __restrict__ y,
                                        float alpha, unsigned int rows, unsigned int cols)
{
    size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= (size_t)rows * cols) return;
    size_t i = e / cols, j = e % cols;
    A[e] += alpha * x[i] * y[j];
}
