/* family_sparse_smallmat.c — the "smallmat" family (CUDA C, nvcc): one
 * thread per tiny dense problem of a batch.
 *
 *   det       determinant of each 2x2 / 3x3 / 4x4 matrix (cofactor formula
 *             for 2 and 3, elimination with partial pivoting for 4)
 *   inverse   inverse of each shifted matrix A_b + lambda*I (n = 2/3/4;
 *             lambda = n + 1 keeps the matrices of the input generators
 *             diagonally dominant, so unpivoted Gauss-Jordan is stable)
 *   solve     x_b = (A_b + lambda*I)^-1 r_b, the same shift
 *   tridiag   Thomas algorithm for batch tridiagonal systems of n <= 64
 *             unknowns (sub-, main, super-diagonal and right-hand side; the
 *             main diagonal's generators keep |b| >= 3 > |a| + |c|), system
 *             layout contiguous (system s at s*n) or interleaved (entry i of
 *             system s at i*batch + s, coalesced)
 *   dtype     f32/f64; block 64..256; matrices row-major, packed
 *
 * Reference: task_ref_fam_smallmat (src/task/refs_sparse_linalg.c). */
#include "family_sparse.h"

#include <stdio.h>
#include <string.h>

enum { SM_DET, SM_INV, SM_SOLVE, SM_TRI, SM_N };

pg_status synth_fam_gen_smallmat(uint64_t seed, synth_family_sample *s) {
    fam_rng r = {seed ^ 0x736d616c6c000017ull};
    int op = synth_fam_pick(&r, SM_N), dim = 2 + synth_fam_pick(&r, 3), block = 64 << synth_fam_pick(&r, 3);
    bool f64 = synth_fam_pick(&r, 3) == 0, inter = synth_fam_pick(&r, 2);
    const char *T = f64 ? "f64" : "f32", *CT = f64 ? "double" : "float";
    static const char *const OPS[] = {"det", "inverse", "solve", "tridiag"};
    static const char *const AN[] = {"A", "mats", "M", "in"};
    static const char *const ON[] = {"out", "res", "dst", "inv"};
    static const char *const TRN[][4] = {{"a", "b", "c", "d"}, {"lower", "diag", "upper", "rhs"}, {"dl", "dm", "du", "r"}};
    int an = synth_fam_pick(&r, 4), on = synth_fam_pick(&r, 4), tn = synth_fam_pick(&r, 3);
    const char *A = AN[an], *O = op == SM_DET ? (on == 3 ? "det" : ON[on]) : op == SM_SOLVE ? (on == 3 ? "x" : ON[on]) : ON[on];
    const char *RHS = "rhs";
    if (op == SM_TRI) {
        static const char *const ST[] = {"tridiag_solve_%s_%s_b%d", "thomas_%s_%s_b%d", "batched_gtsv_%s_%s_b%d"};
        snprintf(s->name, sizeof s->name, ST[synth_fam_pick(&r, 3)], T, inter ? "interleaved" : "contig", block);
        snprintf(s->identity, sizeof s->identity, "smallmat:tridiag:%s:%s:%d", T, inter ? "inter" : "contig", block);
    } else {
        static const char *const ST[][2] = {{"det%dx%d_%s_b%d", "batched_det%dx%d_%s_b%d"}, {"inv%dx%d_shifted_%s_b%d", "batched_inverse%dx%d_%s_b%d"},
                                            {"solve%dx%d_shifted_%s_b%d", "batched_solve%dx%d_%s_b%d"}};
        snprintf(s->name, sizeof s->name, ST[op][synth_fam_pick(&r, 2)], dim, dim, T, block);
        snprintf(s->identity, sizeof s->identity, "smallmat:%s:%d:%s:%d", OPS[op], dim, T, block);
    }
    const char *n = s->name;
    const char *FA = f64 ? "fabs" : "fabsf";
    int nn = dim * dim;

    /* ---- CUDA C ---- */
    pg_buf *c = &s->cu;
    if (op == SM_TRI) {
        const char *a = TRN[tn][0], *b = TRN[tn][1], *cc = TRN[tn][2], *d = TRN[tn][3];
        pg_buf_printf(c, "// %s: Thomas algorithm, one thread per tridiagonal system (%s layout), %s.\n", n, inter ? "interleaved" : "contiguous", CT);
        pg_buf_printf(c, "extern \"C\" __global__ void %s(const %s* __restrict__ %s, const %s* __restrict__ %s, const %s* __restrict__ %s,\n"
                         "    const %s* __restrict__ %s, %s* __restrict__ x, unsigned int batch, unsigned int n)\n{\n",
                      n, CT, a, CT, b, CT, cc, CT, d, CT);
        pg_buf_puts(c, "    unsigned int s = blockIdx.x * blockDim.x + threadIdx.x;\n    if (s >= batch || n == 0) return;\n");
        if (inter) pg_buf_puts(c, "    #define IX(i) ((size_t)(i) * batch + s)\n");
        else pg_buf_puts(c, "    #define IX(i) ((size_t)s * n + (i))\n");
        pg_buf_printf(c, "    %s cp[64];   // modified super-diagonal (n <= 64)\n", CT);
        pg_buf_printf(c, "    %s m = %s[IX(0)];\n    cp[0] = %s[IX(0)] / m;\n    x[IX(0)] = %s[IX(0)] / m;\n", CT, b, cc, d);
        pg_buf_puts(c, "    for (unsigned int i = 1; i < n; i++) {\n");
        pg_buf_printf(c, "        m = %s[IX(i)] - %s[IX(i)] * cp[i - 1];\n", b, a);
        pg_buf_printf(c, "        cp[i] = %s[IX(i)] / m;\n        x[IX(i)] = (%s[IX(i)] - %s[IX(i)] * x[IX(i - 1)]) / m;\n    }\n", cc, d, a);
        pg_buf_puts(c, "    for (int i = (int)n - 2; i >= 0; i--) x[IX(i)] -= cp[i] * x[IX(i + 1)];\n    #undef IX\n}\n");
    } else {
        pg_buf_printf(c, "// %s: %s of each %dx%d matrix%s, one thread per matrix, %s.\n", n, OPS[op], dim, dim, op == SM_DET ? "" : " shifted by lambda*I", CT);
        pg_buf_printf(c, "extern \"C\" __global__ void %s(const %s* __restrict__ %s, ", n, CT, A);
        if (op == SM_SOLVE) pg_buf_printf(c, "const %s* __restrict__ %s, ", CT, RHS);
        pg_buf_printf(c, "%s* __restrict__ %s,%s unsigned int batch)\n{\n", CT, O, op == SM_DET ? "" : f64 ? " double lambda," : " float lambda,");
        pg_buf_puts(c, "    unsigned int b = blockIdx.x * blockDim.x + threadIdx.x;\n    if (b >= batch) return;\n");
        pg_buf_printf(c, "    const %s* p = %s + (size_t)b * %d;\n", CT, A, nn);
        pg_buf_printf(c, "    %s m[%d][%d];\n#pragma unroll\n    for (int i = 0; i < %d; i++)\n#pragma unroll\n        for (int j = 0; j < %d; j++) m[i][j] = p[i * %d + j];\n",
                      CT, dim, dim, dim, dim, dim);
        if (op == SM_DET) {
            if (dim == 2) pg_buf_printf(c, "    %s[b] = m[0][0] * m[1][1] - m[0][1] * m[1][0];\n}\n", O);
            else if (dim == 3)
                pg_buf_printf(c, "    %s[b] = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])\n"
                                 "         + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);\n}\n", O);
            else {
                /* elimination with partial pivoting: the product of the pivots, sign flipped per row swap */
                pg_buf_printf(c, "    %s dacc = 1;\n#pragma unroll\n    for (int k = 0; k < 4; k++) {\n        int piv = k;\n", CT);
                pg_buf_printf(c, "        for (int i = k + 1; i < 4; i++) if (%s(m[i][k]) > %s(m[piv][k])) piv = i;\n", FA, FA);
                pg_buf_printf(c, "        if (piv != k) {\n            dacc = -dacc;\n            for (int j = 0; j < 4; j++) { %s t = m[k][j]; m[k][j] = m[piv][j]; m[piv][j] = t; }\n        }\n", CT);
                pg_buf_puts(c, "        dacc *= m[k][k];\n        if (m[k][k] == 0) break;\n");
                pg_buf_printf(c, "        for (int i = k + 1; i < 4; i++) {\n            %s f = m[i][k] / m[k][k];\n            for (int j = k; j < 4; j++) m[i][j] -= f * m[k][j];\n        }\n    }\n", CT);
                pg_buf_printf(c, "    %s[b] = dacc;\n}\n", O);
            }
        } else {
            pg_buf_printf(c, "#pragma unroll\n    for (int i = 0; i < %d; i++) m[i][i] += lambda;\n", dim);
            if (op == SM_INV) {
                pg_buf_printf(c, "    %s v[%d][%d];   // becomes the inverse\n#pragma unroll\n    for (int i = 0; i < %d; i++)\n#pragma unroll\n"
                                 "        for (int j = 0; j < %d; j++) v[i][j] = i == j ? 1 : 0;\n", CT, dim, dim, dim, dim);
            } else {
                pg_buf_printf(c, "    %s v[%d][1];   // becomes the solution\n#pragma unroll\n    for (int i = 0; i < %d; i++) v[i][0] = %s[(size_t)b * %d + i];\n", CT,
                              dim, dim, RHS, dim);
            }
            int nc = op == SM_INV ? dim : 1;
            /* Gauss-Jordan without pivoting (diagonally dominant after the shift) */
            pg_buf_printf(c, "#pragma unroll\n    for (int k = 0; k < %d; k++) {\n        %s rp = 1 / m[k][k];\n", dim, CT);
            pg_buf_printf(c, "        for (int j = 0; j < %d; j++) m[k][j] *= rp;\n        for (int j = 0; j < %d; j++) v[k][j] *= rp;\n", dim, nc);
            pg_buf_printf(c, "        for (int i = 0; i < %d; i++) {\n            if (i == k) continue;\n            %s f = m[i][k];\n", dim, CT);
            pg_buf_printf(c, "            for (int j = 0; j < %d; j++) m[i][j] -= f * m[k][j];\n            for (int j = 0; j < %d; j++) v[i][j] -= f * v[k][j];\n        }\n    }\n",
                          dim, nc);
            if (op == SM_INV)
                pg_buf_printf(c, "#pragma unroll\n    for (int i = 0; i < %d; i++)\n#pragma unroll\n        for (int j = 0; j < %d; j++) %s[(size_t)b * %d + i * %d + j] = v[i][j];\n}\n",
                              dim, dim, O, nn, dim);
            else pg_buf_printf(c, "#pragma unroll\n    for (int i = 0; i < %d; i++) %s[(size_t)b * %d + i] = v[i][0];\n}\n", dim, O, dim);
        }
    }

    /* ---- task.json ---- */
    synth_sp_seal_name(s);
    sp_task t;
    synth_sp_begin(&t, s, "smallmat");
    char pt[8], la[24], lo[24], lam[16];
    snprintf(pt, sizeof pt, "%s*", T);
    snprintf(lam, sizeof lam, "%d.0", dim + 1);
    if (op == SM_TRI) {
        /* |b| >= 3 > |a| + |c| with |a|, |c| < 1.4: strictly dominant under both distributions */
        synth_sp_ptr(&t, TRN[tn][0], pt, "in", "batch*n", "uniform(-1,1)", "uniform(-1.4,1.4)");
        synth_sp_ptr(&t, TRN[tn][1], pt, "in", "batch*n", "uniform(3,5)", "uniform(-5,-3)");
        synth_sp_ptr(&t, TRN[tn][2], pt, "in", "batch*n", "uniform(-1,1)", "uniform(-1.4,1.4)");
        synth_sp_ptr(&t, TRN[tn][3], pt, "in", "batch*n", "uniform(-1,1)", "normal(0,10)");
        synth_sp_ptr(&t, "x", pt, "out", "batch*n", NULL, NULL);
        synth_sp_scal(&t, "batch", "u32", "batch");
        synth_sp_scal(&t, "n", "u32", "n");
        synth_sp_sizes(&t, "[{\"batch\": 65536, \"n\": 64, \"time\": true}, {\"batch\": 1000, \"n\": 33}, {\"batch\": 77, \"n\": 7}, {\"batch\": 300, \"n\": 2},"
                     " {\"batch\": 1, \"n\": 1}]");
    } else {
        snprintf(la, sizeof la, "batch*%d", nn);
        snprintf(lo, sizeof lo, "batch%s", op == SM_DET ? "" : op == SM_INV ? (nn == 4 ? "*4" : nn == 9 ? "*9" : "*16") : (dim == 2 ? "*2" : dim == 3 ? "*3" : "*4"));
        /* entries in (-1, 1) (both generators), so with lambda = n + 1 every row is dominated by its diagonal */
        synth_sp_ptr(&t, A, pt, "in", la, "uniform(-1,1)", op == SM_DET ? "normal(0,2)" : "uniform(0,1)");
        if (op == SM_SOLVE) {
            char lr[32];
            snprintf(lr, sizeof lr, "batch*%d", dim);
            synth_sp_ptr(&t, RHS, pt, "in", lr, "uniform(-1,1)", "normal(0,10)");
        }
        synth_sp_ptr(&t, O, pt, "out", lo, NULL, NULL);
        if (op != SM_DET) synth_sp_scal(&t, "lambda", T, lam);
        synth_sp_scal(&t, "batch", "u32", "batch");
        synth_sp_sizes(&t, "[{\"batch\": 1048576, \"time\": true}, {\"batch\": 100003}, {\"batch\": 1000}, {\"batch\": 33}, {\"batch\": 1}]");
    }
    char blk[8], grid[32];
    snprintf(blk, sizeof blk, "%d", block);
    snprintf(grid, sizeof grid, "cdiv(batch,%d)", block);
    synth_sp_launch(&t, blk, NULL, NULL, grid, NULL, NULL, "0");
    json_t *fp = json_pack("{s:s, s:s, s:i, s:i}", "op", OPS[op], "dtype", T, "n", op == SM_TRI ? 0 : dim, "block", block);
    if (op == SM_TRI) {
        json_object_set_new(fp, "names", json_pack("[s,s,s,s,s]", TRN[tn][0], TRN[tn][1], TRN[tn][2], TRN[tn][3], "x"));
        json_object_set_new(fp, "layout", json_string(inter ? "interleaved" : "contiguous"));
    } else {
        json_object_set_new(fp, "names", op == SM_SOLVE ? json_pack("[s,s,s]", A, O, RHS) : json_pack("[s,s]", A, O));
    }
    synth_sp_fparams(&t, fp);

    /* ---- descriptions ---- */
    sp_facts f = {0};
    switch (op) {
    case SM_DET:
        pg_buf_printf(&f.formula, "%s[b] = det(%s[b*%d .. b*%d + %d])", O, A, nn, nn, nn - 1);
        synth_sp_add(&f.name_en, "batched %dx%d determinants", dim, dim);
        synth_sp_add(&f.name_en, "determinant of many small matrices");
        synth_sp_add(&f.name_en, "per-matrix det (%dx%d)", dim, dim);
        synth_sp_add(&f.name_en, "batched det for tiny matrices");
        synth_sp_add(&f.name_zh, "批量 %dx%d 行列式", dim, dim);
        synth_sp_add(&f.name_zh, "小矩阵行列式");
        synth_sp_add(&f.name_zh, "逐矩阵求行列式");
        synth_sp_add(&f.explain_en, "write to %s the determinant of each of the batch %dx%d matrices that %s packs back to back, row by row", O, dim, dim, A);
        synth_sp_add(&f.explain_en, "compute the determinant of every matrix b of the batch%s", dim == 4 ? " (elimination with row pivoting, or cofactors)" : " by the cofactor formula");
        synth_sp_add(&f.explain_zh, "%s 依次存放 batch 个 %dx%d 行主序矩阵，计算每个矩阵的行列式写入 %s", A, dim, dim, O);
        synth_sp_add(&f.explain_zh, "对批量中的每个小矩阵求行列式");
        break;
    case SM_INV:
    case SM_SOLVE:
        if (op == SM_INV) pg_buf_printf(&f.formula, "%s_b = (%s_b + lambda*I)^-1", O, A);
        else pg_buf_printf(&f.formula, "%s_b = (%s_b + lambda*I)^-1 %s_b", O, A, RHS);
        synth_sp_add(&f.name_en, op == SM_INV ? "batched %dx%d inverse of shifted matrices" : "batched %dx%d linear solves", dim, dim);
        synth_sp_add(&f.name_en, op == SM_INV ? "invert many small regularized matrices" : "solve many tiny regularized systems");
        synth_sp_add(&f.name_en, op == SM_INV ? "(A + lambda I)^-1 per matrix" : "(A + lambda I) x = r per system");
        synth_sp_add(&f.name_en, op == SM_INV ? "batched ridge-style matrix inverse" : "batched small Gauss-Jordan solve");
        synth_sp_add(&f.name_zh, op == SM_INV ? "批量 %dx%d 矩阵求逆（加对角平移）" : "批量 %dx%d 线性方程组求解", dim, dim);
        synth_sp_add(&f.name_zh, op == SM_INV ? "小矩阵批量求逆" : "小方程组批量求解");
        synth_sp_add(&f.name_zh, op == SM_INV ? "正则化矩阵求逆" : "正则化线性方程组");
        if (op == SM_INV) {
            synth_sp_add(&f.explain_en, "add lambda to the diagonal of each %dx%d matrix of the batch and write the inverse of the result (row-major) to %s", dim, dim, O);
            synth_sp_add(&f.explain_en, "invert every shifted matrix %s_b + lambda*I; lambda = %s makes them diagonally dominant, so Gauss-Jordan without pivoting is fine", A, lam);
            synth_sp_add(&f.explain_zh, "对每个 %dx%d 矩阵先在对角线上加 lambda，再求逆，结果按行主序写入 %s", dim, dim, O);
        } else {
            synth_sp_add(&f.explain_en, "add lambda to the diagonal of matrix b and solve it against the right-hand side %s_b for each system b, writing the %d unknowns to %s", RHS, dim, O);
            synth_sp_add(&f.explain_en, "solve (%s_b + lambda*I) %s_b = %s_b for every small system of the batch (lambda = %s keeps it diagonally dominant)", A, O, RHS, lam);
            synth_sp_add(&f.explain_zh, "对每个方程组，把矩阵对角线加 lambda 后与右端项 %s 求解，%d 个未知数写入 %s", RHS, dim, O);
        }
        synth_sp_add(&f.explain_zh, "lambda = %s 使矩阵对角占优，可以不选主元", lam);
        break;
    default:
        pg_buf_printf(&f.formula, "for each system s: %s_i x_{i-1} + %s_i x_i + %s_i x_{i+1} = %s_i, i < n (%s_0 and %s_{n-1} unused), entry i at %s",
                      TRN[tn][0], TRN[tn][1], TRN[tn][2], TRN[tn][3], TRN[tn][0], TRN[tn][2], inter ? "i*batch + s" : "s*n + i");
        synth_sp_add(&f.name_en, "batched tridiagonal solver");
        synth_sp_add(&f.name_en, "Thomas algorithm, one system per thread");
        synth_sp_add(&f.name_en, "many small tridiagonal systems (gtsv batched)");
        synth_sp_add(&f.name_en, "batched TDMA solve");
        synth_sp_add(&f.name_zh, "批量三对角方程组求解");
        synth_sp_add(&f.name_zh, "追赶法（Thomas 算法）");
        synth_sp_add(&f.name_zh, "大量三对角系统");
        synth_sp_add(&f.explain_en, "solve batch independent tridiagonal systems of n unknowns: %s is the sub-diagonal, %s the diagonal, %s the super-diagonal and %s the right-hand side; write the solutions to x",
               TRN[tn][0], TRN[tn][1], TRN[tn][2], TRN[tn][3]);
        synth_sp_add(&f.explain_en, "run forward elimination then back substitution (the Thomas algorithm) on each system, whose entry i lives at %s",
               inter ? "i*batch + s (interleaved)" : "s*n + i (each system contiguous)");
        synth_sp_add(&f.explain_zh, "求解 batch 个互相独立、n 个未知数的三对角方程组：%s 为下对角线，%s 为主对角线，%s 为上对角线，%s 为右端项，解写入 x", TRN[tn][0], TRN[tn][1],
               TRN[tn][2], TRN[tn][3]);
        synth_sp_add(&f.explain_zh, "每个线程负责一个方程组，先消元再回代（追赶法）");
        break;
    }
    synth_sp_add(&f.how_en, "one thread per %s, everything in registers", op == SM_TRI ? "system" : "matrix");
    if (op != SM_TRI) {
        char arr[64] = "";
        if (op == SM_INV) snprintf(arr, sizeof arr, ", %s_b at %s + b*%d", O, O, nn);
        else if (op == SM_SOLVE) snprintf(arr, sizeof arr, ", %s_b at %s + b*%d and %s_b at %s + b*%d", RHS, RHS, dim, O, O, dim);
        pg_buf_printf(&f.shape_en, "%s_b is the %dx%d row-major matrix at %s + b*%d%s, for b < batch", A, dim, dim, A, nn, arr);
        pg_buf_printf(&f.shape_zh, "%s_b 为从 %s + b*%d 开始的 %dx%d 行主序矩阵（b < batch）", A, A, nn, dim, dim);
    }
    synth_sp_add(&f.how_zh, "每个线程处理一个%s", op == SM_TRI ? "方程组" : "矩阵");
    if (op == SM_TRI) {
        pg_buf_printf(&f.notes_en, "At most 64 unknowns per system; the diagonal dominates (|%s| >= 3), so no pivoting is needed", TRN[tn][1]);
        pg_buf_printf(&f.notes_zh, "n <= 64，主对角占优，无需选主元");
    } else if (op != SM_DET) {
        pg_buf_printf(&f.notes_en, "lambda = %s is a scalar parameter", lam);
        pg_buf_printf(&f.notes_zh, "lambda = %s 为标量参数", lam);
    }
    char bytes[64], flops[40];
    int es = f64 ? 8 : 4;
    if (op == SM_TRI) {
        snprintf(bytes, sizeof bytes, "%d*5*batch*n", es);
        snprintf(flops, sizeof flops, "8*batch*n");
    } else {
        snprintf(bytes, sizeof bytes, "%d*(%s + %s)", es, la, lo);
        snprintf(flops, sizeof flops, "%d*batch", 2 * nn * dim);
    }
    f.data = op == SM_TRI ? DESC_DATA_VECTOR : DESC_DATA_MATRIX;
    synth_sp_finish(&t, &f, seed, "uniform(-1,1)", "normal(0,1)", T, f64 ? 1e-10 : (op == SM_DET && dim == 4 ? 1e-4 : 1e-5), synth_fam_ref(synth_fam_gen_smallmat), bytes, flops);
    synth_sp_facts_free(&f);
    return PG_OK;
}
