/* family_sparse_pairdist.c — the "pairdist" family (CUDA C, nvcc): the
 * distance matrix between two point sets (D[i][j] = dist(X_i, Y_j), n x m)
 * or of one set with itself (n x n).
 *
 *   metric   squared Euclidean, Euclidean, Manhattan (L1)
 *   dim      d = 2/3/4 baked into the kernel (unrolled), or d a runtime
 *            argument (loop)
 *   layout   points row-major (X[i*d + k]) or coordinate-major (X[k*n + i])
 *   method   direct (one thread per output, loads from global) or tiled
 *            (baked d only: the block stages its TY points of X and TX
 *            points of Y in shared memory, then each thread computes one D)
 *   block    16x16, 32x8, 32x4, 64x4; f32/f64
 *
 * Reference: task_ref_fam_pairdist (src/task/refs_sparse_linalg.c). */
#include "family_sparse.h"

#include <stdio.h>
#include <string.h>

pg_status synth_fam_gen_pairdist(uint64_t seed, synth_family_sample *s) {
    fam_rng r = {seed ^ 0x7061697264000013ull};
    bool f64 = synth_fam_pick(&r, 4) == 0, self = synth_fam_pick(&r, 3) == 0, soa = synth_fam_pick(&r, 3) == 0;
    int metric = synth_fam_pick(&r, 3);   /* 0 squared, 1 euclid, 2 l1 */
    int d = synth_fam_pick(&r, 4) == 0 ? 0 : 2 + synth_fam_pick(&r, 3);   /* 0: runtime dim */
    bool tiled = d > 0 && synth_fam_pick(&r, 2);
    static const int BX[] = {16, 32, 32, 64}, BY[] = {16, 8, 4, 4};
    int bs = synth_fam_pick(&r, 4), TX = BX[bs], TY = BY[bs];
    const char *T = f64 ? "f64" : "f32", *CT = f64 ? "double" : "float";
    static const char *const XN[][2] = {{"X", "Y"}, {"a", "b"}, {"points", "centers"}, {"x", "y"}, {"P", "Q"}};
    static const char *const DN[] = {"D", "dist", "out", "dmat"};
    int xn = synth_fam_pick(&r, 5);
    const char *X = XN[xn][0], *Y = self ? X : XN[xn][1], *D = DN[synth_fam_pick(&r, 4)];
    const char *M = self ? "n" : "m";
    static const char *const MET[] = {"sqeuclid", "euclid", "l1"};
    static const char *const MNAME[] = {"sqdist", "cdist", "l1dist"};
    char dim[16];
    if (d) snprintf(dim, sizeof dim, "d%d", d);
    else snprintf(dim, sizeof dim, "dN");
    snprintf(s->name, sizeof s->name, "%s_%s_%s_%s%s_%s_%dx%d", synth_fam_pick(&r, 2) ? "pairdist" : MNAME[metric], MET[metric], T, dim,
             soa ? "_soa" : "", self ? (tiled ? "self_smem" : "self") : (tiled ? "smem" : "direct"), TX, TY);
    snprintf(s->identity, sizeof s->identity, "pairdist:%s:%s:%d:%s:%s:%s:%dx%d", MET[metric], T, d, soa ? "soa" : "aos", self ? "self" : "cross",
             tiled ? "smem" : "direct", TX, TY);
    const char *n = s->name;

    /* ---- CUDA C ---- */
    pg_buf *c = &s->cu;
    char xi[48], yj[48];   /* coordinate k of X_i / Y_j (global) */
    if (soa) {
        snprintf(xi, sizeof xi, "%s[(size_t)k * n + i]", X);
        snprintf(yj, sizeof yj, "%s[(size_t)k * %s + j]", Y, M);
    } else {
        snprintf(xi, sizeof xi, "%s[(size_t)i * %s + k]", X, d ? "D_" : "d");
        snprintf(yj, sizeof yj, "%s[(size_t)j * %s + k]", Y, d ? "D_" : "d");
    }
    const char *acc_op = metric == 2 ? (f64 ? "acc += fabs(t);" : "acc += fabsf(t);") : "acc += t * t;";
    const char *fin = metric == 1 ? (f64 ? "sqrt(acc)" : "sqrtf(acc)") : "acc";
    pg_buf_printf(c, "// %s: %s distance matrix (%s), %s.\n", n, MET[metric], CT, tiled ? "point tiles in shared memory" : "direct loads");
    pg_buf_printf(c, "extern \"C\" __global__ void %s(const %s* __restrict__ %s, ", n, CT, X);
    if (!self) pg_buf_printf(c, "const %s* __restrict__ %s, ", CT, Y);
    pg_buf_printf(c, "%s* __restrict__ %s,\n    unsigned int n%s%s)\n{\n", CT, D, self ? "" : ", unsigned int m", d ? "" : ", unsigned int d");
    if (d) pg_buf_printf(c, "    const unsigned int D_ = %d;   // coordinates per point\n", d);
    pg_buf_printf(c, "    unsigned int j = blockIdx.x * %d + threadIdx.x, i = blockIdx.y * %d + threadIdx.y;\n", TX, TY);
    if (!tiled) {
        pg_buf_printf(c, "    if (i >= n || j >= %s) return;\n    %s acc = 0;\n", M, CT);
        if (d) pg_buf_puts(c, "#pragma unroll\n");
        pg_buf_printf(c, "    for (unsigned int k = 0; k < %s; k++) {\n        %s t = %s - %s;\n        %s\n    }\n", d ? "D_" : "d", CT, xi, yj, acc_op);
        pg_buf_printf(c, "    %s[(size_t)i * %s + j] = %s;\n}\n", D, M, fin);
    } else {
        pg_buf_printf(c, "    __shared__ %s xs[%d][%d], ys[%d][%d];\n", CT, TY, d, TX, d);
        pg_buf_printf(c, "    unsigned int tid = threadIdx.y * %d + threadIdx.x;\n", TX);
        pg_buf_printf(c, "    unsigned int i0 = blockIdx.y * %d, j0 = blockIdx.x * %d;\n", TY, TX);
        /* cooperative loads: entry e = (point p, coordinate k) */
        pg_buf_printf(c, "    for (unsigned int e = tid; e < %d; e += %d) {\n", TY * d, TX * TY);
        pg_buf_printf(c, "        unsigned int p = e / D_, k = e %% D_, ii = i0 + p;\n");
        if (soa) pg_buf_printf(c, "        xs[p][k] = ii < n ? %s[(size_t)k * n + ii] : 0;\n    }\n", X);
        else pg_buf_printf(c, "        xs[p][k] = ii < n ? %s[(size_t)ii * D_ + k] : 0;\n    }\n", X);
        pg_buf_printf(c, "    for (unsigned int e = tid; e < %d; e += %d) {\n", TX * d, TX * TY);
        pg_buf_printf(c, "        unsigned int p = e / D_, k = e %% D_, jj = j0 + p;\n");
        if (soa) pg_buf_printf(c, "        ys[p][k] = jj < %s ? %s[(size_t)k * %s + jj] : 0;\n    }\n", M, Y, M);
        else pg_buf_printf(c, "        ys[p][k] = jj < %s ? %s[(size_t)jj * D_ + k] : 0;\n    }\n", M, Y);
        pg_buf_puts(c, "    __syncthreads();\n");
        pg_buf_printf(c, "    if (i >= n || j >= %s) return;\n    %s acc = 0;\n#pragma unroll\n", M, CT);
        pg_buf_printf(c, "    for (unsigned int k = 0; k < D_; k++) {\n        %s t = xs[threadIdx.y][k] - ys[threadIdx.x][k];\n        %s\n    }\n", CT, acc_op);
        pg_buf_printf(c, "    %s[(size_t)i * %s + j] = %s;\n}\n", D, M, fin);
    }

    /* ---- task.json ---- */
    synth_sp_seal_name(s);
    sp_task t;
    synth_sp_begin(&t, s, "pairdist");
    char pt[8], lx[24], ly[24], ld[24];
    snprintf(pt, sizeof pt, "%s*", T);
    snprintf(lx, sizeof lx, "n*%s", d ? (d == 2 ? "2" : d == 3 ? "3" : "4") : "d");
    snprintf(ly, sizeof ly, "%s*%s", M, d ? (d == 2 ? "2" : d == 3 ? "3" : "4") : "d");
    snprintf(ld, sizeof ld, "n*%s", M);
    synth_sp_ptr(&t, X, pt, "in", lx, NULL, NULL);
    if (!self) synth_sp_ptr(&t, Y, pt, "in", ly, NULL, NULL);
    synth_sp_ptr(&t, D, pt, "out", ld, NULL, NULL);
    synth_sp_scal(&t, "n", "u32", "n");
    if (!self) synth_sp_scal(&t, "m", "u32", "m");
    if (!d) synth_sp_scal(&t, "d", "u32", "d");
    if (self)
        synth_sp_sizes(&t, d ? "[{\"n\": 4096, \"time\": true}, {\"n\": 1000}, {\"n\": 65}, {\"n\": 33}, {\"n\": 1}]"
                       : "[{\"n\": 4096, \"d\": 16, \"time\": true}, {\"n\": 1000, \"d\": 3}, {\"n\": 65, \"d\": 7}, {\"n\": 33, \"d\": 1}, {\"n\": 1, \"d\": 5}]");
    else
        synth_sp_sizes(&t, d ? "[{\"n\": 4096, \"m\": 2048, \"time\": true}, {\"n\": 1000, \"m\": 777}, {\"n\": 33, \"m\": 65}, {\"n\": 1, \"m\": 5}, {\"n\": 100, \"m\": 1}]"
                       : "[{\"n\": 4096, \"m\": 2048, \"d\": 16, \"time\": true}, {\"n\": 1000, \"m\": 777, \"d\": 3}, {\"n\": 33, \"m\": 65, \"d\": 7},"
                         " {\"n\": 1, \"m\": 5, \"d\": 1}, {\"n\": 100, \"m\": 1, \"d\": 5}]");
    char b0[8], b1[8], g0[32], g1[32];
    snprintf(b0, sizeof b0, "%d", TX);
    snprintf(b1, sizeof b1, "%d", TY);
    snprintf(g0, sizeof g0, "cdiv(%s,%d)", M, TX);
    snprintf(g1, sizeof g1, "cdiv(n,%d)", TY);
    synth_sp_launch(&t, b0, b1, NULL, g0, g1, NULL, "0");
    json_t *fp = json_pack("{s:s, s:s, s:i, s:s, s:b, s:b, s:s, s:s, s:s}", "metric", MET[metric], "dtype", T, "dim", d, "layout",
                           soa ? "coord-major" : "point-major", "self", self, "tiled", tiled, "x", X, "y", Y, "out", D);
    synth_sp_fparams(&t, fp);

    /* ---- descriptions ---- */
    sp_facts f = {0};
    char dd[16];
    if (d) snprintf(dd, sizeof dd, "%d", d);
    else snprintf(dd, sizeof dd, "d");
    char xik[40], yjk[40];
    if (soa) {
        snprintf(xik, sizeof xik, "%s[k*n + i]", X);
        snprintf(yjk, sizeof yjk, "%s[k*%s + j]", Y, M);
    } else {
        snprintf(xik, sizeof xik, "%s[i*%s + k]", X, dd);
        snprintf(yjk, sizeof yjk, "%s[j*%s + k]", Y, dd);
    }
    static const char *const MW[] = {"squared Euclidean", "Euclidean", "Manhattan (L1)"};
    static const char *const MZ[] = {"欧氏距离的平方", "欧氏距离", "曼哈顿（L1）距离"};
    if (metric == 0) pg_buf_printf(&f.formula, "%s[i*%s + j] = sum_{k<%s} (%s - %s)^2", D, M, dd, xik, yjk);
    else if (metric == 1) pg_buf_printf(&f.formula, "%s[i*%s + j] = sqrt(sum_{k<%s} (%s - %s)^2)", D, M, dd, xik, yjk);
    else pg_buf_printf(&f.formula, "%s[i*%s + j] = sum_{k<%s} |%s - %s|", D, M, dd, xik, yjk);
    if (self) {
        synth_sp_add(&f.name_en, "%s distance matrix of a point set", MW[metric]);
        synth_sp_add(&f.name_en, "pairwise %s distances (all pairs, one set)", MW[metric]);
        synth_sp_add(&f.name_en, "pdist-style %s distances", MW[metric]);
        synth_sp_add(&f.name_en, "self distance matrix of %s-dimensional points", dd);
        synth_sp_add(&f.name_zh, "点集自身的%s矩阵", MZ[metric]);
        synth_sp_add(&f.name_zh, "两两%s", MZ[metric]);
        synth_sp_add(&f.name_zh, "成对距离矩阵（%s）", MZ[metric]);
        synth_sp_add(&f.explain_en, "write, for every pair of points i and j of the same set (n points with %s coordinates each), their %s distance to row i, column j of the n x n output", dd, MW[metric]);
        synth_sp_add(&f.explain_en, "build the full n x n matrix of %s distances between all points, including the zero diagonal", MW[metric]);
        synth_sp_add(&f.explain_zh, "对同一点集中的每一对点 i、j（每点 %s 个坐标），计算%s，写入 n×n 输出的第 i 行第 j 列", dd, MZ[metric]);
        synth_sp_add(&f.explain_zh, "计算所有点两两之间的%s，对角线为 0", MZ[metric]);
    } else {
        synth_sp_add(&f.name_en, "%s distances between two point sets", MW[metric]);
        synth_sp_add(&f.name_en, "cdist (%s)", MW[metric]);
        synth_sp_add(&f.name_en, "all-pairs %s distance matrix", MW[metric]);
        synth_sp_add(&f.name_en, "cross distance matrix of %s and %s", X, Y);
        synth_sp_add(&f.name_en, "point-to-point %s distances", MW[metric]);
        synth_sp_add(&f.name_zh, "两个点集之间的%s", MZ[metric]);
        synth_sp_add(&f.name_zh, "成对%s矩阵", MZ[metric]);
        synth_sp_add(&f.name_zh, "cdist（%s）", MZ[metric]);
        synth_sp_add(&f.explain_en, "write, for every point i of %s (n points) and every point j of %s (m points), each with %s coordinates, their %s distance to %s[i*m + j]", X, Y, dd, MW[metric], D);
        synth_sp_add(&f.explain_en, "compute the n x m matrix whose entry (i, j) is the %s distance between point i of the first set and point j of the second", MW[metric]);
        synth_sp_add(&f.explain_zh, "对 %s 中的每个点 i（共 n 个）和 %s 中的每个点 j（共 m 个），每点 %s 个坐标，计算%s并写到 %s[i*m + j]", X, Y, dd, MZ[metric], D);
        synth_sp_add(&f.explain_zh, "输出 n×m 矩阵，第 (i, j) 项为两组点之间的%s", MZ[metric]);
    }
    if (tiled) {
        synth_sp_add(&f.how_en, "%dx%d blocks that stage the points of their %d rows and %d columns in shared memory, one output per thread", TX, TY, TY, TX);
        synth_sp_add(&f.how_en, "shared-memory tiles of points, one output per thread");
        synth_sp_add(&f.how_zh, "每个线程块先把本块需要的点载入共享内存，再每个线程计算一个输出");
    } else {
        synth_sp_add(&f.how_en, "one thread per output entry reading both points from global memory");
        synth_sp_add(&f.how_en, "a 2D grid with thread (x, y) computing column x of row y");
        synth_sp_add(&f.how_zh, "每个线程计算一个输出元素，直接读全局内存");
    }
    pg_buf_printf(&f.shape_en, "%s %s stored %s with %s coordinates per point; %s is n x %s, row-major", self ? X : "The points", self ? "is" : "are",
                  soa ? "coordinate-major (all first coordinates, then all second ...)" : "point by point", dd, D, M);
    pg_buf_printf(&f.shape_zh, "点按%s存放，每点 %s 个坐标；%s 为 n×%s 行主序", soa ? "坐标优先（先存所有点的第一个坐标）" : "点优先", dd, D, M);
    char bytes[64], flops[32];
    int es = f64 ? 8 : 4;
    snprintf(bytes, sizeof bytes, "%d*(n*%s + %s*%s + n*%s)", es, dd, M, dd, M);
    snprintf(flops, sizeof flops, "3*n*%s*%s", M, dd);
    f.data = DESC_DATA_MATRIX;
    f.hints = tiled ? DESC_HINT_SMEM : 0u;
    f.elems_per_thread = 1;
    synth_sp_finish(&t, &f, seed, "uniform(-1,1)", "normal(0,10)", T, f64 ? 1e-12 : 1e-5, synth_fam_ref(synth_fam_gen_pairdist), bytes, flops);
    synth_sp_facts_free(&f);
    return PG_OK;
}
