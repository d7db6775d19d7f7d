/* family_sparse_rowpair.c — the "rowpair" family (CUDA C, nvcc): one value
 * per pair of matching rows of two rows x cols row-major matrices.
 *
 *   op       dot product, cosine similarity (eps either as max(|a||b|, eps)
 *            or added: |a||b| + eps), squared Euclidean distance, Euclidean
 *            distance
 *   mapping  thread per row (block 64..512), warp per row (2/4/8/16 rows per
 *            block, shuffle reductions), block per row (64..512 threads,
 *            shuffles then shared memory across warps)
 *   dtype    f32/f64
 *
 * Reference: task_ref_fam_rowpair (src/task/refs_sparse_linalg.c). */
#include "family_sparse.h"

#include <stdio.h>
#include <string.h>

enum { RP_DOT, RP_COS, RP_SQD, RP_L2D, RP_N };

pg_status synth_fam_gen_rowpair(uint64_t seed, synth_family_sample *s) {
    fam_rng r = {seed ^ 0x726f777061690014ull};
    int op = synth_fam_pick(&r, RP_N), map = synth_fam_pick(&r, 3);   /* 0 thread, 1 warp, 2 block */
    bool f64 = synth_fam_pick(&r, 4) == 0, epsmax = synth_fam_pick(&r, 2);
    int rpb = 2 << synth_fam_pick(&r, 4), block = map == 1 ? 32 * rpb : 64 << synth_fam_pick(&r, 4);
    /* held out (bench/suite cosine_sim_rows): the f32 warp-per-row cosine with 8 rows per block, either eps */
    if (op == RP_COS && !f64 && map == 1 && rpb == 8) { rpb = 4; block = 128; }
    const char *T = f64 ? "f64" : "f32", *CT = f64 ? "double" : "float";
    static const char *const NM[][3] = {{"a", "b", "out"}, {"x", "y", "res"}, {"u", "v", "r"}, {"q", "k", "score"}, {"lhs", "rhs", "dst"}};
    int nn = synth_fam_pick(&r, 5);
    const char *A = NM[nn][0], *B = NM[nn][1], *O = NM[nn][2];
    static const char *const OPS[] = {"dot", "cosine", "sqdist", "l2dist"};
    static const char *const ON[][2] = {{"rowdot", "batched_dot"}, {"cosine_rows", "cos_sim"}, {"row_sqdist", "pair_sqdist"}, {"row_l2dist", "pair_dist"}};
    static const char *const MAP[] = {"thread", "warp", "block"};
    snprintf(s->name, sizeof s->name, "%s_%s_%s%d%s", ON[op][synth_fam_pick(&r, 2)], T, MAP[map], map == 1 ? rpb : block,
             op == RP_COS ? (epsmax ? "_epsmax" : "_epsadd") : "");
    snprintf(s->identity, sizeof s->identity, "rowpair:%s:%s:%s:%d:%s", OPS[op], T, MAP[map], map == 1 ? rpb : block,
             op == RP_COS ? (epsmax ? "max" : "add") : "-");
    const char *n = s->name;
    bool three = op == RP_COS;
    const char *SQ = f64 ? "sqrt" : "sqrtf";

    /* ---- CUDA C ---- */
    pg_buf *c = &s->cu;
    pg_buf_printf(c, "// %s: %s of matching rows of %s and %s (%s), %s per row.\n", n, OPS[op], A, B, CT, MAP[map]);
    pg_buf_printf(c, "extern \"C\" __global__ void %s(const %s* __restrict__ %s, const %s* __restrict__ %s, %s* __restrict__ %s,%s\n"
                     "    unsigned int rows, unsigned int cols)\n{\n",
                  n, CT, A, CT, B, CT, O, three ? (f64 ? " double eps," : " float eps,") : "");
    /* per-element update and the final value from s0 (and s1, s2) */
    char upd[160], fin[200];
    if (op == RP_DOT) snprintf(upd, sizeof upd, "s0 += pa[c] * pb[c];");
    else if (op == RP_COS) snprintf(upd, sizeof upd, "%s p = pa[c], q_ = pb[c]; s0 += p * q_; s1 += p * p; s2 += q_ * q_;", CT);
    else snprintf(upd, sizeof upd, "%s t = pa[c] - pb[c]; s0 += t * t;", CT);
    if (op == RP_COS && epsmax) snprintf(fin, sizeof fin, "s0 / %s(%s(s1) * %s(s2), eps)", f64 ? "fmax" : "fmaxf", SQ, SQ);
    else if (op == RP_COS) snprintf(fin, sizeof fin, "s0 / (%s(s1) * %s(s2) + eps)", SQ, SQ);
    else if (op == RP_L2D) snprintf(fin, sizeof fin, "%s(s0)", SQ);
    else snprintf(fin, sizeof fin, "s0");
    const char *decl = three ? "s0 = 0, s1 = 0, s2 = 0" : "s0 = 0";
    if (map == 0) {
        pg_buf_puts(c, "    unsigned int row = blockIdx.x * blockDim.x + threadIdx.x;\n    if (row >= rows) return;\n");
        pg_buf_printf(c, "    const %s* pa = %s + (size_t)row * cols;\n    const %s* pb = %s + (size_t)row * cols;\n    %s %s;\n", CT, A, CT, B, CT, decl);
        pg_buf_printf(c, "    for (unsigned int c = 0; c < cols; c++) { %s }\n", upd);
        pg_buf_printf(c, "    %s[row] = %s;\n}\n", O, fin);
    } else if (map == 1) {
        pg_buf_printf(c, "    unsigned int row = blockIdx.x * %d + threadIdx.x / 32, lane = threadIdx.x %% 32;\n", rpb);
        pg_buf_puts(c, "    if (row >= rows) return;   // warp-uniform: the shuffles below see full warps\n");
        pg_buf_printf(c, "    const %s* pa = %s + (size_t)row * cols;\n    const %s* pb = %s + (size_t)row * cols;\n    %s %s;\n", CT, A, CT, B, CT, decl);
        pg_buf_printf(c, "    for (unsigned int c = lane; c < cols; c += 32) { %s }\n", upd);
        pg_buf_puts(c, "    for (int off = 16; off > 0; off /= 2) {\n        s0 += __shfl_xor_sync(0xffffffffu, s0, off);\n");
        if (three) pg_buf_puts(c, "        s1 += __shfl_xor_sync(0xffffffffu, s1, off);\n        s2 += __shfl_xor_sync(0xffffffffu, s2, off);\n");
        pg_buf_printf(c, "    }\n    if (lane == 0) %s[row] = %s;\n}\n", O, fin);
    } else {
        int nw = block / 32;
        pg_buf_printf(c, "    __shared__ %s part[%d][%d];   // per-warp partial sums\n", CT, three ? 3 : 1, nw);
        pg_buf_puts(c, "    unsigned int row = blockIdx.x, lane = threadIdx.x % 32, w = threadIdx.x / 32;\n");
        pg_buf_printf(c, "    const %s* pa = %s + (size_t)row * cols;\n    const %s* pb = %s + (size_t)row * cols;\n    %s %s;\n", CT, A, CT, B, CT, decl);
        pg_buf_printf(c, "    for (unsigned int c = threadIdx.x; c < cols; c += %d) { %s }\n", block, upd);
        pg_buf_puts(c, "    for (int off = 16; off > 0; off /= 2) {\n        s0 += __shfl_xor_sync(0xffffffffu, s0, off);\n");
        if (three) pg_buf_puts(c, "        s1 += __shfl_xor_sync(0xffffffffu, s1, off);\n        s2 += __shfl_xor_sync(0xffffffffu, s2, off);\n");
        pg_buf_puts(c, "    }\n    if (lane == 0) {\n        part[0][w] = s0;\n");
        if (three) pg_buf_puts(c, "        part[1][w] = s1;\n        part[2][w] = s2;\n");
        pg_buf_puts(c, "    }\n    __syncthreads();\n    if (threadIdx.x == 0) {\n");
        pg_buf_printf(c, "        s0 = 0;%s\n        for (int ww = 0; ww < %d; ww++) {\n            s0 += part[0][ww];\n", three ? " s1 = 0; s2 = 0;" : "", nw);
        if (three) pg_buf_puts(c, "            s1 += part[1][ww];\n            s2 += part[2][ww];\n");
        pg_buf_printf(c, "        }\n        %s[row] = %s;\n    }\n}\n", O, fin);
    }

    /* ---- task.json ---- */
    synth_sp_seal_name(s);
    sp_task t;
    synth_sp_begin(&t, s, "rowpair");
    char pt[8];
    snprintf(pt, sizeof pt, "%s*", T);
    synth_sp_ptr(&t, A, pt, "in", "rows*cols", NULL, NULL);
    synth_sp_ptr(&t, B, pt, "in", "rows*cols", NULL, NULL);
    synth_sp_ptr(&t, O, pt, "out", "rows", NULL, NULL);
    static const char *const EPSV[] = {"1e-8", "1e-6", "1e-12"};
    const char *epsv = EPSV[synth_fam_pick(&r, 3)];
    if (three) synth_sp_scal(&t, "eps", T, epsv);
    synth_sp_scal(&t, "rows", "u32", "rows");
    synth_sp_scal(&t, "cols", "u32", "cols");
    synth_sp_sizes(&t, "[{\"rows\": 65536, \"cols\": 512, \"time\": true}, {\"rows\": 1000, \"cols\": 999}, {\"rows\": 37, \"cols\": 4099},"
                 " {\"rows\": 300, \"cols\": 3}, {\"rows\": 1, \"cols\": 1}]");
    char blk[8], grid[32];
    snprintf(blk, sizeof blk, "%d", block);
    if (map == 0) snprintf(grid, sizeof grid, "cdiv(rows,%d)", block);
    else if (map == 1) snprintf(grid, sizeof grid, "cdiv(rows,%d)", rpb);
    else snprintf(grid, sizeof grid, "rows");
    synth_sp_launch(&t, blk, NULL, NULL, grid, NULL, NULL, "0");
    json_t *fp = json_pack("{s:s, s:s, s:s, s:i, s:s, s:s, s:s, s:s}", "op", OPS[op], "dtype", T, "mapping", MAP[map], "block", block, "eps_rule",
                           epsmax ? "max" : "add", "a", A, "b", B, "out", O);
    synth_sp_fparams(&t, fp);

    /* ---- descriptions ---- */
    sp_facts f = {0};
    switch (op) {
    case RP_DOT:
        pg_buf_printf(&f.formula, "%s[r] = sum_{c<cols} %s[r*cols + c] * %s[r*cols + c]", O, A, B);
        synth_sp_add(&f.name_en, "row-wise dot products");
        synth_sp_add(&f.name_en, "batched dot product of matching rows");
        synth_sp_add(&f.name_en, "per-row inner product of two matrices");
        synth_sp_add(&f.name_en, "rowwise dot(%s, %s)", A, B);
        synth_sp_add(&f.name_zh, "逐行点积");
        synth_sp_add(&f.name_zh, "批量向量点积");
        synth_sp_add(&f.name_zh, "两个矩阵对应行的内积");
        synth_sp_add(&f.explain_en, "multiply, for every row r, the entries of row r of %s and row r of %s position by position and add them up into %s[r]", A, B, O);
        synth_sp_add(&f.explain_en, "treat each row of %s and the same row of %s as vectors and store their dot product, one value per row", A, B);
        synth_sp_add(&f.explain_zh, "对每一行 r，把 %s 与 %s 第 r 行对应位置相乘后求和，写入 %s[r]", A, B, O);
        synth_sp_add(&f.explain_zh, "把两个矩阵的同一行看成向量，求点积，每行一个结果");
        break;
    case RP_COS:
        if (epsmax) pg_buf_printf(&f.formula, "%s[r] = dot(%s_r, %s_r) / max(||%s_r|| * ||%s_r||, eps)", O, A, B, A, B);
        else pg_buf_printf(&f.formula, "%s[r] = dot(%s_r, %s_r) / (||%s_r|| * ||%s_r|| + eps)", O, A, B, A, B);
        synth_sp_add(&f.name_en, "cosine similarity of row pairs");
        synth_sp_add(&f.name_en, "row-wise cosine similarity");
        synth_sp_add(&f.name_en, "cos_sim between matching rows");
        synth_sp_add(&f.name_en, "pairwise cosine similarity along the last dim");
        synth_sp_add(&f.name_zh, "逐行余弦相似度");
        synth_sp_add(&f.name_zh, "对应行的 cosine 相似度");
        synth_sp_add(&f.name_zh, "两组向量的余弦相似度");
        synth_sp_add(&f.explain_en, "divide, for each row, the dot product of the two rows by the product of their Euclidean lengths%s", epsmax ? ", using eps instead when that product is smaller than eps" : " plus eps");
        synth_sp_add(&f.explain_en, "compute the cosine of the angle between row r of %s and row r of %s, %s", A, B, epsmax ? "with the denominator clamped below at eps" : "with eps added to the denominator");
        synth_sp_add(&f.explain_zh, "每行计算两行向量的点积，除以两者长度之积%s", epsmax ? "（不小于 eps）" : "加 eps");
        synth_sp_add(&f.explain_zh, "求 %s 与 %s 对应行的夹角余弦", A, B);
        break;
    default:
        if (op == RP_SQD) pg_buf_printf(&f.formula, "%s[r] = sum_{c<cols} (%s[r*cols + c] - %s[r*cols + c])^2", O, A, B);
        else pg_buf_printf(&f.formula, "%s[r] = sqrt(sum_{c<cols} (%s[r*cols + c] - %s[r*cols + c])^2)", O, A, B);
        synth_sp_add(&f.name_en, op == RP_SQD ? "squared distance between matching rows" : "Euclidean distance between matching rows");
        synth_sp_add(&f.name_en, op == RP_SQD ? "row-wise squared L2 distance" : "row-wise L2 distance");
        synth_sp_add(&f.name_en, op == RP_SQD ? "per-row sum of squared differences" : "per-row Euclidean norm of the difference");
        synth_sp_add(&f.name_en, "paired %s", op == RP_SQD ? "squared distances" : "distances");
        synth_sp_add(&f.name_zh, op == RP_SQD ? "逐行平方欧氏距离" : "逐行欧氏距离");
        synth_sp_add(&f.name_zh, op == RP_SQD ? "对应行差的平方和" : "对应行之间的 L2 距离");
        synth_sp_add(&f.name_zh, op == RP_SQD ? "成对平方距离" : "成对距离");
        synth_sp_add(&f.explain_en, "add up, for each row r, the squared differences between row r of %s and row r of %s%s", A, B, op == RP_L2D ? " and take the square root" : "");
        synth_sp_add(&f.explain_en, "compute %s between each row of %s and the same row of %s, one value per row", op == RP_SQD ? "the squared Euclidean distance" : "the Euclidean distance", A, B);
        synth_sp_add(&f.explain_zh, "对每一行 r，累加 %s 与 %s 第 r 行对应元素之差的平方%s", A, B, op == RP_L2D ? "，再开平方" : "");
        synth_sp_add(&f.explain_zh, "计算两个矩阵同一行之间的%s", op == RP_SQD ? "平方欧氏距离" : "欧氏距离");
        break;
    }
    if (map == 0) {
        synth_sp_add(&f.how_en, "one thread per row looping over its columns");
        synth_sp_add(&f.how_zh, "每个线程处理一行");
    } else if (map == 1) {
        synth_sp_add(&f.how_en, "one warp per row (%d rows per block): lanes stride the columns, then __shfl_xor_sync reductions", rpb);
        synth_sp_add(&f.how_en, "warp-per-row with shuffle reductions");
        synth_sp_add(&f.how_zh, "每个 warp 一行（每块 %d 行），lane 按 32 步长遍历列，再用 shuffle 归约", rpb);
    } else {
        synth_sp_add(&f.how_en, "one %d-thread block per row: strided partial sums, warp shuffles, then shared memory across the warps", block);
        synth_sp_add(&f.how_en, "block-per-row reduction");
        synth_sp_add(&f.how_zh, "每个线程块（%d 线程）处理一行，先 warp 内 shuffle 归约再用共享内存合并", block);
    }
    pg_buf_printf(&f.shape_en, "%s and %s are rows x cols row-major; %s has one value per row", A, B, O);
    pg_buf_printf(&f.shape_zh, "%s、%s 为 rows×cols 行主序矩阵，%s 每行一个值", A, B, O);
    if (three) {
        pg_buf_printf(&f.notes_en, "eps = %s is a scalar parameter", epsv);
        pg_buf_printf(&f.notes_zh, "eps = %s 为标量参数", epsv);
    }
    char bytes[64], flops[32];
    int es = f64 ? 8 : 4;
    snprintf(bytes, sizeof bytes, "%d*(2*rows*cols + rows)", es);
    snprintf(flops, sizeof flops, "%d*rows*cols", three ? 6 : op == RP_DOT ? 2 : 3);
    f.data = DESC_DATA_MATRIX;
    f.hints = DESC_HINT_MEMBOUND | (map == 1 ? DESC_HINT_SHUFFLE | DESC_HINT_COALESCED : map == 2 ? DESC_HINT_SHUFFLE | DESC_HINT_SMEM | DESC_HINT_COALESCED : 0u);
    f.elems_per_thread = map == 0 ? 1 : 0;
    synth_sp_finish(&t, &f, seed, "uniform(-1,1)", "normal(1,2)", T, f64 ? 1e-11 : 1e-5, synth_fam_ref(synth_fam_gen_rowpair), bytes, flops);
    synth_sp_facts_free(&f);
    return PG_OK;
}
