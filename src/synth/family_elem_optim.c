/* family_elem_optim.c — the "optimizer" family (nvcc): one in-place
 * optimizer step over a flat parameter vector.
 *
 *   op        sgd, momentum (heavy ball), nesterov, adam, adamw (decoupled
 *             weight decay), adagrad, rmsprop
 *   gradient  as is, clipped by value to [-clip, clip], scaled by the
 *             global-norm factor min(1, max_norm / (gnorm + 1e-6)), or
 *             multiplied by a loss-scale inverse
 *   decay     coupled L2 weight decay (g += wd*w) for every op but adamw
 *   bias      (adam/adamw) correction factors as scalars (c1 = 1/(1-b1^t),
 *             c2 = 1/(1-b2^t)), computed from a step count (m/(1-b1^t),
 *             v/(1-b2^t)), PyTorch's form (lr/(1-b1^t) and
 *             sqrt(v)/sqrt(1-b2^t) + eps) or none
 *   types     f32 throughout, f16/bf16 gradients with f32 weights and
 *             state, or f64 throughout (then the scalars are f64)
 *   mapping   V = 1/2/4 elements per thread (f64: 1/2), one step per thread
 *             or a grid-stride loop; block 128/256/512
 *
 * The reference (fam_elem_optim, src/task/refs_elemfam.c) re-reads
 * "family_params" {op, clip, decay, bias} and the parameter roles
 * {"names": {w, g, ...}} from the task.json. */
#include "family_elem.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { OP_SGD, OP_MOM, OP_NEST, OP_ADAM, OP_ADAMW, OP_ADAGRAD, OP_RMSPROP, OP__N };
static const char *OPN[] = {"sgd", "momentum", "nesterov", "adam", "adamw", "adagrad", "rmsprop"};
enum { CL_NONE, CL_VALUE, CL_NORM, CL_SCALE };
static const char *CLN[] = {"none", "value", "norm", "scale"};
enum { BC_NONE, BC_SCALARS, BC_STEP, BC_TORCH };
static const char *BCN[] = {"none", "scalars", "step", "torch"};

/* Name sets: weight, grad, first state, second state (adam), momentum buffer,
 * adagrad sum, rmsprop average. */
static const char *const NS[][7] = {
    {"w", "g", "m", "v", "buf", "h", "s"},
    {"param", "grad", "exp_avg", "exp_avg_sq", "momentum_buf", "state_sum", "square_avg"},
    {"weight", "dw", "m1", "m2", "velocity", "acc", "ms"},
    {"p", "g", "mt", "vt", "mom", "G", "eg2"},
    {"theta", "grad", "m", "v", "vel", "sum_sq", "avg_sq"},
};
/* lr, wd, mu, rho, eps, clip, max_norm, gnorm, scale, step */
static const char *const SN[][10] = {
    {"lr", "wd", "mu", "rho", "eps", "clip", "max_norm", "gnorm", "inv_scale", "step"},
    {"lr", "weight_decay", "momentum", "alpha", "eps", "clip_value", "max_norm", "total_norm", "grad_scale", "iter"},
    {"eta", "lambda_", "beta", "decay", "epsilon", "max_abs", "max_norm", "norm", "unscale", "k"},
};

pg_status synth_fam_elem_optim(uint64_t seed, synth_family_sample *s) {
    fam_rng r = {seed ^ 0x6f7074696d000001ull};
    int op = synth_fam_pick(&r, OP__N), cl = synth_fam_pick(&r, 5) - 1, bc = BC_NONE;
    if (cl < 0) cl = CL_NONE;   /* none twice as often as each clip */
    bool wd = op != OP_ADAMW && synth_fam_pick(&r, 3) == 0;
    if (op == OP_ADAM || op == OP_ADAMW) bc = 1 + synth_fam_pick(&r, 4) % 3 + (synth_fam_pick(&r, 6) == 0 ? -1 : 0);
    if (bc < 0) bc = BC_NONE;
    int tk = synth_fam_pick(&r, 6);   /* 0: f64, 1-2: f16/bf16 grads, else f32 */
    const char *wdt = tk == 0 ? "f64" : "f32", *gdt = tk == 1 ? "f16" : tk == 2 ? "bf16" : wdt;
    bool f64 = tk == 0;
    int V = 1 << synth_fam_pick(&r, f64 ? 2 : 3), block = 128 << synth_fam_pick(&r, 3), cap = synth_fe_cap(&r);
    bool gs = synth_fam_pick(&r, 2);
    /* held out: the suite's Adam (f32, bias-correction scalars, nothing else)
     * and its clipped SGD with weight decay */
    if (op == OP_ADAM && cl == CL_NONE && !wd && tk > 2 && bc == BC_SCALARS) bc = BC_STEP;
    if (op == OP_SGD && cl == CL_VALUE && wd && tk > 2) wd = false;
    const char *const *nm = NS[synth_fam_pick(&r, 5)], *const *sn = SN[synth_fam_pick(&r, 3)];
    const char *W = nm[0], *G = nm[1];
    const char *S1 = op == OP_ADAM || op == OP_ADAMW ? nm[2] : op == OP_MOM || op == OP_NEST ? nm[4] : op == OP_ADAGRAD ? nm[5]
                   : op == OP_RMSPROP                ? nm[6] : NULL;
    const char *S2 = op == OP_ADAM || op == OP_ADAMW ? nm[3] : NULL;
    bool adam = op == OP_ADAM || op == OP_ADAMW;
    const char *CT = f64 ? "double" : "float";
    const char *sqrtf_ = f64 ? "sqrt" : "sqrtf", *fminf_ = f64 ? "fmin" : "fminf", *fmaxf_ = f64 ? "fmax" : "fmaxf";

    /* scalar values */
    static const double LR[] = {0.1, 0.05, 0.01, 0.001, 0.003, 0.0005}, MU[] = {0.9, 0.95, 0.99, 0.8}, RHO[] = {0.9, 0.99, 0.95};
    static const double B1[] = {0.9, 0.85, 0.95}, B2[] = {0.999, 0.99, 0.98, 0.995}, EPS[] = {1e-8, 1e-6, 1e-7, 1e-10};
    static const double WD[] = {0.01, 0.0001, 0.05, 0.1}, CLIP[] = {1.0, 0.5, 5.0, 0.25}, SCALE[] = {1.0 / 1024, 1.0 / 65536, 0.125, 0.5};
    static const int STEPS[] = {1, 3, 10, 50, 200, 1000};
    double lr = LR[synth_fam_pick(&r, 6)], mu = MU[synth_fam_pick(&r, 4)], rho = RHO[synth_fam_pick(&r, 3)], b1 = B1[synth_fam_pick(&r, 3)], b2 = B2[synth_fam_pick(&r, 4)];
    double eps = adam ? EPS[synth_fam_pick(&r, 4)] : EPS[1 + synth_fam_pick(&r, 2)] * 10, wdv = WD[synth_fam_pick(&r, 4)], clip = CLIP[synth_fam_pick(&r, 4)];
    double maxn = 1.0 + synth_fam_pick(&r, 4), gnorm = maxn * (0.5 + 0.25 * synth_fam_pick(&r, 5)), scale = SCALE[synth_fam_pick(&r, 4)];
    int step = STEPS[synth_fam_pick(&r, 6)];
    if (op == OP_ADAMW) wdv = wdv < 0.01 ? 0.01 : wdv;

    snprintf(s->family, sizeof s->family, "optimizer");
    snprintf(s->source, sizeof s->source, "nvcc");
    static const char *OPNAME[] = {"sgd", "sgd_momentum", "nesterov", "adam", "adamw", "adagrad", "rmsprop"};
    static const char *CLTAG[] = {"", "_clip", "_normclip", "_unscale"}, *BCTAG[] = {"_nobc", "_bcs", "_t", "_torch"};
    static const char *STY[] = {"%s_step%s%s%s_%s%s_v%d%s", "%s_update%s%s%s_%s%s_x%d%s", "fused_%s%s%s%s_%s%s_vec%d%s"};
    char dtag[16];
    snprintf(dtag, sizeof dtag, "%s", wdt);
    snprintf(s->name, sizeof s->name, STY[synth_fam_pick(&r, 3)], OPNAME[op], CLTAG[cl], wd ? "_wd" : "", adam ? BCTAG[bc] : "", dtag,
             strcmp(gdt, wdt) ? (!strcmp(gdt, "f16") ? "_gf16" : "_gbf16") : "", V, gs ? "_gs" : "");
    synth_fam_fit_name(s->name);   /* within the decoder's PG_NAME_MAX */
    snprintf(s->identity, sizeof s->identity, "optimizer:%s:%s:%s:%s:%s:%s:v%d:%s%d:b%d", OPN[op], CLN[cl], wd ? "wd" : "-", BCN[bc], wdt, gdt, V,
             gs ? "gs" : "one", gs ? cap : 0, block);

    /* ---- signature, task params, kernel body ---- */
    const char *sdt = f64 ? "f64" : "f32";
    const char *LRN = sn[0], *WDN = sn[1], *MUN = sn[2], *RHON = sn[3], *EPSN = sn[4], *CLN_ = sn[5], *MAXN = sn[6], *GNN = sn[7],
               *SCN = sn[8], *STEPN = sn[9];
    const char *B1N = sn == SN[0] ? "beta1" : sn == SN[1] ? "b1" : "beta_1", *B2N = sn == SN[0] ? "beta2" : sn == SN[1] ? "b2" : "beta_2";
    const char *C1N = "c1", *C2N = "c2";
    if (op == OP_NEST || op == OP_MOM) MUN = sn == SN[2] ? "mu" : MUN;   /* "beta" is taken by adam only */
    pg_buf sig = {0}, body = {0}, pro = {0};
    json_t *root = synth_fe_root(s->name, "optimizer"), *ps = json_array();
    synth_fe_sig_ptr(&sig, W, wdt, FE_INOUT);
    synth_fe_ptr(ps, W, wdt, FE_INOUT, "n");
    synth_fe_sig_ptr(&sig, G, gdt, FE_IN);
    synth_fe_ptr_dist(ps, G, gdt, FE_IN, "n", "uniform(-1,1)", cl == CL_VALUE ? "normal(0,3)" : "normal(0,1)", NULL);
    if (S1) {
        synth_fe_sig_ptr(&sig, S1, wdt, FE_INOUT);
        if (op == OP_ADAGRAD || op == OP_RMSPROP) synth_fe_ptr_dist(ps, S1, wdt, FE_INOUT, "n", "uniform(0.0001,0.01)", "uniform(0.001,1)", NULL);
        else if (adam) synth_fe_ptr_dist(ps, S1, wdt, FE_INOUT, "n", "uniform(-0.01,0.01)", "normal(0,0.1)", NULL);
        else synth_fe_ptr_dist(ps, S1, wdt, FE_INOUT, "n", "uniform(-0.1,0.1)", "normal(0,1)", NULL);
    }
    if (S2) {
        synth_fe_sig_ptr(&sig, S2, wdt, FE_INOUT);
        synth_fe_ptr_dist(ps, S2, wdt, FE_INOUT, "n", "uniform(0.0001,0.01)", "uniform(0.001,1)", NULL);
    }
#define SCAL(name, val)                                                                                                          \
    do {                                                                                                                         \
        synth_fe_sig_scal(&sig, name, sdt);                                                                                            \
        synth_fe_scal_f(ps, name, sdt, val);                                                                                           \
    } while (0)
    SCAL(LRN, lr);
    if (op == OP_MOM || op == OP_NEST) SCAL(MUN, mu);
    if (adam) { SCAL(B1N, b1); SCAL(B2N, b2); }
    if (op == OP_RMSPROP) SCAL(RHON, rho);
    if (adam || op == OP_ADAGRAD || op == OP_RMSPROP) SCAL(EPSN, eps);
    if (wd || op == OP_ADAMW) SCAL(WDN, wdv);
    if (cl == CL_VALUE) SCAL(CLN_, clip);
    if (cl == CL_NORM) { SCAL(MAXN, maxn); SCAL(GNN, gnorm); }
    if (cl == CL_SCALE) SCAL(SCN, scale);
    if (adam && bc == BC_SCALARS) {
        SCAL(C1N, 1.0 / (1.0 - pow(b1, step)));
        SCAL(C2N, 1.0 / (1.0 - pow(b2, step)));
    }
    if (adam && (bc == BC_STEP || bc == BC_TORCH)) {
        char sv[16];
        snprintf(sv, sizeof sv, "%d", step);
        synth_fe_sig_scal(&sig, STEPN, "u32");
        synth_fe_scal(ps, STEPN, "u32", sv);
    }
#undef SCAL
    synth_fe_sig_scal(&sig, "n", "u32");
    synth_fe_scal(ps, "n", "u32", "n");

    /* per-thread constants */
    if (cl == CL_NORM)
        pg_buf_printf(&pro, "    const %s coef = %s((%s)1, %s / (%s + (%s)1e-6));   // global-norm clipping factor\n", CT, fminf_, CT, MAXN, GNN, CT);
    if (op == OP_ADAMW) pg_buf_printf(&pro, "    const %s wd_factor = (%s)1 - %s * %s;   // decoupled weight decay\n", CT, CT, LRN, WDN);
    if (adam && (bc == BC_STEP || bc == BC_TORCH)) {
        if (f64) {   /* double pow() is an out-of-line helper in nvcc's PTX: square-and-multiply instead */
            pg_buf_printf(&pro, "    double pw1 = 1, pw2 = 1, sq1 = %s, sq2 = %s;   // %s^%s and %s^%s by repeated squaring\n", B1N, B2N, B1N, STEPN, B2N, STEPN);
            pg_buf_printf(&pro, "    for (unsigned int ex = %s; ex; ex >>= 1) {\n        if (ex & 1) { pw1 *= sq1; pw2 *= sq2; }\n        sq1 *= sq1; sq2 *= sq2;\n    }\n", STEPN);
            pg_buf_puts(&pro, "    const double bc1 = 1 - pw1, bc2 = 1 - pw2;\n");
        } else
            pg_buf_printf(&pro, "    const float bc1 = 1.0f - powf(%s, (float)%s), bc2 = 1.0f - powf(%s, (float)%s);\n", B1N, STEPN, B2N, STEPN);
        if (bc == BC_TORCH) pg_buf_printf(&pro, "    const %s step_size = %s / bc1, bc2_sqrt = %s(bc2);\n", CT, LRN, sqrtf_);
    }
    pg_buf_printf(&body, "%s gr = %s_e;\n", CT, G);
    if (cl == CL_VALUE) pg_buf_printf(&body, "gr = %s(%s(gr, -%s), %s);\n", fminf_, fmaxf_, CLN_, CLN_);
    if (cl == CL_NORM) pg_buf_puts(&body, "gr = gr * coef;\n");
    if (cl == CL_SCALE) pg_buf_printf(&body, "gr = gr * %s;\n", SCN);
    if (wd) pg_buf_printf(&body, "gr = gr + %s * %s_e;\n", WDN, W);
    switch (op) {
    case OP_SGD: pg_buf_printf(&body, "%s_e = %s_e - %s * gr;\n", W, W, LRN); break;
    case OP_MOM:
        pg_buf_printf(&body, "%s_e = %s * %s_e + gr;\n%s_e = %s_e - %s * %s_e;\n", S1, MUN, S1, W, W, LRN, S1);
        break;
    case OP_NEST:
        pg_buf_printf(&body, "%s_e = %s * %s_e + gr;\n%s_e = %s_e - %s * (gr + %s * %s_e);\n", S1, MUN, S1, W, W, LRN, MUN, S1);
        break;
    case OP_ADAGRAD:
        pg_buf_printf(&body, "%s_e = %s_e + gr * gr;\n%s_e = %s_e - %s * gr / (%s(%s_e) + %s);\n", S1, S1, W, W, LRN, sqrtf_, S1, EPSN);
        break;
    case OP_RMSPROP:
        pg_buf_printf(&body, "%s_e = %s * %s_e + ((%s)1 - %s) * gr * gr;\n%s_e = %s_e - %s * gr / (%s(%s_e) + %s);\n", S1, RHON, S1, CT, RHON, W,
                      W, LRN, sqrtf_, S1, EPSN);
        break;
    default:   /* adam, adamw */
        if (op == OP_ADAMW) pg_buf_printf(&body, "%s_e = %s_e * wd_factor;\n", W, W);
        pg_buf_printf(&body, "%s_e = %s * %s_e + ((%s)1 - %s) * gr;\n", S1, B1N, S1, CT, B1N);
        pg_buf_printf(&body, "%s_e = %s * %s_e + ((%s)1 - %s) * gr * gr;\n", S2, B2N, S2, CT, B2N);
        if (bc == BC_NONE) pg_buf_printf(&body, "%s_e = %s_e - %s * %s_e / (%s(%s_e) + %s);\n", W, W, LRN, S1, sqrtf_, S2, EPSN);
        else if (bc == BC_SCALARS)
            pg_buf_printf(&body, "%s_e = %s_e - %s * (%s_e * %s) / (%s(%s_e * %s) + %s);\n", W, W, LRN, S1, C1N, sqrtf_, S2, C2N, EPSN);
        else if (bc == BC_STEP)
            pg_buf_printf(&body, "%s_e = %s_e - %s * (%s_e / bc1) / (%s(%s_e / bc2) + %s);\n", W, W, LRN, S1, sqrtf_, S2, EPSN);
        else pg_buf_printf(&body, "%s_e = %s_e - step_size * %s_e / (%s(%s_e) / bc2_sqrt + %s);\n", W, W, S1, sqrtf_, S2, EPSN);
        break;
    }
    fe_kernel k = {.name = s->name, .sig = sig.data, .n = "n", .prologue = pro.len ? pro.data : NULL, .body = body.data, .V = V, .grid_stride = gs};
    char cm[160];
    snprintf(cm, sizeof cm, "one %s step (gradient %s, %s), in place", OPN[op], CLN[cl], wd ? "L2 weight decay" : "no coupled decay");
    k.comment = cm;
    k.arr[k.narr++] = (fe_arr){W, wdt, FE_INOUT, false};
    k.arr[k.narr++] = (fe_arr){G, gdt, FE_IN, false};
    if (S1) k.arr[k.narr++] = (fe_arr){S1, wdt, FE_INOUT, false};
    if (S2) k.arr[k.narr++] = (fe_arr){S2, wdt, FE_INOUT, false};
    synth_fe_emit(&k, seed, s, &s->cu);

    json_object_set_new(root, "family_params",
                        json_pack("{s:s, s:s, s:b, s:s, s:{s:s, s:s, s:s?, s:s?}, s:{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}}",
                                  "op", OPN[op], "clip", CLN[cl], "decay", wd, "bias", BCN[bc], "arrays", "w", W, "g", G, "s1", S1, "s2", S2,
                                  "scalars", "lr", LRN, "wd", WDN, "mu", MUN, "rho", RHON, "eps", EPSN, "clip", CLN_, "max_norm", MAXN, "gnorm",
                                  GNN, "scale", SCN, "step", STEPN, "beta1", B1N, "beta2", B2N, "c1", C1N, "c2", C2N));
    json_object_set_new(root, "params", ps);
    json_object_set_new(root, "sizes", synth_fe_sizes1("n", (const long[]){16777216, 1000003, 4097, 100, 1, 0}));
    synth_fe_launch1(root, block, V, gs, cap, synth_fe_grid_mult(seed), "n");

    /* ---- descriptions ---- */
    char v_lr[32], v_b1[32], v_b2[32], v_eps[32], v_wd[32], v_mu[32], v_rho[32], v_clip[32], v_st[16];
    synth_fe_lit(v_lr, sizeof v_lr, lr); synth_fe_lit(v_b1, sizeof v_b1, b1); synth_fe_lit(v_b2, sizeof v_b2, b2);
    snprintf(v_eps, sizeof v_eps, "%g", eps);
    synth_fe_lit(v_wd, sizeof v_wd, wdv); synth_fe_lit(v_mu, sizeof v_mu, mu); synth_fe_lit(v_rho, sizeof v_rho, rho); synth_fe_lit(v_clip, sizeof v_clip, clip);
    snprintf(v_st, sizeof v_st, "%d", step);
    const char *kv[] = {"w", W, "g", G, "s1", S1 ? S1 : "", "s2", S2 ? S2 : "", "lr", LRN, "wd", WDN, "mu", MUN, "rho", RHON, "eps", EPSN,
                        "clip", CLN_, "maxn", MAXN, "gnorm", GNN, "scale", SCN, "step", STEPN, "b1", B1N, "b2", B2N, "c1", C1N, "c2", C2N,
                        "vlr", v_lr, "vb1", v_b1, "vb2", v_b2, "veps", v_eps, "vwd", v_wd, "vmu", v_mu, "vrho", v_rho, "vclip", v_clip,
                        "vstep", v_st, "prec", synth_fe_prec_en(wdt), "gprec", synth_fe_prec_en(gdt), NULL};
    fe_strs T = {0};
    /* the gradient as used, in words and in symbols */
    const char *pre_en = cl == CL_VALUE   ? "first clip the gradient {g}[i] to [-{clip}, {clip}]"
                         : cl == CL_NORM  ? "first multiply the gradient {g}[i] by min(1, {maxn} / ({gnorm} + 1e-6)), the global-norm clipping factor ({gnorm} is the total gradient norm, computed beforehand)"
                         : cl == CL_SCALE ? "first multiply the gradient {g}[i] by {scale} to undo the loss scaling"
                                          : "take the gradient {g}[i] as is";
    const char *pre_zh = cl == CL_VALUE   ? "先把梯度 {g}[i] 裁剪到 [-{clip}, {clip}]"
                         : cl == CL_NORM  ? "先把梯度 {g}[i] 乘以全局范数裁剪系数 min(1, {maxn} / ({gnorm} + 1e-6))（{gnorm} 为事先算好的梯度总范数）"
                         : cl == CL_SCALE ? "先把梯度 {g}[i] 乘以 {scale}，去掉 loss scaling"
                                          : "直接使用梯度 {g}[i]";
    const char *gf = cl == CL_VALUE ? "gc = clamp({g}[i], -{clip}, {clip})" : cl == CL_NORM ? "gc = {g}[i] * min(1, {maxn} / ({gnorm} + 1e-6))"
                     : cl == CL_SCALE ? "gc = {g}[i] * {scale}" : "gc = {g}[i]";
    pg_buf fo = {0};
    pg_buf_puts(&fo, synth_fe_t(&T, kv, gf));
    if (wd) pg_buf_puts(&fo, synth_fe_t(&T, kv, "; gc += {wd} * {w}[i]"));
    static const char *UPD[OP__N] = {
        "; {w}[i] -= {lr} * gc",
        "; {s1}[i] = {mu} * {s1}[i] + gc; {w}[i] -= {lr} * {s1}[i]",
        "; {s1}[i] = {mu} * {s1}[i] + gc; {w}[i] -= {lr} * (gc + {mu} * {s1}[i])",
        "",
        "",
        "; {s1}[i] += gc*gc; {w}[i] -= {lr} * gc / (sqrt({s1}[i]) + {eps})",
        "; {s1}[i] = {rho} * {s1}[i] + (1 - {rho}) * gc*gc; {w}[i] -= {lr} * gc / (sqrt({s1}[i]) + {eps})",
    };
    if (adam) {
        if (op == OP_ADAMW) pg_buf_puts(&fo, synth_fe_t(&T, kv, "; {w}[i] *= 1 - {lr} * {wd}"));
        pg_buf_puts(&fo, synth_fe_t(&T, kv, "; {s1}[i] = {b1} * {s1}[i] + (1 - {b1}) * gc; {s2}[i] = {b2} * {s2}[i] + (1 - {b2}) * gc*gc"));
        static const char *AU[] = {"; {w}[i] -= {lr} * {s1}[i] / (sqrt({s2}[i]) + {eps})",
                                   "; {w}[i] -= {lr} * ({s1}[i] * {c1}) / (sqrt({s2}[i] * {c2}) + {eps})",
                                   "; {w}[i] -= {lr} * ({s1}[i] / (1 - {b1}^{step})) / (sqrt({s2}[i] / (1 - {b2}^{step})) + {eps})",
                                   "; {w}[i] -= ({lr} / (1 - {b1}^{step})) * {s1}[i] / (sqrt({s2}[i]) / sqrt(1 - {b2}^{step}) + {eps})"};
        pg_buf_puts(&fo, synth_fe_t(&T, kv, AU[bc]));
    } else pg_buf_puts(&fo, synth_fe_t(&T, kv, UPD[op]));

    static const char *const NM_EN[OP__N][5] = {
        {"SGD step", "plain stochastic gradient descent update", "vanilla SGD parameter update", "gradient descent step", "SGD optimizer step"},
        {"SGD with momentum", "momentum SGD step", "heavy-ball momentum update", "SGD momentum optimizer step", "classical momentum update"},
        {"Nesterov momentum SGD step", "SGD with Nesterov momentum", "Nesterov accelerated gradient update", "NAG optimizer step",
         "Nesterov-momentum parameter update"},
        {"Adam step", "Adam optimizer update", "fused Adam parameter update", "one step of Adam", "Adam update of weights and moments"},
        {"AdamW step", "AdamW optimizer update", "Adam with decoupled weight decay", "fused AdamW parameter update", "one step of AdamW"},
        {"Adagrad step", "Adagrad optimizer update", "adaptive gradient (Adagrad) update", "Adagrad parameter update", "one step of Adagrad"},
        {"RMSProp step", "RMSprop optimizer update", "RMSProp parameter update", "root-mean-square propagation step", "one step of RMSprop"},
    };
    static const char *const NM_ZH[OP__N][3] = {
        {"SGD 参数更新", "随机梯度下降一步", "SGD 优化器步"},
        {"带动量的 SGD", "动量 SGD 更新", "重球动量更新"},
        {"Nesterov 动量 SGD", "Nesterov 加速梯度更新", "NAG 优化器步"},
        {"Adam 优化器单步", "Adam 参数更新", "融合的 Adam 更新"},
        {"AdamW 优化器单步", "解耦权重衰减的 Adam", "AdamW 参数更新"},
        {"Adagrad 优化器单步", "Adagrad 参数更新", "自适应梯度更新"},
        {"RMSProp 优化器单步", "RMSprop 参数更新", "均方根传播更新"},
    };
    const char *extra_en = cl == CL_VALUE ? " with gradient clipping" : cl == CL_NORM ? " with norm-based gradient clipping"
                           : cl == CL_SCALE ? " with gradient unscaling" : wd ? " with weight decay" : "";
    const char *extra_zh = cl == CL_VALUE ? "（带梯度裁剪）" : cl == CL_NORM ? "（按范数缩放梯度）" : cl == CL_SCALE ? "（梯度反缩放）" : wd ? "（带权重衰减）" : "";
    const char *ne[6], *nz[4];
    for (int k2 = 0; k2 < 5; k2++) {
        pg_buf tmp = {0};
        pg_buf_printf(&tmp, "%s%s", NM_EN[op][k2], k2 % 2 ? extra_en : "");
        ne[k2] = synth_fe_t(&T, NULL, tmp.data);
        pg_buf_free(&tmp);
    }
    ne[5] = NULL;
    for (int k2 = 0; k2 < 3; k2++) {
        pg_buf tmp = {0};
        pg_buf_printf(&tmp, "%s%s", NM_ZH[op][k2], extra_zh);
        nz[k2] = synth_fe_t(&T, NULL, tmp.data);
        pg_buf_free(&tmp);
    }
    nz[3] = NULL;

    /* plain words */
    static const char *const RULE_EN[OP__N] = {
        "then move the weight {w}[i] against it by the learning rate {lr}",
        "then update the velocity {s1}[i] to {mu} times itself plus the gradient and subtract {lr} times the new velocity from the weight {w}[i]",
        "then update the velocity {s1}[i] to {mu} times itself plus the gradient and subtract {lr} times (the gradient plus {mu} times the new velocity) from the weight {w}[i] (Nesterov look-ahead)",
        "", "",
        "then add the squared gradient to the running sum {s1}[i] and subtract {lr} times the gradient divided by (the square root of the new sum plus {eps}) from the weight {w}[i]",
        "then set the running mean square {s1}[i] to {rho} times itself plus (1 - {rho}) times the squared gradient and subtract {lr} times the gradient divided by (its square root plus {eps}) from the weight {w}[i]",
    };
    static const char *const BC_EN[] = {
        "then subtract {lr} times {s1}[i] divided by (the square root of {s2}[i] plus {eps}) from the weight {w}[i], without bias correction",
        "then subtract {lr} times {s1}[i]*{c1} divided by (the square root of {s2}[i]*{c2} plus {eps}) from {w}[i], where {c1} and {c2} are the bias-correction factors passed in",
        "then divide the new {s1}[i] by (1 - {b1}^{step}) and the new {s2}[i] by (1 - {b2}^{step}) to correct the start-up bias ({step} is the step count, an unsigned integer argument) and subtract {lr} times the corrected first moment over (the square root of the corrected second moment plus {eps}) from {w}[i]",
        "then, as PyTorch does, use the step size {lr} / (1 - {b1}^{step}) and the denominator sqrt({s2}[i]) / sqrt(1 - {b2}^{step}) + {eps} ({step} is the step count argument) and subtract step size times {s1}[i] over the denominator from {w}[i]",
    };
    pg_buf e1 = {0}, e2 = {0}, e3 = {0}, z1 = {0}, z2 = {0};
    const char *decay_en = wd ? ", add {wd} times the weight {w}[i] to it (L2 weight decay)" : "";
    const char *rule = adam ? BC_EN[bc] : RULE_EN[op];
    const char *mom_en = adam ? ", then update the first moment {s1}[i] = {b1}*{s1}[i] + (1-{b1})*gradient and the second moment {s2}[i] = {b2}*{s2}[i] + (1-{b2})*gradient^2 (new values stored back)" : "";
    const char *adamw_en = op == OP_ADAMW ? ", shrink the weight {w}[i] by the factor (1 - {lr}*{wd}) (decoupled weight decay, applied before the Adam step)" : "";
    pg_buf_printf(&e1, "for every i < n, %s%s%s%s, %s; every state array is updated in place and the gradient is only read", synth_fe_t(&T, kv, pre_en),
                  synth_fe_t(&T, kv, decay_en), synth_fe_t(&T, kv, adamw_en), synth_fe_t(&T, kv, mom_en), synth_fe_t(&T, kv, rule));
    pg_buf_printf(&e2, "applies one %s step to the %s weights {w} (length n) using the gradient {g}%s: %s", OPN[op], synth_fe_prec_en(wdt),
                  strcmp(gdt, wdt) ? " (stored in half precision, math in float)" : "", fo.data);
    pg_buf_printf(&e3, "updates {w}%s%s%s%s in place from the gradient {g}: %s%s%s, %s", S1 ? ", " : "", S1 ? S1 : "", S2 ? " and " : "", S2 ? S2 : "",
                  synth_fe_t(&T, kv, pre_en), synth_fe_t(&T, kv, decay_en), synth_fe_t(&T, kv, mom_en), synth_fe_t(&T, kv, rule));
    static const char *const RULE_ZH[OP__N] = {
        "再令 {w}[i] -= {lr} * 梯度",
        "再令速度 {s1}[i] = {mu} * {s1}[i] + 梯度，然后 {w}[i] -= {lr} * {s1}[i]",
        "再令速度 {s1}[i] = {mu} * {s1}[i] + 梯度，然后 {w}[i] -= {lr} * (梯度 + {mu} * 新的 {s1}[i])（Nesterov 前瞻）",
        "", "",
        "再把梯度平方累加到 {s1}[i]，然后 {w}[i] -= {lr} * 梯度 / (sqrt({s1}[i]) + {eps})",
        "再令 {s1}[i] = {rho} * {s1}[i] + (1 - {rho}) * 梯度平方，然后 {w}[i] -= {lr} * 梯度 / (sqrt({s1}[i]) + {eps})",
    };
    static const char *const BC_ZH[] = {
        "更新一阶矩 {s1} 和二阶矩 {s2}（衰减 {b1}、{b2}），然后 {w}[i] -= {lr} * {s1}[i] / (sqrt({s2}[i]) + {eps})，不做偏差校正",
        "更新一阶矩 {s1} 和二阶矩 {s2}（衰减 {b1}、{b2}），然后 {w}[i] -= {lr} * ({s1}[i]*{c1}) / (sqrt({s2}[i]*{c2}) + {eps})，{c1}、{c2} 为传入的偏差校正系数",
        "更新一阶矩 {s1} 和二阶矩 {s2}（衰减 {b1}、{b2}），用步数 {step} 做偏差校正：{s1}[i]/(1-{b1}^{step})、{s2}[i]/(1-{b2}^{step})，然后 {w}[i] -= {lr} * 校正后一阶矩 / (sqrt(校正后二阶矩) + {eps})",
        "更新一阶矩 {s1} 和二阶矩 {s2}（衰减 {b1}、{b2}），按 PyTorch 的写法：步长 {lr}/(1-{b1}^{step})，分母 sqrt({s2}[i])/sqrt(1-{b2}^{step}) + {eps}，{w}[i] -= 步长 * {s1}[i] / 分母",
    };
    pg_buf_printf(&z1, "对每个 i < n，%s%s%s，%s；状态数组原地更新，梯度只读", synth_fe_t(&T, kv, pre_zh), wd ? synth_fe_t(&T, kv, "，再加上 {wd} * {w}[i]（L2 权重衰减）") : "",
                  op == OP_ADAMW ? synth_fe_t(&T, kv, "，先把 {w}[i] 乘以 (1 - {lr}*{wd})（解耦权重衰减）") : "", synth_fe_t(&T, kv, adam ? BC_ZH[bc] : RULE_ZH[op]));
    pg_buf_printf(&z2, "%s的 %s 一步更新：%s", synth_fe_prec_zh(wdt), OPN[op], fo.data);
    const char *ee[] = {synth_fe_t(&T, kv, e1.data), synth_fe_t(&T, kv, e2.data), synth_fe_t(&T, kv, e3.data), NULL};
    const char *zz[] = {synth_fe_t(&T, kv, z1.data), synth_fe_t(&T, kv, z2.data), NULL};
    pg_buf how = {0}, howz = {0};
    if (V > 1) pg_buf_printf(&how, "each thread handles %d consecutive elements with %d-wide vector loads and stores, finishing a partial tail one element at a time", V, V);
    else pg_buf_puts(&how, "one element per thread, all arrays read and written once (a single fused pass)");
    if (gs) pg_buf_puts(&how, ", inside a grid-stride loop because the grid is capped");
    if (V > 1) pg_buf_printf(&howz, "每个线程用 %d 宽的向量读写处理 %d 个相邻元素，尾部逐个处理", V, V);
    else pg_buf_puts(&howz, "每个线程处理一个元素，所有数组只读写一次");
    if (gs) pg_buf_puts(&howz, "；网格有上限，用 grid-stride 循环");
    const char *hw[] = {how.data, "fuse the whole update into one pass over memory", NULL}, *hz[] = {howz.data, NULL};
    pg_buf notes = {0}, notez = {0};
    pg_buf_printf(&notes, "%s = %s", LRN, v_lr);
    if (adam) pg_buf_printf(&notes, ", %s = %s, %s = %s, %s = %s", B1N, v_b1, B2N, v_b2, EPSN, v_eps);
    if (op == OP_MOM || op == OP_NEST) pg_buf_printf(&notes, ", %s = %s", MUN, v_mu);
    if (op == OP_RMSPROP) pg_buf_printf(&notes, ", %s = %s, %s = %s", RHON, v_rho, EPSN, v_eps);
    if (op == OP_ADAGRAD) pg_buf_printf(&notes, ", %s = %s", EPSN, v_eps);
    if (wd || op == OP_ADAMW) pg_buf_printf(&notes, ", %s = %s", WDN, v_wd);
    if (cl == CL_VALUE) pg_buf_printf(&notes, ", %s = %s", CLN_, v_clip);
    if (adam && bc >= BC_STEP) pg_buf_printf(&notes, ", %s = %d", STEPN, step);
    pg_buf_printf(&notez, "标量取值：%s（%s）", notes.data, f64 ? "均为 double" : adam && bc >= BC_STEP ? "除步数为无符号整数外均为 float" : "均为 float");
    pg_buf_printf(&notes, " (all %s scalars%s)", f64 ? "double" : "float", adam && bc >= BC_STEP ? " except the unsigned step count" : "");
    pg_buf shp = {0}, shz = {0};
    pg_buf_printf(&shp, "%s%s%s%s%s are n-element %s arrays updated in place; %s is a read-only n-element %s array", W, S1 ? ", " : "", S1 ? S1 : "", S2 ? ", " : "",
                  S2 ? S2 : "", wdt, G, gdt);
    pg_buf_printf(&shz, "%s%s%s%s%s 为长度 n 的 %s 数组（原地更新），%s 为只读的 %s 数组", W, S1 ? "、" : "", S1 ? S1 : "", S2 ? "、" : "", S2 ? S2 : "", wdt, G, gdt);
    desc_facts f = {.name_en = ne, .name_zh = nz, .formula = fo.data, .explain_en = ee, .explain_zh = zz, .how_en = hw, .how_zh = hz,
                    .shape_en = shp.data, .shape_zh = shz.data, .notes_en = notes.data, .notes_zh = notez.data};
    char bytes[64], flops[32];
    int narr = 2 + (S1 != NULL) + (S2 != NULL), wsz = synth_fe_size(wdt), gsz = synth_fe_size(gdt);
    snprintf(bytes, sizeof bytes, "%d*n", (narr - 1) * 2 * wsz + gsz);
    snprintf(flops, sizeof flops, "%d*n", adam ? 14 : op == OP_SGD ? 2 : 6);
    synth_fe_finish(root, &f, seed, wdt, synth_fe_tol_cancel(wdt), NULL, 0, synth_fam_ref(synth_fam_elem_optim), bytes, flops, &s->task_json);
    pg_buf_free(&fo); pg_buf_free(&e1); pg_buf_free(&e2); pg_buf_free(&e3); pg_buf_free(&z1); pg_buf_free(&z2);
    pg_buf_free(&how); pg_buf_free(&howz); pg_buf_free(&notes); pg_buf_free(&notez); pg_buf_free(&shp); pg_buf_free(&shz);
    pg_buf_free(&sig); pg_buf_free(&body); pg_buf_free(&pro);
    synth_fe_strs_free(&T);
    return PG_OK;
}
