/* family_sparse_gemvt.c — the "gemvt" family (CUDA C, nvcc): the
 * column-direction and rank-1 BLAS-2 operations on a rows x cols row-major
 * matrix.
 *
 *   gemv_t  y = A^T x (or y = alpha A^T x + beta y): thread per column
 *           (coalesced along rows, block 64..512), or 32 columns x TY row
 *           slices per block with the TY partial sums combined in shared
 *           memory (TY = 4/8/16)
 *   ger     A += alpha x y^T (A in/out), 2D grid, one element per thread
 *   outer   C = x y^T or C = alpha x y^T, 2D grid or a grid-stride loop
 *           over the flattened matrix under a capped grid
 *   dtype   f32/f64
 *
 * Reference: task_ref_fam_gemvt (src/task/refs_sparse_linalg.c). */
#include "family_sparse.h"

#include <stdio.h>
#include <string.h>

enum { GT_GEMVT, GT_GER, GT_OUTER, GT_N };

pg_status synth_fam_gen_gemvt(uint64_t seed, synth_family_sample *s) {
    fam_rng r = {seed ^ 0x67656d7674000015ull};
    int op = synth_fam_pick(&r, 4);
    if (op == 3) op = GT_GEMVT;   /* gemv_t twice as often: it has two mappings */
    bool f64 = synth_fam_pick(&r, 4) == 0, scaled = synth_fam_pick(&r, 2), split = synth_fam_pick(&r, 2), gs = synth_fam_pick(&r, 3) == 0;
    int block = 64 << synth_fam_pick(&r, 4), TY = 4 << synth_fam_pick(&r, 3);
    static const int BX[] = {32, 16, 64, 128}, BY[] = {8, 16, 4, 2};
    int b2 = synth_fam_pick(&r, 4);
    /* the held-out suite has the plain f32 thread-per-column A^T x with 256 threads (gemv_transposed) */
    if (op == GT_GEMVT && !scaled && !f64 && !split && block == 256) block = 128;
    if (op != GT_OUTER) gs = false;
    if (op == GT_GER) scaled = true;
    const char *T = f64 ? "f64" : "f32", *CT = f64 ? "double" : "float";
    static const char *const NM[][3] = {{"A", "x", "y"}, {"W", "v", "out"}, {"M", "u", "w"}, {"mat", "vec", "res"}};
    int nn = synth_fam_pick(&r, 4);
    const char *A = NM[nn][0], *X = NM[nn][1], *Y = NM[nn][2];
    static const char *const OPS[] = {"gemv_t", "ger", "outer"};
    if (op == GT_GEMVT) {
        static const char *const ST[] = {"gemv_t_%s_%s", "gemvT_%s_%s", "matvec_transposed_%s_%s", "at_x_%s_%s"};
        char map[24];
        if (split) snprintf(map, sizeof map, "split%d", TY);
        else snprintf(map, sizeof map, "col_b%d", block);
        snprintf(s->name, sizeof s->name, ST[synth_fam_pick(&r, 4)], T, map);
    } else if (op == GT_GER) {
        static const char *const ST[] = {"ger_%s_%dx%d", "rank1_update_%s_%dx%d", "sger_like_%s_%dx%d"};
        snprintf(s->name, sizeof s->name, ST[synth_fam_pick(&r, 3)], T, BX[b2], BY[b2]);
    } else {
        static const char *const ST[] = {"outer_%s_%s", "outer_product_%s_%s", "vec_outer_%s_%s"};
        char map[24];
        if (gs) snprintf(map, sizeof map, "gs_b%d", block);
        else snprintf(map, sizeof map, "%dx%d", BX[b2], BY[b2]);
        snprintf(s->name, sizeof s->name, ST[synth_fam_pick(&r, 3)], T, map);
    }
    if (scaled && op != GT_GER) {
        size_t l = strlen(s->name);
        snprintf(s->name + l, sizeof s->name - l, op == GT_GEMVT ? "_axpby" : "_scaled");
    }
    snprintf(s->identity, sizeof s->identity, "gemvt:%s:%s:%s:%d:%d:%dx%d:%s", OPS[op], T, scaled ? "scaled" : "plain",
             op == GT_GEMVT ? (split ? TY : 0) : 0, op == GT_GEMVT && !split ? block : op == GT_OUTER && gs ? block : 0,
             op == GT_GEMVT ? 0 : BX[b2], op == GT_GEMVT ? 0 : BY[b2], gs ? "gs" : "grid");
    const char *n = s->name;

    /* ---- CUDA C ---- */
    pg_buf *c = &s->cu;
    if (op == GT_GEMVT) {
        pg_buf_printf(c, "// %s: %s = %s%s^T %s%s%s for a rows x cols row-major %s, %s.\n", n, Y, scaled ? "alpha*" : "", A, X, scaled ? " + beta*" : "", scaled ? Y : "", CT,
                      split ? "row slices per block + shared-memory combine" : "one thread per column");
        pg_buf_printf(c, "extern \"C\" __global__ void %s(const %s* __restrict__ %s, const %s* __restrict__ %s, %s* %s,%s\n"
                         "    unsigned int rows, unsigned int cols)\n{\n",
                      n, CT, A, CT, X, CT, Y, scaled ? (f64 ? " double alpha, double beta," : " float alpha, float beta,") : "");
        char store[128];
        if (scaled) snprintf(store, sizeof store, "%s[col] = alpha * acc + beta * %s[col];", Y, Y);
        else snprintf(store, sizeof store, "%s[col] = acc;", Y);
        if (!split) {
            pg_buf_puts(c, "    unsigned int col = blockIdx.x * blockDim.x + threadIdx.x;\n    if (col >= cols) return;\n");
            pg_buf_printf(c, "    %s acc = 0;\n    for (unsigned int r = 0; r < rows; r++) acc += %s[(size_t)r * cols + col] * %s[r];\n", CT, A, X);
            pg_buf_printf(c, "    %s\n}\n", store);
        } else {
            pg_buf_printf(c, "    __shared__ %s part[%d][33];\n", CT, TY);
            pg_buf_puts(c, "    unsigned int col = blockIdx.x * 32 + threadIdx.x;\n");
            pg_buf_printf(c, "    %s acc = 0;\n    if (col < cols)\n", CT);
            pg_buf_printf(c, "        for (unsigned int r = threadIdx.y; r < rows; r += %d) acc += %s[(size_t)r * cols + col] * %s[r];\n", TY, A, X);
            pg_buf_puts(c, "    part[threadIdx.y][threadIdx.x] = acc;\n    __syncthreads();\n");
            pg_buf_puts(c, "    if (threadIdx.y == 0 && col < cols) {\n        acc = 0;\n");
            pg_buf_printf(c, "        for (int k = 0; k < %d; k++) acc += part[k][threadIdx.x];\n        %s\n    }\n}\n", TY, store);
        }
    } else if (op == GT_GER) {
        pg_buf_printf(c, "// %s: %s += alpha * %s %s^T (rank-1 update, rows x cols row-major %s).\n", n, A, X, Y, CT);
        pg_buf_printf(c, "extern \"C\" __global__ void %s(%s* %s, const %s* __restrict__ %s, const %s* __restrict__ %s, %s alpha,\n"
                         "    unsigned int rows, unsigned int cols)\n{\n",
                      n, CT, A, CT, X, CT, Y, CT);
        pg_buf_puts(c, "    unsigned int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;\n");
        pg_buf_printf(c, "    if (i < rows && j < cols) %s[(size_t)i * cols + j] += alpha * %s[i] * %s[j];\n}\n", A, X, Y);
    } else {
        pg_buf_printf(c, "// %s: %s = %s%s %s^T (rows x cols row-major %s)%s.\n", n, A, scaled ? "alpha * " : "", X, Y, CT,
                      gs ? ", grid-stride over the flattened matrix" : "");
        pg_buf_printf(c, "extern \"C\" __global__ void %s(const %s* __restrict__ %s, const %s* __restrict__ %s, %s* __restrict__ %s,%s\n"
                         "    unsigned int rows, unsigned int cols)\n{\n",
                      n, CT, X, CT, Y, CT, A, scaled ? (f64 ? " double alpha," : " float alpha,") : "");
        const char *sc = scaled ? "alpha * " : "";
        if (gs) {
            pg_buf_puts(c, "    size_t total = (size_t)rows * cols;\n");
            pg_buf_puts(c, "    for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += (size_t)gridDim.x * blockDim.x) {\n");
            pg_buf_printf(c, "        size_t i = e / cols, j = e %% cols;\n        %s[e] = %s%s[i] * %s[j];\n    }\n}\n", A, sc, X, Y);
        } else {
            pg_buf_puts(c, "    unsigned int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;\n");
            pg_buf_printf(c, "    if (i < rows && j < cols) %s[(size_t)i * cols + j] = %s%s[i] * %s[j];\n}\n", A, sc, X, Y);
        }
    }

    /* ---- task.json ---- */
    synth_sp_seal_name(s);
    sp_task t;
    synth_sp_begin(&t, s, "gemvt");
    char pt[8];
    snprintf(pt, sizeof pt, "%s*", T);
    static const char *const AL[] = {"0.5", "2.0", "-1.5", "0.25"}, *const BE[] = {"1.0", "-0.5", "0.5", "2.0"};
    const char *av = AL[synth_fam_pick(&r, 4)], *bv = BE[synth_fam_pick(&r, 4)];
    if (op == GT_GEMVT) {
        synth_sp_ptr(&t, A, pt, "in", "rows*cols", NULL, NULL);
        synth_sp_ptr(&t, X, pt, "in", "rows", NULL, NULL);
        synth_sp_ptr(&t, Y, pt, scaled ? "inout" : "out", "cols", NULL, NULL);
        if (scaled) {
            synth_sp_scal(&t, "alpha", T, av);
            synth_sp_scal(&t, "beta", T, bv);
        }
    } else if (op == GT_GER) {
        synth_sp_ptr(&t, A, pt, "inout", "rows*cols", NULL, NULL);
        synth_sp_ptr(&t, X, pt, "in", "rows", NULL, NULL);
        synth_sp_ptr(&t, Y, pt, "in", "cols", NULL, NULL);
        synth_sp_scal(&t, "alpha", T, av);
    } else {
        synth_sp_ptr(&t, X, pt, "in", "rows", NULL, NULL);
        synth_sp_ptr(&t, Y, pt, "in", "cols", NULL, NULL);
        synth_sp_ptr(&t, A, pt, "out", "rows*cols", NULL, NULL);
        if (scaled) synth_sp_scal(&t, "alpha", T, av);
    }
    synth_sp_scal(&t, "rows", "u32", "rows");
    synth_sp_scal(&t, "cols", "u32", "cols");
    synth_sp_sizes(&t, "[{\"rows\": 4096, \"cols\": 4100, \"time\": true}, {\"rows\": 1000, \"cols\": 777}, {\"rows\": 4099, \"cols\": 33},"
                 " {\"rows\": 3, \"cols\": 1000}, {\"rows\": 1, \"cols\": 1}]");
    char b0[8], b1[8], g0[40], g1[32];
    if (op == GT_GEMVT && split) {
        snprintf(b0, sizeof b0, "32");
        snprintf(b1, sizeof b1, "%d", TY);
        snprintf(g0, sizeof g0, "cdiv(cols,32)");
        synth_sp_launch(&t, b0, b1, NULL, g0, NULL, NULL, "0");
    } else if (op == GT_GEMVT) {
        snprintf(b0, sizeof b0, "%d", block);
        snprintf(g0, sizeof g0, "cdiv(cols,%d)", block);
        synth_sp_launch(&t, b0, NULL, NULL, g0, NULL, NULL, "0");
    } else if (gs) {
        snprintf(b0, sizeof b0, "%d", block);
        snprintf(g0, sizeof g0, "min(cdiv(rows*cols,%d),1024)", block);
        synth_sp_launch(&t, b0, NULL, NULL, g0, NULL, NULL, "0");
    } else {
        snprintf(b0, sizeof b0, "%d", BX[b2]);
        snprintf(b1, sizeof b1, "%d", BY[b2]);
        snprintf(g0, sizeof g0, "cdiv(cols,%d)", BX[b2]);
        snprintf(g1, sizeof g1, "cdiv(rows,%d)", BY[b2]);
        synth_sp_launch(&t, b0, b1, NULL, g0, g1, NULL, "0");
    }
    json_t *fp = json_pack("{s:s, s:s, s:b, s:s, s:s, s:s}", "op", OPS[op], "dtype", T, "scaled", scaled, "A", A, "x", X, "y", Y);
    synth_sp_fparams(&t, fp);

    /* ---- descriptions ---- */
    sp_facts f = {0};
    if (op == GT_GEMVT) {
        if (scaled) pg_buf_printf(&f.formula, "%s[c] = alpha * sum_{r<rows} %s[r*cols + c] * %s[r] + beta * %s[c]", Y, A, X, Y);
        else pg_buf_printf(&f.formula, "%s[c] = sum_{r<rows} %s[r*cols + c] * %s[r]", Y, A, X);
        synth_sp_add(&f.name_en, "transposed matrix-vector product");
        synth_sp_add(&f.name_en, "GEMV with A transposed (y = A^T x)");
        synth_sp_add(&f.name_en, "column sums of A weighted by %s", X);
        synth_sp_add(&f.name_en, "A^T x without forming the transpose");
        synth_sp_add(&f.name_en, "vector-matrix product x^T A");
        synth_sp_add(&f.name_zh, "转置矩阵向量乘");
        synth_sp_add(&f.name_zh, "A 的转置乘向量");
        synth_sp_add(&f.name_zh, "按列加权求和（x^T A）");
        synth_sp_add(&f.explain_en, "add up, for every column c, %s[r] times the element in row r, column c of the row-major matrix %s over all rows%s", X, A,
               scaled ? ", multiply by alpha and add beta times the old output value" : "");
        synth_sp_add(&f.explain_en, "multiply the row vector %s (one entry per row) by the matrix %s, giving one value per column%s", X, A, scaled ? ", then blend with the existing output as alpha*result + beta*old" : "");
        synth_sp_add(&f.explain_zh, "对每一列 c，把 %s[r] 乘以矩阵第 r 行第 c 列的元素，对所有行求和%s", X, scaled ? "，再乘 alpha 加上 beta 倍原输出" : "");
        synth_sp_add(&f.explain_zh, "行向量 %s 乘以行主序矩阵 %s，每列得到一个结果", X, A);
        if (split) {
            synth_sp_add(&f.how_en, "32 columns per block with %d row slices: each thread sums rows ty, ty+%d, ..., the slices are combined through shared memory", TY, TY);
            synth_sp_add(&f.how_zh, "每块 32 列、%d 个行分片，各分片的部分和通过共享内存合并", TY);
        } else {
            synth_sp_add(&f.how_en, "one thread per column: neighbouring threads read neighbouring elements of each row (coalesced)");
            synth_sp_add(&f.how_zh, "每个线程一列，同一行相邻线程读相邻元素（合并访问）");
        }
        pg_buf_printf(&f.shape_en, "%s is rows x cols row-major, %s has rows entries and %s has cols", A, X, Y);
        pg_buf_printf(&f.shape_zh, "%s 为 rows×cols 行主序，%s 长 rows，%s 长 cols", A, X, Y);
    } else if (op == GT_GER) {
        pg_buf_printf(&f.formula, "%s[i*cols + j] += alpha * %s[i] * %s[j]", A, X, Y);
        synth_sp_add(&f.name_en, "rank-1 update A += alpha x y^T");
        synth_sp_add(&f.name_en, "GER (outer-product update)");
        synth_sp_add(&f.name_en, "add a scaled outer product to a matrix");
        synth_sp_add(&f.name_en, "rank-one matrix update");
        synth_sp_add(&f.name_zh, "秩一更新");
        synth_sp_add(&f.name_zh, "GER 外积累加");
        synth_sp_add(&f.name_zh, "矩阵加上外积");
        synth_sp_add(&f.explain_en, "add alpha times %s[i] times %s[j] to every element (i, j) of the row-major matrix %s, in place", X, Y, A);
        synth_sp_add(&f.explain_en, "update %s in place with the outer product of %s and %s scaled by alpha", A, X, Y);
        synth_sp_add(&f.explain_zh, "对行主序矩阵 %s 的每个元素 (i, j) 原地加上 alpha * %s[i] * %s[j]", A, X, Y);
        synth_sp_add(&f.explain_zh, "把 %s 与 %s 的外积乘以 alpha 累加到 %s", X, Y, A);
        synth_sp_add(&f.how_en, "2D grid, one matrix element per thread (block %dx%d)", BX[b2], BY[b2]);
        synth_sp_add(&f.how_zh, "二维网格，每个线程一个元素");
        pg_buf_printf(&f.shape_en, "%s is rows x cols row-major and is read and written; %s has rows entries and %s has cols", A, X, Y);
        pg_buf_printf(&f.shape_zh, "%s 为 rows×cols 行主序（原地更新），%s 长 rows，%s 长 cols", A, X, Y);
    } else {
        pg_buf_printf(&f.formula, "%s[i*cols + j] = %s%s[i] * %s[j]", A, scaled ? "alpha * " : "", X, Y);
        synth_sp_add(&f.name_en, "outer product of two vectors");
        synth_sp_add(&f.name_en, "x y^T into a matrix");
        synth_sp_add(&f.name_en, "vector outer product");
        synth_sp_add(&f.name_en, "%souter(%s, %s)", scaled ? "scaled " : "", X, Y);
        synth_sp_add(&f.name_zh, "向量外积");
        synth_sp_add(&f.name_zh, "两个向量的外积矩阵");
        synth_sp_add(&f.name_zh, "外积 x·yᵀ");
        synth_sp_add(&f.explain_en, "fill the rows x cols row-major matrix %s with %s%s[i] times %s[j] at row i, column j", A, scaled ? "alpha times " : "", X, Y);
        synth_sp_add(&f.explain_en, "set every output element (i, j) to the product of entry i of %s and entry j of %s%s", X, Y, scaled ? ", times alpha" : "");
        synth_sp_add(&f.explain_zh, "输出 rows×cols 行主序矩阵 %s，第 i 行第 j 列为 %s%s[i] * %s[j]", A, scaled ? "alpha * " : "", X, Y);
        synth_sp_add(&f.explain_zh, "两个向量做外积，得到矩阵");
        if (gs) {
            synth_sp_add(&f.how_en, "grid-stride loop over the flattened rows*cols elements (the grid is capped at 1024 blocks)");
            synth_sp_add(&f.how_zh, "对展平后的 rows*cols 个元素做网格跨步循环（网格最多 1024 块）");
        } else {
            synth_sp_add(&f.how_en, "2D grid, one element per thread (block %dx%d)", BX[b2], BY[b2]);
            synth_sp_add(&f.how_zh, "二维网格，每个线程一个元素");
        }
        pg_buf_printf(&f.shape_en, "%s has rows entries, %s has cols, %s is rows x cols row-major", X, Y, A);
        pg_buf_printf(&f.shape_zh, "%s 长 rows，%s 长 cols，%s 为 rows×cols 行主序", X, Y, A);
    }
    if (scaled) {
        pg_buf_printf(&f.notes_en, "alpha = %s%s%s are scalars", av, op == GT_GEMVT ? " and beta = " : "", op == GT_GEMVT ? bv : "");
        pg_buf_printf(&f.notes_zh, "alpha%s 为标量", op == GT_GEMVT ? "、beta" : "");
    }
    char bytes[64];
    int es = f64 ? 8 : 4;
    snprintf(bytes, sizeof bytes, "%d*(rows*cols%s + rows + cols)", es, op == GT_GER ? "*2" : "");
    f.data = DESC_DATA_MATRIX;
    f.hints = DESC_HINT_MEMBOUND | DESC_HINT_COALESCED | (op == GT_GEMVT && split ? DESC_HINT_SMEM : 0u) | (gs ? DESC_HINT_GRID_STRIDE : 0u) |
              ((op == GT_GEMVT && scaled) || op == GT_GER ? DESC_HINT_INPLACE : 0u);
    f.elems_per_thread = op == GT_GEMVT && split ? 0 : 1;
    synth_sp_finish(&t, &f, seed, "uniform(-1,1)", "normal(0,1)", T, f64 ? 1e-11 : 1e-5, synth_fam_ref(synth_fam_gen_gemvt), bytes, op == GT_GEMVT ? "2*rows*cols" : "2*rows*cols");
    synth_sp_facts_free(&f);
    return PG_OK;
}
