// glu_rows: out[r][j] = in[r][j] * sigmoid(in[r][H+j]).
extern "C" __global__ void glu_rows(const float* __restrict__ in, float* __restrict__ out,
                                    unsigned int rows, unsigned int H)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)rows * H) return;
    size_t r = i / H, j = i % H;
    const float* row = in + r * 2 * H;
    float g = row[H + j];
    out[i] = row[j] / (1.0f + expf(-g));
}
