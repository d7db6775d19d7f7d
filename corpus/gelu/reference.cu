// gelu (tanh approximation): y = 0.5*x*(1 + tanh(sqrt(2/pi)*(x + 0.044715*x^3))),
// one thread per element.
extern "C" __global__ void gelu(const float* __restrict__ x, float* __restrict__ y, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float k = 0.7978845608028654f;   // sqrt(2/pi)
        float v = x[i];
        float u = k * (v + 0.044715f * v * v * v);
        y[i] = 0.5f * v * (1.0f + tanhf(u));
    }
}
