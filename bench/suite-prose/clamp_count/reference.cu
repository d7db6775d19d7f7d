// clamp_count: x = clamp(x, lo, hi) in place; clipped[0] += number of elements changed.
extern "C" __global__ void clamp_count(float* __restrict__ x, unsigned int* __restrict__ clipped,
                                       float lo, float hi, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool changed = false;
    if (i < n) {
        float v = x[i];
        changed = v < lo || v > hi;
        if (changed) x[i] = fminf(fmaxf(v, lo), hi);
    }
    // one atomic per warp: the whole warp is still here (no early return)
    unsigned int b = __ballot_sync(0xffffffffu, changed);
    if ((threadIdx.x & 31) == 0 && b) atomicAdd(clipped, (unsigned int)__popc(b));
}
