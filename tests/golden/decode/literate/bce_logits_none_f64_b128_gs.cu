// bce_logits_none_f64_b128_gs: bce_logits loss of double predictions against targets, reduction none.
#define LD(a_) (a_)
#define ST(v_) (v_)
#define LOSS(p_, t_) (fmax((p_), (double)0) - (p_) * (t_) + log1p(exp(-fabs(p_))))
extern "C" __global__ void bce_logits_none_f64_b128_gs(const double* __restrict__ x, const double* __restrict__ y, double* __restrict__ out, unsigned int n)
{
    for (size_t i = (size_t)blockIdx.x * 128 + threadIdx.x; i < n; i += (size_t)gridDim.x * 128)
        out[i] = ST(LOSS(LD(x[i]), LD(y[i])));
}
#undef LOSS
#undef LD
#undef ST
