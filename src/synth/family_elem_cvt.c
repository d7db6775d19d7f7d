/* family_elem_cvt.c — number-format families (nvcc), every result exact:
 *
 *   convert   f32 -> f16 / bf16 and f64 -> f32 with the rounding mode
 *             rn / rz / rm / rp; f16 / bf16 -> f32 widening; f16 -> bf16;
 *             f32 -> s32 / u32 and f64 -> s32 with rni / rzi / rmi / rpi
 *             (saturating, optionally after a multiply by a scale); packing
 *             two floats into one 32-bit word of f16x2 / bf16x2 (low half
 *             = first value) from interleaved pairs or from two arrays;
 *             V = 1/2/4 per thread, one step per thread or grid-stride
 *   quantize  float (f32/f16/bf16) -> s8 / u8 as clamp(round(x*inv_scale)
 *             + zp) or clamp(round(x/scale) + zp), ties to even or away
 *             from zero, full or symmetric int8 range, scale and zero point
 *             per tensor (scalars) or per row (arrays over rows x cols);
 *             and the way back, dequantize s8 / u8 -> f32/f16/bf16 as
 *             (q - zp) * scale
 *
 * References: fam_elem_convert, fam_elem_quant (src/task/refs_elemfam_cvt.c). */
#include "family_elem.h"

#include <stdio.h>
#include <string.h>

static const char *MODE_ID[] = {"rn", "rz", "rm", "rp"};       /* PTX float rounding */
static const char *MODE_CU[] = {"rn", "rz", "rd", "ru"};       /* CUDA intrinsic suffixes */
static const char *MODE_EN[] = {"round to nearest, ties to even", "round toward zero (truncate)", "round toward minus infinity (floor)",
                                "round toward plus infinity (ceiling)"};
static const char *MODE_ZH[] = {"就近舍入、恰好一半时取偶数", "向零舍入（截断）", "向负无穷舍入（向下取整）", "向正无穷舍入（向上取整）"};
static const char *MODE_SHORT[] = {"round-to-nearest-even", "round-toward-zero", "round-down", "round-up"};

enum { C_F32_F16, C_F32_BF16, C_F64_F32, C_WIDEN, C_F32_S32, C_F32_U32, C_F64_S32, C_PACK_PAIRS, C_PACK_TWO, C_F16_BF16, C__N };

pg_status synth_fam_elem_convert(uint64_t seed, synth_family_sample *s) {
    fam_rng r = {seed ^ 0x6376740000000005ull};
    int op = synth_fam_pick(&r, C__N), mode = synth_fam_pick(&r, 4);
    bool gs = synth_fam_pick(&r, 2), bf = synth_fam_pick(&r, 2), scaled = (op == C_F32_S32 || op == C_F32_U32) && synth_fam_pick(&r, 2);
    int block = 128 << synth_fam_pick(&r, 3), cap = synth_fe_cap(&r), V = 1 << synth_fam_pick(&r, 3);
    if (op == C_WIDEN || op == C_PACK_PAIRS || op == C_PACK_TWO || op == C_F16_BF16) mode = 0;
    const char *sdt = op == C_F64_F32 || op == C_F64_S32 ? "f64" : op == C_WIDEN || op == C_F16_BF16 ? (bf && op == C_WIDEN ? "bf16" : "f16") : "f32";
    const char *ddt = op == C_F32_F16 ? "f16" : op == C_F32_BF16 || op == C_F16_BF16 ? "bf16" : op == C_F64_F32 || op == C_WIDEN ? "f32"
                    : op == C_F32_U32 || op == C_PACK_PAIRS || op == C_PACK_TWO ? "u32" : "s32";
    if (!strcmp(sdt, "f64") && V > 2) V = 2;
    if (op == C_PACK_PAIRS) V = 1;   /* one pair (a float2) per step */
    /* held out (bench/suite-prose f32_to_bf16): f32 -> bf16 on 256-thread blocks */
    if (op == C_F32_BF16 && block == 256) block = 512;
    const char *in[2], *out[1];
    synth_desc_param_names(seed, 2, in, 1, out);
    const char *X = in[0], *X2 = in[1], *Y = out[0], *SC = "scale";
    if (op == C_PACK_TWO) { static const char *const LH[][2] = {{"lo", "hi"}, {"a", "b"}, {"re", "im"}, {"x0", "x1"}}; const char *const *p = LH[synth_fam_pick(&r, 4)]; X = p[0]; X2 = p[1]; }
    static const double SCV[] = {0.5, 256.0, 0.25, 127.0, 1000.0};
    double scv = SCV[synth_fam_pick(&r, 5)];

    snprintf(s->family, sizeof s->family, "convert");
    snprintf(s->source, sizeof s->source, "nvcc");
    const char *pk = bf ? "bf16x2" : "f16x2";
    if (op == C_PACK_PAIRS) snprintf(s->name, sizeof s->name, "pack_%s_pairs%s", pk, gs ? "_gs" : "");
    else if (op == C_PACK_TWO) snprintf(s->name, sizeof s->name, "pack_%s_%s_%s_v%d%s", pk, X, X2, V, gs ? "_gs" : "");
    else {
        static const char *STY[] = {"cvt_%s_to_%s_%s%s_v%d%s", "%s_to_%s_%s%s_x%d%s", "convert_%s_%s_%s%s_vec%d%s"};
        const char *mname = op == C_F32_S32 || op == C_F32_U32 || op == C_F64_S32 ? (const char *[]){"rni", "rzi", "rmi", "rpi"}[mode] : MODE_ID[mode];
        snprintf(s->name, sizeof s->name, STY[synth_fam_pick(&r, 3)], sdt, ddt, op == C_WIDEN || op == C_F16_BF16 ? "exact" : mname, scaled ? "_scaled" : "", V,
                 gs ? "_gs" : "");
    }
    synth_fam_fit_name(s->name);   /* within the decoder's PG_NAME_MAX */
    static const char *OPN[] = {"f32_f16", "f32_bf16", "f64_f32", "widen", "f32_s32", "f32_u32", "f64_s32", "pack_pairs", "pack_two", "f16_bf16"};
    snprintf(s->identity, sizeof s->identity, "convert:%s:%s:%s:%s:%s:v%d:%s%d:b%d", OPN[op], sdt, ddt, MODE_ID[mode], scaled ? "scaled" : "-", V, gs ? "gs" : "one",
             gs ? cap : 0, block);

    fe_strs T = {0};
    pg_buf sig = {0}, body = {0};
    json_t *root = synth_fe_root(s->name, "convert"), *ps = json_array();
    const char *d0 = "uniform(-1,1)", *d1 = "normal(0,100)", *d2 = "uniform(-0.0001,0.0001)";
    if (op == C_F32_F16) d2 = "normal(0,40000)";   /* overflow: inf or the largest finite value, by mode */
    if (op == C_F64_F32) { d1 = "normal(0,1e30)"; d2 = "uniform(-1e-37,1e-37)"; }
    if (op == C_F32_S32 || op == C_F64_S32) { d1 = scaled ? "int(-1000,1000)" : "normal(0,1000)"; d2 = "normal(0,3e9)"; }
    if (op == C_F32_U32) { d1 = scaled ? "int(-1000,1000)" : "normal(0,1000)"; d2 = "normal(2e9,2e9)"; }
    if (op == C_WIDEN || op == C_F16_BF16) { d1 = "normal(0,100)"; d2 = "normal(0,10000)"; }
    if (op == C_PACK_PAIRS) {
        synth_fe_sig_ptr(&sig, X, "f32", FE_IN);
        synth_fe_ptr_dist(ps, X, "f32", FE_IN, "2*n", d0, d1, d2);
        synth_fe_sig_ptr(&sig, Y, "u32", FE_OUT);
        synth_fe_ptr(ps, Y, "u32", FE_OUT, "n");
    } else {
        synth_fe_sig_ptr(&sig, X, sdt, FE_IN);
        synth_fe_ptr_dist(ps, X, sdt, FE_IN, "n", d0, d1, d2);
        if (op == C_PACK_TWO) {
            synth_fe_sig_ptr(&sig, X2, sdt, FE_IN);
            synth_fe_ptr_dist(ps, X2, sdt, FE_IN, "n", d1, d0, d2);
        }
        synth_fe_sig_ptr(&sig, Y, ddt, FE_OUT);
        synth_fe_ptr(ps, Y, ddt, FE_OUT, "n");
    }
    if (scaled) { synth_fe_sig_scal(&sig, SC, "f32"); synth_fe_scal_f(ps, SC, "f32", scv); }
    synth_fe_sig_scal(&sig, "n", "u32");
    synth_fe_scal(ps, "n", "u32", "n");

    const char *pty = bf ? "__nv_bfloat162" : "__half2", *pfn = bf ? "__floats2bfloat162_rn" : "__floats2half2_rn";
    if (op == C_PACK_PAIRS) {
        pg_buf *c = &s->cu;
        pg_buf_printf(c, "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n// %s: %s[i] = the pair %s[2i], %s[2i+1] rounded to %s and packed (first value in the low 16 bits)\n", s->name,
                      Y, X, X, bf ? "bf16" : "f16");
        pg_buf_printf(c, "extern \"C\" __global__ void %s(%s)\n{\n", s->name, sig.data);
        if (gs) pg_buf_puts(c, "    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {\n");
        else pg_buf_puts(c, "    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) {\n");
        pg_buf_printf(c, "        float2 pair = reinterpret_cast<const float2*>(%s)[i];\n        %s h = %s(pair.x, pair.y);\n", X, pty, pfn);
        pg_buf_printf(c, "        %s[i] = *reinterpret_cast<unsigned int*>(&h);\n    }\n}\n", Y);
    } else {
        fe_kernel k = {.name = s->name, .sig = sig.data, .n = "n", .V = V, .grid_stride = gs};
        k.arr[k.narr++] = (fe_arr){X, sdt, FE_IN, false};
        if (op == C_PACK_TWO) k.arr[k.narr++] = (fe_arr){X2, sdt, FE_IN, false};
        bool raw = !strcmp(ddt, "f16") || !strcmp(ddt, "bf16");
        k.arr[k.narr++] = (fe_arr){Y, ddt, FE_OUT, raw};
        const char *xs = scaled ? "_e * scale" : "_e";
        switch (op) {
        case C_F32_F16: pg_buf_printf(&body, "%s_e = __half_as_ushort(__float2half_%s(%s_e));\n", Y, MODE_CU[mode], X); break;
        case C_F32_BF16: pg_buf_printf(&body, "%s_e = __bfloat16_as_ushort(__float2bfloat16_%s(%s_e));\n", Y, MODE_CU[mode], X); break;
        case C_F16_BF16: pg_buf_printf(&body, "%s_e = __bfloat16_as_ushort(__float2bfloat16_rn(%s_e));   // exact to float, then one rounding\n", Y, X); break;
        case C_F64_F32: pg_buf_printf(&body, "%s_e = __double2float_%s(%s_e);\n", Y, MODE_CU[mode], X); break;
        case C_WIDEN: pg_buf_printf(&body, "%s_e = %s_e;   // exact\n", Y, X); break;
        case C_F32_S32: pg_buf_printf(&body, "%s_e = __float2int_%s(%s%s);   // saturates to the int range\n", Y, MODE_CU[mode], X, xs); break;
        case C_F32_U32: pg_buf_printf(&body, "%s_e = __float2uint_%s(%s%s);   // saturates: negatives give 0\n", Y, MODE_CU[mode], X, xs); break;
        case C_F64_S32: pg_buf_printf(&body, "%s_e = __double2int_%s(%s_e);\n", Y, MODE_CU[mode], X); break;
        default: pg_buf_printf(&body, "%s h = %s(%s_e, %s_e);\n%s_e = *reinterpret_cast<unsigned int*>(&h);   // %s in the low half\n", pty, pfn, X, X2, Y, X); break;
        }
        k.body = body.data;
        k.comment = OPN[op];
        synth_fe_emit(&k, seed, s, &s->cu);
    }
    json_object_set_new(root, "family_params", json_pack("{s:s, s:s, s:s, s:s?, s:s, s:s?, s:s}", "op", OPN[op], "mode", MODE_ID[mode], "x", X, "x2",
                                                         op == C_PACK_TWO ? X2 : NULL, "y", Y, "scale", scaled ? SC : NULL, "packed", bf ? "bf16" : "f16"));
    json_object_set_new(root, "params", ps);
    json_object_set_new(root, "sizes", synth_fe_sizes1("n", (const long[]){16777216, 1000003, 4099, 777, 3, 1, 0}));
    synth_fe_launch1(root, block, V, gs, cap, synth_fe_grid_mult(seed), "n");
    json_object_set_new(root, "distributions", json_pack("[s, s, s]", "uniform(-1,1)", "normal(0,100)", "uniform(-2,2)"));

    /* descriptions */
    char svl[32];
    synth_fe_lit(svl, sizeof svl, scv);
    const char *kv[] = {"x", X, "x2", X2, "y", Y, "s", SC, "sdt", sdt, "ddt", ddt, "mode", MODE_EN[mode], "mzh", MODE_ZH[mode], "ms", MODE_SHORT[mode],
                        "p", bf ? "bf16" : "f16", "sv", svl, NULL};
    const char *ne[6], *nz[4], *ee[4], *zz[3], *fo;
    const char *arg = scaled ? "{x}[i] * {s}" : "{x}[i]";
    pg_buf tmp = {0};
    switch (op) {
    case C_F32_F16: case C_F32_BF16: case C_F64_F32:
        ne[0] = synth_fe_t(&T, kv, "{sdt} to {ddt} conversion ({ms})"); ne[1] = synth_fe_t(&T, kv, "convert {sdt} to {ddt} with {ms} rounding");
        ne[2] = synth_fe_t(&T, kv, "downcast {sdt} -> {ddt}, {mode}"); ne[3] = synth_fe_t(&T, kv, "narrow {sdt} values to {ddt} ({ms})");
        ne[4] = synth_fe_t(&T, kv, "precision conversion {sdt}->{ddt} with explicit rounding mode");
        nz[0] = synth_fe_t(&T, kv, "{sdt} 转 {ddt}（{mzh}）"); nz[1] = synth_fe_t(&T, kv, "{sdt} 到 {ddt} 的类型转换"); nz[2] = synth_fe_t(&T, kv, "按指定舍入模式把 {sdt} 降精度为 {ddt}");
        fo = synth_fe_t(&T, kv, "{y}[i] = ({ddt}){x}[i], rounded with {ms}");
        ee[0] = synth_fe_t(&T, kv, "converts each of the n {sdt} values of {x} to {ddt} and stores it in {y}, rounding with {mode}");
        ee[1] = synth_fe_t(&T, kv, "rounds every element of {x} to the nearest representable {ddt} value in the direction given by the mode: {mode}; results that are too large for {ddt} follow IEEE rules for that mode (infinity or the largest finite value)");
        ee[2] = synth_fe_t(&T, kv, "narrows an array of {sdt} to {ddt} using the {ms} rounding mode; the output must match bit for bit");
        zz[0] = synth_fe_t(&T, kv, "把 {x} 中的 n 个 {sdt} 值转换为 {ddt} 写入 {y}，舍入方式：{mzh}");
        zz[1] = synth_fe_t(&T, kv, "逐元素把 {sdt} 降为 {ddt}，采用{mzh}，结果必须逐位一致");
        break;
    case C_WIDEN: case C_F16_BF16:
        ne[0] = synth_fe_t(&T, kv, "{sdt} to {ddt} conversion"); ne[1] = synth_fe_t(&T, kv, "convert {sdt} to {ddt}"); ne[2] = synth_fe_t(&T, kv, "cast {sdt} array to {ddt}");
        ne[3] = synth_fe_t(&T, kv, "{sdt}->{ddt} type conversion"); ne[4] = synth_fe_t(&T, kv, "reformat {sdt} data as {ddt}");
        nz[0] = synth_fe_t(&T, kv, "{sdt} 转 {ddt}"); nz[1] = synth_fe_t(&T, kv, "{sdt} 到 {ddt} 的类型转换"); nz[2] = synth_fe_t(&T, kv, "把 {sdt} 数组转成 {ddt}");
        fo = synth_fe_t(&T, kv, op == C_WIDEN ? "{y}[i] = (float){x}[i] (exact)" : "{y}[i] = (bf16)(float){x}[i], round to nearest even");
        ee[0] = synth_fe_t(&T, kv, op == C_WIDEN ? "widens each of the n {sdt} values of {x} to float (exactly) and stores it in {y}"
                                           : "converts each f16 value of {x} to float (exact) and then rounds it to bfloat16 with round-to-nearest-even, storing the result in {y}");
        ee[1] = synth_fe_t(&T, kv, "turns the {sdt} array {x} into a {ddt} array {y} of the same length n, element by element");
        ee[2] = synth_fe_t(&T, kv, "converts n numbers from {sdt} to {ddt}; the output must match bit for bit");
        zz[0] = synth_fe_t(&T, kv, "把 {x} 中的 n 个 {sdt} 值逐个转换为 {ddt} 写入 {y}");
        zz[1] = synth_fe_t(&T, kv, op == C_WIDEN ? "半精度到单精度的无损转换" : "先无损转为 float，再就近舍入为 bf16");
        break;
    case C_F32_S32: case C_F32_U32: case C_F64_S32:
        ne[0] = synth_fe_t(&T, kv, "{sdt} to {ddt} conversion ({ms})"); ne[1] = synth_fe_t(&T, kv, scaled ? "scale and convert float to integer ({ms})" : "float to integer conversion with {ms} rounding");
        ne[2] = synth_fe_t(&T, kv, "saturating {sdt} -> {ddt} cast"); ne[3] = synth_fe_t(&T, kv, "round {sdt} values to {ddt} ({mode})"); ne[4] = synth_fe_t(&T, kv, "convert reals to integers with an explicit rounding mode");
        nz[0] = synth_fe_t(&T, kv, "{sdt} 转 {ddt}（{mzh}）"); nz[1] = synth_fe_t(&T, kv, "浮点转整数（饱和）"); nz[2] = synth_fe_t(&T, kv, "按指定舍入模式取整");
        pg_buf_printf(&tmp, "{y}[i] = saturate_{ddt}(%s(%s))", mode == 0 ? "rint" : mode == 1 ? "trunc" : mode == 2 ? "floor" : "ceil", arg);
        fo = synth_fe_t(&T, kv, tmp.data);
        pg_buf_free(&tmp);
        ee[0] = synth_fe_t(&T, kv, scaled ? "multiplies each value of {x} by {s} (a float multiply), rounds the product to an integer with {mode} and stores it as {ddt} in {y}, clamping values outside the {ddt} range to its limits"
                                    : "rounds each value of {x} to an integer with {mode} and stores it as {ddt} in {y}, clamping values outside the {ddt} range to its limits");
        ee[1] = synth_fe_t(&T, kv, op == C_F32_U32 ? "converts the {sdt} array {x} to unsigned 32-bit integers ({ms}); negative inputs become 0 and inputs above 4294967295 become 4294967295"
                                             : "converts the {sdt} array {x} to signed 32-bit integers ({ms}); inputs beyond the int range saturate to -2147483648 or 2147483647");
        ee[2] = synth_fe_t(&T, kv, scaled ? "scales by {s} and turns every element into a saturated {ddt} using {ms} rounding" : "turns every element into a saturated {ddt} using {ms} rounding");
        zz[0] = synth_fe_t(&T, kv, scaled ? "对 {x} 的每个元素乘以 {s} 后按{mzh}取整，饱和到 {ddt} 范围后写入 {y}" : "对 {x} 的每个元素按{mzh}取整，饱和到 {ddt} 范围后写入 {y}");
        zz[1] = synth_fe_t(&T, kv, "浮点到 {ddt} 的饱和转换，舍入方式：{mzh}");
        break;
    default:   /* packing */
        ne[0] = synth_fe_t(&T, kv, "pack two floats into {p}"); ne[1] = synth_fe_t(&T, kv, "float pairs to packed {p} words"); ne[2] = synth_fe_t(&T, kv, "convert and pack into {p} (32-bit)");
        ne[3] = synth_fe_t(&T, kv, "{p} packing"); ne[4] = synth_fe_t(&T, kv, "two-halves-per-word conversion ({p})");
        nz[0] = synth_fe_t(&T, kv, "打包为 {p}"); nz[1] = synth_fe_t(&T, kv, "两个 float 转换后打包成一个 32 位字"); nz[2] = synth_fe_t(&T, kv, "{p} 打包转换");
        if (op == C_PACK_PAIRS) {
            fo = synth_fe_t(&T, kv, "{y}[i] = bits({p}_lo({x}[2i])) | bits({p}_lo({x}[2i+1])) << 16, each rounded to nearest even");
            ee[0] = synth_fe_t(&T, kv, "takes the float pair {x}[2i], {x}[2i+1], rounds both to {p} halves (nearest even) and stores them as one 32-bit word {y}[i], the first value in the low 16 bits");
            ee[1] = synth_fe_t(&T, kv, "converts 2n floats to half-size values and packs each consecutive pair into an unsigned 32-bit output (low half = even element, high half = odd element)");
            ee[2] = synth_fe_t(&T, kv, "produces n packed {p} words from 2n floats, two per word, element 2i in bits 0-15 and element 2i+1 in bits 16-31");
            zz[0] = synth_fe_t(&T, kv, "把 {x}[2i] 和 {x}[2i+1] 就近舍入为 {p} 的两个半字，打包成一个 32 位字 {y}[i]，前一个放在低 16 位");
        } else {
            fo = synth_fe_t(&T, kv, "{y}[i] = bits({x}[i] as {p}) | bits({x2}[i] as {p}) << 16, round to nearest even");
            ee[0] = synth_fe_t(&T, kv, "rounds {x}[i] and {x2}[i] to half-size floats (nearest even) and packs them into the 32-bit word {y}[i], {x} in the low 16 bits and {x2} in the high 16 bits");
            ee[1] = synth_fe_t(&T, kv, "combines two float arrays into one array of packed {p} pairs: low half from {x}, high half from {x2}");
            ee[2] = synth_fe_t(&T, kv, "for each i < n converts the two floats {x}[i], {x2}[i] and stores both in one unsigned 32-bit element");
            zz[0] = synth_fe_t(&T, kv, "把 {x}[i] 和 {x2}[i] 就近舍入后打包成一个 32 位字 {y}[i]，{x} 在低 16 位，{x2} 在高 16 位");
        }
        zz[1] = synth_fe_t(&T, kv, "两个 float 转为 {p} 后装进一个 32 位无符号整数，低位在前");
        break;
    }
    ne[5] = NULL; nz[3] = NULL; ee[3] = NULL; zz[2] = NULL;
    const char *hw[] = {op == C_PACK_PAIRS ? (gs ? "one pair per thread with an 8-byte float2 load, grid-stride loop" : "one pair per thread with an 8-byte float2 load") : NULL, NULL};
    if (op != C_PACK_PAIRS) {
        hw[0] = synth_fe_how_en(&T, V, gs);
    }
    const char *hzz[] = {synth_fe_how_zh(&T, V, gs), NULL};
    pg_buf notes = {0}, notez = {0}, shp = {0}, shz = {0};
    pg_buf_puts(&notes, "Exact: the output must match bit for bit");
    pg_buf_puts(&notez, "结果必须逐位精确");
    if (scaled) { pg_buf_printf(&notes, "; %s = %s", SC, svl); pg_buf_printf(&notez, "；%s = %s", SC, svl); }
    if (op == C_PACK_PAIRS) { pg_buf_printf(&shp, "%s has 2n floats, %s has n 32-bit words", X, Y); pg_buf_printf(&shz, "%s 有 2n 个 float，%s 有 n 个 32 位字", X, Y); }
    else if (op == C_PACK_TWO) { pg_buf_printf(&shp, "%s and %s have n floats each, %s has n 32-bit words", X, X2, Y); pg_buf_printf(&shz, "%s、%s 各有 n 个 float，%s 有 n 个 32 位字", X, X2, Y); }
    else { pg_buf_printf(&shp, "%s holds n %s values, %s n %s values", X, sdt, Y, ddt); pg_buf_printf(&shz, "%s 有 n 个 %s，%s 有 n 个 %s", X, sdt, Y, ddt); }
    desc_facts f = {.name_en = ne, .name_zh = nz, .formula = fo, .explain_en = ee, .explain_zh = zz, .how_en = hw, .how_zh = hzz, .shape_en = shp.data, .shape_zh = shz.data,
                    .notes_en = notes.data, .notes_zh = notez.data};
    char bytes[48];
    snprintf(bytes, sizeof bytes, "%d*n", op == C_PACK_PAIRS || op == C_PACK_TWO ? 12 : synth_fe_size(sdt) + synth_fe_size(ddt));
    synth_fe_finish(root, &f, seed, ddt, 0.0, NULL, 0, synth_fam_ref(synth_fam_elem_convert), bytes, "n", &s->task_json);
    pg_buf_free(&notes); pg_buf_free(&notez); pg_buf_free(&shp); pg_buf_free(&shz);
    pg_buf_free(&sig); pg_buf_free(&body);
    synth_fe_strs_free(&T);
    return PG_OK;
}

/* ---- quantize / dequantize ------------------------------------------------------------- */
pg_status synth_fam_elem_quant(uint64_t seed, synth_family_sample *s) {
    fam_rng r = {seed ^ 0x7175616e74000006ull};
    bool deq = synth_fam_pick(&r, 3) == 0, per_row = synth_fam_pick(&r, 3) == 0, gs = synth_fam_pick(&r, 2), mult = synth_fam_pick(&r, 2), away = synth_fam_pick(&r, 4) == 0;
    int zpk = synth_fam_pick(&r, 3);   /* 0: symmetric (no zero point), 1: zero point scalar, 2: per-row zero points */
    bool u8 = synth_fam_pick(&r, 3) == 0, sym = !u8 && synth_fam_pick(&r, 3) == 0;
    if (zpk == 2 && !per_row) zpk = 1;
    if (u8 && zpk == 0) zpk = 1;   /* unsigned codes need an offset */
    int k2 = synth_fam_pick(&r, 4);
    const char *fdt = k2 == 1 ? "f16" : k2 == 2 ? "bf16" : "f32", *qdt = u8 ? "u8" : "s8";
    int block = 128 << synth_fam_pick(&r, 3), cap = synth_fe_cap(&r), V = 1 << synth_fam_pick(&r, 3);
    if (deq) { mult = false; away = false; sym = false; }
    /* held out: the suite's per-tensor f32 -> s8 with inv_scale, ties to even, no zero point */
    if (!deq && !per_row && zpk == 0 && !u8 && !sym && mult && !away && !strcmp(fdt, "f32")) zpk = 1;
    static const char *const QN[][5] = {{"x", "q", "scale", "zero_point", "inv_scale"}, {"input", "out", "s", "zp", "inv_s"}, {"src", "dst", "qscale", "qzero", "rscale"},
                                        {"w", "wq", "scales", "zeros", "inv_scales"}};
    const char *const *qn = QN[synth_fam_pick(&r, 4)];
    const char *X = deq ? qn[1] : qn[0], *Q = deq ? qn[0] : qn[1], *SC = mult ? qn[4] : qn[2], *ZP = qn[3];
    if (deq) { X = qn[1]; Q = qn[0]; }
    int lo = u8 ? 0 : sym ? -127 : -128, hi = u8 ? 255 : 127;
    static const double SV[] = {0.05, 0.1, 0.02, 0.25, 0.08}, ISV[] = {20, 10, 50, 4, 12.5};
    int si = synth_fam_pick(&r, 5);
    double sv = mult ? ISV[si] : SV[si];
    int zpv = u8 ? 100 + synth_fam_pick(&r, 56) : synth_fam_pick(&r, 21) - 10;

    snprintf(s->family, sizeof s->family, "quantize");
    snprintf(s->source, sizeof s->source, "nvcc");
    if (deq) snprintf(s->name, sizeof s->name, "dequant_%s_%s_%s%s_v%d%s", qdt, fdt, per_row ? "rowscale" : "tensor", zpk == 2 ? "_rowzp" : zpk ? "_zp" : "", V, gs ? "_gs" : "");
    else snprintf(s->name, sizeof s->name, "quant_%s_%s_%s_%s%s%s%s_v%d%s", fdt, qdt, per_row ? "rowscale" : "tensor", mult ? "mul" : "div", zpk == 2 ? "_rowzp" : zpk ? "_zp" : "",
                  away ? "_away" : "", sym ? "_sym" : "", V, gs ? "_gs" : "");
    synth_fam_fit_name(s->name);   /* within the decoder's PG_NAME_MAX */
    snprintf(s->identity, sizeof s->identity, "quantize:%s:%s:%s:%s:%s:zp%d:%s:%s:v%d:%s%d:b%d", deq ? "deq" : "q", fdt, qdt, per_row ? "row" : "tensor", mult ? "mul" : "div", zpk,
             away ? "away" : "even", sym ? "sym" : "full", V, gs ? "gs" : "one", gs ? cap : 0, block);

    fe_strs T = {0};
    pg_buf sig = {0}, body = {0};
    json_t *root = synth_fe_root(s->name, "quantize"), *ps = json_array();
    const char *len = per_row ? "rows*cols" : "n";
    const char *nv = per_row ? "rows * cols" : "n";
    if (deq) {
        synth_fe_sig_ptr(&sig, Q, qdt, FE_IN);
        synth_fe_ptr_dist(ps, Q, qdt, FE_IN, len, u8 ? "int(0,255)" : "int(-128,127)", u8 ? "int(90,170)" : "int(-20,20)", NULL);
        synth_fe_sig_ptr(&sig, X, fdt, FE_OUT);
        synth_fe_ptr(ps, X, fdt, FE_OUT, len);
    } else {
        synth_fe_sig_ptr(&sig, X, fdt, FE_IN);
        synth_fe_ptr_dist(ps, X, fdt, FE_IN, len, "uniform(-10,10)", "normal(0,20)", "int(-300,300)");
        synth_fe_sig_ptr(&sig, Q, qdt, FE_OUT);
        synth_fe_ptr(ps, Q, qdt, FE_OUT, len);
    }
    char svl[32], zpl[16];
    synth_fe_lit(svl, sizeof svl, sv);
    snprintf(zpl, sizeof zpl, "%d", zpv);
    if (per_row) {
        synth_fe_sig_ptr(&sig, SC, "f32", FE_IN);
        /* the third set (integer inputs, scale 1/2) lands on exact halves: the tie rule matters */
        synth_fe_ptr_dist(ps, SC, "f32", FE_IN, "rows", mult ? "uniform(2,50)" : "uniform(0.02,0.5)", mult ? "uniform(2,50)" : "uniform(0.02,0.5)",
                    mult ? "const(0.5)" : "const(2)");
    } else {
        synth_fe_sig_scal(&sig, SC, "f32");
        synth_fe_scal(ps, SC, "f32", svl);
    }
    if (zpk == 2) {
        synth_fe_sig_ptr(&sig, ZP, "s32", FE_IN);
        synth_fe_ptr_dist(ps, ZP, "s32", FE_IN, "rows", u8 ? "int(100,155)" : "int(-10,10)", u8 ? "const(128)" : "const(0)", NULL);
    } else if (zpk == 1) {
        synth_fe_sig_scal(&sig, ZP, "s32");
        synth_fe_scal(ps, ZP, "s32", zpl);
    }
    if (per_row) {
        synth_fe_sig_scal(&sig, "rows", "u32"); synth_fe_scal(ps, "rows", "u32", "rows");
        synth_fe_sig_scal(&sig, "cols", "u32"); synth_fe_scal(ps, "cols", "u32", "cols");
    } else { synth_fe_sig_scal(&sig, "n", "u32"); synth_fe_scal(ps, "n", "u32", "n"); }

    char sexp[64], zexp[64];
    if (per_row) snprintf(sexp, sizeof sexp, "%s[i / cols]", SC);
    else snprintf(sexp, sizeof sexp, "%s", SC);
    if (zpk == 2) snprintf(zexp, sizeof zexp, "%s[i / cols]", ZP);
    else snprintf(zexp, sizeof zexp, "%s", zpk ? ZP : "0");
    if (deq) {
        if (zpk) pg_buf_printf(&body, "%s_e = (float)(%s_e - %s) * %s;\n", X, Q, zexp, sexp);
        else pg_buf_printf(&body, "%s_e = (float)%s_e * %s;\n", X, Q, sexp);
    } else {
        pg_buf_printf(&body, "float p = %s_e %s %s;\n", X, mult ? "*" : "/", sexp);
        if (away) pg_buf_puts(&body, "int v = (int)roundf(p);   // ties away from zero\n");
        else pg_buf_puts(&body, "int v = __float2int_rn(p);   // ties to even\n");
        if (zpk) pg_buf_printf(&body, "v += %s;\n", zexp);
        pg_buf_printf(&body, "%s_e = min(max(v, %d), %d);\n", Q, lo, hi);
    }
    fe_kernel k = {.name = s->name, .comment = deq ? "dequantize (q - zp) * scale" : "quantize clamp(round(x / scale) + zp)", .sig = sig.data, .n = nv, .body = body.data,
                   .V = V, .grid_stride = gs};
    k.arr[k.narr++] = deq ? (fe_arr){Q, qdt, FE_IN, false} : (fe_arr){X, fdt, FE_IN, false};
    k.arr[k.narr++] = deq ? (fe_arr){X, fdt, FE_OUT, false} : (fe_arr){Q, qdt, FE_OUT, false};
    synth_fe_emit(&k, seed, s, &s->cu);

    json_object_set_new(root, "family_params", json_pack("{s:b, s:b, s:b, s:b, s:i, s:i, s:s, s:s, s:s, s:s?}", "dequant", deq, "per_row", per_row, "mult", mult,
                                                         "away", away, "lo", lo, "hi", hi, "x", X, "q", Q, "scale", SC, "zp", zpk ? ZP : NULL));
    json_object_set_new(root, "params", ps);
    if (per_row)
        json_object_set_new(root, "sizes", json_pack("[{s:i, s:i, s:b}, {s:i, s:i}, {s:i, s:i}, {s:i, s:i}, {s:i, s:i}]", "rows", 4096, "cols", 4096, "time", 1, "rows", 1000,
                                                     "cols", 999, "rows", 3, "cols", 4099, "rows", 77, "cols", 5, "rows", 1, "cols", 1));
    else json_object_set_new(root, "sizes", synth_fe_sizes1("n", (const long[]){16777216, 1000003, 4099, 777, 1, 0}));
    synth_fe_launch1(root, block, V, gs, cap, synth_fe_grid_mult(seed), per_row ? "rows*cols" : "n");
    json_object_set_new(root, "distributions", json_pack("[s, s, s]", "uniform(-1,1)", "normal(0,1)", "uniform(-2,2)"));

    /* descriptions */
    char rng[32];
    snprintf(rng, sizeof rng, "[%d, %d]", lo, hi);
    const char *kv[] = {"x", X, "q", Q, "s", SC, "z", ZP, "fdt", fdt, "qdt", qdt, "rng", rng, "sv", svl, "zv", zpl, "si", sexp, "zi", zexp, NULL};
    const char *sidx = per_row ? "[r]" : "", *zidx = zpk == 2 ? "[r]" : "";
    pg_buf fo = {0}, t1 = {0};
    const char *ne[6], *nz[4], *ee[4], *zz[3];
    const char *scale_w = per_row ? (mult ? "the row's reciprocal scale {s}[r]" : "the row's scale {s}[r]") : (mult ? "the reciprocal scale {s}" : "the scale {s}");
    const char *zp_w = zpk == 2 ? "the row's zero point {z}[r]" : "the zero point {z}";
    if (deq) {
        if (zpk) pg_buf_printf(&fo, "%s[i] = (%s[i] - %s%s) * %s%s", X, Q, ZP, zidx, SC, sidx);
        else pg_buf_printf(&fo, "%s[i] = %s[i] * %s%s", X, Q, SC, sidx);
        if (per_row) pg_buf_puts(&fo, " with r = i / cols");
        ne[0] = synth_fe_t(&T, kv, "dequantize {qdt} to {fdt}"); ne[1] = synth_fe_t(&T, kv, per_row ? "per-channel int8 dequantization" : "per-tensor int8 dequantization");
        ne[2] = synth_fe_t(&T, kv, "{qdt} -> {fdt} dequant"); ne[3] = synth_fe_t(&T, kv, zpk ? "affine dequantization (q - zero_point) * scale" : "symmetric dequantization q * scale");
        ne[4] = synth_fe_t(&T, kv, "expand quantized {qdt} codes back to {fdt}");
        nz[0] = synth_fe_t(&T, kv, "{qdt} 反量化为 {fdt}"); nz[1] = per_row ? "逐通道反量化" : "逐张量反量化"; nz[2] = "int8 反量化";
        pg_buf_printf(&t1, "converts each %s code {q}[i] back to a real number: %s%s, multiplied by %s, stored as %s in {x}", qdt, zpk ? "subtract " : "take it as is", zpk ? zp_w : "",
                      scale_w, fdt);
        ee[0] = synth_fe_t(&T, kv, synth_fe_t(&T, kv, t1.data));
        ee[1] = synth_fe_t(&T, kv, zpk ? "undoes affine quantization: value = (code - zero point) * scale, the subtraction in integers and one float multiply"
                                 : "undoes symmetric quantization: value = code * scale, one float multiply");
        /* h114: this one used to leave out the zero point and the multiply */
        {
            pg_buf t4 = {0};
            pg_buf_printf(&t4, "%s: %s %s", per_row ? "dequantize a rows x cols {qdt} matrix with one scale per row (i / cols picks the row)"
                                                    : "dequantize n {qdt} values with a single scale for the whole tensor",
                          zpk == 2 ? "subtract the row's zero point {z}[r] from each code (in integers), then multiply by"
                          : zpk    ? "subtract the zero point {z} from each code (in integers), then multiply by"
                                   : "convert each code to float and multiply it by",
                          per_row ? "{s}[r]" : "{s}");
            ee[2] = synth_fe_t(&T, kv, t4.data);
            pg_buf_free(&t4);
        }
        zz[0] = synth_fe_t(&T, kv, zpk ? "把 {q} 中的每个量化值减去零点后乘以缩放系数，得到 {fdt} 写入 {x}" : "把 {q} 中的每个量化值乘以缩放系数，得到 {fdt} 写入 {x}");
        {   /* h114: with the zero point and the multiply, like ee[2] */
            pg_buf z1 = {0};
            pg_buf_printf(&z1, "%s，每个量化值%s乘以 %s", per_row ? "逐行（逐通道）反量化：每行有自己的缩放系数" : "逐张量反量化：整个张量共用一个缩放系数",
                          zpk == 2 ? "先减去该行的零点 {z}[r]（整数运算）再" : zpk ? "先减去零点 {z}（整数运算）再" : "转为浮点后", per_row ? "{s}[r]" : "{s}");
            zz[1] = synth_fe_t(&T, kv, z1.data);
            pg_buf_free(&z1);
        }
    } else {
        pg_buf_printf(&fo, "%s[i] = clamp(%s(%s[i] %s %s%s)%s%s%s, %d, %d)", Q, away ? "round_half_away" : "rint", X, mult ? "*" : "/", SC, sidx, zpk ? " + " : "", zpk ? ZP : "", zidx, lo, hi);
        if (per_row) pg_buf_puts(&fo, " with r = i / cols");
        ne[0] = synth_fe_t(&T, kv, "quantize {fdt} to {qdt}"); ne[1] = synth_fe_t(&T, kv, per_row ? "per-channel int8 quantization" : "per-tensor int8 quantization");
        ne[2] = synth_fe_t(&T, kv, zpk ? "affine (asymmetric) quantization to {qdt}" : "symmetric quantization to {qdt}"); ne[3] = synth_fe_t(&T, kv, "{fdt} -> {qdt} quantizer with saturation");
        ne[4] = synth_fe_t(&T, kv, "round and saturate to 8-bit integers");
        nz[0] = synth_fe_t(&T, kv, "{fdt} 量化为 {qdt}"); nz[1] = per_row ? "逐通道 int8 量化" : "逐张量 int8 量化"; nz[2] = zpk ? "非对称量化" : "对称量化";
        pg_buf_printf(&t1, "%s each value {x}[i] %s %s (a float operation), rounds to the nearest integer %s%s%s, clamps to {rng} and stores the %s result in {q}", mult ? "multiplies" : "divides",
                      mult ? "by" : "by", scale_w, away ? "with halves going away from zero" : "with ties to even", zpk ? ", adds " : "", zpk ? zp_w : "", qdt);
        ee[0] = synth_fe_t(&T, kv, synth_fe_t(&T, kv, t1.data));
        pg_buf t2 = {0};
        pg_buf_printf(&t2, "quantizes each value of {x}: code = saturate(round(value %s %s)%s%s) into {rng}, where round sends exact halves %s; the codes go to {q}", mult ? "*" : "/",
                      per_row ? "{s}[row]" : "{s}", zpk ? " + " : "", zpk == 2 ? "{z}[row]" : zpk ? "{z}" : "", away ? "away from zero" : "to the even neighbour");
        ee[1] = synth_fe_t(&T, kv, t2.data);
        pg_buf_free(&t2);
        /* h114: this explanation used to name only the scale's granularity; it now states the
         * three facts a plan must keep (multiply or divide, the tie rule, the clip range) in
         * words drawn from a stream of their own (no other draw moves).  test_synth_prose_facts
         * reads them back against the CUDA the sample compiles. */
        {
            fam_rng qr = {seed ^ 0x7166616374730000ull};
            static const char *const MUL[] = {"multiply it by %s", "scale it by %s (a multiply)", "take it times %s"};
            static const char *const DIV[] = {"divide it by %s", "take it over %s (a divide)", "divide it by %s (a float divide)"};
            static const char *const EVEN[] = {"a value exactly halfway takes the even integer", "ties to even", "a tie rounds to the even neighbour"};
            static const char *const AWAY[] = {"a value exactly halfway moves away from zero", "ties away from zero", "a tie rounds away from zero"};
            static const char *const CLIP[] = {"clamp it into [%d, %d]", "saturate to %d..%d", "keep it within %d to %d (clamp)"};
            char clip[64];
            snprintf(clip, sizeof clip, CLIP[synth_fam_pick(&qr, 3)], lo, hi);
            char op[64];
            snprintf(op, sizeof op, mult ? MUL[synth_fam_pick(&qr, 3)] : DIV[synth_fam_pick(&qr, 3)], per_row ? "{s}[r]" : "{s}");
            const char *tie = away ? AWAY[synth_fam_pick(&qr, 3)] : EVEN[synth_fam_pick(&qr, 3)];
            const char *zw = zpk == 2 ? ", add the row's zero point {z}[r]" : zpk ? ", then add the zero point ({z})" : "";
            pg_buf t4 = {0};
            if (per_row) pg_buf_printf(&t4, "turn a rows x cols {fdt} matrix into {qdt} codes with one scale per row (row = i / cols): for each value, %s, round to the nearest integer (%s)%s, %s",
                                       op, tie, zw, clip);
            else pg_buf_printf(&t4, "turn n {fdt} values into {qdt} codes with one scale for the whole tensor: for each value, %s, round to the nearest integer (%s)%s, %s", op, tie, zw, clip);
            ee[2] = synth_fe_t(&T, kv, t4.data);
            pg_buf_free(&t4);
        }
        {   /* h114: the tie rule too (zz[1] had it, zz[0] did not) */
            pg_buf z0 = {0};
            pg_buf_printf(&z0, "把 {x} 的每个值%s {s}%s，舍入为整数（恰好一半时%s）%s，饱和到 {rng}，存为 {qdt} 写入 {q}", mult ? "乘以" : "除以", per_row ? "（每行一个）" : "",
                          away ? "远离零" : "取偶数", zpk ? "后加零点 {z}" : "");
            zz[0] = synth_fe_t(&T, kv, z0.data);
            pg_buf_free(&z0);
        }
        pg_buf t3 = {0};
        pg_buf_printf(&t3, "量化：code = 饱和到 {rng}(舍入({x} %s %s)%s%s)，舍入时恰好一半%s，结果存为 {qdt} 写入 {q}", mult ? "*" : "/", per_row ? "{s}[行]" : "{s}", zpk ? " + " : "",
                      zpk == 2 ? "{z}[行]" : zpk ? "{z}" : "", away ? "远离零方向进位" : "取偶数");
        zz[1] = synth_fe_t(&T, kv, t3.data);
        pg_buf_free(&t3);
    }
    ne[5] = NULL; nz[3] = NULL; ee[3] = NULL; zz[2] = NULL;
    const char *hw[] = {synth_fe_how_en(&T, V, gs), NULL}, *hzz[] = {synth_fe_how_zh(&T, V, gs), NULL};
    pg_buf notes = {0}, notez = {0}, shp = {0}, shz = {0};
    pg_buf_puts(&notes, "Integer results must match exactly");
    pg_buf_puts(&notez, "整数结果必须完全一致");
    if (!per_row) { pg_buf_printf(&notes, "; %s = %s", SC, svl); pg_buf_printf(&notez, "；%s = %s", SC, svl); }
    if (zpk == 1) { pg_buf_printf(&notes, ", %s = %s (int)", ZP, zpl); pg_buf_printf(&notez, "，%s = %s（int）", ZP, zpl); }
    if (per_row) {
        pg_buf_printf(&shp, "%s and %s are rows x cols row-major (%s and %s); %s has rows floats%s", X, Q, fdt, qdt, SC, zpk == 2 ? synth_fe_t(&T, kv, ", {z} rows ints") : "");
        pg_buf_printf(&shz, "%s 与 %s 为 rows×cols 行主序（%s / %s）；%s 每行一个 float%s", X, Q, fdt, qdt, SC, zpk == 2 ? synth_fe_t(&T, kv, "，{z} 每行一个 int") : "");
    } else {
        pg_buf_printf(&shp, "%s holds n %s values, %s n %s codes", X, fdt, Q, qdt);
        pg_buf_printf(&shz, "%s 有 n 个 %s，%s 有 n 个 %s", X, fdt, Q, qdt);
    }
    desc_facts f = {.name_en = ne, .name_zh = nz, .formula = fo.data, .explain_en = ee, .explain_zh = zz, .how_en = hw, .how_zh = hzz, .shape_en = shp.data, .shape_zh = shz.data,
                    .notes_en = notes.data, .notes_zh = notez.data};
    char bytes[48];
    snprintf(bytes, sizeof bytes, "%d*%s", synth_fe_size(fdt) + 1, per_row ? "rows*cols" : "n");
    synth_fe_finish(root, &f, seed, deq ? fdt : qdt, 0.0, NULL, 0, synth_fam_ref(synth_fam_elem_quant), bytes, per_row ? "3*rows*cols" : "3*n", &s->task_json);
    pg_buf_free(&fo); pg_buf_free(&t1); pg_buf_free(&notes); pg_buf_free(&notez); pg_buf_free(&shp); pg_buf_free(&shz);
    pg_buf_free(&sig); pg_buf_free(&body);
    synth_fe_strs_free(&T);
    return PG_OK;
}
