/* refs_elementwise.c — C references for the elementwise seed tasks
 * (corpus/{vecadd,saxpy,axpby_relu,relu,gelu,sigmoid,clamp,f32_to_f16_scale,
 * bf16_axpy,daxpy_f64,saxpy_gridstride,vec4_scale,vecadd_v4}).
 *
 * Each reference computes in double and rounds once to the output element
 * type.  Float scalars arrive as doubles holding the spec's literal; the GPU
 * sees them rounded to f32, so f32 scalars are rounded to float first (the
 * specs use exactly representable values anyway). */
#include "ptxgen/task.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>

/* Element count from the "n" scalar parameter. */
static size_t count_n(const task_inst *in) {
    int64_t n = task_scalar_i(in, "n");
    return n > 0 ? (size_t)n : 0;
}

/* f32 scalar parameter as the GPU sees it. */
static double scalar_f32(const task_inst *in, const char *name) {
    return (double)(float)task_scalar_f(in, name);
}

/* ---- f32 y = a*x + y, shared by saxpy and saxpy_gridstride ------------- */
static pg_status saxpy_common(task_inst *in) {
    const float *x = task_buf(in, "x");
    float *y = task_buf(in, "y");
    double a = scalar_f32(in, "a");
    size_t n = count_n(in);
    for (size_t i = 0; i < n; i++) y[i] = (float)(a * (double)x[i] + (double)y[i]);
    return PG_OK;
}

/* ---- c = a + b, shared by vecadd and vecadd_v4 --------------------------- */
static pg_status vecadd_common(task_inst *in) {
    const float *a = task_buf(in, "a");
    const float *b = task_buf(in, "b");
    float *c = task_buf(in, "c");
    size_t n = count_n(in);
    for (size_t i = 0; i < n; i++) c[i] = (float)((double)a[i] + (double)b[i]);
    return PG_OK;
}

pg_status task_ref_vecadd(task_inst *in) { return vecadd_common(in); }
pg_status task_ref_vecadd_v4(task_inst *in) { return vecadd_common(in); }
pg_status task_ref_saxpy(task_inst *in) { return saxpy_common(in); }
pg_status task_ref_saxpy_gridstride(task_inst *in) { return saxpy_common(in); }

/* out = max(alpha*x + beta*y, 0) */
pg_status task_ref_axpby_relu(task_inst *in) {
    const float *x = task_buf(in, "x");
    const float *y = task_buf(in, "y");
    float *out = task_buf(in, "out");
    double alpha = scalar_f32(in, "alpha"), beta = scalar_f32(in, "beta");
    size_t n = count_n(in);
    for (size_t i = 0; i < n; i++) {
        double v = alpha * (double)x[i] + beta * (double)y[i];
        out[i] = (float)(v > 0.0 ? v : 0.0);
    }
    return PG_OK;
}

/* y = max(x, 0) */
pg_status task_ref_relu(task_inst *in) {
    const float *x = task_buf(in, "x");
    float *y = task_buf(in, "y");
    size_t n = count_n(in);
    for (size_t i = 0; i < n; i++) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
    return PG_OK;
}

/* GELU, tanh approximation: y = 0.5*x*(1 + tanh(sqrt(2/pi)*(x + 0.044715*x^3))) */
pg_status task_ref_gelu(task_inst *in) {
    const float *x = task_buf(in, "x");
    float *y = task_buf(in, "y");
    size_t n = count_n(in);
    const double k = 0.79788456080286535588; /* sqrt(2/pi) */
    for (size_t i = 0; i < n; i++) {
        double v = (double)x[i];
        y[i] = (float)(0.5 * v * (1.0 + tanh(k * (v + 0.044715 * v * v * v))));
    }
    return PG_OK;
}

/* y = 1 / (1 + exp(-x)) */
pg_status task_ref_sigmoid(task_inst *in) {
    const float *x = task_buf(in, "x");
    float *y = task_buf(in, "y");
    size_t n = count_n(in);
    for (size_t i = 0; i < n; i++) y[i] = (float)(1.0 / (1.0 + exp(-(double)x[i])));
    return PG_OK;
}

/* y = min(max(x, lo), hi) */
pg_status task_ref_clamp(task_inst *in) {
    const float *x = task_buf(in, "x");
    float *y = task_buf(in, "y");
    float lo = (float)task_scalar_f(in, "lo"), hi = (float)task_scalar_f(in, "hi");
    size_t n = count_n(in);
    for (size_t i = 0; i < n; i++) {
        float v = x[i] > lo ? x[i] : lo;
        y[i] = v < hi ? v : hi;
    }
    return PG_OK;
}

/* y (f16) = half(x * scale): the product is rounded to f32 first, exactly as
 * the kernel does (a product of two floats is exact in double, so rounding it
 * to float here is the correctly rounded f32 multiply). */
pg_status task_ref_f32_to_f16_scale(task_inst *in) {
    const float *x = task_buf(in, "x");
    uint16_t *y = task_buf(in, "y");
    double scale = scalar_f32(in, "scale");
    size_t n = count_n(in);
    for (size_t i = 0; i < n; i++) y[i] = task_f32_to_f16((float)((double)x[i] * scale));
    return PG_OK;
}

/* bf16 y = bf16(a*x + y), math in f32 on the GPU (double here). */
pg_status task_ref_bf16_axpy(task_inst *in) {
    const uint16_t *x = task_buf(in, "x");
    uint16_t *y = task_buf(in, "y");
    double a = scalar_f32(in, "a");
    size_t n = count_n(in);
    for (size_t i = 0; i < n; i++) {
        double v = a * (double)task_bf16_to_f32(x[i]) + (double)task_bf16_to_f32(y[i]);
        y[i] = task_f32_to_bf16((float)v);
    }
    return PG_OK;
}

/* f64 y = a*x + y (fma, like the kernel) */
pg_status task_ref_daxpy_f64(task_inst *in) {
    const double *x = task_buf(in, "x");
    double *y = task_buf(in, "y");
    double a = task_scalar_f(in, "a");
    size_t n = count_n(in);
    for (size_t i = 0; i < n; i++) y[i] = fma(a, x[i], y[i]);
    return PG_OK;
}

/* y = s * x */
pg_status task_ref_vec4_scale(task_inst *in) {
    const float *x = task_buf(in, "x");
    float *y = task_buf(in, "y");
    double s = scalar_f32(in, "s");
    size_t n = count_n(in);
    for (size_t i = 0; i < n; i++) y[i] = (float)(s * (double)x[i]);
    return PG_OK;
}
