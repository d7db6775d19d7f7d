// moving_avg: y[i] = mean of x over [max(0,i-r), min(n-1,i+r)].
extern "C" __global__ void moving_avg(const float* __restrict__ x, float* __restrict__ y, unsigned int r, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int lo = i >= r ? i - r : 0u;
    unsigned int hi = n - 1 - i > r ? i + r : n - 1;   // no overflow of i + r
    float s = 0.0f;
    for (unsigned int j = lo; j <= hi; j++) s += x[j];
    y[i] = s / (float)(hi - lo + 1);
}
