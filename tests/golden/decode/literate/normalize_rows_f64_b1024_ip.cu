// normalize_rows_f64_b1024_ip: l2norm of each row of a rows x cols row-major double matrix, in place; one block per row.
#define LD(a_) (a_)
#define ST(v_) (v_)
#define LDW(a_) LD(a_)
extern "C" __global__ void normalize_rows_f64_b1024_ip(double* __restrict__ input, double eps, unsigned int rows, unsigned int cols)
{
    __shared__ double red[32];
    unsigned int tid = threadIdx.x, lane = tid & 31, wid = tid >> 5;
    unsigned int row = blockIdx.x;
    const double* xrow = input + (size_t)row * cols;
    double* yrow = input + (size_t)row * cols;   // in place: each thread rewrites only columns it read
    double acc = 0;
    for (unsigned int col = tid; col < cols; col += 1024) {
        double v = LD(xrow[col]);
        acc += v * v;
    }
    for (int o = 16; o > 0; o >>= 1) acc = acc + __shfl_xor_sync(0xffffffffu, acc, o);
    if (lane == 0) red[wid] = acc;
    __syncthreads();
    acc = lane < 32 ? red[lane] : 0;
    for (int o = 16; o > 0; o >>= 1) acc = acc + __shfl_xor_sync(0xffffffffu, acc, o);
    __syncthreads();   // red is reused by the next reduction
    double rinv = 1 / fmax(sqrt(acc), eps);   // never divide by less than eps
    for (unsigned int col = tid; col < cols; col += 1024) yrow[col] = ST(LD(xrow[col]) * rinv);
}
#undef LDW
#undef LD
#undef ST
