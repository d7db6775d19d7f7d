// complex_polar: mag = |re + i im|, phase = atan2(im, re).
extern "C" __global__ void complex_polar(const float* __restrict__ re, const float* __restrict__ im,
                                         float* __restrict__ mag, float* __restrict__ phase, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = re[i], b = im[i];
    mag[i] = hypotf(a, b);
    phase[i] = atan2f(b, a);
}
