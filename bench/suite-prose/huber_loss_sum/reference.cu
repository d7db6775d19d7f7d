// huber_loss_sum: loss[0] += sum_i huber(pred[i] - target[i]); block sums, one atomic per block.
#define NT 256
#define FULL 0xffffffffu
extern "C" __global__ void huber_loss_sum(const float* __restrict__ pred, const float* __restrict__ target,
                                          float* __restrict__ loss, float delta, unsigned int n)
{
    __shared__ float red[NT / 32];
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    float l = 0.0f;
    if (i < n) {
        float d = fabsf(pred[i] - target[i]);
        l = d <= delta ? 0.5f * d * d : delta * (d - 0.5f * delta);
    }
    for (int o = 16; o > 0; o >>= 1) l += __shfl_xor_sync(FULL, l, o);
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) red[warp] = l;
    __syncthreads();
    if (warp == 0) {
        l = lane < NT / 32 ? red[lane] : 0.0f;
        for (int o = 16; o > 0; o >>= 1) l += __shfl_xor_sync(FULL, l, o);
        if (lane == 0) atomicAdd(loss, l);
    }
}
