/* family_rowwise_reduce.c — the reduction families of the row-wise curriculum:
 *
 *   reduce_all  one value from a whole array, combined into a one-element
 *               accumulator with atomics: sum, sum of |x|, sum of squares,
 *               dot product, max, min, max |x|; f32/f64; grid-stride loop
 *               under a capped grid, 1/2/4/8 elements per thread or
 *               float2/float4/double2 loads, shuffle or shared-memory-tree
 *               block reduction, then atomicAdd, the float-bits atomicMax/Min
 *               trick, an atomicCAS loop or (max |x|) one signed atomicMax on
 *               the bits of the non-negative value; grid min(cdiv(n, K x the
 *               step per block), cap) for K = 1/2/4/8, the step written with
 *               blockDim.x or the block size as a literal
 *   rowreduce   one value per row of a rows x cols matrix (sum, mean, max,
 *               min, max |x|, sum of squares, L2 norm, argmax, argmin with the
 *               smallest index on ties) with a thread, a warp or a block per
 *               row, or per column (a thread per column walking down the rows,
 *               coalesced across threads); f32/f64/f16/bf16 inputs
 *
 * References: src/task/refs_rowwise_reduce.c (task_ref_fam_reduce_all, task_ref_fam_rowreduce). */
#include "family_rowwise.h"

#include <stdio.h>
#include <string.h>

/* ======================================================================================== *
 * reduce_all
 * ======================================================================================== */
enum { RA_SUM, RA_ASUM, RA_SUMSQ, RA_DOT, RA_MAX, RA_MIN, RA_ABSMAX, RA_N };
/* how a block's value reaches out[0]: atomicAdd, the float-bits atomicMax/Min pair, an atomicCAS
 * loop, or (max |x|: the value is >= 0) one signed atomicMax on its bits */
enum { RA_CB_ADD, RA_CB_BITS, RA_CB_CAS, RA_CB_BITSNN };
static const char *const RAN[] = {"sum", "asum", "sumsq", "dot", "max", "min", "absmax"};

pg_status synth_fam_rw_reduce_all(uint64_t seed, synth_family_sample *s) {
    fam_rng r = {seed ^ 0x726564616c6c0003ull};
    int op = synth_fam_pick(&r, RA_N);
    bool f64 = synth_fam_pick(&r, 3) == 0;
    int B = 128 << synth_fam_pick(&r, 4);
    bool tree = synth_fam_pick(&r, 3) == 0;
    int V = synth_fam_pick(&r, 3) == 0 ? (f64 ? 2 : 2 << synth_fam_pick(&r, 2)) : 1;
    if (V == 8) V = 4;
    int E = V == 1 ? 1 << synth_fam_pick(&r, 4) : 1;
    int cap = 256 << synth_fam_pick(&r, 5);   /* 256 .. 4096 blocks */
    int combine = op < RA_MAX ? 0 : synth_fam_pick(&r, 2) ? 1 : 2;   /* atomicAdd / float-bits atomicMax-Min / atomicCAS loop */
    if (f64 && combine == 1) combine = 2;
    /* held out (bench/suite): f32 max |x| and f64 dot product with 256-thread blocks */
    if (B == 256 && ((op == RA_ABSMAX && !f64) || (op == RA_DOT && f64))) B = 512;
    /* The launch variants, from a stream of their own (the draws above are those of every
     * earlier sample): the grid is min(cdiv(n, B*E*V*K), cap), so for K > 1 its divisor is K
     * times the loop's step per block (the step always follows the block, never the divisor);
     * the loop writes its step with blockDim.x/gridDim.x ("bdx") or with the block size as a
     * literal.  max |x| may also combine with the plain signed atomicMax on the bits of its
     * non-negative value ("bitsnn"; f64: the long long atomicMax, sm_50+). */
    fam_rng rl = {seed ^ 0x72656461676c6e63ull};
    static const int KS[] = {1, 1, 2, 4, 8};
    int K = KS[synth_fam_pick(&rl, 5)];
    bool bdx = synth_fam_pick(&rl, 2);
    if (op == RA_ABSMAX) {
        static const int CF32[] = {RA_CB_BITSNN, RA_CB_BITSNN, RA_CB_BITS, RA_CB_CAS}, CF64[] = {RA_CB_BITSNN, RA_CB_CAS};
        combine = f64 ? CF64[synth_fam_pick(&rl, 2)] : CF32[synth_fam_pick(&rl, 4)];
    }
    const char *T = f64 ? "f64" : "f32", *CT = f64 ? "double" : "float";
    static const char *const XN[] = {"x", "a", "in", "input", "v", "data"};
    static const char *const YN[] = {"y", "b", "in2", "other", "w", "data2"};
    static const char *const ON[] = {"out", "result", "accum", "res", "total"};
    int xi = synth_fam_pick(&r, 6);
    const char *X = XN[xi], *Y = YN[xi], *O = ON[synth_fam_pick(&r, 5)];
    snprintf(s->family, sizeof s->family, "reduce_all");
    snprintf(s->source, sizeof s->source, "nvcc");
    static const char *CB[] = {"atomic", "bits", "cas", "bitsnn"};
    char tag[48], ktag[16] = "";
    if (K > 1) snprintf(ktag, sizeof ktag, "_k%d", K);
    snprintf(tag, sizeof tag, "b%d%s_%s%d%s%s_%s", B, tree ? "t" : "", V > 1 ? "v" : "e", V > 1 ? V : E, bdx ? "d" : "", ktag, CB[combine]);
    static const char *PRE[RA_N][2] = {{"reduce_sum", "sum_all"}, {"asum", "sum_abs"}, {"sumsq", "sum_squares"}, {"dot", "dot_product"},
                                       {"reduce_max", "max_all"}, {"reduce_min", "min_all"}, {"absmax", "amax"}};
    snprintf(s->name, sizeof s->name, "%s_%s_%s", PRE[op][synth_fam_pick(&r, 2)], T, tag);
    synth_fam_fit_name(s->name);   /* within the decoder's PG_NAME_MAX */
    snprintf(s->identity, sizeof s->identity, "reduce_all:%s:%s:%s", RAN[op], T, tag);

    /* ---- CUDA C ---- */
    int rop = op < RA_MAX ? RW_SUM : op == RA_MIN ? RW_MIN : RW_MAX;
    const char *FABS = f64 ? "fabs" : "fabsf";
    pg_buf *c = &s->cu;
    pg_buf_printf(c, "// %s: %s of %s %s%s into %s[0] (grid-stride, block reduction, one atomic per block).\n", s->name, RAN[op], CT, X,
                  op == RA_DOT ? " and y" : "", O);
    pg_buf_printf(c, "extern \"C\" __global__ void %s(const %s* __restrict__ %s, ", s->name, CT, X);
    if (op == RA_DOT) pg_buf_printf(c, "const %s* __restrict__ %s, ", CT, Y);
    pg_buf_printf(c, "%s* __restrict__ %s, unsigned int n)\n{\n", CT, O);
    pg_buf_printf(c, "    __shared__ %s red[%d];\n", CT, tree ? B : 32);
    pg_buf_puts(c, tree ? "    unsigned int tid = threadIdx.x;\n" : "    unsigned int tid = threadIdx.x, lane = tid & 31, wid = tid >> 5;\n");
    pg_buf_printf(c, "    %s acc = %s;\n", CT, synth_fam_rw_ident(rop));
    /* the term of element e (an lvalue expression of x, f of y) */
#define TERM(buf, xe, ye)                                                                                 \
    do {                                                                                                  \
        if (op == RA_ASUM || op == RA_ABSMAX) snprintf(buf, sizeof buf, "%s(%s)", FABS, xe);              \
        else if (op == RA_SUMSQ) snprintf(buf, sizeof buf, "%s * %s", xe, xe);                            \
        else if (op == RA_DOT) snprintf(buf, sizeof buf, "%s * %s", xe, ye);                              \
        else snprintf(buf, sizeof buf, "%s", xe);                                                         \
    } while (0)
    char term[160], xe[64], ye[64];
    const char *comb = rop == RW_SUM ? "acc += %s;" : rop == RW_MAX ? (f64 ? "acc = fmax(acc, %s);" : "acc = fmaxf(acc, %s);")
                                                                      : (f64 ? "acc = fmin(acc, %s);" : "acc = fminf(acc, %s);");
    if (V > 1) {
        const char *vt = f64 ? "double2" : V == 4 ? "float4" : "float2";
        static const char *CM[] = {"x", "y", "z", "w"};
        if (bdx) pg_buf_printf(c, "    size_t nv = n / %d, gtid = (size_t)blockIdx.x * blockDim.x + tid, gstride = (size_t)gridDim.x * blockDim.x;\n", V);
        else pg_buf_printf(c, "    size_t nv = n / %d, gtid = (size_t)blockIdx.x * %d + tid, gstride = (size_t)gridDim.x * %d;\n", V, B, B);
        pg_buf_printf(c, "    const %s* xv = reinterpret_cast<const %s*>(%s);   // %d-wide loads (cudaMalloc'd buffers are 16-byte aligned)\n", vt, vt, X, V);
        if (op == RA_DOT) pg_buf_printf(c, "    const %s* yv = reinterpret_cast<const %s*>(%s);\n", vt, vt, Y);
        pg_buf_printf(c, "    for (size_t j = gtid; j < nv; j += gstride) {\n        %s va = xv[j];\n", vt);
        if (op == RA_DOT) pg_buf_printf(c, "        %s vb = yv[j];\n", vt);
        for (int k = 0; k < V; k++) {
            snprintf(xe, sizeof xe, "va.%s", CM[k]);
            snprintf(ye, sizeof ye, "vb.%s", CM[k]);
            TERM(term, xe, ye);
            pg_buf_puts(c, "        ");
            pg_buf_printf(c, comb, term);
            pg_buf_putc(c, '\n');
        }
        pg_buf_puts(c, "    }\n");
        pg_buf_printf(c, "    for (size_t i = nv * %d + gtid; i < n; i += gstride)   // the tail that does not fill a vector\n        ", V);
    } else {
        if (bdx && E == 1)
            pg_buf_puts(c, "    for (size_t i = (size_t)blockIdx.x * blockDim.x + tid; i < n; i += (size_t)gridDim.x * blockDim.x)   // step: all the grid's threads\n        ");
        else if (bdx)
            pg_buf_printf(c, "    for (size_t base = (size_t)blockIdx.x * blockDim.x * %d + tid; base < n; base += (size_t)gridDim.x * blockDim.x * %d) {\n", E, E);
        else pg_buf_printf(c, "    for (size_t base = (size_t)blockIdx.x * %d + tid; base < n; base += (size_t)gridDim.x * %d) {\n", B * E, B * E);
        if (!bdx || E > 1) {
            if (E > 1) pg_buf_puts(c, "#pragma unroll\n");
            pg_buf_printf(c, "        for (int k = 0; k < %d; k++) {   // %d coalesced elements per thread per step\n", E, E);
            if (bdx) pg_buf_puts(c, "            size_t i = base + (size_t)k * blockDim.x;\n            if (i < n) ");
            else pg_buf_printf(c, "            size_t i = base + (size_t)k * %d;\n            if (i < n) ", B);
        }
    }
    snprintf(xe, sizeof xe, "%s[i]", X);
    snprintf(ye, sizeof ye, "%s[i]", Y);
    TERM(term, xe, ye);
#undef TERM
    pg_buf_printf(c, comb, term);
    pg_buf_puts(c, V > 1 || (bdx && E == 1) ? "\n" : "\n        }\n    }\n");
    synth_fam_rw_block_reduce(c, "    ", "acc", rop, f64, B, tree);
    pg_buf_puts(c, "    if (tid == 0) {   // one atomic per block\n");
    if (combine == RA_CB_ADD) pg_buf_printf(c, "        atomicAdd(%s, acc);\n", O);
    else if (combine == RA_CB_BITSNN) {
        pg_buf_puts(c, "        // acc = max |x| >= 0: its bits order like signed integers, above every negative value's\n");
        if (f64) pg_buf_printf(c, "        atomicMax((long long*)%s, __double_as_longlong(acc));\n", O);
        else pg_buf_printf(c, "        atomicMax((int*)%s, __float_as_int(acc));\n", O);
    } else if (combine == RA_CB_BITS) {
        pg_buf_puts(c, "        // non-negative floats order like signed ints, negative ones in reverse like unsigned ints\n");
        if (rop == RW_MAX)
            pg_buf_printf(c, "        if (acc >= 0) atomicMax((int*)%s, __float_as_int(acc));\n        else atomicMin((unsigned int*)%s, __float_as_uint(acc));\n", O, O);
        else pg_buf_printf(c, "        if (acc >= 0) atomicMin((int*)%s, __float_as_int(acc));\n        else atomicMax((unsigned int*)%s, __float_as_uint(acc));\n", O, O);
    } else {
        const char *ut = f64 ? "unsigned long long" : "unsigned int", *tob = f64 ? "__double_as_longlong" : "__float_as_uint";
        const char *frb = f64 ? "__longlong_as_double" : "__uint_as_float", *mm = rop == RW_MAX ? (f64 ? "fmax" : "fmaxf") : (f64 ? "fmin" : "fminf");
        pg_buf_printf(c, "        %s* addr = (%s*)%s;\n        %s old = *addr, assumed;\n", ut, ut, O, ut);
        pg_buf_puts(c, "        do {   // retry until no other block changed the value in between\n");
        pg_buf_printf(c, "            assumed = old;\n            old = atomicCAS(addr, assumed, (%s)%s(%s(%s(assumed), acc)));\n", ut, tob, mm, frb);
        pg_buf_puts(c, "        } while (old != assumed);\n");
    }
    pg_buf_puts(c, "    }\n}\n");

    /* ---- task.json ---- */
    json_t *root = json_object();
    synth_fam_rw_head(root, s);
    json_object_set_new(root, "family_params", json_pack("{s:s, s:s, s:s, s:s, s:s}", "op", RAN[op], "dtype", T, "x", X, "y", op == RA_DOT ? Y : "", "out", O));
    char pt[8];
    snprintf(pt, sizeof pt, "%s*", T);
    json_t *ps = json_array();
    json_array_append_new(ps, synth_fam_rw_ptr(X, pt, "in", "n"));
    if (op == RA_DOT) json_array_append_new(ps, synth_fam_rw_ptr(Y, pt, "in", "n"));
    static const char *OD[RA_N][2] = {{"const(0)", "const(1.5)"}, {"const(0)", "const(1.5)"}, {"const(0)", "const(1.5)"}, {"const(0)", "const(-2)"},
                                      {"const(-3)", "const(0.5)"}, {"const(3)", "const(-0.5)"}, {"const(0)", "const(3.5)"}};
    json_array_append_new(ps, synth_fam_rw_ptr_dist(O, pt, "inout", "1", OD[op][0], OD[op][1]));
    json_array_append_new(ps, synth_fam_rw_scal("n", "u32", "n"));
    json_object_set_new(root, "params", ps);
    static const int64_t SZ[2][6] = {{16777216, 1000003, 4099, 777, 33, 1}, {33554431, 999999, 65537, 1025, 7, 1}};
    static const char *SV[] = {"n"};
    json_object_set_new(root, "sizes", synth_fam_rw_sizes(SV, 1, SZ[synth_fam_pick(&r, 2)], 6));
    char blk[8], grid[48];
    snprintf(blk, sizeof blk, "%d", B);
    snprintf(grid, sizeof grid, "min(cdiv(n,%d),%d)", B * E * V * K, cap);
    json_object_set_new(root, "launch", json_pack("{s:[s], s:[s], s:s}", "block", blk, "grid", grid, "smem", "0"));

    /* ---- descriptions ---- */
    rw_pool P = {0};
    static const char *FE[RA_N] = {"%s[0] += sum_i %s[i]", "%s[0] += sum_i |%s[i]|", "%s[0] += sum_i %s[i]^2", "%s[0] += sum_i %s[i]*%s[i]",
                                   "%s[0] = max(%s[0], max_i %s[i])", "%s[0] = min(%s[0], min_i %s[i])", "%s[0] = max(%s[0], max_i |%s[i]|)"};
    const char *formula = op == RA_DOT ? synth_fam_rw_str(&P, FE[op], O, X, Y) : op >= RA_MAX ? synth_fam_rw_str(&P, FE[op], O, O, X) : synth_fam_rw_str(&P, FE[op], O, X);
    static const char *NE[RA_N][5] = {
        {"sum reduction", "sum of an array", "total of all elements", "parallel sum into one value", "global sum with atomics"},
        {"sum of absolute values", "L1 norm of a vector", "asum (BLAS)", "absolute sum reduction", "sum |x|"},
        {"sum of squares", "squared L2 norm", "sum of x^2 reduction", "energy of a signal", "squared Euclidean norm"},
        {"dot product", "inner product of two vectors", "BLAS dot", "sum of elementwise products", "vector dot reduction"},
        {"max reduction", "maximum of an array", "global max with atomics", "largest element", "array maximum"},
        {"min reduction", "minimum of an array", "global min with atomics", "smallest element", "array minimum"},
        {"max absolute value", "infinity norm", "amax (largest magnitude)", "max |x| reduction", "L-infinity norm of a vector"}};
    static const char *NZ[RA_N][3] = {{"求和归约", "数组求和", "全局求和"},         {"绝对值之和", "L1 范数", "绝对值求和"},
                                      {"平方和", "L2 范数的平方", "平方和归约"},     {"点积", "向量内积", "点积归约"},
                                      {"最大值归约", "数组最大值", "全局最大值"},     {"最小值归约", "数组最小值", "全局最小值"},
                                      {"最大绝对值", "无穷范数", "绝对值最大值"}};
    const char *name_en[6] = {NE[op][0], NE[op][1], NE[op][2], NE[op][3], NE[op][4], NULL};
    const char *name_zh[4] = {NZ[op][0], NZ[op][1], NZ[op][2], NULL};
    static const char *WE[RA_N] = {"the sum of all n elements of %s", "the sum of the absolute values of %s", "the sum of the squares of %s",
                                   "the sum of %s[i] times %s[i] over all i", "the largest element of %s", "the smallest element of %s",
                                   "the largest absolute value in %s"};
    const char *what = op == RA_DOT ? synth_fam_rw_str(&P, WE[op], X, Y) : synth_fam_rw_str(&P, WE[op], X);
    const char *into = op < RA_MAX ? synth_fam_rw_str(&P, "add it to %s[0], a one-element accumulator that already holds a value", O)
                                   : synth_fam_rw_str(&P, "combine it with the value already in %s[0] (keep the %s of the two)", O, op == RA_MIN ? "smaller" : "larger");
    const char *ex_en[4] = {synth_fam_rw_str(&P, "compute %s and %s", what, into), synth_fam_rw_str(&P, "reduce the whole array to %s, then %s", what, into),
                            synth_fam_rw_str(&P, "find %s in one launch and %s", what, into), NULL};
    static const char *WZ[RA_N] = {"%s 所有元素之和", "%s 各元素绝对值之和", "%s 各元素平方和", "%s 与 %s 的逐元素乘积之和", "%s 的最大元素", "%s 的最小元素",
                                   "%s 中绝对值最大的值"};
    const char *wz = op == RA_DOT ? synth_fam_rw_str(&P, WZ[op], X, Y) : synth_fam_rw_str(&P, WZ[op], X);
    const char *iz = op < RA_MAX ? synth_fam_rw_str(&P, "累加到 %s[0]（已有初值）", O) : synth_fam_rw_str(&P, "与 %s[0] 的原值比较取%s", O, op == RA_MIN ? "较小者" : "较大者");
    const char *ex_zh[3] = {synth_fam_rw_str(&P, "计算%s，%s", wz, iz), synth_fam_rw_str(&P, "一次启动内把整个数组归约为%s，%s", wz, iz), NULL};
    const char *how_en[4], *how_zh[3];
    const char *ld = V > 1 ? synth_fam_rw_str(&P, "%s loads (tail handled separately)", f64 ? "double2" : V == 4 ? "float4" : "float2")
                           : synth_fam_rw_str(&P, "%d element%s per thread per step", E, E > 1 ? "s" : "");
    static const char *CE[] = {"one atomicAdd per block", "one atomicMax/atomicMin per block on the float's bit pattern (signed order for >= 0, reversed unsigned order for < 0)",
                               "an atomicCAS retry loop per block", "one signed atomicMax per block on the bit pattern of the non-negative block maximum"};
    static const char *CZ[] = {"每块一次 atomicAdd", "每块一次基于浮点位模式的 atomicMax/atomicMin", "每块一次 atomicCAS 重试循环", "每块对非负最大值的位模式做一次有符号 atomicMax"};
    how_en[0] = synth_fam_rw_str(&P, "grid-stride loop with %s, %s block reduction, %s", ld, tree ? "shared-memory tree" : "warp-shuffle + shared-memory", CE[combine]);
    how_en[1] = synth_fam_rw_str(&P, "%d threads per block, at most %d blocks; %s", B, cap, CE[combine]);
    how_en[2] = synth_fam_rw_str(&P, "a grid-stride loop that steps by gridDim.x * %d %s whatever the grid (min(cdiv(n,%d),%d) blocks) is; %s", V > 1 ? B : B * E,
                                 V > 1 ? "vectors" : "elements", B * E * V * K, cap, CE[combine]);
    how_en[3] = NULL;
    how_zh[0] = synth_fam_rw_str(&P, "网格步长循环，块内归约，%s", CZ[combine]);
    how_zh[1] = NULL;
    desc_facts f = {0};
    f.name_en = name_en; f.name_zh = name_zh; f.formula = formula; f.explain_en = ex_en; f.explain_zh = ex_zh; f.how_en = how_en; f.how_zh = how_zh;
    f.data = DESC_DATA_VECTOR;
    f.vec_width = V > 1 ? V : 0;
    f.hints = DESC_HINT_COALESCED | DESC_HINT_MEMBOUND | DESC_HINT_GRID_STRIDE | DESC_HINT_SMEM | (tree ? 0u : DESC_HINT_SHUFFLE) |
              (rop == RW_SUM ? DESC_HINT_ATOMIC : rop == RW_MAX ? DESC_HINT_ATOMIC_MAX : DESC_HINT_ATOMIC_MIN);
    f.shape_en = op == RA_DOT ? synth_fam_rw_str(&P, "%s and %s hold n %s values; %s is a single %s", X, Y, CT, O, CT) : synth_fam_rw_str(&P, "%s holds n %s values; %s is a single %s", X, CT, O, CT);
    f.shape_zh = synth_fam_rw_str(&P, "%s 含 n 个%s元素，%s 只有一个元素", X, f64 ? "双精度" : "单精度", O);
    f.notes_en = op >= RA_MAX ? "The result is exact (no rounding)" : "The order of the atomic additions varies, so the result is checked with a relative tolerance";
    f.notes_zh = op >= RA_MAX ? "结果精确" : "原子加的顺序不定，按相对误差检查";
    char bytes[32];
    snprintf(bytes, sizeof bytes, "%d*n", (f64 ? 8 : 4) * (op == RA_DOT ? 2 : 1));
    bool signed_data = op == RA_MAX || op == RA_MIN || op == RA_ABSMAX;
    synth_fam_rw_finish(root, &f, seed, signed_data ? "uniform(-1,1)" : "uniform(0,1)", signed_data ? "normal(0,100)" : "normal(1,2)", T,
                  op >= RA_MAX ? 0.0 : f64 ? 1e-10 : 1e-5, NULL, 0, synth_fam_ref(synth_fam_rw_reduce_all), bytes, op == RA_DOT || op == RA_SUMSQ ? "2*n" : "n", s);
    synth_fam_rw_pool_free(&P);
    return PG_OK;
}

/* ======================================================================================== *
 * rowreduce
 * ======================================================================================== */
enum { RR_SUM, RR_MEAN, RR_MAX, RR_MIN, RR_ABSMAX, RR_SUMSQ, RR_NORM2, RR_ARGMAX, RR_ARGMIN, RR_N };
static const char *const RRN[] = {"sum", "mean", "max", "min", "absmax", "sumsq", "norm2", "argmax", "argmin"};

/* the best (value, index) pair so far: a later candidate wins only when
 * strictly better or equal with a smaller index (first occurrence) */
static void arg_merge(pg_buf *c, const char *ind, bool mx, const char *bv, const char *bi, const char *ov, const char *oi) {
    pg_buf_printf(c, "%sif (%s %s %s || (%s == %s && %s < %s)) { %s = %s; %s = %s; }\n", ind, ov, mx ? ">" : "<", bv, ov, bv, oi, bi, bv, ov, bi, oi);
}

pg_status synth_fam_rw_rowreduce(uint64_t seed, synth_family_sample *s) {
    fam_rng r = {seed ^ 0x726f777265647563ull};
    int op = synth_fam_pick(&r, RR_N);
    rw_dt d = synth_fam_rw_dtype(synth_fam_rw_pick_dtype(&r, true));
    int lay = synth_fam_pick(&r, 8);   /* 0-1 thread per row, 2 thread per column, else warp/block per row */
    bool colmode = lay == 2, thread = lay < 2;
    rw_map m;
    synth_fam_rw_map_pick(&r, &m, true);
    int TB = 64 << synth_fam_pick(&r, 3);   /* threads per block of the thread-per-row/column layouts */
    if (colmode && op == RR_SUM && d.kind == RW_F32) op = RR_MEAN;   /* held out (bench/suite-prose): f32 column sums */
    bool arg = op >= RR_ARGMAX, mx = op == RR_ARGMAX;
    bool both = arg && synth_fam_pick(&r, 2);   /* argmax with the value too */
    static const char *const XN[] = {"x", "A", "in", "input", "mat", "src"};
    static const char *const ON[] = {"out", "y", "res", "result", "dst"};
    static const char *const IN[] = {"idx", "index", "indices", "pos"};
    const char *X = XN[synth_fam_pick(&r, 6)], *O = ON[synth_fam_pick(&r, 5)], *I = IN[synth_fam_pick(&r, 4)];
    const char *mt = d.mt, *OT = d.f64 ? "f64" : "f32", *ot = d.f64 ? "double" : "float";
    char tag[40];
    if (colmode) snprintf(tag, sizeof tag, "cols_t%d", TB);
    else if (thread) snprintf(tag, sizeof tag, "t%d", TB);
    else synth_fam_rw_map_tag(&m, tag, sizeof tag);
    snprintf(s->family, sizeof s->family, "rowreduce");
    snprintf(s->source, sizeof s->source, "nvcc");
    static const char *PRE[] = {"row", "rows", "per_row"};
    if (colmode) snprintf(s->name, sizeof s->name, "col%s_%s_%s%s", RRN[op], d.T, tag, both ? "_val" : "");
    else snprintf(s->name, sizeof s->name, "%s_%s_%s_%s%s", PRE[synth_fam_pick(&r, 3)], RRN[op], d.T, tag, both ? "_val" : "");
    synth_fam_fit_name(s->name);   /* within the decoder's PG_NAME_MAX */
    snprintf(s->identity, sizeof s->identity, "rowreduce:%s:%s:%s%s", RRN[op], d.T, tag, both ? ":val" : "");

    /* ---- CUDA C ---- */
    const char *FABS = d.f64 ? "fabs" : "fabsf", *SQRT = d.f64 ? "sqrt" : "sqrtf";
    int rop = op == RR_MAX || op == RR_ABSMAX ? RW_MAX : op == RR_MIN ? RW_MIN : RW_SUM;
    char term[64];
    if (op == RR_ABSMAX) snprintf(term, sizeof term, "%s(LD(%%s))", FABS);
    else if (op == RR_SUMSQ || op == RR_NORM2) snprintf(term, sizeof term, "LD(%%s) * LD(%%s)");
    else snprintf(term, sizeof term, "LD(%%s)");
    const char *comb = rop == RW_SUM ? "acc += " : rop == RW_MAX ? (d.f64 ? "acc = fmax(acc, " : "acc = fmaxf(acc, ") : (d.f64 ? "acc = fmin(acc, " : "acc = fminf(acc, ");
    const char *combe = rop == RW_SUM ? ";" : ");";
    pg_buf *c = &s->cu;
    pg_buf_printf(c, "// %s: %s of every %s of a rows x cols row-major %s matrix.\n", s->name, RRN[op], colmode ? "column" : "row", d.st);
    synth_fam_rw_macros(c, &d);
    pg_buf_printf(c, "extern \"C\" __global__ void %s(const %s* __restrict__ %s", s->name, d.st, X);
    if (!arg || both) pg_buf_printf(c, ", %s* __restrict__ %s", ot, O);
    if (arg) pg_buf_printf(c, ", int* __restrict__ %s", I);
    pg_buf_puts(c, ", unsigned int rows, unsigned int cols)\n{\n");
    const char *cnt = colmode ? "rows" : "cols";
    char fin[160];   /* the value written from acc */
    if (op == RR_MEAN) snprintf(fin, sizeof fin, "acc / (%s)%s", mt, cnt);
    else if (op == RR_NORM2) snprintf(fin, sizeof fin, "%s(acc)", SQRT);
    else snprintf(fin, sizeof fin, "acc");
    char el[96];
    if (colmode || thread) {
        if (colmode) {
            pg_buf_printf(c, "    unsigned int col = blockIdx.x * %d + threadIdx.x;   // neighbouring threads read neighbouring columns: coalesced\n", TB);
            pg_buf_puts(c, "    if (col >= cols) return;\n");
            snprintf(el, sizeof el, "%s[(size_t)row * cols + col]", X);
        } else {
            pg_buf_printf(c, "    unsigned int row = blockIdx.x * %d + threadIdx.x;\n    if (row >= rows) return;\n", TB);
            pg_buf_printf(c, "    const %s* xrow = %s + (size_t)row * cols;\n", d.st, X);
            snprintf(el, sizeof el, "xrow[col]");
        }
        const char *it = colmode ? "row" : "col";
        if (arg) {
            char el0[64];
            snprintf(el0, sizeof el0, colmode ? "%s[col]" : "xrow[0]", X);
            pg_buf_printf(c, "    %s best = LD(%s);\n    int bi = 0;\n", mt, el0);
            pg_buf_printf(c, "    for (unsigned int %s = 1; %s < %s; %s++) {\n        %s v = LD(%s);\n", it, it, cnt, it, mt, el);
            pg_buf_printf(c, "        if (v %s best) { best = v; bi = (int)%s; }   // strict: the first occurrence wins ties\n    }\n", mx ? ">" : "<", it);
            pg_buf_printf(c, "    %s[%s] = bi;\n", I, colmode ? "col" : "row");
            if (both) pg_buf_printf(c, "    %s[%s] = best;\n", O, colmode ? "col" : "row");
        } else {
            pg_buf_printf(c, "    %s acc = %s;\n", mt, synth_fam_rw_ident(rop));
            char t[96];
            snprintf(t, sizeof t, term, el, el);
            pg_buf_printf(c, "    for (unsigned int %s = 0; %s < %s; %s++) %s%s%s\n", it, it, cnt, it, comb, t, combe);
            pg_buf_printf(c, "    %s[%s] = %s;\n", O, colmode ? "col" : "row", fin);
        }
        pg_buf_puts(c, "}\n");
    } else {
        synth_fam_rw_map_open(c, &m, mt, !arg);
        const char *ind = m.gs ? "        " : "    ";
        const char *c0 = synth_fam_rw_map_c0(&m);
        char loop[128];
        snprintf(loop, sizeof loop, "for (unsigned int col = %s; col < cols; col += %d)", c0, m.warp ? 32 : m.block);
        pg_buf_printf(c, "%sconst %s* xrow = %s + (size_t)row * cols;\n", ind, d.st, X);
        if (arg) {
            pg_buf_printf(c, "%s%s best = %s;\n%sint bi = 0x7fffffff;   // no column yet\n", ind, mt, mx ? "-INFINITY" : "INFINITY", ind);
            pg_buf_printf(c, "%s%s {   // each thread's columns increase: strict comparison keeps the first\n%s    %s v = LD(xrow[col]);\n", ind, loop, ind, mt);
            pg_buf_printf(c, "%s    if (v %s best) { best = v; bi = (int)col; }\n%s}\n", ind, mx ? ">" : "<", ind);
            char ind2[24];
            snprintf(ind2, sizeof ind2, "%s    ", ind);
            if (m.tree) {
                pg_buf_printf(c, "%s__shared__ %s redv[%d];\n%s__shared__ int redi[%d];\n", ind, mt, m.block, ind, m.block);
                pg_buf_printf(c, "%sredv[tid] = best;\n%sredi[tid] = bi;\n%s__syncthreads();\n", ind, ind, ind);
                pg_buf_printf(c, "%sfor (unsigned int stride = %d; stride > 0; stride >>= 1) {\n%s    if (tid < stride) {\n", ind, m.block / 2, ind);
                pg_buf_printf(c, "%s        %s ov = redv[tid + stride];\n%s        int oi = redi[tid + stride];\n", ind, mt, ind);
                char ind3[32];
                snprintf(ind3, sizeof ind3, "%s        ", ind);
                arg_merge(c, ind3, mx, "best", "bi", "ov", "oi");
                pg_buf_printf(c, "%s        redv[tid] = best;\n%s        redi[tid] = bi;\n%s    }\n%s    __syncthreads();\n%s}\n", ind, ind, ind, ind, ind);
                pg_buf_printf(c, "%sbest = redv[0];\n%sbi = redi[0];\n%s__syncthreads();\n", ind, ind, ind);
            } else {
                for (int pass = 0; pass < (m.warp || m.block == 32 ? 1 : 2); pass++) {
                    if (pass == 1) {
                        pg_buf_printf(c, "%s__shared__ %s redv[32];\n%s__shared__ int redi[32];\n", ind, mt, ind);
                        pg_buf_printf(c, "%sif (lane == 0) { redv[wid] = best; redi[wid] = bi; }\n%s__syncthreads();\n", ind, ind);
                        pg_buf_printf(c, "%sbest = lane < %d ? redv[lane] : %s;\n%sbi = lane < %d ? redi[lane] : 0x7fffffff;\n", ind, m.block / 32,
                                      mx ? "-INFINITY" : "INFINITY", ind, m.block / 32);
                    }
                    pg_buf_printf(c, "%sfor (int o = 16; o > 0; o >>= 1) {\n", ind);
                    pg_buf_printf(c, "%s%s ov = __shfl_xor_sync(0xffffffffu, best, o);\n%sint oi = __shfl_xor_sync(0xffffffffu, bi, o);\n", ind2, mt, ind2);
                    arg_merge(c, ind2, mx, "best", "bi", "ov", "oi");
                    pg_buf_printf(c, "%s}\n", ind);
                    if (pass == 1) pg_buf_printf(c, "%s__syncthreads();   // redv/redi are rewritten by the next row\n", ind);
                }
            }
            pg_buf_printf(c, "%sif (%s == 0) {\n%s    %s[row] = bi;\n", ind, c0, ind, I);
            if (both) pg_buf_printf(c, "%s    %s[row] = best;\n", ind, O);
            pg_buf_printf(c, "%s}\n", ind);
        } else {
            char t[96];
            snprintf(t, sizeof t, term, "xrow[col]", "xrow[col]");
            pg_buf_printf(c, "%s%s acc = %s;\n%s%s %s%s%s\n", ind, mt, synth_fam_rw_ident(rop), ind, loop, comb, t, combe);
            synth_fam_rw_map_reduce(c, &m, ind, "acc", rop, d.f64);
            pg_buf_printf(c, "%sif (%s == 0) %s[row] = %s;\n", ind, c0, O, fin);
        }
        synth_fam_rw_map_close(c, &m);
        pg_buf_puts(c, "}\n");
    }
    synth_fam_rw_macros_end(c);

    /* ---- task.json ---- */
    json_t *root = json_object();
    synth_fam_rw_head(root, s);
    json_object_set_new(root, "family_params", json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "op", RRN[op], "dtype", d.T, "axis", colmode ? "rows" : "cols", "x",
                                                         X, "out", !arg || both ? O : "", "idx", arg ? I : ""));
    char pt[16], po[16];
    snprintf(pt, sizeof pt, "%s*", d.T);
    snprintf(po, sizeof po, "%s*", OT);
    const char *olen = colmode ? "cols" : "rows";
    json_t *ps = json_array();
    json_array_append_new(ps, synth_fam_rw_ptr(X, pt, "in", "rows*cols"));
    if (!arg || both) json_array_append_new(ps, synth_fam_rw_ptr(O, po, "out", olen));
    if (arg) json_array_append_new(ps, synth_fam_rw_ptr(I, "s32*", "out", olen));
    json_array_append_new(ps, synth_fam_rw_scal("rows", "u32", "rows"));
    json_array_append_new(ps, synth_fam_rw_scal("cols", "u32", "cols"));
    json_object_set_new(root, "params", ps);
    json_object_set_new(root, "sizes", synth_fam_rw_row_sizes(&r));
    char blk[8], grid[48];
    if (colmode || thread) {
        snprintf(blk, sizeof blk, "%d", TB);
        snprintf(grid, sizeof grid, "cdiv(%s,%d)", colmode ? "cols" : "rows", TB);
    } else {
        snprintf(blk, sizeof blk, "%s", m.blk);
        snprintf(grid, sizeof grid, "%s", m.grid);
    }
    json_object_set_new(root, "launch", json_pack("{s:[s], s:[s], s:s}", "block", blk, "grid", grid, "smem", "0"));

    /* ---- descriptions ---- */
    rw_pool P = {0};
    const char *ax = colmode ? "column" : "row", *axz = colmode ? "列" : "行";
    const char *ix = colmode ? synth_fam_rw_str(&P, "%s[r][c] over r", X) : synth_fam_rw_str(&P, "%s[r][c] over c", X);
    const char *k = colmode ? "c" : "r";
    static const char *FF[RR_N] = {"%s[%s] = sum of %s", "%s[%s] = (1/%s) * sum of %s", "%s[%s] = max of %s", "%s[%s] = min of %s", "%s[%s] = max of |%s|",
                                   "%s[%s] = sum of squares of %s", "%s[%s] = sqrt(sum of squares of %s)", "%s[%s] = first index of the max of %s",
                                   "%s[%s] = first index of the min of %s"};
    const char *formula = op == RR_MEAN ? synth_fam_rw_str(&P, FF[op], O, k, cnt, ix) : synth_fam_rw_str(&P, FF[op], arg ? I : O, k, ix);
    if (both) formula = synth_fam_rw_str(&P, "%s; %s[%s] = that %s value", formula, O, k, mx ? "max" : "min");
    static const char *NE[RR_N][4] = {{"sum of each %s", "%s-wise sum", "%s sums", "reduce-sum along the %s"},
                                      {"mean of each %s", "%s-wise average", "%s means", "reduce-mean along the %s"},
                                      {"max of each %s", "%s-wise maximum", "%s maxima", "reduce-max along the %s"},
                                      {"min of each %s", "%s-wise minimum", "%s minima", "reduce-min along the %s"},
                                      {"max absolute value of each %s", "%s-wise infinity norm", "%s amax", "largest magnitude per %s"},
                                      {"sum of squares of each %s", "%s-wise squared norm", "%s sum of squares", "squared L2 norm per %s"},
                                      {"L2 norm of each %s", "%s-wise Euclidean norm", "%s norms", "vector length of every %s"},
                                      {"argmax of each %s", "%s-wise argmax", "index of the largest entry per %s", "argmax along the %s"},
                                      {"argmin of each %s", "%s-wise argmin", "index of the smallest entry per %s", "argmin along the %s"}};
    static const char *NZ[RR_N] = {"求和", "求平均", "求最大值", "求最小值", "求最大绝对值", "求平方和", "求 L2 范数", "求 argmax", "求 argmin"};
    const char *name_en[6], *name_zh[4];
    for (int i = 0; i < 4; i++) name_en[i] = synth_fam_rw_str(&P, NE[op][i], ax);
    name_en[4] = NULL;
    name_zh[0] = synth_fam_rw_str(&P, "按%s%s", axz, NZ[op]);
    name_zh[1] = synth_fam_rw_str(&P, "每%s%s", axz, NZ[op]);
    name_zh[2] = synth_fam_rw_str(&P, "矩阵逐%s%s", axz, NZ[op]);
    name_zh[3] = NULL;
    static const char *WE[RR_N] = {"the sum of its entries", "the average of its entries", "its largest entry", "its smallest entry", "its largest absolute value",
                                   "the sum of the squares of its entries", "the square root of the sum of squares of its entries",
                                   "the index of its largest entry (the first one on ties)", "the index of its smallest entry (the first one on ties)"};
    static const char *WZ[RR_N] = {"元素之和", "元素平均值", "最大元素", "最小元素", "最大绝对值", "元素平方和", "平方和的平方根", "最大元素的下标（并列取最小下标）",
                                   "最小元素的下标（并列取最小下标）"};
    const char *dst = arg ? synth_fam_rw_str(&P, "%s[%s]%s", I, k, both ? synth_fam_rw_str(&P, " (and the value in %s[%s])", O, k) : "") : synth_fam_rw_str(&P, "%s[%s]", O, k);
    const char *ex_en[4] = {synth_fam_rw_str(&P, "write, for every %s of the rows x cols matrix %s, %s to %s", ax, X, WE[op], dst),
                            synth_fam_rw_str(&P, "reduce each %s of %s to %s and store it in %s", ax, X, WE[op], dst),
                            synth_fam_rw_str(&P, "collapse the %s dimension of %s: each %s gives %s, stored in %s", colmode ? "row" : "column", X, ax, WE[op], dst), NULL};
    const char *ex_zh[3] = {synth_fam_rw_str(&P, "对矩阵 %s 的每一%s求%s，写入 %s", X, axz, WZ[op], dst), synth_fam_rw_str(&P, "把 %s 的每%s归约为%s，结果存入 %s", X, axz, WZ[op], dst), NULL};
    const char *how_en[3] = {NULL, NULL, NULL}, *how_zh[2] = {NULL, NULL};
    if (colmode) {
        how_en[0] = "one thread per column walking down the rows (neighbouring threads read neighbouring columns, so the loads coalesce)";
        how_zh[0] = "每个线程负责一列，沿行向下遍历（相邻线程读相邻列，访存合并）";
    } else if (thread) {
        how_en[0] = "one thread per row, looping over the columns";
        how_zh[0] = "每个线程负责一行";
    } else if (m.warp) {
        how_en[0] = synth_fam_rw_str(&P, "one warp per row (%d per block), lanes stride the columns, shuffle reduction%s", m.rpb, arg ? " of (value, index) pairs" : "");
        how_zh[0] = "每个 warp 处理一行，shuffle 归约";
    } else {
        how_en[0] = synth_fam_rw_str(&P, "one %d-thread block per row, %s reduction%s", m.block, m.tree ? "shared-memory tree" : "shuffle + shared-memory", arg ? " of (value, index) pairs" : "");
        how_zh[0] = "每行一个线程块，块内归约";
    }
    desc_facts f = {0};
    f.name_en = name_en; f.name_zh = name_zh; f.formula = formula; f.explain_en = ex_en; f.explain_zh = ex_zh; f.how_en = how_en; f.how_zh = how_zh;
    f.data = DESC_DATA_MATRIX;
    f.hints = colmode ? DESC_HINT_COALESCED | DESC_HINT_MEMBOUND : thread ? 0u : synth_fam_rw_map_hints(&m);
    f.elems_per_thread = colmode || thread ? 1 : 0;   /* one output per thread */
    f.shape_en = synth_fam_rw_str(&P, "%s is a rows x cols row-major %s matrix; the output has one entry per %s (%s)%s", X, d.nm, ax, olen,
                            arg ? ", indices are int32" : "");
    f.shape_zh = synth_fam_rw_str(&P, "%s 为 rows×cols 行主序矩阵（%s），每%s输出一个值", X, d.zh, axz);
    f.notes_en = colmode ? "rows and cols are arbitrary" : "cols is arbitrary (may be 1)";
    f.notes_zh = "rows、cols 任意";
    char bytes[48];
    snprintf(bytes, sizeof bytes, "%d*rows*cols", d.kind >= RW_F16 ? 2 : d.f64 ? 8 : 4);
    bool exact = op == RR_MAX || op == RR_MIN || op == RR_ABSMAX || arg;
    synth_fam_rw_finish(root, &f, seed, "uniform(-1,1)", arg ? "int(-3,3)" : "normal(0,3)", arg ? "s32" : OT, arg ? 0.0 : exact ? 0.0 : d.f64 ? 1e-10 : 1e-5, both ? OT : NULL,
                  0.0, synth_fam_ref(synth_fam_rw_rowreduce), bytes, "rows*cols", s);
    synth_fam_rw_pool_free(&P);
    return PG_OK;
}
