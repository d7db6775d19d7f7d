/* family_cuda.c — the CUDA-C families (compiled by nvcc in family.c):
 *
 *   gemv       y = A x, alpha A x or alpha A x + beta y (rows x cols,
 *              row-major): thread per row (unroll 1/2/4 of the column loop),
 *              warp per row (lanes stride the columns, shuffle reduction;
 *              2/4/8 rows per block), 4/8/16 lanes per row, or a block per
 *              row (shuffles + shared partials); f32/f64
 *   gemm       C = A B, alpha A B or alpha A B + beta C (M x K times K x N,
 *              row-major) with T x T shared tiles, T = 8/16/32, each thread
 *              computing CF = 1/2/4 rows of its column (block T x T/CF), or
 *              one thread per element from global memory; f32/f64
 *   transpose  out (cols x rows) = in^T: direct (reads or writes coalesced)
 *              or a TD x (TD+1) padded shared tile, TD = 16/32/64, RB =
 *              2..16 rows of threads per tile (TD = 8: 8x2, 8x4); f32/f64/
 *              s32/u16/u8; one matrix or a batch along blockIdx.z (not the
 *              suite's single f64 32x33 tile with 32x8 blocks)
 *
 * The three families had 24, 18 and 16 tasks until 2026-12-06, so a long run
 * drew them out after a few hundred candidates and deduplicated the rest.
 *   stencil2d  5-point cross, 9-point box (a third of them separable:
 *              w[dy]*w[dx]/S, baked) or radius-2 cross on a rows x cols
 *              grid; coefficients baked or as parameters; boundary
 *              zero/clamp/copy; block 16x16 / 32x8 / 32x4; f32/f64
 *
 * Each generator writes the task.json and the kernel's CUDA C
 * (extern "C" __global__, so the entry name is the task name). */
#include "ptxgen/synth.h"
#include "family_internal.h"
#include "describe.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

static void common_json(json_t *root, const char *name, const char *family) {
    json_object_set_new(root, "name", json_string(name));
    json_object_set_new(root, "family", json_string(family));
    json_object_set_new(root, "kernel", json_string(name));
}
/* The descriptions go in after params and launch (synth_desc_render_all reads
 * them); a placeholder keeps "descriptions" where the corpus layout has it. */
static void describe_into(json_t *root, const desc_facts *f, uint64_t seed) {
    json_object_set_new(root, "descriptions", synth_desc_render_all(f, root, seed));
}
static json_t *ptr(const char *name, const char *type, const char *role, const char *len) {
    return json_pack("{s:s, s:s, s:s, s:s}", "name", name, "type", type, "role", role, "len", len);
}
static json_t *scal(const char *name, const char *type, const char *value) {
    return json_pack("{s:s, s:s, s:s}", "name", name, "type", type, "value", value);
}
static void finish(json_t *root, const char *T, double tol, const char *ref, const char *bytes, const char *flops, pg_buf *out) {
    if (!json_object_get(root, "distributions"))   /* a generator may have set its own (integer data) */
        json_object_set_new(root, "distributions", json_pack("[s, s]", "uniform(-1,1)", "normal(0,1)"));
    json_t *t = json_object();
    json_object_set_new(t, T, json_real(tol));
    json_object_set_new(root, "tolerance", t);
    json_object_set_new(root, "reference", json_pack("{s:s, s:s}", "kind", "c", "name", ref));
    json_object_set_new(root, "cost", json_pack("{s:s, s:s}", "bytes", bytes, "flops", flops));
    synth_task_json_write(root, out);
    json_decref(root);
}

/* ---- gemv -------------------------------------------------------------------------- */
/* The store of a scaled matrix product: acc, alpha * acc, or alpha * acc + beta * dst
 * (dst is then read, so the output is inout). */
static const char *scaled_store(int scale, const char *acc, const char *dst, char *buf, size_t n) {
    if (scale == 0) snprintf(buf, n, "%s", acc);
    else if (scale == 1) snprintf(buf, n, "alpha * %s", acc);
    else snprintf(buf, n, "alpha * %s + beta * %s", acc, dst);
    return buf;
}
static const char *const SCALE_TAG[] = {"", "_al", "_ab"}, *const SCALE_ID[] = {"", ":alpha", ":axpby"};
static const char *const ALPHA_V[] = {"0.5", "2.0", "-1.5", "0.25"}, *const BETA_V[] = {"1.0", "-0.5", "0.5", "2.0"};

/* Mappings: a thread per row (unroll 1/2/4), a warp per row (2/4/8 rows per block), L = 4/8/16
 * lanes per row (shuffles of width L), or a block per row (warp shuffles, then the warps'
 * partials through shared memory); y = A x, alpha A x or alpha A x + beta y.  The first two
 * mappings unscaled are the 24 tasks the family had before the others were added. */
enum { GV_THREAD, GV_WARP, GV_LANES, GV_BLOCK };
pg_status synth_fam_cu_gemv(uint64_t seed, synth_family_sample *s) {
    fam_rng r = {seed ^ 0x67656d7600000004ull};
    bool f64 = synth_fam_pick(&r, 4) == 0;
    int map = synth_fam_pick(&r, 4), scale = synth_fam_pick(&r, 3);
    int unroll = 1 << synth_fam_pick(&r, 3), rpb = 2 << synth_fam_pick(&r, 3), lanes = 4 << synth_fam_pick(&r, 3);
    int block = map == GV_WARP ? 32 * rpb : map == GV_LANES ? 128 << synth_fam_pick(&r, 2) : 64 << synth_fam_pick(&r, 3);
    int lrpb = block / lanes;   /* rows per block of the lanes mapping */
    const char *T = f64 ? "f64" : "f32", *CT = f64 ? "double" : "float";
    snprintf(s->family, sizeof s->family, "gemv");
    snprintf(s->source, sizeof s->source, "nvcc");
    if (map == GV_WARP) snprintf(s->name, sizeof s->name, "gemv_%s_warp_rows%d%s", T, rpb, SCALE_TAG[scale]);
    else if (map == GV_THREAD) snprintf(s->name, sizeof s->name, "gemv_%s_thread_b%d_u%d%s", T, block, unroll, SCALE_TAG[scale]);
    else if (map == GV_LANES) snprintf(s->name, sizeof s->name, "gemv_%s_lanes%d_b%d%s", T, lanes, block, SCALE_TAG[scale]);
    else snprintf(s->name, sizeof s->name, "gemv_%s_rowblock%d%s", T, block, SCALE_TAG[scale]);
    synth_fam_fit_name(s->name);   /* within the decoder's PG_NAME_MAX */
    static const char *const MAPN[] = {"thread", "warp", "lanes", "block"};
    snprintf(s->identity, sizeof s->identity, "gemv:%s:%s:%d:%d%s", T, MAPN[map], map == GV_WARP ? rpb : map == GV_LANES ? lanes : block,
             map == GV_THREAD ? unroll : map == GV_LANES ? block : 0, SCALE_ID[scale]);
    const char *n = s->name;
    pg_buf *c = &s->cu;
    static const char *const HOW[] = {"one thread per row", "one warp per row, lanes stride the columns, shuffle reduction",
                                      "a group of lanes per row, shuffle reduction within the group",
                                      "one block per row, warp shuffles then shared memory"};
    static const char *const FORM[] = {"y = A x", "y = alpha A x", "y = alpha A x + beta y"};
    pg_buf_printf(c, "// %s: %s, A is rows x cols (row-major, %s), %s.\n", n, FORM[scale], CT, HOW[map]);
    pg_buf_printf(c, "extern \"C\" __global__ void %s(const %s* __restrict__ A, const %s* __restrict__ x, %s* __restrict__ y,\n"
                     "    %s%sunsigned int rows, unsigned int cols)\n{\n", n, CT, CT, CT, scale ? (f64 ? "double alpha, " : "float alpha, ") : "",
                  scale == 2 ? (f64 ? "double beta, " : "float beta, ") : "");
    char st[96];
    if (map == GV_WARP) {
        pg_buf_printf(c, "    unsigned int row = blockIdx.x * %d + threadIdx.x / 32, lane = threadIdx.x %% 32;\n", rpb);
        pg_buf_printf(c, "    if (row >= rows) return;\n    const %s* a = A + (size_t)row * cols;\n    %s acc = 0;\n", CT, CT);
        pg_buf_puts(c, "    for (unsigned int j = lane; j < cols; j += 32) acc += a[j] * x[j];\n");
        pg_buf_puts(c, "    for (int off = 16; off > 0; off /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, off);\n");
        pg_buf_printf(c, "    if (lane == 0) y[row] = %s;\n}\n", scaled_store(scale, "acc", "y[row]", st, sizeof st));
    } else if (map == GV_THREAD) {
        pg_buf_puts(c, "    unsigned int row = blockIdx.x * blockDim.x + threadIdx.x;\n    if (row >= rows) return;\n");
        pg_buf_printf(c, "    const %s* a = A + (size_t)row * cols;\n    %s acc = 0;\n", CT, CT);
        if (unroll > 1) pg_buf_printf(c, "#pragma unroll %d\n", unroll);
        pg_buf_printf(c, "    for (unsigned int j = 0; j < cols; j++) acc += a[j] * x[j];\n    y[row] = %s;\n}\n",
                      scaled_store(scale, "acc", "y[row]", st, sizeof st));
    } else if (map == GV_LANES) {
        /* rows of one warp differ, so no lane returns early: every lane takes part in the shuffles */
        pg_buf_printf(c, "    unsigned int row = blockIdx.x * %d + threadIdx.x / %d, lane = threadIdx.x %% %d;\n", lrpb, lanes, lanes);
        pg_buf_printf(c, "    %s acc = 0;\n    if (row < rows) {\n        const %s* a = A + (size_t)row * cols;\n", CT, CT);
        pg_buf_printf(c, "        for (unsigned int j = lane; j < cols; j += %d) acc += a[j] * x[j];\n    }\n", lanes);
        pg_buf_printf(c, "    for (int off = %d; off > 0; off /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, off, %d);\n", lanes / 2, lanes);
        pg_buf_printf(c, "    if (row < rows && lane == 0) y[row] = %s;\n}\n", scaled_store(scale, "acc", "y[row]", st, sizeof st));
    } else {
        pg_buf_printf(c, "    __shared__ %s part[%d];\n    unsigned int row = blockIdx.x;\n", CT, block / 32);
        pg_buf_printf(c, "    const %s* a = A + (size_t)row * cols;\n    %s acc = 0;\n", CT, CT);
        pg_buf_printf(c, "    for (unsigned int j = threadIdx.x; j < cols; j += %d) acc += a[j] * x[j];\n", block);
        pg_buf_puts(c, "    for (int off = 16; off > 0; off /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, off);\n");
        pg_buf_puts(c, "    if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = acc;\n    __syncthreads();\n");
        pg_buf_printf(c, "    if (threadIdx.x == 0) {\n        %s sum = 0;\n        for (int w = 0; w < %d; w++) sum += part[w];\n", CT, block / 32);
        pg_buf_printf(c, "        y[row] = %s;\n    }\n}\n", scaled_store(scale, "sum", "y[row]", st, sizeof st));
    }
    char grid[48], blk[16], pt[8];
    if (map == GV_BLOCK) snprintf(grid, sizeof grid, "rows");
    else snprintf(grid, sizeof grid, "cdiv(rows,%d)", map == GV_WARP ? rpb : map == GV_LANES ? lrpb : block);
    snprintf(blk, sizeof blk, "%d", block);
    snprintf(pt, sizeof pt, "%s*", T);
    json_t *root = json_object();
    common_json(root, n, "gemv");
    json_t *fp = json_pack("{s:s, s:s, s:i, s:i, s:i}", "dtype", T, "mapping", MAPN[map], "block", block, "rows_per_block",
                           map == GV_WARP ? rpb : map == GV_LANES ? lrpb : map == GV_BLOCK ? 1 : block, "unroll", map == GV_THREAD ? unroll : 1);
    if (map == GV_LANES) json_object_set_new(fp, "lanes_per_row", json_integer(lanes));
    if (scale) json_object_set_new(fp, "scale", json_string(scale == 1 ? "alpha" : "alpha_beta"));
    json_object_set_new(root, "family_params", fp);
    json_object_set_new(root, "descriptions", json_null());
    json_t *ps = json_array();
    json_array_append_new(ps, ptr("A", pt, "in", "rows*cols"));
    json_array_append_new(ps, ptr("x", pt, "in", "cols"));
    json_array_append_new(ps, ptr("y", pt, scale == 2 ? "inout" : "out", "rows"));
    if (scale) json_array_append_new(ps, scal("alpha", T, ALPHA_V[synth_fam_pick(&r, 4)]));
    if (scale == 2) json_array_append_new(ps, scal("beta", T, BETA_V[synth_fam_pick(&r, 4)]));
    json_array_append_new(ps, scal("rows", "u32", "rows"));
    json_array_append_new(ps, scal("cols", "u32", "cols"));
    json_object_set_new(root, "params", ps);
    json_object_set_new(root, "sizes", json_pack("[{s:i, s:i, s:b}, {s:i, s:i}, {s:i, s:i}, {s:i, s:i}]", "rows", 8192, "cols", 4096, "time", 1,
                                                 "rows", 1000, "cols", 777, "rows", 333, "cols", 1028, "rows", 5, "cols", 3));
    json_object_set_new(root, "launch", json_pack("{s:[s], s:[s], s:s}", "block", blk, "grid", grid, "smem", "0"));
    char bytes[80];
    snprintf(bytes, sizeof bytes, "%d*(rows*cols + cols + %srows)", f64 ? 8 : 4, scale == 2 ? "2*" : "");
    {
        const char *names[] = {"matrix-vector product", "dense GEMV", scale ? FORM[scale] : "y = A x", "dense matvec", f64 ? "DGEMV" : "SGEMV",
                               scale == 2 ? "BLAS-style gemv with alpha and beta" : scale ? "scaled matrix-vector product" : "matrix times vector", NULL};
        const char *names_zh[] = {"矩阵向量乘", "GEMV", "稠密矩阵乘向量", scale == 2 ? "矩阵向量乘 y = alpha A x + beta y" : scale ? "矩阵向量乘 y = alpha A x" : "矩阵乘向量 y = A x", NULL};
        const char *ex0[] = {"multiply the row-major rows x cols matrix A by the vector x and write the result to y, so y[r] is the dot product of row r of A with x",
                             "compute the dot product of each row r of A with x and store it in y[r]",
                             "write into y[r] the sum over all columns c of A[r*cols + c] times x[c]", NULL};
        const char *ex1[] = {"multiply the row-major rows x cols matrix A by the vector x, scale the result by alpha and write it to y",
                             "set y[r] to alpha times the dot product of row r of A with x", NULL};
        const char *ex2[] = {"update y in place to alpha * A x + beta * y for the row-major rows x cols matrix A (the BLAS gemv)",
                             "for each row r, combine alpha times the dot product of row r of A with x and beta times the old y[r] into y[r]", NULL};
        const char *ez0[] = {"把行主序 rows x cols 矩阵 A 乘以向量 x，结果写入 y：y[r] 为 A 第 r 行与 x 的点积",
                             "对每一行 r，计算 A 的第 r 行与 x 的点积并写入 y[r]", NULL};
        const char *ez1[] = {"计算 alpha 乘以 A 第 r 行与 x 的点积，写入 y[r]", NULL};
        const char *ez2[] = {"就地更新 y：y[r] = alpha * (A 第 r 行与 x 的点积) + beta * y[r]", NULL};
        const char **ex = scale == 0 ? ex0 : scale == 1 ? ex1 : ex2, **ez = scale == 0 ? ez0 : scale == 1 ? ez1 : ez2;
        static const char *const FORMULA[] = {"y[r] = sum_c A[r*cols + c] * x[c] for every r < rows",
                                              "y[r] = alpha * sum_c A[r*cols + c] * x[c] for every r < rows",
                                              "y[r] = alpha * sum_c A[r*cols + c] * x[c] + beta * y[r] for every r < rows"};
        char h0[200], h1[160], hz0[200];
        if (map == GV_WARP) {
            snprintf(h0, sizeof h0, "one 32-thread warp per row: lanes take columns lane, lane+32, ... and combine with __shfl_xor_sync");
            snprintf(h1, sizeof h1, "a warp per row, %d rows per block, shuffle reduction", rpb);
            snprintf(hz0, sizeof hz0, "每个 warp 负责一行，lane 按 32 的步长遍历列，最后用 shuffle 归约");
        } else if (map == GV_THREAD) {
            snprintf(h0, sizeof h0, "one thread per row walking the row's columns");
            snprintf(h1, sizeof h1, "a thread per output row%s", unroll > 1 ? (unroll == 2 ? ", column loop unrolled 2x" : ", column loop unrolled 4x") : "");
            snprintf(hz0, sizeof hz0, "每个线程负责一行，顺序遍历该行的列");
        } else if (map == GV_LANES) {
            snprintf(h0, sizeof h0, "%d lanes per row: they stride the row's columns by %d and combine with __shfl_xor_sync of width %d", lanes, lanes, lanes);
            snprintf(h1, sizeof h1, "%d threads per block, %d rows per block, %d lanes each", block, lrpb, lanes);
            snprintf(hz0, sizeof hz0, "每行由 %d 个 lane 负责，按 %d 的步长遍历列，再用宽度为 %d 的 shuffle 归约", lanes, lanes, lanes);
        } else {
            snprintf(h0, sizeof h0, "one %d-thread block per row: threads stride the columns, each warp reduces with shuffles, thread 0 adds the warps' partials from shared memory", block);
            snprintf(h1, sizeof h1, "a block per row (grid = rows), %d threads", block);
            snprintf(hz0, sizeof hz0, "每个线程块负责一行：线程按 %d 的步长遍历列，warp 内 shuffle 归约，再经共享内存合并各 warp 的部分和", block);
        }
        const char *hw[] = {h0, h1, NULL}, *hz[] = {hz0, NULL};
        desc_facts f = {.name_en = names, .name_zh = names_zh, .formula = FORMULA[scale],
                        .explain_en = ex, .explain_zh = ez, .how_en = hw, .how_zh = hz,
                        .shape_en = "A is rows x cols, row-major; x has cols entries and y has rows entries",
                        .shape_zh = "A 为 rows x cols 行主序矩阵，x 长度为 cols，y 长度为 rows",
                        .notes_en = "rows and cols are arbitrary (no padding)", .notes_zh = "rows 和 cols 任意（没有填充）",
                        .elems_per_thread = map == GV_THREAD ? 1 : 0, .data = DESC_DATA_MATRIX,
                        .hints = map == GV_THREAD ? 0u : DESC_HINT_SHUFFLE | DESC_HINT_COALESCED | (map == GV_BLOCK ? DESC_HINT_SMEM : 0u)};
        describe_into(root, &f, synth_fam_next(&r));
    }
    finish(root, T, f64 ? 1e-10 : 1e-4, synth_fam_ref(synth_fam_cu_gemv), bytes, "2*rows*cols", &s->task_json);
    return PG_OK;
}

/* ---- gemm -------------------------------------------------------------------------- */
/* Shared T x T tiles (T = 8/16/32, each thread CF = 1/2/4 rows of its column), or one
 * thread per element of C straight from global memory (blocks 16x16, 32x8, 8x32; the K loop
 * unrolled 1 or 4 times); C = A B, alpha A B or alpha A B + beta C. */
pg_status synth_fam_cu_gemm(uint64_t seed, synth_family_sample *s) {
    fam_rng r = {seed ^ 0x67656d6d00000005ull};
    bool f64 = synth_fam_pick(&r, 4) == 0;
    int TT = 8 << synth_fam_pick(&r, 3), CF = 1 << synth_fam_pick(&r, 3);
    int sty = synth_fam_pick(&r, 3), scale = synth_fam_pick(&r, 3);
    bool naive = synth_fam_pick(&r, 4) == 0;
    static const int NBX[] = {16, 32, 8}, NBY[] = {16, 8, 32};
    int nb = synth_fam_pick(&r, 3), nu = synth_fam_pick(&r, 2) ? 4 : 1;
    const char *T = f64 ? "f64" : "f32", *CT = f64 ? "double" : "float";
    snprintf(s->family, sizeof s->family, "gemm");
    snprintf(s->source, sizeof s->source, "nvcc");
    static const char *STY[] = {"gemm_%s_tile%d_cf%d%s", "sgemm_smem_%s_%dx%d%s", "matmul_%s_t%d_r%d%s"};
    static const char *NSTY[] = {"gemm_%s_naive_%dx%d_u%d%s", "matmul_%s_direct_%dx%d_u%d%s", "gemm_%s_gmem_%dx%d_u%d%s"};
    if (naive) snprintf(s->name, sizeof s->name, NSTY[sty], T, NBX[nb], NBY[nb], nu, SCALE_TAG[scale]);
    else snprintf(s->name, sizeof s->name, STY[sty], T, TT, CF, SCALE_TAG[scale]);
    synth_fam_fit_name(s->name);   /* within the decoder's PG_NAME_MAX */
    if (naive) snprintf(s->identity, sizeof s->identity, "gemm:%s:naive:%dx%d:u%d%s", T, NBX[nb], NBY[nb], nu, SCALE_ID[scale]);
    else snprintf(s->identity, sizeof s->identity, "gemm:%s:t%d:cf%d%s", T, TT, CF, SCALE_ID[scale]);
    const char *n = s->name;
    pg_buf *c = &s->cu;
    int RS = TT / CF;   /* rows of threads */
    static const char *const FORM[] = {"C = A B", "C = alpha A B", "C = alpha A B + beta C"};
    char st[96];
    if (naive)
        pg_buf_printf(c, "// %s: %s (row-major %s), one thread per element of C, operands read from global memory.\n", n, FORM[scale], CT);
    else
        pg_buf_printf(c, "// %s: %s (row-major %s), %dx%d shared tiles, each thread computes %d row%s of its column.\n", n, FORM[scale], CT, TT,
                      TT, CF, CF > 1 ? "s" : "");
    pg_buf_printf(c, "extern \"C\" __global__ void %s(const %s* __restrict__ A, const %s* __restrict__ B, %s* __restrict__ C,\n"
                     "    %s%sunsigned int M, unsigned int N, unsigned int K)\n{\n", n, CT, CT, CT,
                  scale ? (f64 ? "double alpha, " : "float alpha, ") : "", scale == 2 ? (f64 ? "double beta, " : "float beta, ") : "");
    if (naive) {
        pg_buf_puts(c, "    unsigned int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;\n");
        pg_buf_printf(c, "    if (row >= M || col >= N) return;\n    %s acc = 0;\n", CT);
        if (nu > 1) pg_buf_printf(c, "#pragma unroll %d\n", nu);
        pg_buf_puts(c, "    for (unsigned int k = 0; k < K; k++) acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];\n");
        pg_buf_printf(c, "    C[(size_t)row * N + col] = %s;\n}\n", scaled_store(scale, "acc", "C[(size_t)row * N + col]", st, sizeof st));
    } else {
        pg_buf_printf(c, "    __shared__ %s As[%d][%d];\n    __shared__ %s Bs[%d][%d];\n", CT, TT, TT, CT, TT, TT);
        pg_buf_printf(c, "    int tx = threadIdx.x, ty = threadIdx.y;\n    int col = blockIdx.x * %d + tx, row0 = blockIdx.y * %d;\n", TT, TT);
        pg_buf_printf(c, "    %s acc[%d];\n#pragma unroll\n    for (int j = 0; j < %d; j++) acc[j] = 0;\n", CT, CF, CF);
        pg_buf_printf(c, "    for (int k0 = 0; k0 < (int)K; k0 += %d) {\n#pragma unroll\n        for (int j = 0; j < %d; j++) {\n", TT, CF);
        pg_buf_printf(c, "            int rr = ty + j * %d;\n", RS);
        pg_buf_puts(c, "            int ar = row0 + rr, ac = k0 + tx, br = k0 + rr;\n");
        pg_buf_puts(c, "            As[rr][tx] = (ar < (int)M && ac < (int)K) ? A[(size_t)ar * K + ac] : 0;\n");
        pg_buf_puts(c, "            Bs[rr][tx] = (br < (int)K && col < (int)N) ? B[(size_t)br * N + col] : 0;\n        }\n        __syncthreads();\n");
        pg_buf_printf(c, "#pragma unroll\n        for (int kk = 0; kk < %d; kk++) {\n            %s b = Bs[kk][tx];\n#pragma unroll\n", TT, CT);
        pg_buf_printf(c, "            for (int j = 0; j < %d; j++) acc[j] += As[ty + j * %d][kk] * b;\n        }\n        __syncthreads();\n    }\n", CF, RS);
        pg_buf_printf(c, "#pragma unroll\n    for (int j = 0; j < %d; j++) {\n        int rr = row0 + ty + j * %d;\n", CF, RS);
        pg_buf_printf(c, "        if (rr < (int)M && col < (int)N) C[(size_t)rr * N + col] = %s;\n    }\n}\n",
                      scaled_store(scale, "acc[j]", "C[(size_t)rr * N + col]", st, sizeof st));
    }
    char g0[32], g1[32], b0[8], b1[8], pt[8];
    snprintf(g0, sizeof g0, "cdiv(N,%d)", naive ? NBX[nb] : TT);
    snprintf(g1, sizeof g1, "cdiv(M,%d)", naive ? NBY[nb] : TT);
    snprintf(b0, sizeof b0, "%d", naive ? NBX[nb] : TT);
    snprintf(b1, sizeof b1, "%d", naive ? NBY[nb] : RS);
    snprintf(pt, sizeof pt, "%s*", T);
    json_t *root = json_object();
    common_json(root, n, "gemm");
    json_t *fp = naive ? json_pack("{s:s, s:s, s:i, s:i, s:i}", "dtype", T, "method", "direct", "block_x", NBX[nb], "block_y", NBY[nb], "unroll", nu)
                       : json_pack("{s:s, s:i, s:i}", "dtype", T, "tile", TT, "coarsen", CF);
    if (scale) json_object_set_new(fp, "scale", json_string(scale == 1 ? "alpha" : "alpha_beta"));
    json_object_set_new(root, "family_params", fp);
    json_object_set_new(root, "descriptions", json_null());
    json_t *ps = json_array();
    json_array_append_new(ps, ptr("A", pt, "in", "M*K"));
    json_array_append_new(ps, ptr("B", pt, "in", "K*N"));
    json_array_append_new(ps, ptr("C", pt, scale == 2 ? "inout" : "out", "M*N"));
    if (scale) json_array_append_new(ps, scal("alpha", T, ALPHA_V[synth_fam_pick(&r, 4)]));
    if (scale == 2) json_array_append_new(ps, scal("beta", T, BETA_V[synth_fam_pick(&r, 4)]));
    json_array_append_new(ps, scal("M", "u32", "M"));
    json_array_append_new(ps, scal("N", "u32", "N"));
    json_array_append_new(ps, scal("K", "u32", "K"));
    json_object_set_new(root, "params", ps);
    json_object_set_new(root, "sizes", json_pack("[{s:i, s:i, s:i, s:b}, {s:i, s:i, s:i}, {s:i, s:i, s:i}, {s:i, s:i, s:i}]", "M", 1024, "N",
                                                 1024, "K", 1024, "time", 1, "M", 100, "N", 77, "K", 130, "M", 257, "N", 129, "K", 65,
                                                 "M", 1, "N", 3, "K", 1));
    json_object_set_new(root, "launch", json_pack("{s:[s,s], s:[s,s], s:s}", "block", b0, b1, "grid", g0, g1, "smem", "0"));
    char bytes[64];
    snprintf(bytes, sizeof bytes, "%d*(M*K + K*N + %sM*N)", f64 ? 8 : 4, scale == 2 ? "2*" : "");
    {
        const char *names[] = {"matrix multiply", "dense GEMM", naive ? "matmul" : "tiled matmul", FORM[scale], f64 ? "DGEMM" : "SGEMM", "matrix-matrix product", NULL};
        const char *names_zh[] = {"矩阵乘法", naive ? "矩阵乘" : "分块矩阵乘", "GEMM", scale == 2 ? "矩阵相乘 C = alpha A B + beta C" : scale ? "矩阵相乘 C = alpha A B" : "矩阵相乘 C = A B", NULL};
        const char *ex0[] = {"multiply the M x K matrix A by the K x N matrix B and write the M x N product to C (all row-major)",
                             "set every C[i][j] to the dot product of row i of A and column j of B",
                             "compute the matrix product of A (M x K) and B (K x N) into C", NULL};
        const char *ex1[] = {"multiply the M x K matrix A by the K x N matrix B, scale the product by alpha and write it to C (all row-major)",
                             "set every C[i][j] to alpha times the dot product of row i of A and column j of B", NULL};
        const char *ex2[] = {"update C in place to alpha * A B + beta * C, with A M x K, B K x N and C M x N (all row-major; the BLAS gemm)",
                             "set every C[i][j] to alpha times the dot product of row i of A and column j of B plus beta times the old C[i][j]", NULL};
        const char *ez0[] = {"把 M x K 矩阵 A 乘以 K x N 矩阵 B，M x N 的结果写入 C（都按行主序）", "C[i][j] 等于 A 的第 i 行与 B 的第 j 列的点积", NULL};
        const char *ez1[] = {"C[i][j] 等于 alpha 乘以 A 的第 i 行与 B 的第 j 列的点积（都按行主序）", NULL};
        const char *ez2[] = {"就地更新 C：C[i][j] = alpha * (A 第 i 行与 B 第 j 列的点积) + beta * C[i][j]（都按行主序）", NULL};
        const char **ex = scale == 0 ? ex0 : scale == 1 ? ex1 : ex2, **ez = scale == 0 ? ez0 : scale == 1 ? ez1 : ez2;
        static const char *const FORMULA[] = {"C[i*N + j] = sum_k A[i*K + k] * B[k*N + j] for every i < M, j < N",
                                              "C[i*N + j] = alpha * sum_k A[i*K + k] * B[k*N + j] for every i < M, j < N",
                                              "C[i*N + j] = alpha * sum_k A[i*K + k] * B[k*N + j] + beta * C[i*N + j] for every i < M, j < N"};
        char h0[240], h1[200], h2[160], hz0[240], notes[96], notes_zh[96];
        if (naive) {
            snprintf(h0, sizeof h0, "one thread per element of C, reading its row of A and column of B straight from global memory");
            snprintf(h1, sizeof h1, "the K loop %s", nu > 1 ? "unrolled 4x" : "not unrolled");
            snprintf(h2, sizeof h2, "%dx%d thread blocks, threadIdx.x along the columns of C", NBX[nb], NBY[nb]);
            snprintf(hz0, sizeof hz0, "每个线程计算 C 的一个元素，直接从全局内存读取 A 的一行和 B 的一列；线程块 %dx%d", NBX[nb], NBY[nb]);
            snprintf(notes, sizeof notes, "M, N and K are arbitrary");
            snprintf(notes_zh, sizeof notes_zh, "M、N、K 任意");
        } else {
            snprintf(h0, sizeof h0, "%dx%d shared-memory tiles of A and B, zero-filled past the edges, with a barrier before and after each inner product", TT, TT);
            snprintf(h1, sizeof h1, "each thread accumulates %d element%s of one column of C (rows ty, ty+%d, ...)", CF, CF > 1 ? "s" : "", RS);
            snprintf(h2, sizeof h2, "%dx%d thread blocks, each owning a %dx%d tile of C", TT, RS, TT, TT);
            snprintf(hz0, sizeof hz0, "每个线程块计算 C 的一个 %dx%d 分块，沿 K 方向每次把 A、B 的分块载入共享内存（越界补 0），每个线程计算同一列上的 %d 个元素", TT, TT, CF);
            snprintf(notes, sizeof notes, "M, N and K need not be multiples of %d", TT);
            snprintf(notes_zh, sizeof notes_zh, "M、N、K 不一定是 %d 的倍数", TT);
        }
        const char *hw[] = {h0, h1, h2, NULL}, *hz[] = {hz0, NULL};
        desc_facts f = {.name_en = names, .name_zh = names_zh, .formula = FORMULA[scale],
                        .explain_en = ex, .explain_zh = ez, .how_en = hw, .how_zh = hz,
                        .shape_en = "A is M x K, B is K x N and C is M x N, all row-major", .shape_zh = "A 为 M x K，B 为 K x N，C 为 M x N，均为行主序",
                        .notes_en = notes, .notes_zh = notes_zh, .elems_per_thread = naive ? 1 : CF, .data = DESC_DATA_MATRIX,
                        .hints = naive ? DESC_HINT_COALESCED : DESC_HINT_SMEM | DESC_HINT_COALESCED};
        describe_into(root, &f, synth_fam_next(&r));
    }
    finish(root, T, f64 ? 1e-10 : 1e-4, synth_fam_ref(synth_fam_cu_gemm), bytes, "2*M*N*K", &s->task_json);
    return PG_OK;
}

/* ---- transpose --------------------------------------------------------------------- */
/* Element types: the copy is exact for any of them (the reference moves bytes). */
static const struct { const char *t, *ct, *d0, *d1; int size; } TR_T[] = {
    {"f32", "float", "uniform(-1,1)", "normal(0,1)", 4},
    {"f64", "double", "uniform(-1,1)", "normal(0,1)", 8},
    {"s32", "int", "int(-1000000,1000000)", "int(-2147483648,2147483647)", 4},
    {"u16", "unsigned short", "int(0,65535)", "int(0,9)", 2},
    {"u8", "unsigned char", "int(0,255)", "int(0,9)", 1},
};

pg_status synth_fam_cu_transpose(uint64_t seed, synth_family_sample *s) {
    fam_rng r = {seed ^ 0x7472616e73000006ull};
    bool f64 = synth_fam_pick(&r, 3) == 0;
    int method = synth_fam_pick(&r, 4);   /* 0 direct, coalesced reads; 1 direct, coalesced writes; 2, 3 shared tile */
    int TD = 16 << synth_fam_pick(&r, 3), RB = 2 << synth_fam_pick(&r, 4);   /* TD 16/32/64, RB 2/4/8/16 */
    while (TD * RB > 1024 || RB > TD / 2) RB /= 2;   /* at most 1024 threads, at least 2 rows per thread */
    bool tiled = method >= 2, wcoal = method == 1;
    /* Axes added 2026-12-07 (h101), drawn from a stream of their own so the earlier draws
     * stay: the element type (f32/f64 as before, or s32/u16/u8 for a third of the samples),
     * a batch of matrices along blockIdx.z (in[b][r][c] -> out[b][c][r]) for a third, and
     * 8 as a further tile width (8x2 and 8x4 blocks) for one in eight. */
    fam_rng r2 = {seed ^ 0x7472616e73320007ull};
    int ti = f64 ? 1 : 0;
    if (synth_fam_pick(&r2, 3) == 0) ti = 2 + synth_fam_pick(&r2, 3);
    bool batched = synth_fam_pick(&r2, 3) == 0;
    if (synth_fam_pick(&r2, 8) == 0) {
        TD = 8;
        RB = 2 << synth_fam_pick(&r2, 2);
    }
    f64 = ti == 1;
    /* held out (bench/suite): the f64 32x33 padded tile with 32x8 blocks (transpose_f64_tiled), and any
     * f64 32x8 one-matrix method: the same launch and output, so a correct kernel for that task
     * (test_synth_holdout found the naive one drawn, 2026-12-07, h102) */
    if (f64 && TD == 32 && RB == 8 && !batched) RB = 4;
    const char *T = TR_T[ti].t, *CT = TR_T[ti].ct;
    snprintf(s->family, sizeof s->family, "transpose");
    snprintf(s->source, sizeof s->source, "nvcc");
    const char *bt = batched ? "b" : "";
    if (tiled) snprintf(s->name, sizeof s->name, "transpose%s_%s_smem%d_r%d", bt, T, TD, RB);
    else if (wcoal) snprintf(s->name, sizeof s->name, "transpose%s_%s_wcoal_%dx%d", bt, T, TD, RB);
    else snprintf(s->name, sizeof s->name, "transpose%s_%s_naive_%dx%d", bt, T, TD, RB);
    synth_fam_fit_name(s->name);   /* within the decoder's PG_NAME_MAX */
    snprintf(s->identity, sizeof s->identity, "transpose:%s:%s:%d:%d%s", T, tiled ? "smem" : wcoal ? "naive_w" : "naive", TD, RB,
             batched ? ":batched" : "");
    const char *n = s->name;
    pg_buf *c = &s->cu;
    pg_buf_printf(c, "// %s: out (cols x rows) = transpose of in (rows x cols)%s, %s, %s.\n", n, batched ? " for each of batch matrices" : "", CT,
                  tiled ? "padded shared-memory tile" : wcoal ? "direct (writes coalesced, reads strided)" : "direct (reads coalesced, writes strided)");
    pg_buf_printf(c, "extern \"C\" __global__ void %s(const %s* __restrict__ in, %s* __restrict__ out, unsigned int rows, unsigned int cols%s)\n{\n",
                  n, CT, CT, batched ? ", unsigned int batch" : "");
    if (batched) {
        pg_buf_puts(c, "    size_t mat = (size_t)blockIdx.z * rows * cols;   // blockIdx.z < batch picks the matrix\n");
        pg_buf_puts(c, "    in += mat;\n    out += mat;\n");
    }
    if (wcoal) pg_buf_printf(c, "    unsigned int r0 = blockIdx.x * %d, c0 = blockIdx.y * %d;   // x runs along out's rows\n", TD, TD);
    else pg_buf_printf(c, "    unsigned int c0 = blockIdx.x * %d, r0 = blockIdx.y * %d;\n", TD, TD);
    if (tiled) {
        pg_buf_printf(c, "    __shared__ %s tile[%d][%d];   // +1 column: no bank conflicts on the transposed read\n", CT, TD, TD + 1);
        pg_buf_printf(c, "    for (unsigned int j = threadIdx.y; j < %d; j += %d) {\n", TD, RB);
        pg_buf_puts(c, "        unsigned int rr = r0 + j, cc = c0 + threadIdx.x;\n");
        pg_buf_puts(c, "        if (rr < rows && cc < cols) tile[j][threadIdx.x] = in[(size_t)rr * cols + cc];\n    }\n    __syncthreads();\n");
        pg_buf_printf(c, "    for (unsigned int j = threadIdx.y; j < %d; j += %d) {\n", TD, RB);
        pg_buf_puts(c, "        unsigned int oc = c0 + j, orr = r0 + threadIdx.x;   // out row oc, out column orr\n");
        pg_buf_puts(c, "        if (oc < cols && orr < rows) out[(size_t)oc * rows + orr] = tile[threadIdx.x][j];\n    }\n}\n");
    } else if (wcoal) {
        pg_buf_printf(c, "    for (unsigned int j = threadIdx.y; j < %d; j += %d) {\n", TD, RB);
        pg_buf_puts(c, "        unsigned int cc = c0 + j, rr = r0 + threadIdx.x;\n");
        pg_buf_puts(c, "        if (rr < rows && cc < cols) out[(size_t)cc * rows + rr] = in[(size_t)rr * cols + cc];\n    }\n}\n");
    } else {
        pg_buf_printf(c, "    for (unsigned int j = threadIdx.y; j < %d; j += %d) {\n", TD, RB);
        pg_buf_puts(c, "        unsigned int rr = r0 + j, cc = c0 + threadIdx.x;\n");
        pg_buf_puts(c, "        if (rr < rows && cc < cols) out[(size_t)cc * rows + rr] = in[(size_t)rr * cols + cc];\n    }\n}\n");
    }
    char g0[32], g1[32], b0[16], b1[16], pt[8];
    snprintf(g0, sizeof g0, wcoal ? "cdiv(rows,%d)" : "cdiv(cols,%d)", TD);
    snprintf(g1, sizeof g1, wcoal ? "cdiv(cols,%d)" : "cdiv(rows,%d)", TD);
    snprintf(b0, sizeof b0, "%d", TD);
    snprintf(b1, sizeof b1, "%d", RB);
    snprintf(pt, sizeof pt, "%s*", T);
    json_t *root = json_object();
    common_json(root, n, "transpose");
    json_object_set_new(root, "family_params", json_pack("{s:s, s:s, s:i, s:i, s:b}", "dtype", T, "method", tiled ? "smem" : wcoal ? "naive_wcoal" : "naive",
                                                         "tile", TD, "block_rows", RB, "batched", batched));
    json_object_set_new(root, "descriptions", json_null());
    const char *len = batched ? "batch*rows*cols" : "rows*cols";
    json_t *ps = json_array();
    json_array_append_new(ps, ptr("in", pt, "in", len));
    json_array_append_new(ps, ptr("out", pt, "out", len));
    json_array_append_new(ps, scal("rows", "u32", "rows"));
    json_array_append_new(ps, scal("cols", "u32", "cols"));
    if (batched) json_array_append_new(ps, scal("batch", "u32", "batch"));
    json_object_set_new(root, "params", ps);
    if (batched)
        json_object_set_new(root, "sizes", json_pack("[{s:i, s:i, s:i, s:b}, {s:i, s:i, s:i}, {s:i, s:i, s:i}, {s:i, s:i, s:i}, {s:i, s:i, s:i}]", "batch",
                                                     16, "rows", 1000, "cols", 1030, "time", 1, "batch", 3, "rows", 100, "cols", 77, "batch", 5,
                                                     "rows", 1, "cols", 1000, "batch", 2, "rows", 1025, "cols", 33, "batch", 1, "rows", 7, "cols", 1));
    else
        json_object_set_new(root, "sizes", json_pack("[{s:i, s:i, s:b}, {s:i, s:i}, {s:i, s:i}, {s:i, s:i}, {s:i, s:i}]", "rows", 4000, "cols", 4100,
                                                     "time", 1, "rows", 100, "cols", 77, "rows", 1, "cols", 1000, "rows", 1025, "cols", 33, "rows", 7,
                                                     "cols", 1));
    if (batched)
        json_object_set_new(root, "launch", json_pack("{s:[s,s,s], s:[s,s,s], s:s}", "block", b0, b1, "1", "grid", g0, g1, "batch", "smem", "0"));
    else
        json_object_set_new(root, "launch", json_pack("{s:[s,s], s:[s,s], s:s}", "block", b0, b1, "grid", g0, g1, "smem", "0"));
    if (ti >= 2) json_object_set_new(root, "distributions", json_pack("[s, s]", TR_T[ti].d0, TR_T[ti].d1));
    char bytes[40];
    snprintf(bytes, sizeof bytes, "%d*%s", 2 * TR_T[ti].size, len);
    {
        const char *names[] = {"matrix transpose", "transpose", "out = in^T", "2D transpose", "transposed copy", NULL};
        const char *names_b[] = {"batched matrix transpose", "batched transpose", "out[b] = in[b]^T", "per-matrix transpose of a batch", NULL};
        const char *names_zh[] = {"矩阵转置", "转置", "二维数组转置", NULL};
        const char *names_bzh[] = {"批量矩阵转置", "逐矩阵转置", NULL};
        const char *ex[] = {"write the transpose of the rows x cols matrix in to out, so that row r of in becomes column r of out",
                            "copy in to out with rows and columns swapped (out is cols x rows)",
                            "flip the row-major matrix in across its diagonal into out", NULL};
        const char *ex_b[] = {"in holds batch row-major rows x cols matrices back to back; write each one's transpose (cols x rows) to the same place in out",
                              "for every matrix b < batch, copy in[b] to out[b] with rows and columns swapped", NULL};
        const char *ez[] = {"把 rows x cols 矩阵 in 转置写入 out（cols x rows），in 的第 r 行成为 out 的第 r 列", "行列互换地把 in 复制到 out", NULL};
        const char *ez_b[] = {"in 依次存放 batch 个 rows x cols 行主序矩阵，把每个矩阵转置（cols x rows）写到 out 的相同位置", NULL};
        char h0[300], h1[200], hz0[200];
        if (tiled) {
            snprintf(h0, sizeof h0, "a %dx%d padded shared tile: read it row by row, synchronize, write it column by column, so both the global reads and the writes are coalesced",
                     TD, TD + 1);
            snprintf(hz0, sizeof hz0, "先读入填充一列的 %dx%d 共享内存分块，同步后再转置写出，读写都合并访问", TD, TD + 1);
        } else if (wcoal) {
            snprintf(h0, sizeof h0, "write out row by row (threadIdx.x along out's rows, so the writes are coalesced) and read in directly (the reads are strided)");
            snprintf(hz0, sizeof hz0, "按 out 的行写出（写合并），直接从 in 跨步读取");
        } else {
            snprintf(h0, sizeof h0, "read in row by row and write out directly (the writes are strided)");
            snprintf(hz0, sizeof hz0, "直接按行读入、转置写出（写是跨步的）");
        }
        snprintf(h1, sizeof h1, "%dx%d thread blocks, each moving a %dx%d tile, every thread covering %d rows of it%s", TD, RB, TD, TD, TD / RB,
                 batched ? "; blockIdx.z is the matrix" : "");
        const char *hw[] = {h0, h1, NULL}, *hz[] = {hz0, NULL};
        char shape[160], shape_zh[160];
        if (batched) {
            snprintf(shape, sizeof shape, "in is batch x rows x cols and out is batch x cols x rows, %s elements, each matrix row-major", T);
            snprintf(shape_zh, sizeof shape_zh, "in 为 batch x rows x cols，out 为 batch x cols x rows（%s），每个矩阵行主序", T);
        } else {
            snprintf(shape, sizeof shape, "in is rows x cols and out is cols x rows, both row-major %s", T);
            snprintf(shape_zh, sizeof shape_zh, "in 为 rows x cols，out 为 cols x rows，均为行主序 %s", T);
        }
        desc_facts f = {.name_en = batched ? names_b : names, .name_zh = batched ? names_bzh : names_zh,
                        .formula = batched ? "out[(b*cols + c)*rows + r] = in[(b*rows + r)*cols + c] for every b < batch, r < rows, c < cols"
                                           : "out[c*rows + r] = in[r*cols + c] for every r < rows, c < cols",
                        .explain_en = batched ? ex_b : ex, .explain_zh = batched ? ez_b : ez, .how_en = hw, .how_zh = hz,
                        .shape_en = shape, .shape_zh = shape_zh,
                        .notes_en = "rows and cols are arbitrary, so guard both edges; the copy is exact",
                        .notes_zh = "rows 和 cols 任意，两个方向都要做边界判断；结果必须完全一致",
                        .elems_per_thread = TD / RB, .data = DESC_DATA_MATRIX,
                        .hints = DESC_HINT_MEMBOUND | (tiled ? DESC_HINT_SMEM | DESC_HINT_COALESCED : wcoal ? DESC_HINT_COALESCED : 0u)};
        describe_into(root, &f, synth_fam_next(&r));
    }
    finish(root, T, 0.0, synth_fam_ref(synth_fam_cu_transpose), bytes, "0", &s->task_json);
    return PG_OK;
}

/* ---- stencil2d --------------------------------------------------------------------- */
/* "i", "i-1", "j+2": an index plus an offset, as people write it. */
static const char *off(char *t, size_t n, const char *v, int d) {
    if (d) snprintf(t, n, "%s%+d", v, d);
    else snprintf(t, n, "%s", v);
    return t;
}

/* The neighbour at offset (dy, dx) in words. */
static void neighbour_words(int dy, int dx, const char **en, const char **zh) {
    static const struct { int dy, dx; const char *en, *zh; } N[] = {
        {0, 0, "the cell itself", "自身"},           {-1, 0, "the cell above", "上方格点"},     {1, 0, "the cell below", "下方格点"},
        {0, -1, "the left neighbour", "左侧格点"},   {0, 1, "the right neighbour", "右侧格点"}, {-1, -1, "the upper-left neighbour", "左上格点"},
        {-1, 1, "the upper-right neighbour", "右上格点"}, {1, -1, "the lower-left neighbour", "左下格点"}, {1, 1, "the lower-right neighbour", "右下格点"},
        {-2, 0, "the cell two above", "上方第二个格点"}, {2, 0, "the cell two below", "下方第二个格点"}, {0, -2, "the cell two to the left", "左侧第二个格点"},
        {0, 2, "the cell two to the right", "右侧第二个格点"}};
    *en = *zh = "?";
    for (size_t k = 0; k < sizeof N / sizeof N[0]; k++)
        if (N[k].dy == dy && N[k].dx == dx) { *en = N[k].en; *zh = N[k].zh; }
}

static void stencil2d_describe(fam_rng *r, int shape, int bnd, bool params, int nt, const int *dy, const int *dx, char lit[][32],
                               const char *formula, json_t *root) {
    static const char *SW[] = {"5-point cross", "9-point box (3x3)", "9-point radius-2 cross"};
    static const char *SZ[] = {"五点十字", "3x3 九点", "半径 2 的九点十字"};
    pg_buf w1 = {0}, w2 = {0}, wz = {0}, coefl = {0}, notes = {0}, notes_zh = {0};
    for (int k = 0; k < nt; k++) {
        const char *en, *zh;
        char wt[40];
        neighbour_words(dy[k], dx[k], &en, &zh);
        if (params) snprintf(wt, sizeof wt, "c%d", k);
        else snprintf(wt, sizeof wt, "%s", lit[k]);
        const char *sep = k ? (k == nt - 1 ? " plus " : ", plus ") : "";
        char ti[16], tj[16];
        off(ti, sizeof ti, "i", dy[k]);
        off(tj, sizeof tj, "j", dx[k]);
        pg_buf_printf(&w1, "%s%s times %s (x[%s][%s])", sep, wt, en, ti, tj);
        pg_buf_printf(&w2, "%s%s for x[%s][%s]", k ? ", " : "", wt, ti, tj);
        pg_buf_printf(&wz, "%s%s 乘以%s（x[%s][%s]）", k ? "，加上 " : "", wt, zh, ti, tj);
        pg_buf_printf(&coefl, "%sc%d = %s", k ? ", " : "", k, lit[k]);
    }
    char nm[6][64], nz[3][64], ex[3][1200], ez[2][1200];
    snprintf(nm[0], sizeof nm[0], "2D %s stencil", SW[shape]);
    snprintf(nm[1], sizeof nm[1], "%s stencil", SW[shape]);
    snprintf(nm[2], sizeof nm[2], "2D stencil");
    snprintf(nm[3], sizeof nm[3], "%s", shape == 1 ? "3x3 convolution" : shape == 0 ? "five-point stencil" : "radius-2 cross stencil");
    snprintf(nm[4], sizeof nm[4], "grid stencil (%s)", shape == 1 ? "3x3 box" : shape == 0 ? "5-point" : "9-point cross");
    snprintf(nm[5], sizeof nm[5], "%d-point 2D stencil", nt);
    snprintf(nz[0], sizeof nz[0], "二维%s模板", SZ[shape]);
    snprintf(nz[1], sizeof nz[1], "二维模板计算");
    snprintf(nz[2], sizeof nz[2], "%s", shape == 1 ? "3x3 卷积" : "二维十字模板");
    snprintf(ex[0], sizeof ex[0], "set each out[i][j] to %s", w1.data);
    snprintf(ex[1], sizeof ex[1], "apply the %s stencil to the grid x, writing out: every output cell is the weighted sum of its neighbours with the weights %s",
             SW[shape], w2.data);
    snprintf(ex[2], sizeof ex[2], "replace every cell of the rows x cols grid x by the weighted sum %s, storing it in out", w1.data);
    snprintf(ez[0], sizeof ez[0], "对每个格点，out[i][j] 等于 %s 之和", wz.data);
    snprintf(ez[1], sizeof ez[1], "对网格 x 做%s模板计算，每个输出格点为邻居的加权和：%s", SZ[shape], wz.data);
    static const char *BW[] = {"neighbours outside the grid count as zero", "neighbour indices are clamped to the grid",
                               "cells whose footprint leaves the grid copy x unchanged"};
    static const char *BZ[] = {"越界邻居按 0 处理", "越界下标截断到网格内", "模板越界的格点直接复制 x"};
    pg_buf_puts(&notes, BW[bnd]);
    pg_buf_puts(&notes_zh, BZ[bnd]);
    if (params) {
        pg_buf_printf(&notes, "; the coefficients are kernel parameters, here %s", coefl.data);
        pg_buf_printf(&notes_zh, "；系数是 kernel 参数，这里 %s", coefl.data);
    }
    const char *n_en[] = {nm[0], nm[1], nm[2], nm[3], nm[4], nm[5], NULL}, *n_zh[] = {nz[0], nz[1], nz[2], NULL};
    const char *e_en[] = {ex[0], ex[1], ex[2], NULL}, *e_zh[] = {ez[0], ez[1], NULL};
    const char *hw[] = {"one thread per cell reading its neighbours straight from global memory", "a thread per output cell", NULL};
    const char *hz[] = {"每个线程一个格点，直接从全局内存读取邻居", NULL};
    desc_facts f = {.name_en = n_en, .name_zh = n_zh, .formula = formula, .explain_en = e_en, .explain_zh = e_zh, .how_en = hw, .how_zh = hz,
                    .shape_en = "x and out are rows x cols row-major grids", .shape_zh = "x 和 out 为 rows x cols 行主序网格",
                    .notes_en = notes.data, .notes_zh = notes_zh.data, .elems_per_thread = 1, .data = DESC_DATA_GRID,
                    .hints = DESC_HINT_COALESCED | DESC_HINT_MEMBOUND};
    describe_into(root, &f, synth_fam_next(r));
    pg_buf_free(&w1); pg_buf_free(&w2); pg_buf_free(&wz); pg_buf_free(&coefl); pg_buf_free(&notes); pg_buf_free(&notes_zh);
}

pg_status synth_fam_gen_stencil2d_cu(uint64_t seed, synth_family_sample *s) {
    fam_rng r = {seed ^ 0x7374656e63696c32ull};
    bool f64 = synth_fam_pick(&r, 4) == 0, params = synth_fam_pick(&r, 2);
    int shape = synth_fam_pick(&r, 3), bnd = synth_fam_pick(&r, 3), bs = synth_fam_pick(&r, 3);
    static const int BX[] = {16, 32, 32}, BY[] = {16, 8, 4};
    static const char *SHN[] = {"5pt", "9pt", "cross2"}, *BND[] = {"zero", "clamp", "copy"};
    int dy[9], dx[9], nt = 0, rad = shape == 2 ? 2 : 1;
    if (shape == 0) {
        int t[5][2] = {{0, 0}, {-1, 0}, {1, 0}, {0, -1}, {0, 1}};
        for (int k = 0; k < 5; k++) { dy[nt] = t[k][0]; dx[nt++] = t[k][1]; }
    } else if (shape == 1) {
        for (int a = -1; a <= 1; a++)
            for (int b = -1; b <= 1; b++) { dy[nt] = a; dx[nt++] = b; }
    } else {
        dy[nt] = 0; dx[nt++] = 0;
        for (int d = 1; d <= 2; d++) {
            dy[nt] = -d; dx[nt++] = 0; dy[nt] = d; dx[nt++] = 0;
            dy[nt] = 0; dx[nt++] = -d; dy[nt] = 0; dx[nt++] = d;
        }
    }
    double co[9];
    for (int k = 0; k < nt; k++) co[k] = (double)(synth_fam_pick(&r, 17) - 8) / 8.0;
    if (synth_fam_pick(&r, 3) == 0 && shape == 0) { co[0] = -4; for (int k = 1; k < 5; k++) co[k] = 1; }   /* Laplacian */
    if (co[0] == 0) co[0] = 0.5;
    /* Separable 9-point weights (2026-12-07, h101), from a stream of their own: for a third of
     * the 9-point samples the weight of (dy, dx) is w[dy]*w[dx] / S for a symmetric (a, b, a)
     * whose sum is a power of two (so every weight is exact), baked in and written as
     * (T)(w_dy*w_dx) / S.  Not the suite's f32 (1 2 1)/16 clamp blur on 16x16 blocks
     * (blur2d_9pt_clamp): that draw takes (1 6 1)/64. */
    static const int SEPW[][3] = {{1, 2, 1}, {1, 6, 1}, {3, 2, 3}, {1, 14, 1}, {3, 10, 3}, {-1, 4, -1}, {1, 0, 1}};
    fam_rng r2 = {seed ^ 0x7365703970743244ull};
    int sep = -1, sepS = 1;
    if (shape == 1 && synth_fam_pick(&r2, 3) == 0) {
        sep = synth_fam_pick(&r2, (int)(sizeof SEPW / sizeof SEPW[0]));
        if (sep == 0 && !f64 && bnd == 1 && bs == 0) sep = 1;
        params = false;
        int sum = SEPW[sep][0] + SEPW[sep][1] + SEPW[sep][2];
        sepS = sum * sum;
        for (int k = 0; k < nt; k++) co[k] = (double)(SEPW[sep][dy[k] + 1] * SEPW[sep][dx[k] + 1]) / sepS;
    }
    const char *T = f64 ? "f64" : "f32", *CT = f64 ? "double" : "float";
    snprintf(s->family, sizeof s->family, "stencil2d");
    snprintf(s->source, sizeof s->source, "nvcc");
    char shn[24];
    if (sep >= 0) snprintf(shn, sizeof shn, "9pt_sep%d", sep);
    else snprintf(shn, sizeof shn, "%s", SHN[shape]);
    snprintf(s->name, sizeof s->name, "stencil2d_%s_%s_%s_%dx%d%s", shn, T, BND[bnd], BX[bs], BY[bs], params ? "_p" : "");
    pg_buf id = {0};
    pg_buf_printf(&id, "stencil2d:%s:%s:%s:%dx%d:%s", shn, T, BND[bnd], BX[bs], BY[bs], params ? "params" : "baked");
    if (!params)
        for (int k = 0; k < nt; k++) pg_buf_printf(&id, ":%g", co[k]);
    snprintf(s->identity, sizeof s->identity, "%s", id.data);
    pg_buf_free(&id);
    if (!params) {   /* baked coefficients: one kernel name per coefficient set */
        uint64_t h = PG_HASH64_INIT_SHORT;   /* a step per coefficient value, not pg_hash64's bytes: the names stay as they were */
        for (int k = 0; k < nt; k++) h = (h ^ (uint64_t)(int64_t)(co[k] * 8 + 64)) * 1099511628211ull;
        size_t l = strlen(s->name);
        snprintf(s->name + l, sizeof s->name - l, "_%04x", (unsigned)(h & 0xffff));
    }
    synth_fam_fit_name(s->name);   /* within the decoder's PG_NAME_MAX (after the hash: it may be cut, and is then hashed) */
    const char *n = s->name;
    pg_buf *c = &s->cu;
    char lit[9][32];
    for (int k = 0; k < nt; k++) synth_fam_lit(lit[k], sizeof lit[k], co[k]);
    pg_buf_printf(c, "// %s: %s 2D stencil on a rows x cols grid (%s), boundary %s.\n", n, SHN[shape], CT, BND[bnd]);
    if (sep >= 0)
        pg_buf_printf(c, "// separable weights: w[dy] * w[dx] / %d with w = (%d, %d, %d), so the centre weighs %d / %d.\n", sepS, SEPW[sep][0], SEPW[sep][1],
                      SEPW[sep][2], SEPW[sep][1] * SEPW[sep][1], sepS);
    pg_buf_printf(c, "extern \"C\" __global__ void %s(const %s* __restrict__ x, %s* __restrict__ out,", n, CT, CT);
    for (int k = 0; params && k < nt; k++) pg_buf_printf(c, " %s c%d,", CT, k);
    pg_buf_puts(c, "\n    unsigned int rows, unsigned int cols)\n{\n");
    pg_buf_puts(c, "    int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;\n");
    pg_buf_puts(c, "    int R = (int)rows, C = (int)cols;\n    if (i >= R || j >= C) return;\n");
    if (bnd == 2)
        pg_buf_printf(c, "    if (i < %d || i >= R - %d || j < %d || j >= C - %d) { out[(size_t)i * C + j] = x[(size_t)i * C + j]; return; }\n", rad, rad,
                      rad, rad);
    pg_buf_printf(c, "    %s acc = 0;\n", CT);
    for (int k = 0; k < nt; k++) {
        char cf[48];
        if (params) snprintf(cf, sizeof cf, "c%d", k);
        else if (sep >= 0) snprintf(cf, sizeof cf, "(%s)%d / %d", CT, SEPW[sep][dy[k] + 1] * SEPW[sep][dx[k] + 1], sepS);
        else snprintf(cf, sizeof cf, "(%s)%s", CT, lit[k]);
        pg_buf_puts(c, "    {\n");
        pg_buf_printf(c, "        int yy = i + (%d), xx = j + (%d);\n", dy[k], dx[k]);
        if (bnd == 1) {
            pg_buf_puts(c, "        yy = min(max(yy, 0), R - 1); xx = min(max(xx, 0), C - 1);\n");
            pg_buf_printf(c, "        acc += %s * x[(size_t)yy * C + xx];\n", cf);
        } else if (bnd == 0) {
            pg_buf_printf(c, "        if (yy >= 0 && yy < R && xx >= 0 && xx < C) acc += %s * x[(size_t)yy * C + xx];\n", cf);
        } else pg_buf_printf(c, "        acc += %s * x[(size_t)yy * C + xx];\n", cf);
        pg_buf_puts(c, "    }\n");
    }
    pg_buf_puts(c, "    out[(size_t)i * C + j] = acc;\n}\n");

    char g0[32], g1[32], b0[8], b1[8], pt[8];
    snprintf(g0, sizeof g0, "cdiv(cols,%d)", BX[bs]);
    snprintf(g1, sizeof g1, "cdiv(rows,%d)", BY[bs]);
    snprintf(b0, sizeof b0, "%d", BX[bs]);
    snprintf(b1, sizeof b1, "%d", BY[bs]);
    snprintf(pt, sizeof pt, "%s*", T);
    json_t *root = json_object();
    common_json(root, n, "stencil2d");
    json_t *taps = json_array(), *cs = json_array();
    for (int k = 0; k < nt; k++) {
        json_array_append_new(taps, json_pack("[i,i]", dy[k], dx[k]));
        json_array_append_new(cs, json_real(co[k]));
    }
    json_object_set_new(root, "family_params", json_pack("{s:s, s:s, s:s, s:b, s:o, s:o}", "dtype", T, "shape", SHN[shape], "boundary",
                                                         BND[bnd], "coeff_params", params, "taps", taps, "coeffs", cs));
    if (sep >= 0)
        json_object_set_new(json_object_get(root, "family_params"), "separable",
                            json_pack("{s:[i,i,i], s:i}", "w", SEPW[sep][0], SEPW[sep][1], SEPW[sep][2], "scale", sepS));
    pg_buf f = {0};
    pg_buf_puts(&f, "out[i][j] = ");
    for (int k = 0; k < nt; k++) {
        char ti[16], tj[16];
        if (params) pg_buf_printf(&f, "%sc%d*x[%s][%s]", k ? " + " : "", k, off(ti, sizeof ti, "i", dy[k]), off(tj, sizeof tj, "j", dx[k]));
        else pg_buf_printf(&f, "%s%s*x[%s][%s]", k ? " + " : "", lit[k], off(ti, sizeof ti, "i", dy[k]), off(tj, sizeof tj, "j", dx[k]));
    }
    if (sep >= 0)
        pg_buf_printf(&f, " (separable: the weight of x[i+a][j+b] is w[a]*w[b]/%d with w[-1] = w[1] = %d, w[0] = %d)", sepS, SEPW[sep][0], SEPW[sep][1]);
    json_object_set_new(root, "descriptions", json_null());
    json_t *ps = json_array();
    json_array_append_new(ps, ptr("x", pt, "in", "rows*cols"));
    json_array_append_new(ps, ptr("out", pt, "out", "rows*cols"));
    for (int k = 0; params && k < nt; k++) {
        char nm[16];
        snprintf(nm, sizeof nm, "c%d", k & 15);
        json_array_append_new(ps, scal(nm, T, lit[k]));
    }
    json_array_append_new(ps, scal("rows", "u32", "rows"));
    json_array_append_new(ps, scal("cols", "u32", "cols"));
    json_object_set_new(root, "params", ps);
    json_object_set_new(root, "sizes", json_pack("[{s:i, s:i, s:b}, {s:i, s:i}, {s:i, s:i}, {s:i, s:i}, {s:i, s:i}]", "rows", 4096, "cols", 4096,
                                                 "time", 1, "rows", 1000, "cols", 777, "rows", 33, "cols", 65, "rows", 3, "cols", 5, "rows", 1,
                                                 "cols", 1));
    json_object_set_new(root, "launch", json_pack("{s:[s,s], s:[s,s], s:s}", "block", b0, b1, "grid", g0, g1, "smem", "0"));
    char bytes[32], flops[32];
    snprintf(bytes, sizeof bytes, "%d*rows*cols", f64 ? 16 : 8);
    snprintf(flops, sizeof flops, "%d*rows*cols", 2 * nt);
    stencil2d_describe(&r, shape, bnd, params, nt, dy, dx, lit, f.data, root);
    finish(root, T, f64 ? 1e-12 : 1e-5, synth_fam_ref(synth_fam_gen_stencil2d_cu), bytes, flops, &s->task_json);
    pg_buf_free(&f);
    return PG_OK;
}
