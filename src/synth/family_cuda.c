/* family_cuda.c — the CUDA-C families (compiled by nvcc in family.c):
 *
 *   gemv       y = A x (rows x cols, row-major): thread per row (unroll
 *              1/2/4 of the column loop) or warp per row (lanes stride the
 *              columns, shuffle reduction; 2/4/8 rows per block); f32/f64
 *   gemm       C = A B (M x K times K x N, row-major) with T x T shared
 *              tiles, T = 8/16/32, each thread computing CF = 1/2/4 rows of
 *              its column (block T x T/CF); f32/f64
 *   transpose  out (cols x rows) = in^T: naive (one element per thread) or a
 *              TD x (TD+1) padded shared tile, TD = 16/32, RB = 4/8 rows of
 *              threads per tile; f32/f64
 *   stencil2d  5-point cross, 9-point box or radius-2 cross on a rows x cols
 *              grid; coefficients baked or as parameters; boundary
 *              zero/clamp/copy; block 16x16 / 32x8 / 32x4; f32/f64
 *
 * Each generator writes the task.json and the kernel's CUDA C
 * (extern "C" __global__, so the entry name is the task name). */
#include "ptxgen/synth.h"
#include "ptxgen/synth_family.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

static void common_json(json_t *root, const char *name, const char *family) {
    json_object_set_new(root, "name", json_string(name));
    json_object_set_new(root, "family", json_string(family));
    json_object_set_new(root, "kernel", json_string(name));
}
static json_t *descs(const char *terse, const char *detailed, const char *card, const char *zh) {
    return json_pack("{s:s, s:s, s:s, s:s}", "terse", terse, "detailed", detailed, "card", card, "zh", zh);
}
static json_t *ptr(const char *name, const char *type, const char *role, const char *len) {
    return json_pack("{s:s, s:s, s:s, s:s}", "name", name, "type", type, "role", role, "len", len);
}
static json_t *scal(const char *name, const char *type, const char *value) {
    return json_pack("{s:s, s:s, s:s}", "name", name, "type", type, "value", value);
}
static void finish(json_t *root, const char *T, double tol, const char *ref, const char *bytes, const char *flops, pg_buf *out) {
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
pg_status fam_cu_gemv(uint64_t seed, synth_family_sample *s) {
    fam_rng r = {seed ^ 0x67656d7600000004ull};
    bool f64 = fam_pick(&r, 4) == 0, warp = fam_pick(&r, 2);
    int unroll = 1 << fam_pick(&r, 3), rpb = 2 << fam_pick(&r, 3), block = warp ? 32 * rpb : 64 << fam_pick(&r, 3);
    const char *T = f64 ? "f64" : "f32", *CT = f64 ? "double" : "float";
    snprintf(s->family, sizeof s->family, "gemv");
    snprintf(s->source, sizeof s->source, "nvcc");
    if (warp) snprintf(s->name, sizeof s->name, "gemv_%s_warp_rows%d", T, rpb);
    else snprintf(s->name, sizeof s->name, "gemv_%s_thread_b%d_u%d", T, block, unroll);
    snprintf(s->identity, sizeof s->identity, "gemv:%s:%s:%d:%d", T, warp ? "warp" : "thread", warp ? rpb : block, warp ? 0 : unroll);
    const char *n = s->name;
    pg_buf *c = &s->cu;
    pg_buf_printf(c, "// %s: y = A x, A is rows x cols (row-major, %s), %s.\n", n, CT,
                  warp ? "one warp per row, lanes stride the columns, shuffle reduction" : "one thread per row");
    pg_buf_printf(c, "extern \"C\" __global__ void %s(const %s* __restrict__ A, const %s* __restrict__ x, %s* __restrict__ y,\n"
                     "    unsigned int rows, unsigned int cols)\n{\n", n, CT, CT, CT);
    if (warp) {
        pg_buf_printf(c, "    unsigned int row = blockIdx.x * %d + threadIdx.x / 32, lane = threadIdx.x %% 32;\n", rpb);
        pg_buf_printf(c, "    if (row >= rows) return;\n    const %s* a = A + (size_t)row * cols;\n    %s acc = 0;\n", CT, CT);
        pg_buf_puts(c, "    for (unsigned int j = lane; j < cols; j += 32) acc += a[j] * x[j];\n");
        pg_buf_puts(c, "    for (int off = 16; off > 0; off /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, off);\n");
        pg_buf_puts(c, "    if (lane == 0) y[row] = acc;\n}\n");
    } else {
        pg_buf_puts(c, "    unsigned int row = blockIdx.x * blockDim.x + threadIdx.x;\n    if (row >= rows) return;\n");
        pg_buf_printf(c, "    const %s* a = A + (size_t)row * cols;\n    %s acc = 0;\n", CT, CT);
        if (unroll > 1) pg_buf_printf(c, "#pragma unroll %d\n", unroll);
        pg_buf_puts(c, "    for (unsigned int j = 0; j < cols; j++) acc += a[j] * x[j];\n    y[row] = acc;\n}\n");
    }
    char grid[48], blk[16], pt[8];
    snprintf(grid, sizeof grid, warp ? "cdiv(rows,%d)" : "cdiv(rows,%d)", warp ? rpb : block);
    snprintf(blk, sizeof blk, "%d", block);
    snprintf(pt, sizeof pt, "%s*", T);
    json_t *root = json_object();
    common_json(root, n, "gemv");
    json_object_set_new(root, "family_params", json_pack("{s:s, s:s, s:i, s:i, s:i}", "dtype", T, "mapping", warp ? "warp" : "thread",
                                                         "block", block, "rows_per_block", warp ? rpb : block, "unroll", unroll));
    pg_buf a = {0}, b = {0}, cd = {0}, z = {0};
    const char *how = warp ? "one 32-thread warp per row: lanes take columns lane, lane+32, ... and combine with __shfl_xor_sync"
                           : "one thread per row walking the row's columns";
    if (fam_pick(&r, 2)) pg_buf_printf(&a, "Matrix-vector product y = A*x (%s), %s", T, warp ? "warp per row" : "thread per row");
    else pg_buf_printf(&a, "%s GEMV: y[r] = sum_c A[r][c] * x[c]", CT);
    pg_buf_printf(&b, "A is a rows x cols row-major %s matrix, x has cols entries and y rows entries; compute y[r] = sum over c of A[r*cols+c]*x[c] with %s. Launch %d threads per block and %s blocks; rows and cols are arbitrary (no padding).",
                  CT, how, block, grid);
    pg_buf_printf(&cd, "## %s\n- Input: `%s* A` (rows x cols, row-major), `%s* x` (cols)\n- Output: `%s* y` (rows)\n- Goal: `y = A x`\n- Launch: %d threads/block, `%s` blocks\n- Mapping: %s",
                  n, CT, CT, CT, block, grid, warp ? "warp per row + shuffle reduction" : "thread per row");
    pg_buf_printf(&z, "矩阵向量乘 y = A x（%s）：A 为 rows×cols 行主序矩阵，%s。每块 %d 个线程，网格 %s。", f64 ? "双精度" : "单精度",
                  warp ? "每个 warp 负责一行，lane 按 32 的步长遍历列，最后用 shuffle 归约" : "每个线程负责一行", block, grid);
    json_object_set_new(root, "descriptions", descs(a.data, b.data, cd.data, z.data));
    json_t *ps = json_array();
    json_array_append_new(ps, ptr("A", pt, "in", "rows*cols"));
    json_array_append_new(ps, ptr("x", pt, "in", "cols"));
    json_array_append_new(ps, ptr("y", pt, "out", "rows"));
    json_array_append_new(ps, scal("rows", "u32", "rows"));
    json_array_append_new(ps, scal("cols", "u32", "cols"));
    json_object_set_new(root, "params", ps);
    json_object_set_new(root, "sizes", json_pack("[{s:i, s:i, s:b}, {s:i, s:i}, {s:i, s:i}, {s:i, s:i}]", "rows", 8192, "cols", 4096, "time", 1,
                                                 "rows", 1000, "cols", 777, "rows", 333, "cols", 1028, "rows", 5, "cols", 3));
    json_object_set_new(root, "launch", json_pack("{s:[s], s:[s], s:s}", "block", blk, "grid", grid, "smem", "0"));
    char bytes[80];
    snprintf(bytes, sizeof bytes, "%d*(rows*cols + cols + rows)", f64 ? 8 : 4);
    finish(root, T, f64 ? 1e-10 : 1e-4, "fam_gemv", bytes, "2*rows*cols", &s->task_json);
    pg_buf_free(&a); pg_buf_free(&b); pg_buf_free(&cd); pg_buf_free(&z);
    return PG_OK;
}

/* ---- gemm -------------------------------------------------------------------------- */
pg_status fam_cu_gemm(uint64_t seed, synth_family_sample *s) {
    fam_rng r = {seed ^ 0x67656d6d00000005ull};
    bool f64 = fam_pick(&r, 4) == 0;
    int TT = 8 << fam_pick(&r, 3), CF = 1 << fam_pick(&r, 3);
    const char *T = f64 ? "f64" : "f32", *CT = f64 ? "double" : "float";
    snprintf(s->family, sizeof s->family, "gemm");
    snprintf(s->source, sizeof s->source, "nvcc");
    static const char *STY[] = {"gemm_%s_tile%d_cf%d", "sgemm_smem_%s_%dx%d", "matmul_%s_t%d_r%d"};
    snprintf(s->name, sizeof s->name, STY[fam_pick(&r, 3)], T, TT, CF);
    snprintf(s->identity, sizeof s->identity, "gemm:%s:t%d:cf%d", T, TT, CF);
    const char *n = s->name;
    pg_buf *c = &s->cu;
    int RS = TT / CF;   /* rows of threads */
    pg_buf_printf(c, "// %s: C = A B (row-major %s), %dx%d shared tiles, each thread computes %d row%s of its column.\n", n, CT, TT, TT, CF,
                  CF > 1 ? "s" : "");
    pg_buf_printf(c, "extern \"C\" __global__ void %s(const %s* __restrict__ A, const %s* __restrict__ B, %s* __restrict__ C,\n"
                     "    unsigned int M, unsigned int N, unsigned int K)\n{\n", n, CT, CT, CT);
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
    pg_buf_puts(c, "        if (rr < (int)M && col < (int)N) C[(size_t)rr * N + col] = acc[j];\n    }\n}\n");
    char g0[32], g1[32], b0[8], b1[8], pt[8];
    snprintf(g0, sizeof g0, "cdiv(N,%d)", TT);
    snprintf(g1, sizeof g1, "cdiv(M,%d)", TT);
    snprintf(b0, sizeof b0, "%d", TT);
    snprintf(b1, sizeof b1, "%d", RS);
    snprintf(pt, sizeof pt, "%s*", T);
    json_t *root = json_object();
    common_json(root, n, "gemm");
    json_object_set_new(root, "family_params", json_pack("{s:s, s:i, s:i}", "dtype", T, "tile", TT, "coarsen", CF));
    pg_buf a = {0}, b = {0}, cd = {0}, z = {0};
    if (fam_pick(&r, 2)) pg_buf_printf(&a, "Tiled %s matrix multiply C = A*B with %dx%d shared-memory tiles", CT, TT, TT);
    else pg_buf_printf(&a, "%s: GEMM (%s), tile %d, %d output%s per thread", n, T, TT, CF, CF > 1 ? "s" : "");
    pg_buf_printf(&b, "Compute C = A*B where A is M x K, B is K x N and C is M x N, all row-major %s. Each %dx%d block of threads owns a %dx%d tile of C; it walks K in steps of %d, staging a tile of A and a tile of B in shared memory (zero-filled past the matrix edges) with a barrier before and after the inner product. Each thread accumulates %d element%s of one column (rows ty, ty+%d, ...). M, N, K need not be multiples of %d.",
                  CT, TT, RS, TT, TT, TT, CF, CF > 1 ? "s" : "", RS, TT);
    pg_buf_printf(&cd, "## %s\n- Inputs: `%s* A` (M x K), `%s* B` (K x N), row-major\n- Output: `%s* C` (M x N)\n- Goal: `C = A B`\n- Launch: block (%d, %d), grid (`%s`, `%s`)\n- Technique: %dx%d shared-memory tiles, %d output%s per thread",
                  n, CT, CT, CT, TT, RS, g0, g1, TT, TT, CF, CF > 1 ? "s" : "");
    pg_buf_printf(&z, "分块矩阵乘法 C = A B（%s，行主序）：每个线程块计算 C 的一个 %dx%d 分块，沿 K 方向每次把 A、B 的分块载入共享内存（越界补 0），每个线程计算同一列上的 %d 个元素。线程块 (%d, %d)，网格 (%s, %s)。",
                  f64 ? "双精度" : "单精度", TT, TT, CF, TT, RS, g0, g1);
    json_object_set_new(root, "descriptions", descs(a.data, b.data, cd.data, z.data));
    json_t *ps = json_array();
    json_array_append_new(ps, ptr("A", pt, "in", "M*K"));
    json_array_append_new(ps, ptr("B", pt, "in", "K*N"));
    json_array_append_new(ps, ptr("C", pt, "out", "M*N"));
    json_array_append_new(ps, scal("M", "u32", "M"));
    json_array_append_new(ps, scal("N", "u32", "N"));
    json_array_append_new(ps, scal("K", "u32", "K"));
    json_object_set_new(root, "params", ps);
    json_object_set_new(root, "sizes", json_pack("[{s:i, s:i, s:i, s:b}, {s:i, s:i, s:i}, {s:i, s:i, s:i}, {s:i, s:i, s:i}]", "M", 1024, "N",
                                                 1024, "K", 1024, "time", 1, "M", 100, "N", 77, "K", 130, "M", 257, "N", 129, "K", 65,
                                                 "M", 1, "N", 3, "K", 1));
    json_object_set_new(root, "launch", json_pack("{s:[s,s], s:[s,s], s:s}", "block", b0, b1, "grid", g0, g1, "smem", "0"));
    char bytes[64];
    snprintf(bytes, sizeof bytes, "%d*(M*K + K*N + M*N)", f64 ? 8 : 4);
    finish(root, T, f64 ? 1e-10 : 1e-4, "fam_gemm", bytes, "2*M*N*K", &s->task_json);
    pg_buf_free(&a); pg_buf_free(&b); pg_buf_free(&cd); pg_buf_free(&z);
    return PG_OK;
}

/* ---- transpose --------------------------------------------------------------------- */
pg_status fam_cu_transpose(uint64_t seed, synth_family_sample *s) {
    fam_rng r = {seed ^ 0x7472616e73000006ull};
    bool f64 = fam_pick(&r, 3) == 0, tiled = fam_pick(&r, 3) != 0;
    int TD = 16 << fam_pick(&r, 2), RB = 4 << fam_pick(&r, 2);
    const char *T = f64 ? "f64" : "f32", *CT = f64 ? "double" : "float";
    snprintf(s->family, sizeof s->family, "transpose");
    snprintf(s->source, sizeof s->source, "nvcc");
    if (tiled) snprintf(s->name, sizeof s->name, "transpose_%s_smem%d_r%d", T, TD, RB);
    else snprintf(s->name, sizeof s->name, "transpose_%s_naive_%dx%d", T, TD, RB);
    snprintf(s->identity, sizeof s->identity, "transpose:%s:%s:%d:%d", T, tiled ? "smem" : "naive", TD, RB);
    const char *n = s->name;
    pg_buf *c = &s->cu;
    pg_buf_printf(c, "// %s: out (cols x rows) = transpose of in (rows x cols), %s, %s.\n", n, CT,
                  tiled ? "padded shared-memory tile" : "direct (reads coalesced, writes strided)");
    pg_buf_printf(c, "extern \"C\" __global__ void %s(const %s* __restrict__ in, %s* __restrict__ out, unsigned int rows, unsigned int cols)\n{\n",
                  n, CT, CT);
    pg_buf_printf(c, "    unsigned int c0 = blockIdx.x * %d, r0 = blockIdx.y * %d;\n", TD, TD);
    if (tiled) {
        pg_buf_printf(c, "    __shared__ %s tile[%d][%d];   // +1 column: no bank conflicts on the transposed read\n", CT, TD, TD + 1);
        pg_buf_printf(c, "    for (unsigned int j = threadIdx.y; j < %d; j += %d) {\n", TD, RB);
        pg_buf_puts(c, "        unsigned int rr = r0 + j, cc = c0 + threadIdx.x;\n");
        pg_buf_puts(c, "        if (rr < rows && cc < cols) tile[j][threadIdx.x] = in[(size_t)rr * cols + cc];\n    }\n    __syncthreads();\n");
        pg_buf_printf(c, "    for (unsigned int j = threadIdx.y; j < %d; j += %d) {\n", TD, RB);
        pg_buf_puts(c, "        unsigned int oc = c0 + j, orr = r0 + threadIdx.x;   // out row oc, out column orr\n");
        pg_buf_puts(c, "        if (oc < cols && orr < rows) out[(size_t)oc * rows + orr] = tile[threadIdx.x][j];\n    }\n}\n");
    } else {
        pg_buf_printf(c, "    for (unsigned int j = threadIdx.y; j < %d; j += %d) {\n", TD, RB);
        pg_buf_puts(c, "        unsigned int rr = r0 + j, cc = c0 + threadIdx.x;\n");
        pg_buf_puts(c, "        if (rr < rows && cc < cols) out[(size_t)cc * rows + rr] = in[(size_t)rr * cols + cc];\n    }\n}\n");
    }
    char g0[32], g1[32], b0[8], b1[8], pt[8];
    snprintf(g0, sizeof g0, "cdiv(cols,%d)", TD);
    snprintf(g1, sizeof g1, "cdiv(rows,%d)", TD);
    snprintf(b0, sizeof b0, "%d", TD);
    snprintf(b1, sizeof b1, "%d", RB);
    snprintf(pt, sizeof pt, "%s*", T);
    json_t *root = json_object();
    common_json(root, n, "transpose");
    json_object_set_new(root, "family_params", json_pack("{s:s, s:s, s:i, s:i}", "dtype", T, "method", tiled ? "smem" : "naive", "tile", TD,
                                                         "block_rows", RB));
    pg_buf a = {0}, b = {0}, cd = {0}, z = {0};
    pg_buf_printf(&a, fam_pick(&r, 2) ? "Matrix transpose (%s), %s" : "%s transpose: %s", T,
                  tiled ? "shared-memory tile with +1 padding" : "naive, one element per thread per step");
    pg_buf_printf(&b, "in is a rows x cols row-major %s matrix; write out (cols x rows, row-major) with out[c*rows + r] = in[r*cols + c]. Each %d x %d block of threads handles a %d x %d tile, every thread covering %d rows of it. %s rows and cols are arbitrary, so guard both edges.",
                  CT, TD, RB, TD, TD, TD / RB,
                  tiled ? "Read the tile row by row into a shared array padded to TD+1 columns, synchronize, then write it column by column so that both the global reads and the global writes are coalesced."
                        : "Read in row by row and write out directly (the writes are strided).");
    pg_buf_printf(&cd, "## %s\n- Input: `%s* in` (rows x cols)\n- Output: `%s* out` (cols x rows)\n- Goal: `out[c][r] = in[r][c]`\n- Launch: block (%d, %d), grid (`%s`, `%s`)%s",
                  n, CT, CT, TD, RB, g0, g1, tiled ? "\n- Technique: shared tile `[TD][TD+1]`, `__syncthreads()`" : "");
    pg_buf_printf(&z, "矩阵转置（%s）：in 为 rows×cols 行主序，输出 out[c*rows + r] = in[r*cols + c]。线程块 (%d, %d)，每块处理 %dx%d 的分块%s。", f64 ? "双精度" : "单精度",
                  TD, RB, TD, TD, tiled ? "，先读入填充一列的共享内存分块再转置写出，读写都合并访问" : "，直接读写");
    json_object_set_new(root, "descriptions", descs(a.data, b.data, cd.data, z.data));
    json_t *ps = json_array();
    json_array_append_new(ps, ptr("in", pt, "in", "rows*cols"));
    json_array_append_new(ps, ptr("out", pt, "out", "rows*cols"));
    json_array_append_new(ps, scal("rows", "u32", "rows"));
    json_array_append_new(ps, scal("cols", "u32", "cols"));
    json_object_set_new(root, "params", ps);
    json_object_set_new(root, "sizes", json_pack("[{s:i, s:i, s:b}, {s:i, s:i}, {s:i, s:i}, {s:i, s:i}]", "rows", 4000, "cols", 4100, "time", 1,
                                                 "rows", 100, "cols", 77, "rows", 1, "cols", 1000, "rows", 1025, "cols", 33));
    json_object_set_new(root, "launch", json_pack("{s:[s,s], s:[s,s], s:s}", "block", b0, b1, "grid", g0, g1, "smem", "0"));
    char bytes[32];
    snprintf(bytes, sizeof bytes, "%d*rows*cols", f64 ? 16 : 8);
    finish(root, T, 0.0, "fam_transpose", bytes, "0", &s->task_json);
    pg_buf_free(&a); pg_buf_free(&b); pg_buf_free(&cd); pg_buf_free(&z);
    return PG_OK;
}

/* ---- stencil2d --------------------------------------------------------------------- */
pg_status fam_gen_stencil2d_cu(uint64_t seed, synth_family_sample *s) {
    fam_rng r = {seed ^ 0x7374656e63696c32ull};
    bool f64 = fam_pick(&r, 4) == 0, params = fam_pick(&r, 2);
    int shape = fam_pick(&r, 3), bnd = fam_pick(&r, 3), bs = fam_pick(&r, 3);
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
    for (int k = 0; k < nt; k++) co[k] = (double)(fam_pick(&r, 17) - 8) / 8.0;
    if (fam_pick(&r, 3) == 0 && shape == 0) { co[0] = -4; for (int k = 1; k < 5; k++) co[k] = 1; }   /* Laplacian */
    if (co[0] == 0) co[0] = 0.5;
    const char *T = f64 ? "f64" : "f32", *CT = f64 ? "double" : "float";
    snprintf(s->family, sizeof s->family, "stencil2d");
    snprintf(s->source, sizeof s->source, "nvcc");
    snprintf(s->name, sizeof s->name, "stencil2d_%s_%s_%s_%dx%d%s", SHN[shape], T, BND[bnd], BX[bs], BY[bs], params ? "_p" : "");
    pg_buf id = {0};
    pg_buf_printf(&id, "stencil2d:%s:%s:%s:%dx%d:%s", SHN[shape], T, BND[bnd], BX[bs], BY[bs], params ? "params" : "baked");
    if (!params)
        for (int k = 0; k < nt; k++) pg_buf_printf(&id, ":%g", co[k]);
    snprintf(s->identity, sizeof s->identity, "%s", id.data);
    pg_buf_free(&id);
    if (!params) {   /* baked coefficients: one kernel name per coefficient set */
        uint64_t h = 1469598103934665603ull;
        for (int k = 0; k < nt; k++) h = (h ^ (uint64_t)(int64_t)(co[k] * 8 + 64)) * 1099511628211ull;
        size_t l = strlen(s->name);
        snprintf(s->name + l, sizeof s->name - l, "_%04x", (unsigned)(h & 0xffff));
    }
    const char *n = s->name;
    pg_buf *c = &s->cu;
    char lit[9][32];
    for (int k = 0; k < nt; k++) fam_lit(lit[k], sizeof lit[k], co[k]);
    pg_buf_printf(c, "// %s: %s 2D stencil on a rows x cols grid (%s), boundary %s.\n", n, SHN[shape], CT, BND[bnd]);
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
    pg_buf f = {0}, a = {0}, b = {0}, cd = {0}, z = {0};
    pg_buf_puts(&f, "out[i][j] = ");
    for (int k = 0; k < nt; k++) {
        if (params) pg_buf_printf(&f, "%sc%d*x[i%+d][j%+d]", k ? " + " : "", k, dy[k], dx[k]);
        else pg_buf_printf(&f, "%s%s*x[i%+d][j%+d]", k ? " + " : "", lit[k], dy[k], dx[k]);
    }
    static const char *BW[] = {"neighbours outside the grid count as zero", "neighbour indices are clamped to the grid",
                               "cells whose footprint leaves the grid copy x unchanged"};
    static const char *BZ[] = {"越界邻居按 0 处理", "越界下标截断到网格内", "模板越界的格点直接复制 x"};
    static const char *SW[] = {"5-point cross", "9-point box (3x3)", "9-point radius-2 cross"};
    pg_buf_printf(&a, fam_pick(&r, 2) ? "2D %s stencil on a %s grid, %s boundary" : "%s stencil over a rows x cols %s array (%s edges)", SW[shape],
                  T, BND[bnd]);
    pg_buf_printf(&b, "x and out are rows x cols row-major %s grids. For every cell compute %s; %s. One thread per cell, block %dx%d, grid (%s, %s).",
                  CT, f.data, BW[bnd], BX[bs], BY[bs], g0, g1);
    pg_buf_printf(&cd, "## %s\n- Input: `%s* x` (rows x cols)%s\n- Output: `%s* out` (rows x cols)\n- Goal: %s stencil, `%s`\n- Boundary: %s\n- Launch: block (%d, %d), grid (`%s`, `%s`)",
                  n, CT, params ? ", coefficient scalars c0.." : "", CT, SW[shape], f.data, BW[bnd], BX[bs], BY[bs], g0, g1);
    pg_buf_printf(&z, "二维模板计算（%s，%s）：对每个格点计算 %s，%s。每个线程一个格点，线程块 %dx%d。", SW[shape], f64 ? "双精度" : "单精度", f.data, BZ[bnd],
                  BX[bs], BY[bs]);
    json_object_set_new(root, "descriptions", descs(a.data, b.data, cd.data, z.data));
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
    finish(root, T, f64 ? 1e-12 : 1e-5, "fam_stencil2d", bytes, flops, &s->task_json);
    pg_buf_free(&f); pg_buf_free(&a); pg_buf_free(&b); pg_buf_free(&cd); pg_buf_free(&z);
    return PG_OK;
}
