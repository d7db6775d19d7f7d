// exclusive_scan_1024: exclusive prefix sum (int) restarting at every segment.
extern "C" __global__ void exclusive_scan_1024(const int* __restrict__ x, int* __restrict__ y, unsigned int n)
{
    unsigned int t = threadIdx.x, lane = t & 31, warp_id = t >> 5;
    __shared__ int wsum[32];
    size_t base = (size_t)blockIdx.x * 1024 + (size_t)t * 4;   // one 1024-element segment per block
    int v[4], tot = 0;
#pragma unroll
    for (int k = 0; k < 4; k++) {   // 4 consecutive elements per thread
        v[k] = base + k < n ? x[base + k] : 0;
        tot += v[k];
    }
    int inc = tot;
    for (int d = 1; d < 32; d <<= 1) {   // Hillis-Steele over the warp
        int up = __shfl_up_sync(0xffffffffu, inc, d);
        if (lane >= d) inc += up;
    }
    int run = __shfl_up_sync(0xffffffffu, inc, 1);   // exclusive prefix of the thread totals
    if (lane == 0) run = 0;
    if (lane == 31) wsum[warp_id] = inc;
    __syncthreads();
    if (warp_id == 0) {   // scan the 8 warp totals
        int w = lane < 8 ? wsum[lane] : 0;
        for (int d = 1; d < 32; d <<= 1) {   // Hillis-Steele over the warp
            int up = __shfl_up_sync(0xffffffffu, w, d);
            if (lane >= d) w += up;
        }
        int pw = __shfl_up_sync(0xffffffffu, w, 1);
        if (lane < 8) wsum[lane] = lane ? pw : 0;
    }
    __syncthreads();
    run += wsum[warp_id];
#pragma unroll
    for (int k = 0; k < 4; k++) {
        if (base + k < n) y[base + k] = run;
        run += v[k];
    }
}
