/* family_sparse_batched.c — the "batched" family (CUDA C, nvcc): many
 * small independent products packed back to back (sizes are runtime
 * arguments, M, K, N <= 64).
 *
 *   op       mv: y_b = A_b x_b (A_b M x K);  mvt: y_b = A_b^T x_b (y_b has K
 *            entries);  mm: C_b = A_b B_b (M x K times K x N)
 *   mapping  thread per output element (block 64..512, optionally a
 *            grid-stride loop under a capped grid), or one block per batch
 *            entry that stages the entry's operands in dynamic shared memory
 *            (launch smem = operand bytes) and loops over its outputs
 *   dtype    f32/f64
 *
 * Reference: task_ref_fam_batched (src/task/refs_sparse_linalg.c). */
#include "family_sparse.h"

#include <stdio.h>
#include <string.h>

enum { BT_MV, BT_MVT, BT_MM, BT_N };

pg_status synth_fam_gen_batched(uint64_t seed, synth_family_sample *s) {
    fam_rng r = {seed ^ 0x6261746368000016ull};
    int op = synth_fam_pick(&r, BT_N);
    bool f64 = synth_fam_pick(&r, 4) == 0, per_block = synth_fam_pick(&r, 3) == 0, gs = synth_fam_pick(&r, 3) == 0;
    int block = 64 << synth_fam_pick(&r, 4);
    if (per_block) { block = 32 << synth_fam_pick(&r, 3); gs = false; }
    int cap = 512 << synth_fam_pick(&r, 2);
    /* the held-out suite has the f32 thread-per-output mat-vec with 256 threads (batched_small_matvec) */
    if (op == BT_MV && !f64 && !per_block && !gs && block == 256) block = 128;
    const char *T = f64 ? "f64" : "f32", *CT = f64 ? "double" : "float";
    static const char *const NM[][3] = {{"A", "x", "y"}, {"mats", "vecs", "out"}, {"A", "v", "w"}, {"W", "in", "out"}};
    static const char *const NMM[][3] = {{"A", "B", "C"}, {"a", "b", "c"}, {"lhs", "rhs", "out"}, {"X", "W", "Y"}};
    int nn = synth_fam_pick(&r, 4);
    const char *A = op == BT_MM ? NMM[nn][0] : NM[nn][0], *X = op == BT_MM ? NMM[nn][1] : NM[nn][1], *Y = op == BT_MM ? NMM[nn][2] : NM[nn][2];
    const char *BN = synth_fam_pick(&r, 3) ? "batch" : "nb";   /* the batch count's name */
    static const char *const OPS[] = {"mv", "mvt", "mm"};
    static const char *const ON[][2] = {{"batched_mv", "bmv"}, {"batched_mvt", "batched_gemv_t"}, {"batched_mm", "bmm_small"}};
    char map[24];
    if (per_block) snprintf(map, sizeof map, "blk%d_smem", block);
    else snprintf(map, sizeof map, "t%d%s", block, gs ? "_gs" : "");
    snprintf(s->name, sizeof s->name, "%s_%s_%s", ON[op][synth_fam_pick(&r, 2)], T, map);
    snprintf(s->identity, sizeof s->identity, "batched:%s:%s:%s:%d:%s", OPS[op], T, per_block ? "block" : "thread", block, gs ? "gs" : "grid");
    const char *n = s->name;

    /* output count per entry, and its index decomposition */
    const char *per = op == BT_MV ? "M" : op == BT_MVT ? "K" : "M * N";
    /* ---- CUDA C ---- */
    pg_buf *c = &s->cu;
    pg_buf_printf(c, "// %s: %s for %s small %s matrices, %s.\n", n, op == BT_MV ? "y_b = A_b x_b" : op == BT_MVT ? "y_b = A_b^T x_b" : "C_b = A_b B_b", BN, CT,
                  per_block ? "one block per entry, operands staged in dynamic shared memory" : "one thread per output element");
    pg_buf_printf(c, "extern \"C\" __global__ void %s(const %s* __restrict__ %s, const %s* __restrict__ %s, %s* __restrict__ %s,\n"
                     "    unsigned int %s, unsigned int M, unsigned int K%s)\n{\n",
                  n, CT, A, CT, X, CT, Y, BN, op == BT_MM ? ", unsigned int N" : "");
    /* the body for output o (0 <= o < per) of entry b, operands at a (A_b) and v (x_b / B_b) */
    pg_buf body = {0};
    if (op == BT_MV) pg_buf_printf(&body, "%s acc = 0;\nfor (unsigned int k = 0; k < K; k++) acc += a_[o_ * K + k] * v_[k];\n%s[(size_t)b_ * M + o_] = acc;\n", CT, Y);
    else if (op == BT_MVT) pg_buf_printf(&body, "%s acc = 0;\nfor (unsigned int i = 0; i < M; i++) acc += a_[i * K + o_] * v_[i];\n%s[(size_t)b_ * K + o_] = acc;\n", CT, Y);
    else pg_buf_printf(&body, "unsigned int i = o_ / N, j = o_ %% N;\n%s acc = 0;\nfor (unsigned int k = 0; k < K; k++) acc += a_[i * K + k] * v_[k * N + j];\n%s[(size_t)b_ * M * N + o_] = acc;\n", CT, Y);
    const char *vlen = op == BT_MV ? "K" : op == BT_MVT ? "M" : "K * N";
    pg_buf ind = {0};
    const char *pad = per_block || gs ? "        " : "    ";
    for (const char *p = body.data; *p;) {
        const char *e = strchr(p, '\n');
        pg_buf_printf(&ind, "%s%.*s\n", pad, (int)(e - p), p);
        p = e + 1;
    }
    if (per_block) {
        /* one raw extern array for every kernel of a translation unit, typed by a cast */
        pg_buf_printf(c, "    extern __shared__ __align__(16) unsigned char sm_raw[];\n    %s* sm = reinterpret_cast<%s*>(sm_raw);   // A_b (M*K), then %s\n", CT, CT,
                      op == BT_MM ? "B_b (K*N)" : "the vector");
        pg_buf_printf(c, "    unsigned int b_ = blockIdx.x;\n    unsigned int na = M * K, nv = %s;\n", vlen);
        pg_buf_printf(c, "    const %s* ga = %s + (size_t)b_ * na;\n    const %s* gv = %s + (size_t)b_ * nv;\n", CT, A, CT, X);
        pg_buf_puts(c, "    for (unsigned int e = threadIdx.x; e < na; e += blockDim.x) sm[e] = ga[e];\n");
        pg_buf_puts(c, "    for (unsigned int e = threadIdx.x; e < nv; e += blockDim.x) sm[na + e] = gv[e];\n    __syncthreads();\n");
        pg_buf_printf(c, "    const %s* a_ = sm;\n    const %s* v_ = sm + na;\n", CT, CT);
        pg_buf_printf(c, "    for (unsigned int o_ = threadIdx.x; o_ < %s; o_ += blockDim.x) {\n%s    }\n}\n", per, ind.data);
    } else {
        pg_buf_printf(c, "    size_t per_ = %s, total_ = (size_t)%s * per_;\n", per, BN);
        if (gs) pg_buf_puts(c, "    for (size_t g_ = (size_t)blockIdx.x * blockDim.x + threadIdx.x; g_ < total_; g_ += (size_t)gridDim.x * blockDim.x) {\n");
        else pg_buf_puts(c, "    size_t g_ = (size_t)blockIdx.x * blockDim.x + threadIdx.x;\n    if (g_ < total_) {\n");
        pg_buf_printf(c, "        size_t b_ = g_ / per_;\n        unsigned int o_ = (unsigned int)(g_ %% per_);\n");
        pg_buf_printf(c, "        const %s* a_ = %s + b_ * M * K;\n        const %s* v_ = %s + b_ * %s;\n", CT, A, CT, X, op == BT_MV ? "K" : op == BT_MVT ? "M" : "K * N");
        pg_buf_printf(c, "%s    }\n}\n", ind.data);
    }
    pg_buf_free(&body);
    pg_buf_free(&ind);

    /* ---- task.json ---- */
    synth_sp_seal_name(s);
    sp_task t;
    synth_sp_begin(&t, s, "batched");
    char pt[8], la[32], lv[32], ly[32];
    snprintf(pt, sizeof pt, "%s*", T);
    snprintf(la, sizeof la, "%s*M*K", BN);
    snprintf(lv, sizeof lv, "%s*%s", BN, op == BT_MV ? "K" : op == BT_MVT ? "M" : "K*N");
    snprintf(ly, sizeof ly, "%s*%s", BN, op == BT_MV ? "M" : op == BT_MVT ? "K" : "M*N");
    synth_sp_ptr(&t, A, pt, "in", la, NULL, NULL);
    synth_sp_ptr(&t, X, pt, "in", lv, NULL, NULL);
    synth_sp_ptr(&t, Y, pt, "out", ly, NULL, NULL);
    synth_sp_scal(&t, BN, "u32", BN);
    synth_sp_scal(&t, "M", "u32", "M");
    synth_sp_scal(&t, "K", "u32", "K");
    if (op == BT_MM) synth_sp_scal(&t, "N", "u32", "N");
    char sizes[600];
    if (op == BT_MM)
        snprintf(sizes, sizeof sizes,
                 "[{\"%s\": 65536, \"M\": 8, \"K\": 8, \"N\": 8, \"time\": true}, {\"%s\": 1000, \"M\": 5, \"K\": 7, \"N\": 3},"
                 " {\"%s\": 20, \"M\": 32, \"K\": 32, \"N\": 32}, {\"%s\": 1, \"M\": 1, \"K\": 1, \"N\": 1}, {\"%s\": 77, \"M\": 3, \"K\": 12, \"N\": 9}]",
                 BN, BN, BN, BN, BN);
    else
        snprintf(sizes, sizeof sizes,
                 "[{\"%s\": 131072, \"M\": 16, \"K\": 12, \"time\": true}, {\"%s\": 999, \"M\": 7, \"K\": 5}, {\"%s\": 40, \"M\": 64, \"K\": 33},"
                 " {\"%s\": 1, \"M\": 1, \"K\": 1}, {\"%s\": 70, \"M\": 3, \"K\": 17}]",
                 BN, BN, BN, BN, BN);
    synth_sp_sizes(&t, sizes);
    char blk[8], grid[64], smem[48];
    snprintf(blk, sizeof blk, "%d", block);
    int es = f64 ? 8 : 4;
    if (per_block) {
        snprintf(grid, sizeof grid, "%s", BN);
        snprintf(smem, sizeof smem, "%d*(M*K + %s)", es, op == BT_MV ? "K" : op == BT_MVT ? "M" : "K*N");
    } else {
        char tot[32];
        snprintf(tot, sizeof tot, "%s*%s", BN, op == BT_MV ? "M" : op == BT_MVT ? "K" : "M*N");
        if (gs) snprintf(grid, sizeof grid, "min(cdiv(%s,%d),%d)", tot, block, cap);
        else snprintf(grid, sizeof grid, "cdiv(%s,%d)", tot, block);
        snprintf(smem, sizeof smem, "0");
    }
    synth_sp_launch(&t, blk, NULL, NULL, grid, NULL, NULL, smem);
    json_t *fp = json_pack("{s:s, s:s, s:s, s:i, s:b, s:s, s:s, s:s, s:s}", "op", OPS[op], "dtype", T, "mapping", per_block ? "block" : "thread",
                           "block", block, "grid_stride", gs, "a", A, "x", X, "y", Y, "batch", BN);
    synth_sp_fparams(&t, fp);

    /* ---- descriptions ---- */
    sp_facts f = {0};
    if (op == BT_MV) {
        pg_buf_printf(&f.formula, "%s[b*M + i] = sum_{k<K} %s[(b*M + i)*K + k] * %s[b*K + k]", Y, A, X);
        synth_sp_add(&f.name_en, "batched small matrix-vector products");
        synth_sp_add(&f.name_en, "many tiny GEMVs at once");
        synth_sp_add(&f.name_en, "batched mat-vec (M x K matrices)");
        synth_sp_add(&f.name_en, "strided-batched GEMV");
        synth_sp_add(&f.name_zh, "批量小矩阵向量乘");
        synth_sp_add(&f.name_zh, "批量 GEMV");
        synth_sp_add(&f.name_zh, "大量小矩阵乘向量");
        synth_sp_add(&f.explain_en, "multiply each of the %s row-major M x K matrices packed back to back in %s by its own K-vector from %s and write the M results per entry to %s", BN, A, X, Y);
        synth_sp_add(&f.explain_en, "compute, for every batch entry b and row i, the dot product of row i of matrix b with vector b");
        synth_sp_add(&f.explain_zh, "%s 依次存放 %s 个 M×K 行主序矩阵，%s 存放对应的长度 K 向量；把每个矩阵乘以自己的向量，结果写入 %s", A, BN, X, Y);
        synth_sp_add(&f.explain_zh, "对每个批次 b 和行 i，计算第 b 个矩阵第 i 行与第 b 个向量的点积");
    } else if (op == BT_MVT) {
        pg_buf_printf(&f.formula, "%s[b*K + k] = sum_{i<M} %s[(b*M + i)*K + k] * %s[b*M + i]", Y, A, X);
        synth_sp_add(&f.name_en, "batched transposed matrix-vector products");
        synth_sp_add(&f.name_en, "batched A^T x for small matrices");
        synth_sp_add(&f.name_en, "many tiny GEMV-T at once");
        synth_sp_add(&f.name_en, "batched vector-matrix product x^T A");
        synth_sp_add(&f.name_zh, "批量转置矩阵向量乘");
        synth_sp_add(&f.name_zh, "批量 Aᵀx");
        synth_sp_add(&f.name_zh, "大量小矩阵的转置乘向量");
        synth_sp_add(&f.explain_en, "apply each of the %s row-major M x K matrices packed in %s, transposed, to its own M-vector from %s and write the K weighted column sums per entry to %s", BN, A, X, Y);
        synth_sp_add(&f.explain_en, "apply the transpose of every small matrix to its own vector, giving K values per batch entry");
        synth_sp_add(&f.explain_zh, "%s 依次存放 %s 个 M×K 行主序矩阵，%s 每个矩阵对应一个长度 M 的向量；对每个矩阵输出按该向量加权的 K 个列和", A, BN, X);
        synth_sp_add(&f.explain_zh, "把每个小矩阵的转置乘以对应向量，每个批次得到 K 个值");
    } else {
        pg_buf_printf(&f.formula, "%s[b*M*N + i*N + j] = sum_{k<K} %s[b*M*K + i*K + k] * %s[b*K*N + k*N + j]", Y, A, X);
        synth_sp_add(&f.name_en, "batched small matrix multiply");
        synth_sp_add(&f.name_en, "bmm for tiny matrices");
        synth_sp_add(&f.name_en, "strided-batched GEMM (small)");
        synth_sp_add(&f.name_en, "many small matmuls at once");
        synth_sp_add(&f.name_zh, "批量小矩阵乘法");
        synth_sp_add(&f.name_zh, "批量 GEMM");
        synth_sp_add(&f.name_zh, "大量小矩阵相乘");
        synth_sp_add(&f.explain_en, "multiply, for every batch entry b, the M x K matrix b of %s by the K x N matrix b of %s into the M x N matrix b of %s; all matrices are row-major and packed back to back", A, X, Y);
        synth_sp_add(&f.explain_en, "compute an ordinary matrix product for each of the %s independent entries, with M, K, N up to 32", BN);
        synth_sp_add(&f.explain_zh, "对每个批次 b，把 %s 中第 b 个 M×K 矩阵乘以 %s 中第 b 个 K×N 矩阵，写入 %s 的第 b 个 M×N 矩阵（均为行主序、紧密排列）", A, X, Y);
        synth_sp_add(&f.explain_zh, "%s 组互相独立的小矩阵乘法", BN);
    }
    if (per_block) {
        synth_sp_add(&f.how_en, "one %d-thread block per batch entry: copy the entry's operands into dynamic shared memory, synchronize, then loop over its outputs", block);
        synth_sp_add(&f.how_en, "block per matrix with the operands staged in extern __shared__ memory");
        synth_sp_add(&f.how_zh, "每个批次一个线程块（%d 线程），先把操作数拷入动态共享内存，再循环计算输出", block);
    } else {
        synth_sp_add(&f.how_en, "one thread per output element over the flattened batch%s", gs ? " with a grid-stride loop (the grid is capped)" : "");
        synth_sp_add(&f.how_en, "flat thread-per-output mapping, global index = entry * outputs-per-entry + output");
        synth_sp_add(&f.how_zh, "每个线程一个输出元素%s", gs ? "，网格有上限，使用网格跨步循环" : "");
    }
    pg_buf_printf(&f.shape_en, "The %s entries are packed back to back; M, K%s are small runtime sizes", BN, op == BT_MM ? ", N" : "");
    pg_buf_printf(&f.shape_zh, "%s 个批次紧密排列；M、K%s 为运行时给出的小尺寸", BN, op == BT_MM ? "、N" : "");
    char bytes[128], flops[40];
    snprintf(bytes, sizeof bytes, "%d*(%s + %s + %s)", es, la, lv, ly);
    snprintf(flops, sizeof flops, "2*%s*M*K%s", BN, op == BT_MM ? "*N" : "");
    f.data = DESC_DATA_MATRIX;
    f.hints = (per_block ? DESC_HINT_SMEM : 0u) | (gs ? DESC_HINT_GRID_STRIDE : 0u);
    f.elems_per_thread = per_block ? 0 : 1;
    synth_sp_finish(&t, &f, seed, "uniform(-1,1)", "normal(0,10)", T, f64 ? 1e-11 : 1e-5, synth_fam_ref(synth_fam_gen_batched), bytes, flops);
    synth_sp_facts_free(&f);
    return PG_OK;
}
