/* family_sparse_csrrow.c — the "csrrow" family (CUDA C, nvcc): per-row
 * operations over a CSR matrix's values, and CSR row offsets from per-row
 * counts.  s32 row offsets, f32/f64 values (f64 a quarter of the draws).
 *
 *   sum       out[r] = sum of row r's values (0 for an empty row)
 *   maxabs    out[r] = max |value| over row r (0 for an empty row)
 *   l1norm    row r's values divided by the row's L1 norm (sum of |value|),
 *   l2norm    or by its L2 norm (sqrt of the sum of squares); a row whose
 *             norm is 0 (only empty rows, with these inputs) is left alone;
 *             in place (values inout) or into an nnz-long output
 *   scale     row r's values times scale[r] (diag(scale) * A), in place or
 *             into an nnz-long output
 *   offsets   row_ptr[0] = 0, row_ptr[r+1] = row_ptr[r] + count[r]: an
 *             exclusive scan of s32 counts with the total appended, in one
 *             block of B = 64..1024 threads (rows <= B): warp shuffle scans
 *             (synth_fam_rw_warp_scan, the scan family's) plus shared warp
 *             totals, or a double-buffered Hillis-Steele scan in shared
 *             memory
 *
 * The row operations run one thread per row (block 64..512) or one warp per
 * row (2..16 rows per block; lanes stride the row's nonzeros, reductions
 * with __shfl_xor_sync so every lane holds the row's norm).  Only the row
 * offsets and the values are read: no column indices (these operations do
 * not need them).  Row offsets come from the harness's rowptr(nnz) generator
 * (rows can be empty).
 *
 * Reference: task_ref_fam_csrrow (src/task/refs_sparse.c). */
#include "family_rowwise.h"
#include "family_sparse.h"

#include <stdio.h>
#include <string.h>

enum { CR_SUM, CR_MAXABS, CR_L1, CR_L2, CR_SCALE, CR_OFFSETS, CR_N };

static const char *const CR_NAMES[][2] = {{"row_ptr", "vals"}, {"rowptr", "val"}, {"indptr", "data"}, {"Ap", "Ax"}, {"offsets", "values"}, {"row_offsets", "nz"}};
static const char *const OUT_NAMES[] = {"out", "y", "res", "row_out", "dst"};
static const char *const SCALE_NAMES[] = {"scale", "s", "d", "row_scale", "w"};
static const char *const CNT_NAMES[][2] = {{"counts", "row_ptr"}, {"cnt", "offsets"}, {"row_counts", "rowptr"}, {"nnz_per_row", "indptr"}, {"len", "starts"}};

/* counts to offsets, one block */
static pg_status gen_offsets(uint64_t seed, fam_rng *r, synth_family_sample *s) {
    int B = 64 << synth_fam_pick(r, 5);   /* 64..1024 */
    bool smem = synth_fam_pick(r, 2);       /* Hillis-Steele in shared memory, else warp shuffles */
    int nn = synth_fam_pick(r, 5);
    const char *C = CNT_NAMES[nn][0], *RP = CNT_NAMES[nn][1];
    static const char *const ST[] = {"counts_to_offsets_%s_b%d", "csr_offsets_from_counts_%s_b%d", "rowptr_from_counts_%s_b%d"};
    snprintf(s->name, sizeof s->name, ST[synth_fam_pick(r, 3)], smem ? "smem" : "shfl", B);
    snprintf(s->identity, sizeof s->identity, "csrrow:offsets:s32:%s:%d", smem ? "smem" : "shfl", B);
    int NW = B / 32;

    pg_buf *c = &s->cu;
    pg_buf_printf(c, "// %s: CSR row offsets from per-row counts (exclusive scan plus the total), one block of %d threads.\n", s->name, B);
    pg_buf_printf(c, "extern \"C\" __global__ void %s(const int* __restrict__ %s, int* __restrict__ %s, unsigned int rows)\n{\n", s->name, C, RP);
    pg_buf_printf(c, "    unsigned int tid = threadIdx.x;   // rows <= %d: one count per thread\n", B);
    if (smem) {
        pg_buf_printf(c, "    __shared__ int buf[2][%d];   // double buffer: read one, write the other\n", B);
        pg_buf_printf(c, "    int cur = 0;\n    buf[0][tid] = tid < rows ? %s[tid] : 0;\n    __syncthreads();\n", C);
        pg_buf_printf(c, "    for (int d = 1; d < %d; d <<= 1) {   // Hillis-Steele: after step d, sums over tid-2d+1..tid\n", B);
        pg_buf_puts(c, "        int x = buf[cur][tid];\n        if (tid >= d) x += buf[cur][tid - d];\n        buf[1 - cur][tid] = x;\n        cur = 1 - cur;\n        __syncthreads();\n    }\n");
        pg_buf_puts(c, "    int inc = buf[cur][tid];   // inclusive prefix: counts 0..tid\n");
    } else {
        pg_buf_puts(c, "    unsigned int lane = tid & 31, wid = tid >> 5;\n    __shared__ int wsum[32];\n");
        pg_buf_printf(c, "    int inc = tid < rows ? %s[tid] : 0;\n", C);
        synth_fam_rw_warp_scan(c, "    ", "int", "inc", NULL, NULL);
        pg_buf_puts(c, "    if (lane == 31) wsum[wid] = inc;\n    __syncthreads();\n");
        pg_buf_printf(c, "    if (wid == 0) {   // scan the %d warp totals\n        int w = lane < %d ? wsum[lane] : 0;\n", NW, NW);
        synth_fam_rw_warp_scan(c, "        ", "int", "w", NULL, NULL);
        pg_buf_printf(c, "        int pw = __shfl_up_sync(0xffffffffu, w, 1);\n        if (lane < %d) wsum[lane] = lane ? pw : 0;   // exclusive: warps before mine\n    }\n", NW);
        pg_buf_puts(c, "    __syncthreads();\n    inc += wsum[wid];   // inclusive prefix: counts 0..tid\n");
    }
    pg_buf_printf(c, "    if (tid == 0) %s[0] = 0;\n    if (tid < rows) %s[tid + 1] = inc;   // offset of row tid+1 = counts of rows 0..tid\n}\n", RP, RP);

    synth_sp_seal_name(s);
    sp_task t;
    synth_sp_begin(&t, s, "csrrow");
    synth_sp_ptr(&t, C, "s32*", "in", "rows", "int(0,9)", "int(0,1000)");
    synth_sp_ptr(&t, RP, "s32*", "out", "rows+1", NULL, NULL);
    synth_sp_scal(&t, "rows", "u32", "rows");
    char sizes[160], blk[8];
    snprintf(sizes, sizeof sizes, "[{\"rows\": %d, \"time\": true}, {\"rows\": %d}, {\"rows\": 37}, {\"rows\": 1}]", B, B - 5);
    synth_sp_sizes(&t, sizes);
    snprintf(blk, sizeof blk, "%d", B);
    synth_sp_launch(&t, blk, NULL, NULL, "1", NULL, NULL, "0");
    json_t *fp = json_pack("{s:s, s:s, s:s, s:i, s:s, s:s}", "op", "offsets", "dtype", "s32", "scan", smem ? "smem" : "shfl", "block", B, "counts", C,
                           "row_ptr", RP);
    synth_sp_fparams(&t, fp);

    sp_facts f = {0};
    synth_sp_add(&f.name_en, "CSR row offsets from per-row counts");
    synth_sp_add(&f.name_en, "counts to offsets (exclusive prefix sum)");
    synth_sp_add(&f.name_en, "build a CSR row pointer array from row lengths");
    synth_sp_add(&f.name_en, "single-block exclusive scan of row counts");
    synth_sp_add(&f.name_zh, "由每行计数构建 CSR 行偏移");
    synth_sp_add(&f.name_zh, "计数转偏移（排他前缀和）");
    synth_sp_add(&f.name_zh, "单线程块的行长度前缀和");
    pg_buf_printf(&f.formula, "%s[0] = 0; %s[r+1] = %s[r] + %s[r] for r < rows", RP, RP, RP, C);
    synth_sp_add(&f.explain_en, "turn the per-row counts %s into CSR row offsets: %s[0] is 0 and %s[r+1] is %s[r] plus %s[r], so %s[rows] is the total", C, RP, RP, RP, C, RP);
    synth_sp_add(&f.explain_en, "write the exclusive prefix sums of %s to %s[0..rows-1] and the sum of all counts to %s[rows]", C, RP, RP);
    synth_sp_add(&f.explain_en, "give row r the start offset %s[r] = %s[0] + ... + %s[r-1] (0 for row 0), and store the grand total after the last row", RP, C, C);
    synth_sp_add(&f.explain_zh, "把每行计数 %s 转成 CSR 行偏移：%s[0] = 0，%s[r+1] = %s[r] + %s[r]，%s[rows] 为总数", C, RP, RP, RP, C, RP);
    synth_sp_add(&f.explain_zh, "%s 的前 rows 项是 %s 的排他前缀和，最后一项是全部计数之和", RP, C);
    if (smem) {
        synth_sp_add(&f.how_en, "one block of %d threads, one count per thread: a double-buffered Hillis-Steele scan in shared memory (log2(%d) steps, a barrier after each)", B, B);
        synth_sp_add(&f.how_en, "shared-memory Hillis-Steele scan in a single block");
        synth_sp_add(&f.how_zh, "单个线程块（%d 线程），每线程一个计数，在共享内存中做双缓冲 Hillis-Steele 扫描", B);
    } else {
        synth_sp_add(&f.how_en, "one block of %d threads, one count per thread: inclusive warp scans with __shfl_up_sync, the %d warp totals scanned by warp 0 through shared memory, then added back", B, NW);
        synth_sp_add(&f.how_en, "single-block scan: warp shuffles plus shared warp totals");
        synth_sp_add(&f.how_zh, "单个线程块（%d 线程）：先用 __shfl_up_sync 做 warp 内扫描，再由 warp 0 扫描共享内存中的 %d 个 warp 总和并加回", B, NW);
    }
    pg_buf_printf(&f.shape_en, "%s has rows entries, %s has rows+1; rows is at most %d (one block)", C, RP, B);
    pg_buf_printf(&f.shape_zh, "%s 长 rows，%s 长 rows+1；rows 不超过 %d（单个线程块）", C, RP, B);
    pg_buf_printf(&f.notes_en, "Counts are non-negative 32-bit integers; launch exactly one block");
    pg_buf_printf(&f.notes_zh, "计数为非负 32 位整数；只启动一个线程块");
    f.data = DESC_DATA_VECTOR;
    f.hints = DESC_HINT_SMEM | DESC_HINT_COALESCED | (smem ? 0u : DESC_HINT_SHUFFLE);
    f.elems_per_thread = 1;
    synth_sp_finish(&t, &f, seed, "int(0,9)", "int(0,1000)", "s32", 0, synth_fam_ref(synth_fam_gen_csrrow), "8*rows + 4", "rows");
    synth_sp_facts_free(&f);
    return PG_OK;
}

pg_status synth_fam_gen_csrrow(uint64_t seed, synth_family_sample *s) {
    fam_rng r = {seed ^ 0x637372726f770016ull};
    int op = synth_fam_pick(&r, CR_N);
    if (op == CR_OFFSETS) return gen_offsets(seed, &r, s);
    bool f64 = synth_fam_pick(&r, 4) == 0, warp = synth_fam_pick(&r, 2);
    bool oop = (op == CR_L1 || op == CR_L2 || op == CR_SCALE) && synth_fam_pick(&r, 2);   /* into an output array */
    int rpb = 2 << synth_fam_pick(&r, 4), block = warp ? 32 * rpb : 64 << synth_fam_pick(&r, 4);
    const char *T = f64 ? "f64" : "f32", *CT = f64 ? "double" : "float";
    int nm = synth_fam_pick(&r, 6);
    const char *RP = CR_NAMES[nm][0], *VA = CR_NAMES[nm][1], *O = OUT_NAMES[synth_fam_pick(&r, 5)], *S = SCALE_NAMES[synth_fam_pick(&r, 5)];
    static const char *const OPS[] = {"sum", "maxabs", "l1norm", "l2norm", "scale"};
    static const char *const ON[][2] = {{"csr_row_sum", "csr_rowsum"}, {"csr_row_maxabs", "csr_row_absmax"}, {"csr_row_l1_normalize", "csr_l1norm_rows"},
                                        {"csr_row_l2_normalize", "csr_l2norm_rows"}, {"csr_row_scale", "csr_scale_rows"}};
    snprintf(s->name, sizeof s->name, "%s_%s_%s%d%s", ON[op][synth_fam_pick(&r, 2)], T, warp ? "warp" : "thread", warp ? rpb : block,
             op >= CR_L1 ? (oop ? "_out" : "_inplace") : "");
    snprintf(s->identity, sizeof s->identity, "csrrow:%s:%s:%s:%d:%s", OPS[op], T, warp ? "warp" : "thread", warp ? rpb : block,
             op >= CR_L1 ? (oop ? "out" : "inplace") : "-");
    bool red = op != CR_SCALE, norm = op == CR_L1 || op == CR_L2, write_vals = op >= CR_L1;
    const char *FA = f64 ? "fabs" : "fabsf", *FM = f64 ? "fmax" : "fmaxf", *SQ = f64 ? "sqrt" : "sqrtf";

    /* ---- CUDA C ---- */
    pg_buf *c = &s->cu;
    static const char *const WHAT[] = {"sum of each row's values", "largest |value| of each row", "each row divided by its L1 norm",
                                       "each row divided by its L2 norm", "each row times its scale factor"};
    pg_buf_printf(c, "// %s: %s over a CSR matrix (%s values), %s per row.\n", s->name, WHAT[op], CT, warp ? "one warp" : "one thread");
    pg_buf_printf(c, "extern \"C\" __global__ void %s(const int* __restrict__ %s, %s%s* __restrict__ %s, ", s->name, RP, write_vals && !oop ? "" : "const ", CT, VA);
    if (op == CR_SCALE) pg_buf_printf(c, "const %s* __restrict__ %s, ", CT, S);
    if (!write_vals || oop) pg_buf_printf(c, "%s* __restrict__ %s, ", CT, O);
    pg_buf_puts(c, "unsigned int rows)\n{\n");
    const char *DST = oop ? O : VA;   /* where normalized / scaled values go */
    char upd[96] = "";
    if (op == CR_SUM) snprintf(upd, sizeof upd, "acc += %s[j];", VA);
    else if (op == CR_MAXABS) snprintf(upd, sizeof upd, "acc = %s(acc, %s(%s[j]));", FM, FA, VA);
    else if (op == CR_L1) snprintf(upd, sizeof upd, "acc += %s(%s[j]);", FA, VA);
    else if (op == CR_L2) snprintf(upd, sizeof upd, "acc += %s[j] * %s[j];", VA, VA);
    if (!warp) {
        pg_buf_puts(c, "    unsigned int row = blockIdx.x * blockDim.x + threadIdx.x;\n    if (row >= rows) return;\n");
        pg_buf_printf(c, "    int start = %s[row], end = %s[row + 1];   // row's nonzeros: [start, end)\n", RP, RP);
        if (red) pg_buf_printf(c, "    %s acc = 0;\n    for (int j = start; j < end; j++) %s\n", CT, upd);
    } else {
        pg_buf_printf(c, "    unsigned int row = blockIdx.x * %d + threadIdx.x / 32, lane = threadIdx.x %% 32;\n", rpb);
        pg_buf_puts(c, "    if (row >= rows) return;   // warp-uniform: the shuffles below see full warps\n");
        pg_buf_printf(c, "    int start = %s[row], end = %s[row + 1];   // row's nonzeros: [start, end)\n", RP, RP);
        if (red) {
            pg_buf_printf(c, "    %s acc = 0;\n    for (int j = start + lane; j < end; j += 32) %s\n", CT, upd);
            pg_buf_puts(c, "    for (int off = 16; off > 0; off /= 2)   // butterfly: every lane gets the row's result\n");
            if (op == CR_MAXABS) pg_buf_printf(c, "        acc = %s(acc, __shfl_xor_sync(0xffffffffu, acc, off));\n", FM);
            else pg_buf_puts(c, "        acc += __shfl_xor_sync(0xffffffffu, acc, off);\n");
        }
    }
    const char *j0 = warp ? "start + lane" : "start", *js = warp ? "j += 32" : "j++";
    if (op == CR_SUM || op == CR_MAXABS) pg_buf_printf(c, "    %s%s[row] = acc;\n", warp ? "if (lane == 0) " : "", O);
    else if (norm) {
        pg_buf_printf(c, "    %s nrm = %s%sacc%s;\n", CT, op == CR_L2 ? SQ : "", op == CR_L2 ? "(" : "", op == CR_L2 ? ")" : "");
        if (oop) pg_buf_printf(c, "    for (int j = %s; j < end; %s) %s[j] = nrm > 0 ? %s[j] / nrm : %s[j];   // a zero row is copied as it is\n", j0, js, DST, VA, VA);
        else pg_buf_printf(c, "    if (nrm > 0)   // a zero row is left as it is\n        for (int j = %s; j < end; %s) %s[j] = %s[j] / nrm;\n", j0, js, DST, VA);
    } else {
        pg_buf_printf(c, "    %s f = %s[row];\n    for (int j = %s; j < end; %s) %s[j] = %s[j] * f;\n", CT, S, j0, js, DST, VA);
    }
    pg_buf_puts(c, "}\n");

    /* ---- task.json ---- */
    synth_sp_seal_name(s);
    sp_task t;
    synth_sp_begin(&t, s, "csrrow");
    char pt[8];
    snprintf(pt, sizeof pt, "%s*", T);
    synth_sp_ptr(&t, RP, "s32*", "in", "rows+1", "rowptr(nnz)", NULL);
    synth_sp_ptr(&t, VA, pt, write_vals && !oop ? "inout" : "in", "nnz", NULL, NULL);
    if (op == CR_SCALE) synth_sp_ptr(&t, S, pt, "in", "rows", NULL, NULL);
    if (!write_vals) synth_sp_ptr(&t, O, pt, "out", "rows", NULL, NULL);
    else if (oop) synth_sp_ptr(&t, O, pt, "out", "nnz", NULL, NULL);
    synth_sp_scal(&t, "rows", "u32", "rows");
    synth_sp_sizes(&t, "[{\"rows\": 300007, \"nnz\": 4800013, \"time\": true}, {\"rows\": 1000, \"nnz\": 20011},"
                       " {\"rows\": 4097, \"nnz\": 60007}, {\"rows\": 33, \"nnz\": 70}, {\"rows\": 1, \"nnz\": 1}]");
    char blk[8], grid[32];
    snprintf(blk, sizeof blk, "%d", block);
    snprintf(grid, sizeof grid, "cdiv(rows,%d)", warp ? rpb : block);
    synth_sp_launch(&t, blk, NULL, NULL, grid, NULL, NULL, "0");
    json_t *fp = json_pack("{s:s, s:s, s:s, s:i, s:b, s:s, s:s, s:s, s:s}", "op", OPS[op], "dtype", T, "mapping", warp ? "warp" : "thread", "block", block,
                           "inplace", write_vals && !oop, "row_ptr", RP, "vals", VA, "out", write_vals && !oop ? "" : O, "scale", op == CR_SCALE ? S : "");
    synth_sp_fparams(&t, fp);

    /* ---- descriptions ---- */
    sp_facts f = {0};
    const char *dst_en = oop ? O : VA;
    char where_en[96], where_zh[96];
    if (oop) {
        snprintf(where_en, sizeof where_en, "written to the same positions of %s (%s is not modified)", O, VA);
        snprintf(where_zh, sizeof where_zh, "写入 %s 的相同位置（%s 不变）", O, VA);
    } else {
        snprintf(where_en, sizeof where_en, "in place in %s", VA);
        snprintf(where_zh, sizeof where_zh, "原地写回 %s", VA);
    }
    switch (op) {
    case CR_SUM:
        pg_buf_printf(&f.formula, "%s[r] = sum_{j=%s[r]}^{%s[r+1]-1} %s[j]", O, RP, RP, VA);
        synth_sp_add(&f.name_en, "CSR row sums");
        synth_sp_add(&f.name_en, "sum of each sparse row (CSR)");
        synth_sp_add(&f.name_en, "per-row reduction of a CSR matrix's values");
        synth_sp_add(&f.name_zh, "CSR 矩阵逐行求和");
        synth_sp_add(&f.name_zh, "稀疏矩阵每行非零值之和");
        synth_sp_add(&f.explain_en, "add up, for every row r, the values %s[j] for j from %s[r] up to (not including) %s[r+1] and store the sum in %s[r]; an empty row gives 0", VA, RP, RP, O);
        synth_sp_add(&f.explain_en, "compute the sum of the stored nonzeros of each row of a CSR matrix (offsets %s, values %s), one result per row in %s", RP, VA, O);
        synth_sp_add(&f.explain_zh, "对每一行 r，把 %s[%s[r]] 到 %s[%s[r+1]-1] 的值相加写入 %s[r]；空行结果为 0", VA, RP, VA, RP, O);
        synth_sp_add(&f.explain_zh, "求 CSR 矩阵（行偏移 %s，非零值 %s）每一行非零值的和", RP, VA);
        break;
    case CR_MAXABS:
        pg_buf_printf(&f.formula, "%s[r] = max_{%s[r] <= j < %s[r+1]} |%s[j]| (0 for an empty row)", O, RP, RP, VA);
        synth_sp_add(&f.name_en, "CSR row max-abs");
        synth_sp_add(&f.name_en, "largest magnitude in each sparse row");
        synth_sp_add(&f.name_en, "per-row infinity norm of a CSR matrix");
        synth_sp_add(&f.name_zh, "CSR 矩阵逐行最大绝对值");
        synth_sp_add(&f.name_zh, "稀疏矩阵每行的无穷范数");
        synth_sp_add(&f.explain_en, "find, for every row r, the largest absolute value among %s[%s[r]] .. %s[%s[r+1]-1] and store it in %s[r]; an empty row gives 0", VA, RP, VA, RP, O);
        synth_sp_add(&f.explain_en, "compute each CSR row's maximum |value| (its infinity norm) into %s, 0 for rows without nonzeros", O);
        synth_sp_add(&f.explain_zh, "对每一行 r，求 %s[%s[r]] 到 %s[%s[r+1]-1] 中绝对值的最大值写入 %s[r]；空行为 0", VA, RP, VA, RP, O);
        synth_sp_add(&f.explain_zh, "求 CSR 矩阵每行非零值的最大绝对值");
        break;
    case CR_L1:
    case CR_L2: {
        bool l1 = op == CR_L1;
        if (l1) pg_buf_printf(&f.formula, "%s[j] = %s[j] / sum_{k=%s[r]}^{%s[r+1]-1} |%s[k]| for %s[r] <= j < %s[r+1]", dst_en, VA, RP, RP, VA, RP, RP);
        else pg_buf_printf(&f.formula, "%s[j] = %s[j] / sqrt(sum_{k=%s[r]}^{%s[r+1]-1} %s[k]^2) for %s[r] <= j < %s[r+1]", dst_en, VA, RP, RP, VA, RP, RP);
        synth_sp_add(&f.name_en, "CSR row %s normalization", l1 ? "L1" : "L2");
        synth_sp_add(&f.name_en, "normalize each sparse row to unit %s norm", l1 ? "L1" : "L2");
        synth_sp_add(&f.name_en, "%s-normalize the rows of a CSR matrix", l1 ? "L1" : "L2");
        synth_sp_add(&f.name_zh, "CSR 矩阵逐行 %s 归一化", l1 ? "L1" : "L2");
        synth_sp_add(&f.name_zh, "稀疏矩阵每行除以其 %s 范数", l1 ? "L1" : "L2");
        const char *nen = l1 ? "the sum of the absolute values of its nonzeros" : "the square root of the sum of the squares of its nonzeros";
        synth_sp_add(&f.explain_en, "divide every value of row r (positions %s[r] .. %s[r+1]-1 of %s) by the row's %s norm, %s; the results are %s; a row whose norm is 0 is left unchanged",
                      RP, RP, VA, l1 ? "L1" : "L2", nen, where_en);
        synth_sp_add(&f.explain_en, "scale each CSR row so that %s is 1: compute the row's norm, then divide its values by it, %s", l1 ? "the sum of its |values|" : "its Euclidean length", where_en);
        synth_sp_add(&f.explain_zh, "对每一行 r，先求该行非零值的 %s 范数（%s），再把 %s[%s[r]] 到 %s[%s[r+1]-1] 逐个除以它，%s；范数为 0 的行不变", l1 ? "L1" : "L2",
                      l1 ? "绝对值之和" : "平方和的平方根", VA, RP, VA, RP, where_zh);
        synth_sp_add(&f.explain_zh, "把 CSR 矩阵每行归一化为单位 %s 范数，%s", l1 ? "L1" : "L2", where_zh);
        break;
    }
    default:
        pg_buf_printf(&f.formula, "%s[j] = %s[j] * %s[r] for %s[r] <= j < %s[r+1]", dst_en, VA, S, RP, RP);
        synth_sp_add(&f.name_en, "CSR row scaling");
        synth_sp_add(&f.name_en, "scale the rows of a sparse matrix by a vector (diag(%s) * A)", S);
        synth_sp_add(&f.name_en, "per-row scaling of a CSR matrix's values");
        synth_sp_add(&f.name_zh, "CSR 矩阵按行缩放");
        synth_sp_add(&f.name_zh, "稀疏矩阵左乘对角阵 diag(%s)", S);
        synth_sp_add(&f.explain_en, "multiply every value of row r (positions %s[r] .. %s[r+1]-1 of %s) by %s[r]; the results are %s", RP, RP, VA, S, where_en);
        synth_sp_add(&f.explain_en, "compute diag(%s) times the CSR matrix: row r's nonzeros are all scaled by the factor %s[r], %s", S, S, where_en);
        synth_sp_add(&f.explain_zh, "把第 r 行的每个非零值（%s 的第 %s[r] 到 %s[r+1]-1 项）乘以 %s[r]，%s", VA, RP, RP, S, where_zh);
        synth_sp_add(&f.explain_zh, "计算 diag(%s) 乘 CSR 矩阵，%s", S, where_zh);
        break;
    }
    if (!warp) {
        synth_sp_add(&f.how_en, "one thread per row (%d threads per block) walking the row's nonzeros%s", block, norm ? " twice: once for the norm, once to divide" : "");
        synth_sp_add(&f.how_en, "scalar CSR kernel: thread r handles row r");
        synth_sp_add(&f.how_zh, "每个线程处理一行（每块 %d 线程）%s", block, norm ? "，先求范数再逐个相除" : "");
    } else if (red) {
        synth_sp_add(&f.how_en, "one warp per row (%d rows per block): lanes stride the row's nonzeros by 32, then a __shfl_xor_sync butterfly %s%s", rpb,
                      op == CR_MAXABS ? "maximum" : "sum", norm ? " gives every lane the norm, and the lanes divide their strided entries" : "");
        synth_sp_add(&f.how_en, "warp-per-row CSR kernel with shuffle reductions");
        synth_sp_add(&f.how_zh, "每个 warp 一行（每块 %d 行），lane 按 32 步长遍历该行非零值，再用 __shfl_xor_sync 归约", rpb);
    } else {
        synth_sp_add(&f.how_en, "one warp per row (%d rows per block): the lanes scale the row's nonzeros with a stride of 32", rpb);
        synth_sp_add(&f.how_en, "warp-per-row CSR kernel, coalesced over each row's values");
        synth_sp_add(&f.how_zh, "每个 warp 一行（每块 %d 行），lane 按 32 步长处理该行非零值", rpb);
    }
    if (write_vals) {
        if (oop) pg_buf_printf(&f.shape_en, "%s has rows+1 offsets, %s and %s have nnz entries each", RP, VA, O);
        else pg_buf_printf(&f.shape_en, "%s has rows+1 offsets, %s has nnz entries", RP, VA);
        if (oop) pg_buf_printf(&f.shape_zh, "%s 长 rows+1，%s 与 %s 各长 nnz", RP, VA, O);
        else pg_buf_printf(&f.shape_zh, "%s 长 rows+1，%s 长 nnz", RP, VA);
        if (op == CR_SCALE) {
            pg_buf_printf(&f.shape_en, ", %s has rows", S);
            pg_buf_printf(&f.shape_zh, "，%s 长 rows", S);
        }
    } else {
        pg_buf_printf(&f.shape_en, "%s has rows+1 offsets, %s has nnz entries and %s has rows", RP, VA, O);
        pg_buf_printf(&f.shape_zh, "%s 长 rows+1，%s 长 nnz，%s 长 rows", RP, VA, O);
    }
    pg_buf_printf(&f.notes_en, "Row lengths vary and rows can be empty; %s[0] = 0 and %s[rows] = nnz; no column indices are needed", RP, RP);
    pg_buf_printf(&f.notes_zh, "各行长度不一，可能有空行；%s[0] = 0，%s[rows] = nnz；不需要列号", RP, RP);
    char bytes[96], flops[32];
    int es = f64 ? 8 : 4;
    if (!write_vals) snprintf(bytes, sizeof bytes, "4*(rows+1) + %d*nnz + %d*rows", es, es);
    else snprintf(bytes, sizeof bytes, "4*(rows+1) + %d*nnz%s", 2 * es, op == CR_SCALE ? (f64 ? " + 8*rows" : " + 4*rows") : "");
    snprintf(flops, sizeof flops, "%s", norm ? "3*nnz" : "nnz");
    f.data = DESC_DATA_VECTOR;   /* the buffers are 1-D arrays (offsets, nonzeros): "dense matrices" would be untrue */
    f.hints = DESC_HINT_MEMBOUND | (warp ? (red ? DESC_HINT_SHUFFLE : 0u) | DESC_HINT_COALESCED : 0u) | (write_vals && !oop ? DESC_HINT_INPLACE : 0u);
    f.elems_per_thread = 0;
    synth_sp_finish(&t, &f, seed, "uniform(-1,1)", "normal(0,1)", T, f64 ? 1e-11 : 1e-5, synth_fam_ref(synth_fam_gen_csrrow), bytes, flops);
    synth_sp_facts_free(&f);
    return PG_OK;
}
