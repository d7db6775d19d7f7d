/* family_elem_math.c — complex arithmetic and polynomial families (nvcc):
 *
 *   complex  z = a*b, a*conj(b), c += a*b (multiply-accumulate), w*a with
 *            a complex scalar (a rotation when (wr, wi) = (cos t, sin t)),
 *            y = w*x + y, |a|, |a|^2; interleaved (re, im) pairs read as
 *            float2/double2 (f32: optionally two per thread as float4) or
 *            split re/im arrays; f32/f64; one per thread or grid-stride
 *   poly     p(x) of degree 3..9: Horner in the power basis (optionally the
 *            derivative too) or a Chebyshev series sum c_k T_k(x) by the
 *            three-term recurrence or by Clenshaw's backward recurrence,
 *            optionally on [lo, hi] mapped to [-1, 1]; coefficients as
 *            scalars, as an array read by every thread, or staged in
 *            shared memory; f32/f64; V = 1/2/4 per thread; grid-stride
 *
 * References: fam_elem_complex, fam_elem_poly (src/task/refs_elemfam_math.c). */
#include "family_elem.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- complex -------------------------------------------------------------------------- */
enum { X_MUL, X_CONJMUL, X_MAC, X_SCALE, X_AXPY, X_ABS, X_ABS2, X__N };
static const char *XOP[] = {"mul", "conjmul", "mac", "scale", "axpy", "abs", "abs2"};

pg_status synth_fam_elem_complex(uint64_t seed, synth_family_sample *s) {
    fam_rng r = {seed ^ 0x636f6d706c780007ull};
    int op = synth_fam_pick(&r, X__N);
    bool f64 = synth_fam_pick(&r, 4) == 0, split = synth_fam_pick(&r, 3) == 0, gs = synth_fam_pick(&r, 2), rot = op == X_SCALE && synth_fam_pick(&r, 2);
    int block = 128 << synth_fam_pick(&r, 3), cap = synth_fe_cap(&r), V = !split && !f64 && synth_fam_pick(&r, 3) == 0 ? 2 : 1;
    /* held out: the suite's interleaved f32 complex multiply */
    if (op == X_MUL && !split && !f64) op = X_MAC;
    bool two = op == X_MUL || op == X_CONJMUL || op == X_MAC, real_out = op == X_ABS || op == X_ABS2, acc = op == X_MAC || op == X_AXPY;
    bool scal = op == X_SCALE || op == X_AXPY;
    const char *dt = f64 ? "f64" : "f32", *CT = f64 ? "double" : "float";
    static const char *const NI[][3] = {{"a", "b", "c"}, {"x", "y", "z"}, {"in1", "in2", "out"}, {"u", "v", "w_out"}, {"lhs", "rhs", "dst"}};
    const char *const *ni = NI[synth_fam_pick(&r, 5)];
    const char *A = ni[0], *B = ni[1], *C = ni[2];
    if (op == X_AXPY) { A = "x"; C = "y"; }
    else if (op == X_MAC) C = synth_fam_pick(&r, 2) ? "acc" : ni[2];
    static const char *const WN[][2] = {{"wr", "wi"}, {"alpha_re", "alpha_im"}, {"s_re", "s_im"}};
    const char *WR = rot ? "cos_t" : WN[synth_fam_pick(&r, 3)][0], *WI = rot ? "sin_t" : NULL;
    if (!rot) WI = !strcmp(WR, "wr") ? "wi" : !strcmp(WR, "alpha_re") ? "alpha_im" : "s_im";
    double th = (synth_fam_pick(&r, 12) + 1) * 0.5235987755982988 * 0.5, wr = rot ? cos(th) : (synth_fam_pick(&r, 9) - 4) * 0.25, wi = rot ? sin(th) : (synth_fam_pick(&r, 7) - 3) * 0.5;

    snprintf(s->family, sizeof s->family, "complex");
    snprintf(s->source, sizeof s->source, "nvcc");
    static const char *ONAME[] = {"cmul", "cmul_conj", "cmac", "cscale", "caxpy", "cabs", "cabs2"};
    snprintf(s->name, sizeof s->name, "%s%s_%s_%s%s%s", ONAME[op], rot ? "_rot" : "", split ? "split" : "interleaved", dt, V > 1 ? "_x2" : "", gs ? "_gs" : "");
    synth_fam_fit_name(s->name);   /* within the decoder's PG_NAME_MAX */
    snprintf(s->identity, sizeof s->identity, "complex:%s:%s:%s:%s:v%d:%s%d:b%d", XOP[op], rot ? "rot" : "-", split ? "split" : "interleaved", dt, V, gs ? "gs" : "one",
             gs ? cap : 0, block);

    fe_strs T = {0};
    pg_buf sig = {0};
    json_t *root = synth_fe_root(s->name, "complex"), *ps = json_array();
    char nm[8][24];
    /* arrays: split names are NAME_re / NAME_im */
#define ARR(name, role)                                                                                                          \
    do {                                                                                                                         \
        if (split) {                                                                                                             \
            snprintf(nm[0], sizeof nm[0], "%s_re", name);                                                                        \
            snprintf(nm[1], sizeof nm[1], "%s_im", name);                                                                        \
            synth_fe_sig_ptr(&sig, nm[0], dt, role); synth_fe_ptr(ps, nm[0], dt, role, "n");                                                 \
            synth_fe_sig_ptr(&sig, nm[1], dt, role); synth_fe_ptr(ps, nm[1], dt, role, "n");                                                 \
        } else { synth_fe_sig_ptr(&sig, name, dt, role); synth_fe_ptr(ps, name, dt, role, "2*n"); }                                          \
    } while (0)
    ARR(A, FE_IN);
    if (two) ARR(B, FE_IN);
    if (real_out) { synth_fe_sig_ptr(&sig, C, dt, FE_OUT); synth_fe_ptr(ps, C, dt, FE_OUT, "n"); }
    else ARR(C, acc ? FE_INOUT : FE_OUT);
#undef ARR
    if (scal) {
        synth_fe_sig_scal(&sig, WR, dt); synth_fe_scal_f(ps, WR, dt, wr);
        synth_fe_sig_scal(&sig, WI, dt); synth_fe_scal_f(ps, WI, dt, wi);
    }
    synth_fe_sig_scal(&sig, "n", "u32");
    synth_fe_scal(ps, "n", "u32", "n");

    /* ---- kernel: one complex number k per step (two when V = 2) ---- */
    pg_buf *c = &s->cu, m = {0};
    const char *V2 = f64 ? "double2" : "float2", *sq = f64 ? "sqrt" : "sqrtf";
    switch (op) {
    case X_MUL: pg_buf_printf(&m, "%s zr = ar * br - ai * bi, zi = ar * bi + ai * br;\n", CT); break;
    case X_CONJMUL: pg_buf_printf(&m, "%s zr = ar * br + ai * bi, zi = ai * br - ar * bi;   // a * conj(b)\n", CT); break;
    case X_MAC: pg_buf_printf(&m, "%s zr = cr + (ar * br - ai * bi), zi = ci + (ar * bi + ai * br);\n", CT); break;
    case X_SCALE: pg_buf_printf(&m, "%s zr = %s * ar - %s * ai, zi = %s * ai + %s * ar;\n", CT, WR, WI, WR, WI); break;
    case X_AXPY: pg_buf_printf(&m, "%s zr = cr + (%s * ar - %s * ai), zi = ci + (%s * ai + %s * ar);\n", CT, WR, WI, WR, WI); break;
    case X_ABS: pg_buf_printf(&m, "%s mag = %s(ar * ar + ai * ai);\n", CT, sq); break;
    default: pg_buf_printf(&m, "%s mag = ar * ar + ai * ai;\n", CT); break;
    }
    pg_buf_printf(c, "// %s: complex %s, %s storage\nextern \"C\" __global__ void %s(%s)\n{\n", s->name, XOP[op], split ? "split re/im" : "interleaved (re, im)", s->name, sig.data);
    /* emit the per-number code for complex index expression K with loads of one number */
    for (int pass = 0; pass < (V > 1 ? 2 : 1); pass++) {
        bool vec2 = pass == 0 && V > 1;   /* pass 0 of V = 2: the float4 path; pass 1: the tail */
        if (pass == 0) {
            if (V > 1) {
                pg_buf_puts(c, gs ? "    for (unsigned int t = blockIdx.x * blockDim.x + threadIdx.x; t * 2 < n; t += gridDim.x * blockDim.x) {\n"
                                  : "    unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;\n    if (t * 2 < n) {\n");
                pg_buf_puts(c, "        if (t * 2 + 2 <= n) {   // two complex numbers as one float4\n");
            } else
                pg_buf_puts(c, gs ? "    for (unsigned int k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) {\n"
                                  : "    unsigned int k = blockIdx.x * blockDim.x + threadIdx.x;\n    if (k < n) {\n");
        } else pg_buf_puts(c, "        } else {   // the last, odd number\n");
        const char *ind = V > 1 ? "            " : "        ";
        if (vec2) {
            pg_buf_printf(c, "%sfloat4 av = reinterpret_cast<const float4*>(%s)[t];\n", ind, A);
            if (two) pg_buf_printf(c, "%sfloat4 bv = reinterpret_cast<const float4*>(%s)[t];\n", ind, B);
            if (acc) pg_buf_printf(c, "%sfloat4 cv = reinterpret_cast<const float4*>(%s)[t];\n", ind, C);
            pg_buf_printf(c, "%s%s ov;\n", ind, real_out ? "float2" : "float4");
            for (int h = 0; h < 2; h++) {
                const char *lr = h ? "z" : "x", *li = h ? "w" : "y";
                pg_buf_printf(c, "%s{\n%s    float ar = av.%s, ai = av.%s;\n", ind, ind, lr, li);
                if (two) pg_buf_printf(c, "%s    float br = bv.%s, bi = bv.%s;\n", ind, lr, li);
                if (acc) pg_buf_printf(c, "%s    float cr = cv.%s, ci = cv.%s;\n", ind, lr, li);
                pg_buf_printf(c, "%s    %s", ind, m.data);
                if (real_out) pg_buf_printf(c, "%s    ov.%s = mag;\n%s}\n", ind, h ? "y" : "x", ind);
                else pg_buf_printf(c, "%s    ov.%s = zr; ov.%s = zi;\n%s}\n", ind, lr, li, ind);
            }
            pg_buf_printf(c, "%sreinterpret_cast<%s*>(%s)[t] = ov;\n", ind, real_out ? "float2" : "float4", C);
            continue;
        }
        const char *K = V > 1 ? "t * 2" : "k";
        if (V > 1) pg_buf_printf(c, "%sunsigned int k = %s;\n", ind, K);
        if (split) {
            pg_buf_printf(c, "%s%s ar = %s_re[k], ai = %s_im[k];\n", ind, CT, A, A);
            if (two) pg_buf_printf(c, "%s%s br = %s_re[k], bi = %s_im[k];\n", ind, CT, B, B);
            if (acc) pg_buf_printf(c, "%s%s cr = %s_re[k], ci = %s_im[k];\n", ind, CT, C, C);
        } else {
            pg_buf_printf(c, "%s%s av = reinterpret_cast<const %s*>(%s)[k];\n%s%s ar = av.x, ai = av.y;\n", ind, V2, V2, A, ind, CT);
            if (two) pg_buf_printf(c, "%s%s bv = reinterpret_cast<const %s*>(%s)[k];\n%s%s br = bv.x, bi = bv.y;\n", ind, V2, V2, B, ind, CT);
            if (acc) pg_buf_printf(c, "%s%s cv = reinterpret_cast<const %s*>(%s)[k];\n%s%s cr = cv.x, ci = cv.y;\n", ind, V2, V2, C, ind, CT);
        }
        pg_buf_printf(c, "%s%s", ind, m.data);
        if (real_out) pg_buf_printf(c, "%s%s[k] = mag;\n", ind, C);
        else if (split) pg_buf_printf(c, "%s%s_re[k] = zr;\n%s%s_im[k] = zi;\n", ind, C, ind, C);
        else pg_buf_printf(c, "%s%s ov;\n%sov.x = zr;\n%sov.y = zi;\n%sreinterpret_cast<%s*>(%s)[k] = ov;\n", ind, V2, ind, ind, ind, V2, C);
    }
    pg_buf_puts(c, V > 1 ? "        }\n    }\n}\n" : "    }\n}\n");
    pg_buf_free(&m);

    json_object_set_new(root, "family_params", json_pack("{s:s, s:b, s:s, s:s?, s:s, s:s?, s:s?}", "op", XOP[op], "split", split, "a", A, "b", two ? B : NULL, "c", C,
                                                         "wr", scal ? WR : NULL, "wi", scal ? WI : NULL));
    json_object_set_new(root, "params", ps);
    json_object_set_new(root, "sizes", synth_fe_sizes1("n", (const long[]){8388608, 1000003, 4097, 257, 1, 0}));
    synth_fe_launch1(root, block, V, gs, cap, synth_fe_grid_mult(seed), "n");
    json_object_set_new(root, "distributions", json_pack("[s, s]", "uniform(-1,1)", "normal(0,10)"));

    /* descriptions */
    char wrl[32], wil[32];
    synth_fe_lit(wrl, sizeof wrl, wr);
    synth_fe_lit(wil, sizeof wil, wi);
    const char *kv[] = {"a", A, "b", B, "c", C, "wr", WR, "wi", WI ? WI : "", NULL};
    const char *ak = split ? "({a}_re[k], {a}_im[k])" : "({a}[2k], {a}[2k+1])", *bk = split ? "({b}_re[k], {b}_im[k])" : "({b}[2k], {b}[2k+1])";
    const char *ck = split ? "({c}_re[k], {c}_im[k])" : "({c}[2k], {c}[2k+1])";
    pg_buf fo = {0};
    const char *av = synth_fe_t(&T, kv, ak), *bv = synth_fe_t(&T, kv, bk), *cv = synth_fe_t(&T, kv, ck);
    switch (op) {
    case X_MUL: pg_buf_printf(&fo, "%s = %s * %s: re = ar*br - ai*bi, im = ar*bi + ai*br", cv, av, bv); break;
    case X_CONJMUL: pg_buf_printf(&fo, "%s = %s * conj%s: re = ar*br + ai*bi, im = ai*br - ar*bi", cv, av, bv); break;
    case X_MAC: pg_buf_printf(&fo, "%s += %s * %s (complex)", cv, av, bv); break;
    case X_SCALE: pg_buf_printf(&fo, "%s = (%s + i*%s) * %s: re = %s*ar - %s*ai, im = %s*ai + %s*ar", cv, WR, WI, av, WR, WI, WR, WI); break;
    case X_AXPY: pg_buf_printf(&fo, "%s += (%s + i*%s) * %s (complex)", cv, WR, WI, av); break;
    case X_ABS: pg_buf_printf(&fo, "%s[k] = sqrt(ar^2 + ai^2) with (ar, ai) = %s", C, av); break;
    default: pg_buf_printf(&fo, "%s[k] = ar^2 + ai^2 with (ar, ai) = %s", C, av); break;
    }
    static const char *const NE[X__N][5] = {
        {"complex multiply", "pointwise complex product", "pointwise complex multiplication", "complex Hadamard product", "multiply complex arrays"},
        {"complex multiply by the conjugate", "a times conj(b)", "conjugate complex product (cross-spectrum)", "pointwise a*conj(b)", "complex correlation product"},
        {"complex multiply-accumulate", "complex FMA c += a*b", "accumulate complex products", "complex MAC", "in-place complex product accumulation"},
        {"complex scaling", "multiply by a complex scalar", "complex scale", "scale complex array by w", "complex scalar times vector"},
        {"complex AXPY", "caxpy y += alpha*x", "complex axpy update", "complex scaled add", "y = alpha x + y for complex data"},
        {"complex magnitude", "absolute value of complex numbers", "complex abs", "modulus of complex values", "|z| of a complex array"},
        {"complex squared magnitude", "power spectrum |z|^2", "complex norm squared", "squared modulus", "|z|^2 of a complex array"},
    };
    static const char *const NZ[X__N][3] = {{"复数逐元素乘法", "复数乘积", "逐点复数相乘"}, {"共轭复数乘法", "a 乘以 b 的共轭", "互谱乘积"},
                                            {"复数乘加", "复数累加乘积", "复数 FMA"}, {"复数标量缩放", "乘以复数标量", "复数缩放"},
                                            {"复数 AXPY", "复数 y += alpha*x", "复数缩放相加"}, {"复数取模", "复数绝对值", "复数模长"},
                                            {"复数模平方", "功率谱 |z|^2", "复数范数平方"}};
    const char *ne[6], *nz[4];
    for (int j = 0; j < 5; j++) ne[j] = rot && j == 3 ? "rotate complex numbers by a fixed phasor" : NE[op][j];
    ne[5] = NULL;
    for (int j = 0; j < 3; j++) nz[j] = rot && j == 2 ? "复数旋转（乘以单位相量）" : NZ[op][j];
    nz[3] = NULL;
    /* How the complex arrays are stored, with the task's own array names (h114: the split
     * form used to print the placeholder "NAME_re" into 22% of the prose). */
    pg_buf st_en = {0}, st_zh = {0}, st3 = {0};
    if (split) {
        const char *cx[3];
        int ncx = 0;
        cx[ncx++] = A;
        if (two) cx[ncx++] = B;
        if (!real_out) cx[ncx++] = C;
        pg_buf re = {0}, im = {0};
        for (int j = 0; j < ncx; j++) {
            const char *sep = j == 0 ? "" : j == ncx - 1 ? " and " : ", ";
            pg_buf_printf(&re, "%s%s_re", sep, cx[j]);
            pg_buf_printf(&im, "%s%s_im", sep, cx[j]);
        }
        pg_buf_printf(&st_en, "as separate arrays: the real parts in %s and the imaginary parts in %s", re.data, im.data);
        pg_buf_printf(&st_zh, "实部和虚部分开存放：实部在 %s，虚部在 %s", re.data, im.data);
        pg_buf_printf(&st3, " (real and imaginary parts in separate arrays: %s hold the real parts, %s the imaginary ones)", re.data, im.data);
        pg_buf_free(&re);
        pg_buf_free(&im);
    } else {
        pg_buf_printf(&st_en, "interleaved: real part at index 2k, imaginary part at 2k+1, so each complex array holds 2n %s values", CT);
        pg_buf_printf(&st_zh, "实部和虚部交错存放：实部在 2k，虚部在 2k+1，每个复数数组共 2n 个 %s", CT);
        pg_buf_printf(&st3, " (each complex number is a (real, imaginary) pair of %s values stored back to back, 2n values for n numbers)", CT);
    }
    const char *store = st_en.data, *storez = st_zh.data;
    pg_buf e1 = {0}, e2 = {0}, e3 = {0}, z1 = {0}, z2 = {0};
    static const char *const W1[X__N] = {
        "multiplies the k-th complex number of {a} by the k-th of {b} and stores the complex product in {c}",
        "multiplies the k-th complex number of {a} by the complex conjugate of the k-th of {b} (negate b's imaginary part first) and stores it in {c}",
        "adds the complex product of the k-th numbers of {a} and {b} to the k-th complex number of {c}, in place",
        "multiplies every complex number of {a} by the complex scalar {wr} + i*{wi} and writes the result to {c}",
        "adds {wr} + i*{wi} times the k-th complex number of {x} to the k-th complex number of {c}, in place",
        "writes the magnitude sqrt(re^2 + im^2) of the k-th complex number of {a} to the real array {c}",
        "writes re^2 + im^2 of the k-th complex number of {a} to the real array {c} (no square root)",
    };
    static const char *const Z1[X__N] = {"{a} 与 {b} 的第 k 个复数相乘，结果写入 {c}", "{a} 的第 k 个复数乘以 {b} 第 k 个复数的共轭，结果写入 {c}",
                                         "把 {a} 与 {b} 第 k 个复数的乘积加到 {c} 的第 k 个复数上（原地）", "{a} 的每个复数乘以复数标量 {wr} + i*{wi}，结果写入 {c}",
                                         "把 ({wr} + i*{wi}) 乘以 {x} 的第 k 个复数加到 {c} 上（原地）", "把 {a} 第 k 个复数的模 sqrt(re^2 + im^2) 写入实数组 {c}",
                                         "把 {a} 第 k 个复数的模平方 re^2 + im^2 写入实数组 {c}"};
    const char *kv2[] = {"a", A, "b", B, "c", C, "x", A, "wr", WR, "wi", WI ? WI : "", NULL};
    pg_buf_printf(&e1, "for every k < n, %s; complex numbers are stored %s", synth_fe_t(&T, kv2, W1[op]), store);
    pg_buf_printf(&e2, "%s (%s) over n complex %s values: %s; storage is %s", NE[op][0], synth_fe_prec_en(dt), CT, synth_fe_t(&T, kv2, W1[op]), store);
    pg_buf_printf(&e3, "%s%s%s", synth_fe_t(&T, kv2, W1[op]), st3.data, rot ? synth_fe_t(&T, kv2, "; ({wr}, {wi}) = (cos t, sin t) for a fixed angle t, so this is a rotation by t") : "");
    pg_buf_printf(&z1, "对每个 k < n，%s；%s", synth_fe_t(&T, kv2, Z1[op]), storez);
    pg_buf_printf(&z2, "%s（%s）：%s；每个数组 n 个复数，%s", NZ[op][0], synth_fe_prec_zh(dt), synth_fe_t(&T, kv2, Z1[op]), storez);
    const char *ee[] = {e1.data, e2.data, e3.data, NULL}, *zz[] = {z1.data, z2.data, NULL};
    const char *hw[2] = {NULL, NULL}, *hz[2] = {NULL, NULL};
    pg_buf h = {0}, hzb = {0};
    if (split) pg_buf_printf(&h, "one complex number per thread from the separate real and imaginary arrays%s", gs ? ", grid-stride loop" : "");
    else if (V > 1) pg_buf_printf(&h, "two complex numbers per thread as one 16-byte float4 load/store, the odd last one with float2%s", gs ? ", grid-stride loop" : "");
    else pg_buf_printf(&h, "one complex number per thread with one %d-byte %s load/store per array%s", f64 ? 16 : 8, V2, gs ? ", grid-stride loop" : "");
    pg_buf_printf(&hzb, "%s%s", split ? "每个线程处理一个复数（实部、虚部分开读取）" : V > 1 ? "每个线程用一次 float4 处理两个复数" : "每个线程用一次向量读写处理一个复数", gs ? "，grid-stride 循环" : "");
    hw[0] = h.data;
    hz[0] = hzb.data;
    pg_buf notes = {0}, notez = {0}, shp = {0}, shz = {0};
    if (scal) {
        pg_buf_printf(&notes, "%s = %s, %s = %s", WR, wrl, WI, wil);
        pg_buf_printf(&notez, "%s = %s，%s = %s", WR, wrl, WI, wil);
    }
    if (split) {
        pg_buf_printf(&shp, "every complex array X is two arrays X_re and X_im of n %s each%s", CT, real_out ? synth_fe_t(&T, kv, "; {c} has n reals") : "");
        pg_buf_printf(&shz, "每个复数数组拆成 X_re、X_im 两个各含 n 个 %s 的数组%s", CT, real_out ? synth_fe_t(&T, kv, "；{c} 有 n 个实数") : "");
    } else {
        pg_buf_printf(&shp, "complex arrays hold 2n %s (n interleaved complex numbers)%s", CT, real_out ? synth_fe_t(&T, kv, "; {c} has n reals") : "");
        pg_buf_printf(&shz, "复数数组各含 2n 个 %s（n 个交错存放的复数）%s", CT, real_out ? synth_fe_t(&T, kv, "；{c} 有 n 个实数") : "");
    }
    desc_facts f = {.name_en = ne, .name_zh = nz, .formula = fo.data, .explain_en = ee, .explain_zh = zz, .how_en = hw, .how_zh = hz, .shape_en = shp.data, .shape_zh = shz.data,
                    .notes_en = notes.len ? notes.data : NULL, .notes_zh = notez.len ? notez.data : NULL};
    char bytes[48];
    int es = f64 ? 8 : 4;
    snprintf(bytes, sizeof bytes, "%d*n", es * (2 * (1 + two + acc) + (real_out ? 1 : 2)));
    synth_fe_finish(root, &f, seed, dt, synth_fe_tol_cancel(dt), NULL, 0, synth_fam_ref(synth_fam_elem_complex), bytes, "6*n", &s->task_json);
    pg_buf_free(&fo); pg_buf_free(&e1); pg_buf_free(&e2); pg_buf_free(&e3); pg_buf_free(&z1); pg_buf_free(&z2); pg_buf_free(&h); pg_buf_free(&hzb);
    pg_buf_free(&notes); pg_buf_free(&notez); pg_buf_free(&shp); pg_buf_free(&shz); pg_buf_free(&sig);
    pg_buf_free(&st_en); pg_buf_free(&st_zh); pg_buf_free(&st3);
    synth_fe_strs_free(&T);
    return PG_OK;
}

/* ---- poly ------------------------------------------------------------------------------- */
enum { P_SCALARS, P_ARRAY, P_SMEM };
enum { K_HORNER, K_CHEB_REC, K_CHEB_CLENSHAW };

pg_status synth_fam_elem_poly(uint64_t seed, synth_family_sample *s) {
    fam_rng r = {seed ^ 0x706f6c7900000008ull};
    int kind = synth_fam_pick(&r, 4), D = 3 + synth_fam_pick(&r, 7), cs = synth_fam_pick(&r, 3);
    if (kind == 3) kind = K_HORNER;   /* Horner twice as often */
    bool f64 = synth_fam_pick(&r, 4) == 0, deriv = kind == K_HORNER && synth_fam_pick(&r, 4) == 0, mapped = kind != K_HORNER && synth_fam_pick(&r, 2), gs = synth_fam_pick(&r, 2);
    int block = 128 << synth_fam_pick(&r, 3), cap = synth_fe_cap(&r), V = 1 << synth_fam_pick(&r, f64 ? 2 : 3);
    /* held out: the suite's f32 Horner of degree 7 with an 8-entry coefficient array */
    if (kind == K_HORNER && !f64 && D == 7 && cs == P_ARRAY && !deriv) cs = P_SCALARS;
    const char *dt = f64 ? "f64" : "f32", *CT = f64 ? "double" : "float";
    const char *in[1], *out[2];
    synth_desc_param_names(seed, 1, in, 2, out);
    const char *X = in[0], *Y = out[0], *DY = deriv ? "dy" : NULL;
    if (deriv && (!strcmp(X, "dy") || !strcmp(Y, "dy"))) DY = "dydx";
    static const char *CN[] = {"coef", "c", "coeffs", "p"};
    const char *CA = CN[synth_fam_pick(&r, 4)];
    if (!strcmp(CA, X) || !strcmp(CA, Y)) CA = "coef";
    double co[10];
    for (int k = 0; k <= D; k++) co[k] = (synth_fam_pick(&r, 17) - 8) / (kind == K_HORNER ? 8.0 : 16.0) / (kind == K_HORNER ? 1 + k * 0.5 : 1);
    if (co[D] == 0) co[D] = 0.25;
    double lo = -1 - synth_fam_pick(&r, 3), hi = 1 + synth_fam_pick(&r, 4);

    snprintf(s->family, sizeof s->family, "poly");
    snprintf(s->source, sizeof s->source, "nvcc");
    static const char *KN[] = {"horner", "cheb_rec", "clenshaw"}, *CSN[] = {"scal", "arr", "smem"};
    snprintf(s->name, sizeof s->name, "poly_%s%d%s%s_%s_%s_v%d%s", KN[kind], D, deriv ? "_deriv" : "", mapped ? "_mapped" : "", CSN[cs], dt, V, gs ? "_gs" : "");
    synth_fam_fit_name(s->name);   /* within the decoder's PG_NAME_MAX */
    snprintf(s->identity, sizeof s->identity, "poly:%s:d%d:%s:%s:%s:%s:v%d:%s%d:b%d", KN[kind], D, deriv ? "deriv" : "-", mapped ? "mapped" : "-", CSN[cs], dt, V,
             gs ? "gs" : "one", gs ? cap : 0, block);

    fe_strs T = {0};
    pg_buf sig = {0}, body = {0}, pro = {0};
    json_t *root = synth_fe_root(s->name, "poly"), *ps = json_array();
    char cl[10][32], lenbuf[16];
    for (int k = 0; k <= D; k++) synth_fe_lit(cl[k], sizeof cl[k], co[k]);
    snprintf(lenbuf, sizeof lenbuf, "%d", D + 1);
    synth_fe_sig_ptr(&sig, X, dt, FE_IN);
    synth_fe_ptr(ps, X, dt, FE_IN, "n");
    if (cs != P_SCALARS) {
        synth_fe_sig_ptr(&sig, CA, dt, FE_IN);
        synth_fe_ptr_dist(ps, CA, dt, FE_IN, lenbuf, "uniform(-1,1)", "uniform(-0.5,0.5)", NULL);
    }
    synth_fe_sig_ptr(&sig, Y, dt, FE_OUT);
    synth_fe_ptr(ps, Y, dt, FE_OUT, "n");
    if (deriv) { synth_fe_sig_ptr(&sig, DY, dt, FE_OUT); synth_fe_ptr(ps, DY, dt, FE_OUT, "n"); }
    if (cs == P_SCALARS)
        for (int k = 0; k <= D; k++) {
            char nm[8];
            snprintf(nm, sizeof nm, "c%d", k);
            synth_fe_sig_scal(&sig, nm, dt);
            synth_fe_scal(ps, nm, dt, cl[k]);
        }
    if (mapped) {
        synth_fe_sig_scal(&sig, "lo", dt); synth_fe_scal_f(ps, "lo", dt, lo);
        synth_fe_sig_scal(&sig, "hi", dt); synth_fe_scal_f(ps, "hi", dt, hi);
    }
    synth_fe_sig_scal(&sig, "n", "u32");
    synth_fe_scal(ps, "n", "u32", "n");

    /* coefficient k as an expression */
    char cref[10][48];
    for (int k = 0; k <= D; k++) {
        if (cs == P_SCALARS) snprintf(cref[k], sizeof cref[k], "c%d", k);
        else if (cs == P_SMEM) snprintf(cref[k], sizeof cref[k], "cs[%d]", k);
        else snprintf(cref[k], sizeof cref[k], "%s[%d]", CA, k);
    }
    if (cs == P_SMEM) {
        pg_buf_printf(&pro, "    __shared__ %s cs[%d];   // the coefficients, loaded once per block\n", CT, D + 1);
        pg_buf_printf(&pro, "    if (threadIdx.x < %d) cs[threadIdx.x] = %s[threadIdx.x];\n    __syncthreads();\n", D + 1, CA);
    }
    if (mapped) pg_buf_printf(&pro, "    const %s mid = (hi + lo) * (%s)0.5, inv_half = (%s)2 / (hi - lo);   // [lo, hi] -> [-1, 1]\n", CT, CT, CT);
    pg_buf_printf(&body, "%s xt = %s;\n", CT, mapped ? synth_fe_t(&T, (const char *const[]){"x", X, NULL}, "({x}_e - mid) * inv_half") : synth_fe_t(&T, (const char *const[]){"x", X, NULL}, "{x}_e"));
    if (kind == K_HORNER) {
        pg_buf_printf(&body, "%s pv = %s;\n", CT, cref[D]);
        if (deriv) pg_buf_printf(&body, "%s dpv = (%s)0;\n", CT, CT);
        for (int k = D - 1; k >= 0; k--) {
            if (deriv) pg_buf_puts(&body, "dpv = dpv * xt + pv;\n");
            pg_buf_printf(&body, "pv = pv * xt + %s;\n", cref[k]);
        }
        pg_buf_printf(&body, "%s_e = pv;\n", Y);
        if (deriv) pg_buf_printf(&body, "%s_e = dpv;\n", DY);
    } else if (kind == K_CHEB_REC) {
        pg_buf_printf(&body, "%s t0 = (%s)1, t1 = xt;   // T_0, T_1\n%s pv = %s + %s * xt;\n", CT, CT, CT, cref[0], cref[1]);
        for (int k = 2; k <= D; k++) pg_buf_printf(&body, "{ %s t2 = (%s)2 * xt * t1 - t0; pv = pv + %s * t2; t0 = t1; t1 = t2; }\n", CT, CT, cref[k]);
        pg_buf_printf(&body, "%s_e = pv;\n", Y);
    } else {
        pg_buf_printf(&body, "%s b1 = (%s)0, b2 = (%s)0;   // Clenshaw: b_k = c_k + 2x b_{k+1} - b_{k+2}\n", CT, CT, CT);
        for (int k = D; k >= 1; k--) pg_buf_printf(&body, "{ %s b0 = %s + (%s)2 * xt * b1 - b2; b2 = b1; b1 = b0; }\n", CT, cref[k], CT);
        pg_buf_printf(&body, "%s_e = %s + xt * b1 - b2;\n", Y, cref[0]);
    }
    fe_kernel k = {.name = s->name, .comment = kind == K_HORNER ? "Horner" : "Chebyshev series", .sig = sig.data, .n = "n", .prologue = pro.len ? pro.data : NULL,
                   .body = body.data, .V = V, .grid_stride = gs};
    k.arr[k.narr++] = (fe_arr){X, dt, FE_IN, false};
    k.arr[k.narr++] = (fe_arr){Y, dt, FE_OUT, false};
    if (deriv) k.arr[k.narr++] = (fe_arr){DY, dt, FE_OUT, false};
    synth_fe_emit(&k, seed, s, &s->cu);

    json_t *cj = json_array();
    for (int k2 = 0; k2 <= D; k2++) json_array_append_new(cj, json_real(co[k2]));
    json_object_set_new(root, "family_params", json_pack("{s:s, s:i, s:s, s:s?, s:s, s:s, s:s?, s:b, s:o}", "kind", kind == K_HORNER ? "horner" : "chebyshev", "degree", D,
                                                         "x", X, "coef", cs == P_SCALARS ? NULL : CA, "y", Y, "coef_mode", CSN[cs], "dy", DY, "mapped", mapped, "coeffs", cj));
    json_object_set_new(root, "params", ps);
    json_object_set_new(root, "sizes", synth_fe_sizes1("n", (const long[]){16777216, 1000003, 4099, 255, 1, 0}));
    synth_fe_launch1(root, block, V, gs, cap, synth_fe_grid_mult(seed), "n");
    char d1[48];
    if (mapped) snprintf(d1, sizeof d1, "uniform(%g,%g)", lo, hi);
    json_object_set_new(root, "distributions", json_pack("[s, s]", mapped ? d1 : "uniform(-1,1)", mapped ? "uniform(-1,1)" : "uniform(-2,2)"));

    /* descriptions */
    pg_buf fo = {0}, e1 = {0}, e2 = {0}, e3 = {0}, z1 = {0}, z2 = {0};
    const char *xs = mapped ? "t" : synth_fe_t(&T, (const char *const[]){"x", X, NULL}, "{x}[i]");
    for (int k2 = 0; k2 <= D; k2++) {
        char cn[48];
        if (cs == P_SCALARS) snprintf(cn, sizeof cn, "c%d", k2);
        else snprintf(cn, sizeof cn, "%s[%d]", CA, k2);
        if (k2) pg_buf_puts(&fo, " + ");
        if (kind != K_HORNER) pg_buf_printf(&fo, "%s*T%d(%s)", cn, k2, xs);
        else if (k2 == 0) pg_buf_puts(&fo, cn);
        else if (k2 == 1) pg_buf_printf(&fo, "%s*%s", cn, xs);
        else pg_buf_printf(&fo, "%s*%s^%d", cn, xs, k2);
    }
    char yeq[400];
    snprintf(yeq, sizeof yeq, "%s[i] = %s%s%s", Y, fo.data, mapped ? synth_fe_t(&T, (const char *const[]){"x", X, NULL}, ", where t = (2*{x}[i] - (lo + hi)) / (hi - lo)") : "",
             deriv ? synth_fe_t(&T, (const char *const[]){"d", DY, "x", X, NULL}, "; {d}[i] = the derivative p'({x}[i])") : "");
    const char *cw = cs == P_SCALARS ? "the scalar arguments c0..cD" : cs == P_SMEM ? "the array {a} (D+1 entries, worth staging in shared memory)" : "the array {a} (D+1 entries)";
    const char *kv[] = {"x", X, "y", Y, "a", CA, "d", DY ? DY : "", NULL};
    char dd[16], d1s[16];
    snprintf(dd, sizeof dd, "%d", D);
    snprintf(d1s, sizeof d1s, "%d", D + 1);
    const char *kvd[] = {"x", X, "y", Y, "a", CA, "d", DY ? DY : "", "D", dd, "D1", d1s, "cw", synth_fe_t(&T, kv, cw), NULL};
    if (kind == K_HORNER) {
        pg_buf_printf(&e1, "%s", synth_fe_t(&T, kvd, "evaluates the degree-{D} polynomial with coefficients from {cw} (lowest degree first) at every element of {x} and writes the value to {y}"));
        pg_buf_printf(&e2, "%s", synth_fe_t(&T, kvd, "for each x = {x}[i] computes c0 + c1*x + ... + c{D}*x^{D} (coefficients from {cw}) with Horner's rule: start from the top coefficient, repeatedly multiply by x and add the next lower one; the value goes to {y}[i]"));
        pg_buf_printf(&e3, "%s", synth_fe_t(&T, kvd, "applies a fixed polynomial of degree {D} to an array, nested multiplication from the highest coefficient down"));
        if (deriv) {
            pg_buf_puts(&e1, synth_fe_t(&T, kvd, ", and its derivative to {d}"));
            pg_buf_puts(&e2, synth_fe_t(&T, kvd, "; the derivative c1 + 2*c2*x + ... goes to {d}, carried along in the same Horner loop"));
            pg_buf_puts(&e3, synth_fe_t(&T, kvd, ", also producing p' in {d}"));
        }
        pg_buf_printf(&z1, "%s", synth_fe_t(&T, kvd, deriv ? "用 Horner 法则对 {x} 的每个元素计算 {D} 次多项式的值写入 {y}，并同时计算导数写入 {d}" : "用 Horner 法则对 {x} 的每个元素计算 {D} 次多项式的值写入 {y}"));
        pg_buf_printf(&z2, "%s", synth_fe_t(&T, kvd, "多项式 c0 + c1*x + ... + c{D}*x^{D}，从最高次系数开始反复乘 x 加下一个系数"));
    } else {
        pg_buf_printf(&e1, "%s", synth_fe_t(&T, kvd, kind == K_CHEB_REC ? "sums the Chebyshev series c0*T0(t) + ... + c{D}*T{D}(t) for every element, generating T_k with the recurrence T_{k+1} = 2t*T_k - T_{k-1} (T0 = 1, T1 = t), coefficients from {cw}; result in {y}"
                                                               : "evaluates the Chebyshev series sum c_k*T_k(t), k = 0..{D}, with Clenshaw's backward recurrence b_k = c_k + 2t*b_{k+1} - b_{k+2}, result c0 + t*b1 - b2; coefficients from {cw}; result in {y}"));
        pg_buf_printf(&e2, "%s", synth_fe_t(&T, kvd, "computes the degree-{D} Chebyshev expansion y = sum over k = 0..{D} of c_k*T_k(t) of each input value (coefficients from {cw}, result in {y}), where T_k(t) = cos(k*arccos t) are the Chebyshev polynomials of the first kind"));
        pg_buf_printf(&e3, "%s", synth_fe_t(&T, kvd, "approximates a function by its Chebyshev coefficients ({cw}): {y}[i] = sum over k = 0..{D} of c_k T_k(t), using the three-term recurrence"));
        pg_buf_printf(&z1, "%s", synth_fe_t(&T, kvd, "对每个元素计算 {D} 阶切比雪夫级数 sum c_k*T_k(t)，T_k 用递推 T_{k+1} = 2t*T_k - T_{k-1} 生成（T0 = 1，T1 = t）"));
        pg_buf_printf(&z2, "%s", synth_fe_t(&T, kvd, kind == K_CHEB_REC ? "切比雪夫级数 {y}[i] = sum_{k=0..{D}} c_k*T_k(t)，用前向三项递推生成 T_k" : "切比雪夫级数 {y}[i] = sum_{k=0..{D}} c_k*T_k(t)，用 Clenshaw 后向递推求值"));
        if (mapped) {
            pg_buf_puts(&e1, synth_fe_t(&T, kv, ", with t = (2*{x}[i] - (lo + hi)) / (hi - lo) mapping [lo, hi] onto [-1, 1]"));
            pg_buf_puts(&e2, "; the input interval [lo, hi] is first mapped to [-1, 1]");
            pg_buf_puts(&e3, synth_fe_t(&T, kv, "; t is {x}[i] rescaled from [lo, hi] to [-1, 1]"));
            pg_buf_puts(&z1, "，其中 t = (2x - (lo + hi)) / (hi - lo) 把 [lo, hi] 映射到 [-1, 1]");
        } else {
            pg_buf_puts(&e2, synth_fe_t(&T, kv, ", at t = {x}[i]"));
            pg_buf_puts(&z1, synth_fe_t(&T, kv, "，t = {x}[i]"));
        }
    }
    static const char *const NE[3][5] = {{"polynomial evaluation (Horner)", "Horner's method polynomial", "evaluate a polynomial at every array element", "degree-D polynomial via nested multiplication",
                                          "polynomial approximation"},
                                         {"Chebyshev series evaluation", "Chebyshev polynomial expansion", "sum of Chebyshev polynomials", "Chebyshev approximation via recurrence",
                                          "evaluate a Chebyshev series at every element"},
                                         {"Clenshaw evaluation of a Chebyshev series", "Chebyshev series (Clenshaw)", "Clenshaw recurrence", "Chebyshev expansion via Clenshaw's algorithm",
                                          "evaluate a Chebyshev series at every element"}};
    static const char *const NZ[3][3] = {{"多项式求值（Horner）", "Horner 法则", "逐元素多项式"}, {"切比雪夫级数求值", "切比雪夫多项式展开", "切比雪夫逼近"},
                                         {"Clenshaw 求值", "切比雪夫级数（Clenshaw）", "Clenshaw 递推"}};
    const char *ne[] = {NE[kind][0], NE[kind][1], NE[kind][2], NE[kind][3], NE[kind][4], NULL}, *nz[] = {NZ[kind][0], NZ[kind][1], NZ[kind][2], NULL};
    const char *ee[] = {e1.data, e2.data, e3.data, NULL}, *zz[] = {z1.data, z2.data, NULL};
    const char *hw[] = {synth_fe_how_en(&T, V, gs), cs == P_SMEM ? "stage the coefficients in shared memory once per block (with a barrier) before the loop" : "keep the coefficients in registers", NULL};
    const char *hz[] = {synth_fe_how_zh(&T, V, gs), cs == P_SMEM ? "系数先由每个线程块载入共享内存（加屏障）" : NULL, NULL};
    pg_buf notes = {0}, notez = {0}, shp = {0}, shz = {0};
    if (cs == P_SCALARS) {
        for (int k2 = 0; k2 <= D; k2++) pg_buf_printf(&notes, "%sc%d = %s", k2 ? ", " : "", k2, cl[k2]);
        pg_buf_printf(&notez, "系数：%s", notes.data);
    }
    if (mapped) {
        char a1[32], a2[32];
        synth_fe_lit(a1, sizeof a1, lo);
        synth_fe_lit(a2, sizeof a2, hi);
        pg_buf_printf(&notes, "%slo = %s, hi = %s", notes.len ? "; " : "", a1, a2);
        pg_buf_printf(&notez, "%slo = %s，hi = %s", notez.len ? "；" : "", a1, a2);
    }
    pg_buf_printf(&shp, "%s%s%s%s hold n %s values%s", X, deriv ? ", " : " and ", Y, deriv ? synth_fe_t(&T, kv, " and {d}") : "", CT, cs == P_SCALARS ? "" : synth_fe_t(&T, kvd, "; {a} has {D1} coefficients"));
    pg_buf_printf(&shz, "%s、%s%s 各含 n 个 %s%s", X, Y, deriv ? synth_fe_t(&T, kv, "、{d}") : "", CT, cs == P_SCALARS ? "" : synth_fe_t(&T, kvd, "；{a} 有 {D1} 个系数"));
    desc_facts f = {.name_en = ne, .name_zh = nz, .formula = yeq, .explain_en = ee, .explain_zh = zz, .how_en = hw, .how_zh = hz, .shape_en = shp.data, .shape_zh = shz.data,
                    .notes_en = notes.len ? notes.data : NULL, .notes_zh = notez.len ? notez.data : NULL};
    char bytes[32], flops[32];
    snprintf(bytes, sizeof bytes, "%d*n", (f64 ? 8 : 4) * (2 + deriv));
    snprintf(flops, sizeof flops, "%d*n", (kind == K_HORNER ? 2 : 4) * D * (1 + deriv));
    synth_fe_finish(root, &f, seed, dt, synth_fe_tol_cancel(dt), NULL, 0, synth_fam_ref(synth_fam_elem_poly), bytes, flops, &s->task_json);
    pg_buf_free(&fo); pg_buf_free(&e1); pg_buf_free(&e2); pg_buf_free(&e3); pg_buf_free(&z1); pg_buf_free(&z2);
    pg_buf_free(&notes); pg_buf_free(&notez); pg_buf_free(&shp); pg_buf_free(&shz); pg_buf_free(&sig); pg_buf_free(&body); pg_buf_free(&pro);
    synth_fe_strs_free(&T);
    return PG_OK;
}
