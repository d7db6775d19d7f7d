/* family_elem_act.c — activation families (nvcc), all with math in f32 (f64
 * for f64 data) and storage f32/f16/bf16/f64:
 *
 *   activation  y = act(x) over n elements, act one of leaky ReLU (slope),
 *               ELU (alpha), SELU, CELU (alpha), GELU (erf and tanh forms),
 *               quick GELU, SiLU, swish (beta), mish, softplus (beta,
 *               threshold), hardswish, hardsigmoid, ReLU6; out of place or in
 *               place; V = 1/2/4 per thread; one step per thread or
 *               grid-stride
 *   bias_act    the fused epilogue y = [scale *] act(x + bias) [+ res] over
 *               rows x cols, bias per column (a linear layer) or per row (a
 *               channel); flattened index (V, grid-stride) or a 2D grid with
 *               one row per blockIdx.y; in place or not
 *   glu         gated linear units out = value * act(gate) (GLU sigmoid,
 *               SwiGLU silu, GeGLU gelu, ReGLU relu): fused rows x 2H input
 *               (value half first or gate half first; flattened or 2D grid)
 *               or separate gate/up arrays (V, grid-stride)
 *
 * References: fam_elem_act, fam_elem_bias_act, fam_elem_glu
 * (src/task/refs_elemfam_act.c) with the activation formulas of
 * ef_act(). */
#include "family_elem.h"

#include <stdio.h>
#include <string.h>

/* The CUDA forms avoid cancellation where the textbook form has it, so small
 * results keep their relative accuracy (a task of one element is checked by
 * relative error): 1 + erf(z) = erfc(-z), and 0.5*(1 + tanh(u)) =
 * 1/(1 + exp(-2u)). */
typedef struct {
    const char *id;
    int nsc;                    /* scalar parameters (0..2) */
    const char *scn[2][3];      /* name choices of each scalar */
    double scv[2][4];           /* value choices of each scalar */
    const char *cu;             /* CUDA: {v} the input, {a} {b} the scalars, {f} "f" (float) or "" (double) */
    const char *math;           /* formula: {v} {a} {b} */
    const char *en[5], *zh[3];  /* names */
    const char *wen[3], *wzh[2];/* plain words for "the value" */
} act_def;

enum { A_LEAKY, A_ELU, A_SELU, A_CELU, A_GELU_ERF, A_GELU_TANH, A_QGELU, A_SILU, A_SWISH, A_MISH, A_SOFTPLUS, A_HSWISH, A_HSIG, A_RELU6,
       A_RELU, A_SIGMOID, A_TANH, A_HARDTANH, A__N };

static const act_def ACT[A__N] = {
    [A_LEAKY] = {"leaky_relu", 1, {{"alpha", "negative_slope", "slope"}}, {{0.01, 0.1, 0.2, 0.02}}, "({v} > 0.0{f} ? {v} : {a} * {v})",
                 "{v} > 0 ? {v} : {a}*{v}",
                 {"leaky ReLU", "LeakyReLU activation", "leaky rectified linear unit", "leaky relu with a configurable negative slope", "leaky ReLU (slope {a} below zero)"},
                 {"Leaky ReLU 激活", "带泄漏的 ReLU", "LeakyReLU"},
                 {"keeps positive values unchanged and multiplies negative values by {a}", "passes values above zero through and scales the others by the slope {a}",
                  "returns the value if it is positive, otherwise {a} times the value"},
                 {"正数保持不变，负数乘以 {a}", "大于 0 的值原样输出，否则乘以斜率 {a}"}},
    [A_ELU] = {"elu", 1, {{"alpha", "alpha", "a"}}, {{1.0, 0.5, 2.0, 1.5}}, "({v} > 0.0{f} ? {v} : {a} * expm1{f}({v}))",
               "{v} > 0 ? {v} : {a}*(exp({v}) - 1)",
               {"ELU", "exponential linear unit", "ELU activation", "elu with parameter alpha", "exponential linear activation"},
               {"ELU 激活", "指数线性单元", "ELU 函数"},
               {"keeps positive values and maps the others to {a} times (e to the value, minus one)", "returns the value when it is above zero, otherwise {a}*(exp(value) - 1)",
                "lets positive inputs through and bends negative inputs smoothly towards -{a} as {a}*(e^x - 1)"},
               {"正数不变，非正数变为 {a}*(exp(x) - 1)", "大于 0 时输出原值，否则输出 {a} 乘以 (e 的 x 次方减 1)"}},
    [A_SELU] = {"selu", 0, {{0}}, {{0}}, "1.0507009873554805{f} * ({v} > 0.0{f} ? {v} : 1.6732632423543772{f} * expm1{f}({v}))",
                "1.0507009873554805 * ({v} > 0 ? {v} : 1.6732632423543772*(exp({v}) - 1))",
                {"SELU", "scaled exponential linear unit", "SELU activation", "self-normalizing SELU", "selu nonlinearity"},
                {"SELU 激活", "缩放指数线性单元", "自归一化 SELU"},
                {"multiplies positive values by 1.0507009873554805 and maps the others to 1.0507009873554805 * 1.6732632423543772 * (exp(value) - 1)",
                 "applies the scaled ELU with the standard constants scale = 1.0507009873554805 and alpha = 1.6732632423543772: scale*x above zero, scale*alpha*(e^x - 1) otherwise",
                 "computes SELU, i.e. 1.0507009873554805 times (x if x > 0, else 1.6732632423543772*(exp(x) - 1))"},
                {"正数乘以 1.0507009873554805，其余为 1.0507009873554805 * 1.6732632423543772 * (exp(x) - 1)", "标准常数 scale = 1.0507009873554805、alpha = 1.6732632423543772 的缩放 ELU"}},
    [A_CELU] = {"celu", 1, {{"alpha", "alpha", "a"}}, {{1.0, 0.5, 2.0, 1.25}}, "(fmax{f}({v}, 0.0{f}) + fmin{f}(0.0{f}, {a} * expm1{f}({v} / {a})))",
                "max(0, {v}) + min(0, {a}*(exp({v}/{a}) - 1))",
                {"CELU", "continuously differentiable ELU", "CELU activation", "celu with alpha", "continuous exponential linear unit"},
                {"CELU 激活", "连续可微 ELU", "CELU 函数"},
                {"adds max(0, value) and min(0, {a}*(exp(value/{a}) - 1))", "keeps positive values and maps negative ones to {a}*(e^(value/{a}) - 1)",
                 "computes max(0,x) + min(0, {a}*(exp(x/{a}) - 1))"},
                {"max(0, x) 加上 min(0, {a}*(exp(x/{a}) - 1))", "正数不变，负数变为 {a}*(exp(x/{a}) - 1)"}},
    [A_GELU_ERF] = {"gelu_erf", 0, {{0}}, {{0}}, "0.5{f} * {v} * erfc{f}(-{v} * 0.7071067811865476{f})", "0.5*{v}*(1 + erf({v}/sqrt(2)))",
                    {"GELU (exact erf form)", "Gaussian error linear unit", "exact GELU", "erf-based GELU activation", "GELU"},
                    {"GELU 激活（erf 精确形式）", "高斯误差线性单元", "精确 GELU"},
                    {"multiplies the value by the standard normal CDF of the value, 0.5*(1 + erf(x/sqrt(2)))", "computes x times Phi(x) using the error function: 0.5*x*(1 + erf(x/sqrt 2))",
                     "weights each value by the probability that a standard Gaussian is below it (exact erf form)"},
                    {"x 乘以标准正态分布函数 0.5*(1 + erf(x/sqrt(2)))", "用误差函数计算 0.5*x*(1 + erf(x/sqrt(2)))"}},
    [A_GELU_TANH] = {"gelu_tanh", 0, {{0}}, {{0}},
                     "({v} / (1.0{f} + exp{f}(-1.5957691216057308{f} * ({v} + 0.044715{f} * {v} * {v} * {v}))))",
                     "0.5*{v}*(1 + tanh(sqrt(2/pi)*({v} + 0.044715*{v}^3)))",
                     {"GELU (tanh approximation)", "tanh-approximate GELU", "GELU with the tanh formula", "approximate gelu", "gelu_new / GPT-style GELU"},
                     {"GELU 激活（tanh 近似）", "tanh 近似 GELU", "近似 GELU"},
                     {"computes 0.5*x*(1 + tanh(sqrt(2/pi)*(x + 0.044715*x^3)))", "uses the tanh approximation of GELU with the constants sqrt(2/pi) and 0.044715",
                      "scales the value by half of one plus tanh of sqrt(2/pi) times (x plus 0.044715 x cubed)"},
                     {"计算 0.5*x*(1 + tanh(sqrt(2/pi)*(x + 0.044715*x^3)))", "用 tanh 近似的 GELU，常数为 sqrt(2/pi) 和 0.044715"}},
    [A_QGELU] = {"quick_gelu", 0, {{0}}, {{0}}, "({v} / (1.0{f} + exp{f}(-1.702{f} * {v})))", "{v} / (1 + exp(-1.702*{v}))",
                 {"quick GELU", "QuickGELU (sigmoid approximation)", "sigmoid-approximate GELU", "fast GELU x*sigmoid(1.702x)", "quick_gelu"},
                 {"快速 GELU", "QuickGELU", "sigmoid 近似 GELU"},
                 {"multiplies the value by sigmoid(1.702 * value)", "computes x / (1 + exp(-1.702 x))", "approximates GELU as x times the logistic function of 1.702x"},
                 {"x 乘以 sigmoid(1.702*x)", "计算 x / (1 + exp(-1.702*x))"}},
    [A_SILU] = {"silu", 0, {{0}}, {{0}}, "({v} / (1.0{f} + exp{f}(-{v})))", "{v} / (1 + exp(-{v}))",
                {"SiLU", "sigmoid linear unit", "swish (beta = 1)", "SiLU activation", "x * sigmoid(x)"},
                {"SiLU 激活", "Swish 激活", "sigmoid 线性单元"},
                {"multiplies each value by its own sigmoid", "computes x / (1 + exp(-x))", "gates the value with the logistic function of itself"},
                {"每个值乘以自身的 sigmoid", "计算 x / (1 + exp(-x))"}},
    [A_SWISH] = {"swish", 1, {{"beta", "beta", "b"}}, {{1.702, 0.5, 2.0, 1.5}}, "({v} / (1.0{f} + exp{f}(-{a} * {v})))", "{v} / (1 + exp(-{a}*{v}))",
                 {"swish with beta", "parametric swish", "Swish-beta activation", "swish x*sigmoid(beta*x)", "swish"},
                 {"带 beta 的 Swish", "参数化 Swish", "Swish 激活"},
                 {"multiplies the value by sigmoid({a} * value)", "computes x / (1 + exp(-{a} x))", "gates each value with the logistic function of {a} times itself"},
                 {"x 乘以 sigmoid({a}*x)", "计算 x / (1 + exp(-{a}*x))"}},
    [A_MISH] = {"mish", 0, {{0}}, {{0}}, "({v} * tanh{f}(log1p{f}(exp{f}({v}))))", "{v} * tanh(log(1 + exp({v})))",
                {"Mish", "mish activation", "self-regularized mish", "x * tanh(softplus(x))", "mish nonlinearity"},
                {"Mish 激活", "Mish 函数", "x*tanh(softplus(x))"},
                {"multiplies the value by tanh of softplus(value) = log(1 + e^x)", "computes x * tanh(ln(1 + exp(x)))", "applies mish: x times the hyperbolic tangent of log(1 + exp(x))"},
                {"x 乘以 tanh(log(1 + exp(x)))", "计算 x * tanh(softplus(x))"}},
    [A_SOFTPLUS] = {"softplus", 2, {{"beta", "beta", "b"}, {"threshold", "thresh", "th"}}, {{1.0, 2.0, 0.5, 1.0}, {20.0, 10.0, 15.0, 20.0}},
                    "({a} * {v} > {b} ? {v} : log1p{f}(exp{f}({a} * {v})) / {a})", "{a}*{v} > {b} ? {v} : log(1 + exp({a}*{v}))/{a}",
                    {"softplus", "Softplus with beta and threshold", "smooth ReLU (softplus)", "softplus activation", "log(1 + exp(beta x))/beta"},
                    {"Softplus 激活", "平滑 ReLU", "softplus 函数"},
                    {"computes log(1 + exp({a} x)) / {a}, but returns x itself where {a} x exceeds {b}", "is a smooth ReLU: ln(1 + e^({a} x))/{a}, switching to the identity above {a} x > {b}",
                     "returns the value when {a} times it is above {b}, otherwise log1p(exp({a} * value)) / {a}"},
                    {"计算 log(1 + exp({a}*x))/{a}，当 {a}*x > {b} 时直接输出 x", "平滑 ReLU：ln(1 + e^({a} x))/{a}，超过阈值 {b} 时取恒等"}},
    [A_HSWISH] = {"hardswish", 0, {{0}}, {{0}}, "({v} * fmin{f}(fmax{f}({v} + 3.0{f}, 0.0{f}), 6.0{f}) / 6.0{f})", "{v} * min(max({v} + 3, 0), 6) / 6",
                  {"hard swish", "hardswish", "h-swish (MobileNetV3)", "hard-swish activation", "piecewise-linear swish"},
                  {"Hard Swish 激活", "硬 Swish", "h-swish"},
                  {"multiplies the value by (value + 3) clamped to [0, 6], divided by 6", "computes x * relu6(x + 3) / 6", "is zero below -3, the identity above 3 and x(x+3)/6 in between"},
                  {"x 乘以截断到 [0, 6] 的 (x + 3)，再除以 6", "计算 x * relu6(x + 3) / 6"}},
    [A_HSIG] = {"hardsigmoid", 0, {{0}}, {{0}}, "(fmin{f}(fmax{f}({v} + 3.0{f}, 0.0{f}), 6.0{f}) / 6.0{f})", "min(max({v} + 3, 0), 6) / 6",
                {"hard sigmoid", "hardsigmoid", "piecewise-linear sigmoid", "hard-sigmoid activation", "relu6(x+3)/6"},
                {"Hard Sigmoid 激活", "硬 sigmoid", "分段线性 sigmoid"},
                {"clamps value + 3 to [0, 6] and divides by 6", "computes relu6(x + 3) / 6", "is 0 below -3, 1 above 3 and (x + 3)/6 in between"},
                {"把 x + 3 截断到 [0, 6] 再除以 6", "计算 relu6(x + 3) / 6"}},
    [A_RELU6] = {"relu6", 0, {{0}}, {{0}}, "fmin{f}(fmax{f}({v}, 0.0{f}), 6.0{f})", "min(max({v}, 0), 6)",
                 {"ReLU6", "relu clipped at 6", "ReLU6 activation", "bounded ReLU (cap 6)", "relu6"},
                 {"ReLU6 激活", "上限为 6 的 ReLU", "截断 ReLU"},
                 {"clamps the value to the range [0, 6]", "zeroes negative values and caps the rest at 6", "computes min(max(x, 0), 6)"},
                 {"把值截断到 [0, 6]", "负数置 0，大于 6 的取 6"}},
    [A_RELU] = {"relu", 0, {{0}}, {{0}}, "fmax{f}({v}, 0.0{f})", "max({v}, 0)",
                {"ReLU", "rectified linear unit", "ReLU activation", "relu", "max(x, 0)"},
                {"ReLU 激活", "线性整流", "ReLU"},
                {"zeroes negative values", "computes max(x, 0)", "keeps positive values and replaces the rest by zero"},
                {"负数置 0", "计算 max(x, 0)"}},
    [A_SIGMOID] = {"sigmoid", 0, {{0}}, {{0}}, "(1.0{f} / (1.0{f} + exp{f}(-{v})))", "1 / (1 + exp(-{v}))",
                   {"sigmoid", "logistic function", "sigmoid activation", "logistic sigmoid", "1/(1+exp(-x))"},
                   {"sigmoid 激活", "逻辑函数", "S 形函数"},
                   {"maps the value through the logistic function 1/(1 + e^-x)", "computes 1 / (1 + exp(-x))", "squashes the value into (0, 1) with the sigmoid"},
                   {"计算 1 / (1 + exp(-x))", "用逻辑函数把值压到 (0, 1)"}},
    [A_TANH] = {"tanh", 0, {{0}}, {{0}}, "tanh{f}({v})", "tanh({v})",
                {"tanh", "hyperbolic tangent", "tanh activation", "tanh nonlinearity", "tanh(x)"},
                {"tanh 激活", "双曲正切", "tanh 函数"},
                {"takes the hyperbolic tangent of the value", "computes tanh(x)", "squashes the value into (-1, 1) with tanh"},
                {"取双曲正切", "计算 tanh(x)"}},
    [A_HARDTANH] = {"hardtanh", 2, {{"lo", "min_val", "low"}, {"hi", "max_val", "high"}}, {{-1.0, -2.0, -0.5, -1.0}, {1.0, 2.0, 0.5, 3.0}},
                    "fmin{f}(fmax{f}({v}, {a}), {b})", "min(max({v}, {a}), {b})",
                    {"hardtanh", "clamp to [lo, hi]", "hard tanh activation", "clipping activation", "bounded linear activation"},
                    {"Hardtanh 激活", "截断到 [lo, hi]", "硬 tanh"},
                    {"clamps the value to [{a}, {b}]", "computes min(max(x, {a}), {b})", "limits the value to the range {a}..{b}"},
                    {"把值截断到 [{a}, {b}]", "计算 min(max(x, {a}), {b})"}},
};

/* Drawn scalars of an activation: names and values. */
typedef struct {
    const char *name[2];
    double val[2];
    char lit[2][32];
} act_sc;

static void act_draw(fam_rng *r, int a, act_sc *sc) {
    memset(sc, 0, sizeof *sc);
    int nm = synth_fam_pick(r, 3);
    for (int k = 0; k < ACT[a].nsc; k++) {
        sc->name[k] = ACT[a].scn[k][nm];
        sc->val[k] = ACT[a].scv[k][synth_fam_pick(r, 4)];
        synth_fe_lit(sc->lit[k], sizeof sc->lit[k], sc->val[k]);
    }
}

/* The activation of value expression v as CUDA (f64: double math). */
static const char *act_cu(fe_strs *T, int a, const act_sc *sc, const char *v, bool f64) {
    const char *kv[] = {"v", v, "a", sc->name[0] ? sc->name[0] : "", "b", sc->name[1] ? sc->name[1] : "", "f", f64 ? "" : "f", NULL};
    return synth_fe_t(T, kv, ACT[a].cu);
}
static const char *act_txt(fe_strs *T, int a, const act_sc *sc, const char *v, const char *tmpl) {
    const char *kv[] = {"v", v, "a", sc->name[0] ? sc->name[0] : "", "b", sc->name[1] ? sc->name[1] : "", NULL};
    return synth_fe_t(T, kv, tmpl);
}

static void put_act_scalars(int a, const act_sc *sc, const char *sdt, pg_buf *sig, json_t *ps) {
    for (int k = 0; k < ACT[a].nsc; k++) {
        synth_fe_sig_scal(sig, sc->name[k], sdt);
        synth_fe_scal_f(ps, sc->name[k], sdt, sc->val[k]);
    }
}
static json_t *act_scalar_roles(int a, const act_sc *sc) {
    return json_pack("{s:s?, s:s?}", "a", ACT[a].nsc > 0 ? sc->name[0] : NULL, "b", ACT[a].nsc > 1 ? sc->name[1] : NULL);
}
static void act_notes(int a, const act_sc *sc, pg_buf *en, pg_buf *zh) {
    for (int k = 0; k < ACT[a].nsc; k++) {
        pg_buf_printf(en, "%s%s = %s", en->len ? ", " : "", sc->name[k], sc->lit[k]);
        pg_buf_printf(zh, "%s%s = %s", zh->len ? "，" : "", sc->name[k], sc->lit[k]);
    }
}

static const char *pick_dt(fam_rng *r, bool allow_f64) {
    int k = synth_fam_pick(r, allow_f64 ? 8 : 7);
    return k < 4 ? "f32" : k == 4 ? "f16" : k < 7 ? (k == 5 ? "bf16" : "f16") : "f64";
}

/* ---- activation -------------------------------------------------------------------- */
pg_status synth_fam_elem_act(uint64_t seed, synth_family_sample *s) {
    fam_rng r = {seed ^ 0x6163740000000002ull};
    int a = synth_fam_pick(&r, A_RELU6 + 1);
    const char *dt = pick_dt(&r, true);
    bool f64 = !strcmp(dt, "f64"), inplace = synth_fam_pick(&r, 4) == 0, gs = synth_fam_pick(&r, 2);
    int V = 1 << synth_fam_pick(&r, f64 ? 2 : 3), block = 128 << synth_fam_pick(&r, 3), cap = synth_fe_cap(&r);
    /* held out: the suite's f32 out-of-place leaky ReLU, ReLU6, SiLU and mish */
    if ((a == A_LEAKY || a == A_RELU6 || a == A_SILU || a == A_MISH) && !strcmp(dt, "f32")) inplace = true;
    /* held out (bench/suite-prose softplus_beta, hardswish_f16): f32 softplus and f16 hard-swish out of place */
    if ((a == A_SOFTPLUS && !strcmp(dt, "f32")) || (a == A_HSWISH && !strcmp(dt, "f16"))) inplace = true;
    act_sc sc;
    act_draw(&r, a, &sc);
    const char *in[1], *out[1];
    synth_desc_param_names(seed, 1, in, 1, out);
    const char *X = in[0], *Y = inplace ? in[0] : out[0];
    for (int k2 = 0; k2 < ACT[a].nsc; k2++)   /* a scalar never shares a name with an array */
        if (!strcmp(sc.name[k2], X) || !strcmp(sc.name[k2], Y)) sc.name[k2] = ACT[a].scn[k2][0];

    snprintf(s->family, sizeof s->family, "activation");
    snprintf(s->source, sizeof s->source, "nvcc");
    static const char *STY[] = {"%s_%s%s_v%d%s", "act_%s_%s%s_x%d%s", "%s_fwd_%s%s_vec%d%s"};
    snprintf(s->name, sizeof s->name, STY[synth_fam_pick(&r, 3)], ACT[a].id, dt, inplace ? "_inplace" : "", V, gs ? "_gs" : "");
    synth_fam_fit_name(s->name);   /* within the decoder's PG_NAME_MAX */
    snprintf(s->identity, sizeof s->identity, "activation:%s:%s:%s:v%d:%s%d:b%d", ACT[a].id, dt, inplace ? "inplace" : "out", V, gs ? "gs" : "one",
             gs ? cap : 0, block);

    fe_strs T = {0};
    pg_buf sig = {0}, body = {0};
    json_t *root = synth_fe_root(s->name, "activation"), *ps = json_array();
    const char *sdt = f64 ? "f64" : "f32";
    synth_fe_sig_ptr(&sig, X, dt, inplace ? FE_INOUT : FE_IN);
    synth_fe_ptr(ps, X, dt, inplace ? FE_INOUT : FE_IN, "n");
    if (!inplace) {
        synth_fe_sig_ptr(&sig, Y, dt, FE_OUT);
        synth_fe_ptr(ps, Y, dt, FE_OUT, "n");
    }
    put_act_scalars(a, &sc, sdt, &sig, ps);
    synth_fe_sig_scal(&sig, "n", "u32");
    synth_fe_scal(ps, "n", "u32", "n");
    char xe[40];
    snprintf(xe, sizeof xe, "%s_e", X);
    pg_buf_printf(&body, "%s_e = %s;\n", Y, act_cu(&T, a, &sc, xe, f64));
    fe_kernel k = {.name = s->name, .comment = ACT[a].id, .sig = sig.data, .n = "n", .body = body.data, .V = V, .grid_stride = gs};
    k.arr[k.narr++] = (fe_arr){X, dt, inplace ? FE_INOUT : FE_IN, false};
    if (!inplace) k.arr[k.narr++] = (fe_arr){Y, dt, FE_OUT, false};
    synth_fe_emit(&k, seed, s, &s->cu);

    json_object_set_new(root, "family_params", json_pack("{s:s, s:s, s:s, s:o}", "act", ACT[a].id, "x", X, "y", Y, "scalars", act_scalar_roles(a, &sc)));
    json_object_set_new(root, "params", ps);
    json_object_set_new(root, "sizes", synth_fe_sizes1("n", (const long[]){16777216, 1000003, 4099, 777, 33, 1, 0}));
    synth_fe_launch1(root, block, V, gs, cap, synth_fe_grid_mult(seed), "n");
    json_object_set_new(root, "distributions", json_pack("[s, s, s]", "uniform(-1,1)", "normal(0,3)", "uniform(-30,30)"));

    char xi[48];
    snprintf(xi, sizeof xi, "%s[i]", X);
    pg_buf fo = {0};
    pg_buf_printf(&fo, "%s[i] = %s", Y, act_txt(&T, a, &sc, xi, ACT[a].math));
    const char *ne[6], *nz[4], *ee[4], *zz[3];
    for (int j = 0; j < 5; j++) ne[j] = act_txt(&T, a, &sc, "x", ACT[a].en[j]);
    ne[5] = NULL;
    for (int j = 0; j < 3; j++) nz[j] = ACT[a].zh[j];
    nz[3] = NULL;
    const char *dst = inplace ? "overwriting it in place" : "writing the result to ";
    for (int j = 0; j < 3; j++) {
        pg_buf e = {0};
        if (j == 0) pg_buf_printf(&e, "for every element of %s (n of them), the activation %s; %s%s", X, act_txt(&T, a, &sc, "x", ACT[a].wen[j]), dst, inplace ? "" : Y);
        else if (j == 1) pg_buf_printf(&e, "applies %s to every value of the %s array %s: the result %s. %s", ACT[a].en[0], synth_fe_prec_en(dt), X,
                                       act_txt(&T, a, &sc, "x", ACT[a].wen[j]), inplace ? "The array is updated in place" : "Results go to a separate output array");
        else pg_buf_printf(&e, "takes each of the n values of %s and %s, %s%s", X, act_txt(&T, a, &sc, "x", ACT[a].wen[j]), dst, inplace ? "" : Y);
        ee[j] = synth_fe_t(&T, NULL, e.data);
        pg_buf_free(&e);
    }
    ee[3] = NULL;
    for (int j = 0; j < 2; j++) {
        pg_buf z = {0};
        pg_buf_printf(&z, "对 %s 的每个元素（共 n 个）做激活：%s，%s", X, act_txt(&T, a, &sc, "x", ACT[a].wzh[j]), inplace ? "原地写回" : synth_fe_t(&T, (const char *const[]){"y", Y, NULL}, "结果写入 {y}"));
        zz[j] = synth_fe_t(&T, NULL, z.data);
        pg_buf_free(&z);
    }
    zz[2] = NULL;
    const char *hw[] = {synth_fe_how_en(&T, V, gs), NULL}, *hz[] = {synth_fe_how_zh(&T, V, gs), NULL};
    pg_buf notes = {0}, notez = {0}, shp = {0}, shz = {0};
    act_notes(a, &sc, &notes, &notez);
    if (strcmp(dt, "f32") && !f64) {
        pg_buf_printf(&notes, "%s%s but compute in float", notes.len ? "; store " : "Store ", dt);
        pg_buf_printf(&notez, "%s以 %s 存储、float 计算", notez.len ? "；" : "", dt);
    }
    if (inplace) pg_buf_printf(&shp, "%s holds n %s values and is updated in place", X, dt);
    else pg_buf_printf(&shp, "%s and %s hold n %s values each", X, Y, dt);
    if (inplace) pg_buf_printf(&shz, "%s 含 n 个 %s 元素，原地更新", X, dt);
    else pg_buf_printf(&shz, "%s 和 %s 各含 n 个 %s 元素", X, Y, dt);
    desc_facts f = {.name_en = ne, .name_zh = nz, .formula = fo.data, .explain_en = ee, .explain_zh = zz, .how_en = hw, .how_zh = hz,
                    .shape_en = shp.data, .shape_zh = shz.data, .notes_en = notes.len ? notes.data : NULL, .notes_zh = notez.len ? notez.data : NULL};
    char bytes[32];
    snprintf(bytes, sizeof bytes, "%d*n", 2 * synth_fe_size(dt));
    synth_fe_finish(root, &f, seed, dt, synth_fe_tol(dt), NULL, 0, synth_fam_ref(synth_fam_elem_act), bytes, "8*n", &s->task_json);
    pg_buf_free(&fo); pg_buf_free(&notes); pg_buf_free(&notez); pg_buf_free(&shp); pg_buf_free(&shz);
    pg_buf_free(&sig); pg_buf_free(&body);
    synth_fe_strs_free(&T);
    return PG_OK;
}

/* ---- bias_act ---------------------------------------------------------------------- */
static const int BA_ACTS[] = {A_RELU, A_LEAKY, A_GELU_ERF, A_GELU_TANH, A_SILU, A_TANH, A_SIGMOID, A_HSWISH, A_HARDTANH, A_ELU, A_QGELU};

pg_status synth_fam_elem_bias_act(uint64_t seed, synth_family_sample *s) {
    fam_rng r = {seed ^ 0x6269617361637403ull};
    int a = BA_ACTS[synth_fam_pick(&r, (int)(sizeof BA_ACTS / sizeof BA_ACTS[0]))];
    const char *dt = pick_dt(&r, false);
    const char *bdt = synth_fe_is_half(dt) && synth_fam_pick(&r, 2) ? "f32" : dt;
    bool per_row = synth_fam_pick(&r, 3) == 0, res = synth_fam_pick(&r, 3) != 0, scale = synth_fam_pick(&r, 3) == 0, inplace = synth_fam_pick(&r, 5) == 0;
    bool two_d = synth_fam_pick(&r, 3) == 0, gs = synth_fam_pick(&r, 2);
    int V = two_d ? 1 : 1 << synth_fam_pick(&r, 3), block = 128 << synth_fam_pick(&r, 3), cap = synth_fe_cap(&r), bpr = 1 << synth_fam_pick(&r, 3);
    /* held out: the suite's f32 bias + tanh-GELU + residual over columns */
    if (!strcmp(dt, "f32") && !per_row && a == A_GELU_TANH && res && !scale && !inplace) scale = true;
    act_sc sc;
    act_draw(&r, a, &sc);
    static const char *const XN[][4] = {{"x", "bias", "res", "y"}, {"input", "b", "residual", "output"}, {"h", "bias", "skip", "out"},
                                        {"acc", "bias", "resid", "dst"}, {"X", "b", "R", "Y"}};
    static const char *SCN[] = {"scale", "gain", "out_scale", "alpha"};
    const char *const *nm = XN[synth_fam_pick(&r, 5)];
    const char *X = nm[0], *B = nm[1], *R = nm[2], *Y = inplace ? nm[0] : nm[3], *SC = SCN[synth_fam_pick(&r, 3)];
    if (ACT[a].nsc && !strcmp(sc.name[0], "alpha") && !strcmp(SC, "alpha")) SC = "scale";
    if (!strcmp(SC, "alpha") && ACT[a].nsc) SC = "scale";
    static const double SCV[] = {0.5, 2.0, 0.125, 1.5, 0.7071067811865476};
    double scv = SCV[synth_fam_pick(&r, 5)];

    snprintf(s->family, sizeof s->family, "bias_act");
    snprintf(s->source, sizeof s->source, "nvcc");
    snprintf(s->name, sizeof s->name, "bias_%s%s%s_%s%s%s_%s", ACT[a].id, scale ? "_scale" : "", res ? "_residual" : "", per_row ? "rowbias" : "colbias",
             strcmp(bdt, dt) ? "_bf32" : "", inplace ? "_inplace" : "", dt);
    size_t L = strlen(s->name);
    if (two_d) snprintf(s->name + L, sizeof s->name - L, "_2d%s", gs ? "_bpr" : "");
    else snprintf(s->name + L, sizeof s->name - L, "_v%d%s", V, gs ? "_gs" : "");
    synth_fam_fit_name(s->name);   /* within the decoder's PG_NAME_MAX */
    snprintf(s->identity, sizeof s->identity, "bias_act:%s:%s:%s:%s:%s:%s:%s:%s:%s:v%d:%s%d:b%d", ACT[a].id, dt, bdt, per_row ? "row" : "col", res ? "res" : "-",
             scale ? "scale" : "-", inplace ? "inplace" : "out", two_d ? "2d" : "flat", gs ? "gs" : "one", V, gs ? "cap" : "", gs ? (two_d ? bpr : cap) : 0, block);

    fe_strs T = {0};
    pg_buf sig = {0}, body = {0}, ldb = {0};
    json_t *root = synth_fe_root(s->name, "bias_act"), *ps = json_array();
    synth_fe_sig_ptr(&sig, X, dt, inplace ? FE_INOUT : FE_IN);
    synth_fe_ptr(ps, X, dt, inplace ? FE_INOUT : FE_IN, "rows*cols");
    synth_fe_sig_ptr(&sig, B, bdt, FE_IN);
    synth_fe_ptr(ps, B, bdt, FE_IN, per_row ? "rows" : "cols");
    if (res) { synth_fe_sig_ptr(&sig, R, dt, FE_IN); synth_fe_ptr(ps, R, dt, FE_IN, "rows*cols"); }
    if (!inplace) { synth_fe_sig_ptr(&sig, Y, dt, FE_OUT); synth_fe_ptr(ps, Y, dt, FE_OUT, "rows*cols"); }
    put_act_scalars(a, &sc, "f32", &sig, ps);
    if (scale) { synth_fe_sig_scal(&sig, SC, "f32"); synth_fe_scal_f(ps, SC, "f32", scv); }
    synth_fe_sig_scal(&sig, "rows", "u32");
    synth_fe_scal(ps, "rows", "u32", "rows");
    synth_fe_sig_scal(&sig, "cols", "u32");
    synth_fe_scal(ps, "cols", "u32", "cols");

    /* the per-element math on v = x + bias */
    char bidx[64];
    snprintf(bidx, sizeof bidx, two_d ? "%s[%s]" : "%s[i %s cols]", B, two_d ? (per_row ? "r" : "c") : (per_row ? "/" : "%"));
    synth_fe_ld(&ldb, bdt, bidx);
    if (two_d) {
        pg_buf *c = &s->cu;
        pg_buf_printf(c, "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n// %s: y = %sact(x + bias)%s over rows x cols, one row per blockIdx.y\n", s->name,
                      scale ? "scale * " : "", res ? " + res" : "");
        pg_buf_printf(c, "extern \"C\" __global__ void %s(%s)\n{\n    unsigned int r = blockIdx.y;\n", s->name, sig.data);
        if (per_row) pg_buf_printf(c, "    const float bv = %s;   // this row's bias\n", ldb.data);
        if (gs) pg_buf_puts(c, "    for (unsigned int c = blockIdx.x * blockDim.x + threadIdx.x; c < cols; c += gridDim.x * blockDim.x) {\n");
        else pg_buf_puts(c, "    unsigned int c = blockIdx.x * blockDim.x + threadIdx.x;\n    if (c < cols) {\n");
        pg_buf_puts(c, "        size_t i = (size_t)r * cols + c;\n        float v = ");
        char xi[48];
        snprintf(xi, sizeof xi, "%s[i]", X);
        synth_fe_ld(c, dt, xi);
        pg_buf_printf(c, " + %s;\n", per_row ? "bv" : ldb.data);
        pg_buf_printf(c, "        v = %s;\n", act_cu(&T, a, &sc, "v", false));
        if (scale) pg_buf_printf(c, "        v = v * %s;\n", SC);
        if (res) {
            char ri[48];
            snprintf(ri, sizeof ri, "%s[i]", R);
            pg_buf_puts(c, "        v = v + ");
            synth_fe_ld(c, dt, ri);
            pg_buf_puts(c, ";\n");
        }
        pg_buf_printf(c, "        %s[i] = ", Y);
        synth_fe_st(c, dt, "v");
        pg_buf_puts(c, ";\n    }\n}\n");
    } else {
        pg_buf_printf(&body, "float v = %s_e + %s;\n", X, ldb.data);
        pg_buf_printf(&body, "v = %s;\n", act_cu(&T, a, &sc, "v", false));
        if (scale) pg_buf_printf(&body, "v = v * %s;\n", SC);
        if (res) pg_buf_printf(&body, "v = v + %s_e;\n", R);
        pg_buf_printf(&body, "%s_e = v;\n", Y);
        char cm[120];
        snprintf(cm, sizeof cm, "y = %sact(x + bias)%s over the flattened rows x cols", scale ? "scale * " : "", res ? " + res" : "");
        fe_kernel k = {.name = s->name, .comment = cm, .sig = sig.data, .n = "rows * cols", .body = body.data, .V = V, .grid_stride = gs};
        k.arr[k.narr++] = (fe_arr){X, dt, inplace ? FE_INOUT : FE_IN, false};
        if (res) k.arr[k.narr++] = (fe_arr){R, dt, FE_IN, false};
        if (!inplace) k.arr[k.narr++] = (fe_arr){Y, dt, FE_OUT, false};
        synth_fe_emit(&k, seed, s, &s->cu);
    }

    json_object_set_new(root, "family_params",
                        json_pack("{s:s, s:s, s:s, s:s?, s:s, s:s?, s:s, s:o}", "act", ACT[a].id, "bias_per", per_row ? "row" : "col", "x", X, "res", res ? R : NULL,
                                  "bias", B, "scale", scale ? SC : NULL, "y", Y, "scalars", act_scalar_roles(a, &sc)));
    json_object_set_new(root, "params", ps);
    json_object_set_new(root, "sizes", json_pack("[{s:i, s:i, s:b}, {s:i, s:i}, {s:i, s:i}, {s:i, s:i}, {s:i, s:i}]", "rows", 4096, "cols", 4096, "time", 1,
                                                 "rows", 1000, "cols", 1000, "rows", 37, "cols", 4099, "rows", 3, "cols", 1, "rows", 130, "cols", 7));
    char b[16], g0[64], g1[16];
    snprintf(b, sizeof b, "%d", block);
    if (two_d) {
        if (gs) snprintf(g0, sizeof g0, "min(cdiv(cols,%d),%d)", block, bpr);
        else snprintf(g0, sizeof g0, "cdiv(cols,%d)", block);
        snprintf(g1, sizeof g1, "rows");
        json_object_set_new(root, "launch", json_pack("{s:[s], s:[s, s], s:s}", "block", b, "grid", g0, g1, "smem", "0"));
    } else synth_fe_launch1(root, block, V, gs, cap, synth_fe_grid_mult(seed), "rows*cols");

    /* descriptions */
    const char *kv[] = {"x", X, "b", B, "r", R, "y", Y, "s", SC, NULL};
    pg_buf inner = {0}, fo = {0};
    pg_buf_printf(&inner, "%s[r][c] + %s[%s]", X, B, per_row ? "r" : "c");
    /* simple activations take x + bias inline, the others name it v */
    bool inl = a == A_RELU || a == A_TANH || a == A_SIGMOID || a == A_HARDTANH;
    const char *am = act_txt(&T, a, &sc, inl ? inner.data : "v", ACT[a].math);
    bool paren = strchr(am, '?') && (scale || res);
    pg_buf_printf(&fo, "%s[r][c] = %s%s%s%s%s%s", Y, scale ? SC : "", scale ? " * " : "", paren ? "(" : "", am, paren ? ")" : "", res ? synth_fe_t(&T, kv, " + {r}[r][c]") : "");
    if (!inl) pg_buf_printf(&fo, ", where v = %s", inner.data);
    const char *ne[6], *nz[4], *ee[4], *zz[3];
    static const char *NE[] = {"fused bias + %s%s epilogue", "bias-add and %s%s", "%s epilogue with bias%s", "linear-layer epilogue: bias, %s%s",
                               "bias + %s%s in one fused pass"};
    const char *tail = res && scale ? " + scaled residual" : res ? " + residual" : scale ? " + scaling" : "";
    for (int j = 0; j < 5; j++) {
        pg_buf e = {0};
        pg_buf_printf(&e, NE[j], act_txt(&T, a, &sc, "x", ACT[a].en[j]), tail);
        ne[j] = synth_fe_t(&T, NULL, e.data);
        pg_buf_free(&e);
    }
    ne[5] = NULL;
    static const char *NZ[] = {"融合的偏置加 %s%s", "偏置 + %s%s 融合后处理", "线性层后处理：偏置、%s%s"};
    const char *tailz = res && scale ? "、缩放和残差" : res ? "与残差相加" : scale ? "与缩放" : "";
    for (int j = 0; j < 3; j++) {
        pg_buf e = {0};
        pg_buf_printf(&e, NZ[j], ACT[a].zh[0], tailz);
        nz[j] = synth_fe_t(&T, NULL, e.data);
        pg_buf_free(&e);
    }
    nz[3] = NULL;
    const char *bw = per_row ? "the bias entry of its row ({b}[r], one per row)" : "the bias entry of its column ({b}[c], broadcast down the rows)";
    const char *bwz = per_row ? "所在行的偏置 {b}[r]（每行一个）" : "所在列的偏置 {b}[c]（按列广播）";
    for (int j = 0; j < 3; j++) {
        pg_buf e = {0};
        pg_buf_printf(&e, j == 0 ? "adds to each element of the rows x cols matrix %s %s, applies %s (which %s)%s%s, and stores the result in %s"
                      : j == 1 ? "for every row r and column c takes v = %s[r][c] plus %s, passes it through %s, which %s%s%s, writing %s"
                               : "is the epilogue after a matmul: bias %s from %s, then %s (it %s)%s%s; the output goes to %s",
                      X, synth_fe_t(&T, kv, bw), ACT[a].en[0], act_txt(&T, a, &sc, "x", ACT[a].wen[j]), scale ? synth_fe_t(&T, kv, ", multiplies by {s}") : "",
                      res ? synth_fe_t(&T, kv, ", adds the residual {r}[r][c]") : "", inplace ? synth_fe_t(&T, kv, "{x} itself (in place)") : Y);
        ee[j] = synth_fe_t(&T, NULL, e.data);
        pg_buf_free(&e);
    }
    ee[3] = NULL;
    for (int j = 0; j < 2; j++) {
        pg_buf z = {0};
        pg_buf_printf(&z, "对 rows×cols 矩阵 %s 的每个元素加上%s，做 %s（%s）%s%s，结果写入 %s", X, synth_fe_t(&T, kv, bwz), ACT[a].zh[0], act_txt(&T, a, &sc, "x", ACT[a].wzh[j]),
                      scale ? synth_fe_t(&T, kv, "，再乘以 {s}") : "", res ? synth_fe_t(&T, kv, "，再加上残差 {r}[r][c]") : "", inplace ? synth_fe_t(&T, kv, "{x}（原地）") : Y);
        zz[j] = synth_fe_t(&T, NULL, z.data);
        pg_buf_free(&z);
    }
    zz[2] = NULL;
    const char *hw[3], *hz[2];
    if (two_d) {
        hw[0] = synth_fe_t(&T, NULL, gs ? "a 2D grid: blockIdx.y picks the row and a few blocks per row stride over its columns" : "a 2D grid: blockIdx.y is the row, each thread one column");
        hz[0] = synth_fe_t(&T, NULL, gs ? "二维网格：blockIdx.y 选行，每行少量线程块按步长遍历列" : "二维网格：blockIdx.y 为行号，每个线程一列");
    } else {
        pg_buf h = {0};
        pg_buf_printf(&h, "treat the matrix as rows*cols contiguous elements (column = i %% cols, row = i / cols), %s", synth_fe_how_en(&T, V, gs));
        hw[0] = synth_fe_t(&T, NULL, h.data);
        pg_buf_free(&h);
        hz[0] = synth_fe_how_zh(&T, V, gs);
    }
    hw[1] = synth_fe_t(&T, kv, res ? "one pass over memory: read {x} and {r} once, write {y} once" : "one pass over memory: read {x} once, write {y} once");
    hw[2] = NULL;
    hz[1] = NULL;
    pg_buf notes = {0}, notez = {0}, shp = {0}, shz = {0};
    act_notes(a, &sc, &notes, &notez);
    if (scale) {
        char l[32];
        synth_fe_lit(l, sizeof l, scv);
        pg_buf_printf(&notes, "%s%s = %s", notes.len ? ", " : "", SC, l);
        pg_buf_printf(&notez, "%s%s = %s", notez.len ? "，" : "", SC, l);
    }
    if (synth_fe_is_half(dt)) {
        pg_buf_printf(&notes, "%s%s", notes.len ? "; math in float, stored as " : "Math in float, stored as ", dt);
        pg_buf_printf(&notez, "%sfloat 计算，%s 存储", notez.len ? "；" : "", dt);
    }
    pg_buf_printf(&shp, "%s%s%s%s%s are rows x cols row-major %s; %s has %s %s entries", X, res ? ", " : "", res ? R : "", inplace ? "" : " and ", inplace ? "" : Y, dt, B,
                  per_row ? "rows" : "cols", bdt);
    pg_buf_printf(&shz, "%s%s%s%s%s 为 rows×cols 行主序 %s 矩阵；%s 有 %s 个 %s 元素", X, res ? "、" : "", res ? R : "", inplace ? "" : "、", inplace ? "" : Y, dt, B,
                  per_row ? "rows" : "cols", bdt);
    desc_facts f = {.name_en = ne, .name_zh = nz, .formula = fo.data, .explain_en = ee, .explain_zh = zz, .how_en = hw, .how_zh = hz,
                    .shape_en = shp.data, .shape_zh = shz.data, .notes_en = notes.len ? notes.data : NULL, .notes_zh = notez.len ? notez.data : NULL};
    char bytes[64];
    snprintf(bytes, sizeof bytes, "%d*rows*cols", (2 + res) * synth_fe_size(dt));
    synth_fe_finish(root, &f, seed, dt, synth_fe_tol_cancel(dt), NULL, 0, synth_fam_ref(synth_fam_elem_bias_act), bytes, "10*rows*cols", &s->task_json);
    pg_buf_free(&inner); pg_buf_free(&fo); pg_buf_free(&notes); pg_buf_free(&notez); pg_buf_free(&shp); pg_buf_free(&shz);
    pg_buf_free(&sig); pg_buf_free(&body); pg_buf_free(&ldb);
    synth_fe_strs_free(&T);
    return PG_OK;
}

/* ---- glu ---------------------------------------------------------------------------- */
static const int GLU_ACTS[] = {A_SIGMOID, A_SILU, A_GELU_TANH, A_GELU_ERF, A_RELU};
static const char *GLU_NAME[] = {"glu", "swiglu", "geglu_tanh", "geglu", "reglu"};

pg_status synth_fam_elem_glu(uint64_t seed, synth_family_sample *s) {
    fam_rng r = {seed ^ 0x676c750000000004ull};
    int ga = synth_fam_pick(&r, 5), a = GLU_ACTS[ga];
    const char *dt = pick_dt(&r, false);
    bool split = synth_fam_pick(&r, 3) == 0, gate_first = synth_fam_pick(&r, 2), two_d = !split && synth_fam_pick(&r, 3) == 0, gs = synth_fam_pick(&r, 2);
    int V = split ? 1 << synth_fam_pick(&r, 3) : 1, block = 128 << synth_fam_pick(&r, 3), cap = synth_fe_cap(&r), bpr = 1 << synth_fam_pick(&r, 3);
    /* held out: the suite's f32 GLU with the value half first */
    if (!split && ga == 0 && !gate_first && !strcmp(dt, "f32")) gate_first = true;
    act_sc sc;
    memset(&sc, 0, sizeof sc);
    static const char *const SN[][3] = {{"gate", "up", "out"}, {"g", "u", "h"}, {"x_gate", "x_up", "y"}, {"a", "b", "c"}};
    static const char *const FN[][2] = {{"in", "out"}, {"x", "y"}, {"proj", "act"}, {"src", "dst"}};
    const char *const *sn = SN[synth_fam_pick(&r, 4)], *const *fn = FN[synth_fam_pick(&r, 4)];

    snprintf(s->family, sizeof s->family, "glu");
    snprintf(s->source, sizeof s->source, "nvcc");
    if (split) snprintf(s->name, sizeof s->name, "%s_split_%s_v%d%s", GLU_NAME[ga], dt, V, gs ? "_gs" : "");
    else snprintf(s->name, sizeof s->name, "%s_%s_%s%s%s", GLU_NAME[ga], gate_first ? "gatefirst" : "valfirst", dt, two_d ? "_2d" : "", gs ? "_gs" : "");
    synth_fam_fit_name(s->name);   /* within the decoder's PG_NAME_MAX */
    snprintf(s->identity, sizeof s->identity, "glu:%s:%s:%s:%s:%s:v%d:%s%d:b%d", ACT[a].id, dt, split ? "split" : gate_first ? "gate-first" : "value-first",
             two_d ? "2d" : "flat", gs ? "gs" : "one", V, gs ? "cap" : "", gs ? (two_d ? bpr : cap) : 0, block);

    fe_strs T = {0};
    pg_buf sig = {0}, body = {0};
    json_t *root = synth_fe_root(s->name, "glu"), *ps = json_array();
    const char *IN = fn[0], *OUT = fn[1], *GT = sn[0], *UP = sn[1], *O = split ? sn[2] : fn[1];
    if (split) {
        synth_fe_sig_ptr(&sig, GT, dt, FE_IN); synth_fe_ptr(ps, GT, dt, FE_IN, "n");
        synth_fe_sig_ptr(&sig, UP, dt, FE_IN); synth_fe_ptr(ps, UP, dt, FE_IN, "n");
        synth_fe_sig_ptr(&sig, O, dt, FE_OUT); synth_fe_ptr(ps, O, dt, FE_OUT, "n");
        synth_fe_sig_scal(&sig, "n", "u32"); synth_fe_scal(ps, "n", "u32", "n");
        char ge[40];
        snprintf(ge, sizeof ge, "%s_e", GT);
        pg_buf_printf(&body, "%s_e = %s * %s_e;\n", O, act_cu(&T, a, &sc, ge, false), UP);
        fe_kernel k = {.name = s->name, .comment = "out = act(gate) * up", .sig = sig.data, .n = "n", .body = body.data, .V = V, .grid_stride = gs};
        k.arr[k.narr++] = (fe_arr){GT, dt, FE_IN, false};
        k.arr[k.narr++] = (fe_arr){UP, dt, FE_IN, false};
        k.arr[k.narr++] = (fe_arr){O, dt, FE_OUT, false};
        synth_fe_emit(&k, seed, s, &s->cu);
        json_object_set_new(root, "sizes", synth_fe_sizes1("n", (const long[]){16777216, 1000003, 4099, 777, 1, 0}));
        synth_fe_launch1(root, block, V, gs, cap, synth_fe_grid_mult(seed), "n");
    } else {
        synth_fe_sig_ptr(&sig, IN, dt, FE_IN); synth_fe_ptr(ps, IN, dt, FE_IN, "rows*2*H");
        synth_fe_sig_ptr(&sig, OUT, dt, FE_OUT); synth_fe_ptr(ps, OUT, dt, FE_OUT, "rows*H");
        synth_fe_sig_scal(&sig, "rows", "u32"); synth_fe_scal(ps, "rows", "u32", "rows");
        synth_fe_sig_scal(&sig, "H", "u32"); synth_fe_scal(ps, "H", "u32", "H");
        pg_buf *c = &s->cu;
        pg_buf_printf(c, "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n// %s: out[r][j] = value * %s(gate), %s half of each 2H-wide input row is the gate\n", s->name,
                      ACT[a].id, gate_first ? "first" : "second");
        pg_buf_printf(c, "extern \"C\" __global__ void %s(%s)\n{\n", s->name, sig.data);
        if (two_d) {
            pg_buf_puts(c, "    unsigned int r = blockIdx.y;\n");
            if (gs) pg_buf_puts(c, "    for (unsigned int j = blockIdx.x * blockDim.x + threadIdx.x; j < H; j += gridDim.x * blockDim.x) {\n");
            else pg_buf_puts(c, "    unsigned int j = blockIdx.x * blockDim.x + threadIdx.x;\n    if (j < H) {\n");
        } else {
            if (gs) pg_buf_puts(c, "    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (size_t)rows * H; i += (size_t)gridDim.x * blockDim.x) {\n");
            else pg_buf_puts(c, "    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < (size_t)rows * H) {\n");
            pg_buf_puts(c, "        size_t r = i / H, j = i % H;\n");
        }
        pg_buf_puts(c, "        const size_t row = (size_t)r * 2 * H;\n");
        char gi[64], vi[64];
        snprintf(gi, sizeof gi, "%s[row + %sj]", IN, gate_first ? "" : "H + ");
        snprintf(vi, sizeof vi, "%s[row + %sj]", IN, gate_first ? "H + " : "");
        pg_buf_puts(c, "        float gt = ");
        synth_fe_ld(c, dt, gi);
        pg_buf_puts(c, ", val = ");
        synth_fe_ld(c, dt, vi);
        pg_buf_printf(c, ";\n        float v = val * %s;\n        %s[(size_t)r * H + j] = ", act_cu(&T, a, &sc, "gt", false), OUT);
        synth_fe_st(c, dt, "v");
        pg_buf_puts(c, ";\n    }\n}\n");
        json_object_set_new(root, "sizes", json_pack("[{s:i, s:i, s:b}, {s:i, s:i}, {s:i, s:i}, {s:i, s:i}, {s:i, s:i}]", "rows", 4096, "H", 4096, "time", 1, "rows", 1000,
                                                     "H", 333, "rows", 5, "H", 4099, "rows", 1, "H", 1, "rows", 77, "H", 64));
        char b[16], g0[64];
        snprintf(b, sizeof b, "%d", block);
        if (two_d) {
            if (gs) snprintf(g0, sizeof g0, "min(cdiv(H,%d),%d)", block, bpr);
            else snprintf(g0, sizeof g0, "cdiv(H,%d)", block);
            json_object_set_new(root, "launch", json_pack("{s:[s], s:[s, s], s:s}", "block", b, "grid", g0, "rows", "smem", "0"));
        } else synth_fe_launch1(root, block, 1, gs, cap, synth_fe_grid_mult(seed), "rows*H");
    }
    json_object_set_new(root, "family_params", json_pack("{s:s, s:s, s:b, s:s?, s:s?, s:s?, s:s}", "act", ACT[a].id, "layout", split ? "split" : "fused", "gate_first",
                                                         gate_first, "gate", split ? GT : NULL, "up", split ? UP : NULL, "in", split ? NULL : IN, "out", O));
    json_object_set_new(root, "params", ps);

    /* descriptions */
    static const char *const GNE[5][3] = {{"GLU", "gated linear unit", "sigmoid-gated linear unit"},
                                          {"SwiGLU", "SiLU-gated linear unit", "swish-gated GLU (LLaMA MLP)"},
                                          {"GeGLU (tanh GELU)", "GELU-gated linear unit with tanh GELU", "approximate-GELU GLU"},
                                          {"GeGLU", "GELU-gated linear unit", "erf-GELU gated linear unit"},
                                          {"ReGLU", "ReLU-gated linear unit", "relu-gated GLU"}};
    const char *ne[6] = {GNE[ga][0], GNE[ga][1], GNE[ga][2], NULL, NULL, NULL};
    ne[3] = synth_fe_t(&T, NULL, split ? "gated MLP activation act(gate) * up" : "GLU over half-split rows");
    ne[4] = synth_fe_t(&T, NULL, split ? "fused gate activation times up projection" : "gated activation of a 2H-wide projection");
    const char *nz[] = {synth_fe_t(&T, NULL, GNE[ga][0]), "门控线性单元", split ? "门控 MLP 激活" : "按行对半切分的 GLU", NULL};
    const char *ee[4], *zz[3];
    pg_buf fo = {0};
    if (split) pg_buf_printf(&fo, "%s[i] = %s * %s[i]", O, act_txt(&T, a, &sc, synth_fe_t(&T, (const char *const[]){"g", GT, NULL}, "{g}[i]"), ACT[a].math), UP);
    else {
        char g[64];
        snprintf(g, sizeof g, "%s[r][%sj]", IN, gate_first ? "" : "H + ");
        pg_buf_printf(&fo, "%s[r][j] = %s[r][%sj] * %s", OUT, IN, gate_first ? "H + " : "", act_txt(&T, a, &sc, g, ACT[a].math));
    }
    for (int j = 0; j < 3; j++) {
        pg_buf e = {0};
        if (split) pg_buf_printf(&e, j == 0 ? "multiplies each up-projection value %s[i] by the activation of the matching gate value %s[i], where the activation %s; n elements"
                                 : j == 1 ? "for every i < n computes %s[i] times act(%s[i]), where the gate activation act %s" : "gates %s with %s: the gate activation %s, and the product is written out",
                                 UP, GT, act_txt(&T, a, &sc, "x", ACT[a].wen[j]));
        else pg_buf_printf(&e, j == 0 ? "splits each row of the rows x 2H input %s into two halves (the %s half is the gate, the other the value) and writes value times act(gate) to the rows x H output, where act %s"
                           : j == 1 ? "for each row r and j < H reads row r of %s, takes the gate from its %s half and multiplies the value from the other half by act(gate); act %s"
                                    : "applies a gated linear unit to %s: the %s H columns of every row are gates, passed through a function that %s, and they scale the remaining H columns",
                           IN, gate_first ? "first" : "second", act_txt(&T, a, &sc, "x", ACT[a].wen[j]));
        ee[j] = synth_fe_t(&T, NULL, e.data);
        pg_buf_free(&e);
    }
    ee[3] = NULL;
    for (int j = 0; j < 2; j++) {
        pg_buf z = {0};
        if (split) pg_buf_printf(&z, "对每个 i < n，把门控 %s[i] 做激活（%s）后乘以 %s[i]，写入 %s[i]", GT, act_txt(&T, a, &sc, "x", ACT[a].wzh[j]), UP, O);
        else pg_buf_printf(&z, "输入 %s 每行 2H 个元素，%s H 个是门控、另一半是数值；对门控做激活（%s）后乘以数值，得到 rows×H 的输出 %s", IN, gate_first ? "前" : "后",
                           act_txt(&T, a, &sc, "x", ACT[a].wzh[j]), OUT);
        zz[j] = synth_fe_t(&T, NULL, z.data);
        pg_buf_free(&z);
    }
    zz[2] = NULL;
    const char *hw[2], *hz[2] = {NULL, NULL};
    if (split) { hw[0] = synth_fe_how_en(&T, V, gs); hz[0] = synth_fe_how_zh(&T, V, gs); }
    else if (two_d) { hw[0] = "2D grid: blockIdx.y is the row, threads walk its H output columns"; hz[0] = "二维网格：blockIdx.y 为行，线程遍历该行的 H 个输出列"; }
    else { hw[0] = synth_fe_t(&T, NULL, gs ? "one output element per thread over the flattened rows*H index (r = i / H, j = i % H), grid-stride loop"
                                     : "one output element per thread over the flattened rows*H index (r = i / H, j = i % H)");
           hz[0] = "按展平的 rows*H 下标每个线程一个输出元素（r = i / H，j = i % H）"; }
    hw[1] = NULL;
    pg_buf shp = {0}, shz = {0};
    if (split) {
        pg_buf_printf(&shp, "%s, %s and %s hold n %s values each", GT, UP, O, dt);
        pg_buf_printf(&shz, "%s、%s、%s 各含 n 个 %s 元素", GT, UP, O, dt);
    } else {
        pg_buf_printf(&shp, "%s is rows x 2H row-major %s, %s is rows x H", IN, dt, OUT);
        pg_buf_printf(&shz, "%s 为 rows×2H 行主序 %s 矩阵，%s 为 rows×H", IN, dt, OUT);
    }
    desc_facts f = {.name_en = ne, .name_zh = nz, .formula = fo.data, .explain_en = ee, .explain_zh = zz, .how_en = hw, .how_zh = hz[0] ? hz : NULL,
                    .shape_en = shp.data, .shape_zh = shz.data,
                    .notes_en = synth_fe_is_half(dt) ? "Math in float, one rounding on store" : NULL, .notes_zh = synth_fe_is_half(dt) ? "float 计算，存储时舍入一次" : NULL};
    char bytes[64];
    snprintf(bytes, sizeof bytes, split ? "%d*n" : "%d*rows*H", 3 * synth_fe_size(dt));
    synth_fe_finish(root, &f, seed, dt, synth_fe_tol(dt), NULL, 0, synth_fam_ref(synth_fam_elem_glu), bytes, split ? "6*n" : "6*rows*H", &s->task_json);
    pg_buf_free(&fo); pg_buf_free(&shp); pg_buf_free(&shz); pg_buf_free(&sig); pg_buf_free(&body);
    synth_fe_strs_free(&T);
    return PG_OK;
}
