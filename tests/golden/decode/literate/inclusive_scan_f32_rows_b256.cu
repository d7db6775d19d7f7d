// inclusive_scan_f32_rows_b256: inclusive prefix sum (float) of every row.
extern "C" __global__ void inclusive_scan_f32_rows_b256(const float* __restrict__ input, float* __restrict__ output, unsigned int rows, unsigned int cols)
{
    __shared__ float wsum[32];
    __shared__ float carry_s;
    unsigned int tid = threadIdx.x, lane = tid & 31, wid = tid >> 5, row = blockIdx.x;   // one block per row
    const float* xrow = input + (size_t)row * cols;
    float* yrow = output + (size_t)row * cols;
    float carry = 0;   // the row's sum so far (from earlier chunks)
    for (unsigned int c0 = 0; c0 < cols; c0 += 256) {
        unsigned int col = c0 + tid;
        float v = col < cols ? xrow[col] : 0, sc = v;
        for (int d = 1; d < 32; d <<= 1) {   // Hillis-Steele over the warp
            float up = __shfl_up_sync(0xffffffffu, sc, d);
            if (lane >= d) sc += up;
        }
        if (lane == 31) { wsum[wid] = sc; }
        __syncthreads();
        if (wid == 0) {   // scan the warp totals
            float w = lane < 8 ? wsum[lane] : 0;
            for (int d = 1; d < 32; d <<= 1) {   // Hillis-Steele over the warp
                float up = __shfl_up_sync(0xffffffffu, w, d);
                if (lane >= d) w += up;
            }
            float pw = __shfl_up_sync(0xffffffffu, w, 1);
            if (lane < 8) { wsum[lane] = lane ? pw : 0; }
        }
        __syncthreads();
        sc += wsum[wid];
        float res = carry + sc;   // inclusive prefix within the row
        if (col < cols) yrow[col] = res;
        if (tid == min(cols - c0, 256u) - 1) carry_s = res;   // the chunk's last column carries on
        __syncthreads();
        carry = carry_s;
    }
}
