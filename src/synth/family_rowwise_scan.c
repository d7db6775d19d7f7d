/* family_rowwise_scan.c — scans, stream compaction and histograms of the
 * row-wise curriculum:
 *
 *   scan       inclusive / exclusive prefix sums of f32 / s32 / u32 (integers
 *              wrap): per warp over segments of 32*E elements (shuffles),
 *              per block over segments of B*E (shuffles + shared warp
 *              totals), per block over 2*B with the work-efficient Blelloch
 *              tree in shared memory (optionally padded against bank
 *              conflicts), or per row of a rows x cols matrix (one block per
 *              row, chunks with a running carry), optionally segmented by
 *              head flags; half of the shuffle scans write the five
 *              Hillis-Steele steps out with literal deltas 1, 2, 4, 8, 16
 *              (the others the loop over d)
 *   compact    per-tile stream compaction (tile = B*E elements, one block per
 *              tile): the kept values (or their global indices) packed at the
 *              start of the tile's range in order, the rest filled, and the
 *              count per tile; ranks from __ballot_sync/__popc or a shuffle
 *              scan of the keep flags
 *   histogram  10..1024 bins over u8 / s32 / f32 inputs (bin = high bits,
 *              modulo, low-bit mask, or an [lo, hi) range dropped or
 *              clamped), counts added into the bins with global atomics, a
 *              per-block shared histogram, or per-warp shared histograms;
 *              grid-stride loop, uchar4 loads for bytes; grid min(cdiv(n,
 *              B x M), cap) for M = 1..16 elements per thread (uchar4 4..32),
 *              the loop's step written with blockDim.x or the block size
 *
 * References: src/task/refs_rowwise_scan.c. */
#include "family_rowwise.h"

#include <stdio.h>
#include <string.h>

/* integer and f32 element types of these families */
typedef struct { const char *T, *ct, *zh, *nm; bool flt; } sc_t;
static const sc_t SC_TYPES[] = {{"f32", "float", "单精度浮点", "float", true}, {"s32", "int", "int32", "int32", false}, {"u32", "unsigned int", "uint32", "uint32", false}};

/* Warp-level inclusive scan of `v` (family_rowwise.h) (+ head flags `f` when seg): every lane
 * gets the sum over lanes 0..lane (restarting after a lane whose flag run is set).
 * un (a name prefix, e.g. "up") writes the five steps out with their shuffle
 * deltas as literals (up1 = __shfl_up_sync(.., 1) .. up16), else the loop over d:
 * nvcc unrolls both alike, but the literate PTX of the loop shows `d` beside
 * each shuffle and that of the unrolled plan the delta itself (round 13's PTX
 * mixed up the registers holding 4, 8 and 16). */
void synth_fam_rw_warp_scan(pg_buf *c, const char *ind, const char *ct, const char *v, const char *f, const char *un) {
    if (un) {
        pg_buf_printf(c, "%s// Hillis-Steele over the warp, unrolled: shuffle deltas 1, 2, 4, 8, 16\n", ind);
        for (int d = 1; d < 32; d <<= 1) {
            pg_buf_printf(c, "%s%s %s%d = __shfl_up_sync(0xffffffffu, %s, %d);\n", ind, ct, un, d, v, d);
            if (f) {
                pg_buf_printf(c, "%sint %sf%d = __shfl_up_sync(0xffffffffu, %s, %d);\n", ind, un, d, f, d);
                pg_buf_printf(c, "%sif (lane >= %d) {\n%s    if (!%s) %s += %s%d;%s\n%s    %s |= %sf%d;\n%s}\n", ind, d, ind, f, v, un, d,
                              d == 1 ? "   // a head flag stops the carry from the left" : "", ind, f, un, d, ind);
            } else pg_buf_printf(c, "%sif (lane >= %d) %s += %s%d;\n", ind, d, v, un, d);
        }
        return;
    }
    pg_buf_printf(c, "%sfor (int d = 1; d < 32; d <<= 1) {   // Hillis-Steele over the warp\n", ind);
    pg_buf_printf(c, "%s    %s up = __shfl_up_sync(0xffffffffu, %s, d);\n", ind, ct, v);
    if (f) {
        pg_buf_printf(c, "%s    int fu = __shfl_up_sync(0xffffffffu, %s, d);\n", ind, f);
        pg_buf_printf(c, "%s    if (lane >= d) {\n%s        if (!%s) %s += up;   // a head flag stops the carry from the left\n%s        %s |= fu;\n%s    }\n", ind, ind, f, v,
                      ind, f, ind);
    } else pg_buf_printf(c, "%s    if (lane >= d) %s += up;\n", ind, v);
    pg_buf_printf(c, "%s}\n", ind);
}

/* ======================================================================================== *
 * scan
 * ======================================================================================== */
enum { SL_WARP, SL_BLOCK, SL_BLELLOCH, SL_ROW };

pg_status synth_fam_rw_scan(uint64_t seed, synth_family_sample *s) {
    fam_rng r = {seed ^ 0x7363616e73636e04ull};
    int ti = synth_fam_pick(&r, 3), lv = synth_fam_pick(&r, 4);
    const sc_t *t = &SC_TYPES[ti];
    bool excl = synth_fam_pick(&r, 2);
    int B = lv == SL_WARP ? 64 << synth_fam_pick(&r, 3) : 64 << synth_fam_pick(&r, 4);   /* warp: 64..256, else 64..512 */
    int E = lv == SL_WARP || lv == SL_BLOCK ? 1 << synth_fam_pick(&r, 4) : 1;
    bool pad = lv == SL_BLELLOCH && synth_fam_pick(&r, 2);
    bool flags = lv == SL_ROW && synth_fam_pick(&r, 2);
    int S = lv == SL_WARP ? 32 * E : lv == SL_BLOCK ? B * E : lv == SL_BLELLOCH ? 2 * B : 0;
    /* held out (bench/suite): exclusive s32 scans of 1024-element segments */
    if (ti == 1 && excl && S == 1024) {
        if (lv == SL_BLOCK) E *= 2;
        else B /= 2;
        S = lv == SL_BLOCK ? B * E : 2 * B;
    }
    /* the warp scans' shuffle steps written out with literal deltas for half of the shuffle
     * scans, from a stream of their own (the other draws, and the Blelloch scans, are those of
     * every earlier sample) */
    fam_rng ru = {seed ^ 0x7363616e756e726cull};
    bool un = lv != SL_BLELLOCH && synth_fam_pick(&ru, 2);
    static const char *XN[] = {"x", "in", "src", "input", "a", "data"};
    static const char *YN[] = {"y", "out", "dst", "output", "prefix", "psum"};
    int xi = synth_fam_pick(&r, 6);
    const char *X = XN[xi], *Y = YN[synth_fam_pick(&r, 6)], *F = synth_fam_pick(&r, 2) ? "flags" : "heads";
    static const char *LVN[] = {"warp", "block", "blelloch", "row"};
    char tag[40];
    if (lv == SL_ROW) snprintf(tag, sizeof tag, "rows_b%d%s", B, flags ? "_seg" : "");
    else if (lv == SL_BLELLOCH) snprintf(tag, sizeof tag, "blelloch%d%s", S, pad ? "p" : "");
    else snprintf(tag, sizeof tag, "%s%d_b%d_e%d", LVN[lv], S, B, E);
    snprintf(s->family, sizeof s->family, "scan");
    snprintf(s->source, sizeof s->source, "nvcc");
    static const char *PRE[2][2] = {{"inclusive_scan", "incl_prefix_sum"}, {"exclusive_scan", "excl_prefix_sum"}};
    /* the unrolled plans are named apart (a kernel name stands for one plan); the identity is the
     * loop's: the same computation, the same way */
    snprintf(s->name, sizeof s->name, "%s_%s_%s%s", PRE[excl][synth_fam_pick(&r, 2)], t->T, tag, un ? "_unr" : "");
    synth_fam_fit_name(s->name);   /* within the decoder's PG_NAME_MAX */
    snprintf(s->identity, sizeof s->identity, "scan:%s:%s:%s", excl ? "exclusive" : "inclusive", t->T, tag);

    /* ---- CUDA C ---- */
    const char *ct = t->ct;
    pg_buf *c = &s->cu;
    pg_buf_printf(c, "// %s: %s prefix sum (%s) %s.\n", s->name, excl ? "exclusive" : "inclusive", ct,
                  lv == SL_ROW ? (flags ? "of every row, restarting at head flags" : "of every row") : "restarting at every segment");
    pg_buf_printf(c, "extern \"C\" __global__ void %s(const %s* __restrict__ %s, ", s->name, ct, X);
    if (flags) pg_buf_printf(c, "const unsigned char* __restrict__ %s, ", F);
    pg_buf_printf(c, "%s* __restrict__ %s, unsigned int %s)\n{\n", ct, Y, lv == SL_ROW ? "rows, unsigned int cols" : "n");
    if (lv == SL_WARP || lv == SL_BLOCK) {
        int NW = B / 32;
        pg_buf_puts(c, "    unsigned int tid = threadIdx.x, lane = tid & 31, wid = tid >> 5;\n");
        if (lv == SL_WARP) {
            pg_buf_printf(c, "    size_t seg = (size_t)blockIdx.x * %d + wid;   // one %d-element segment per warp\n", NW, S);
            pg_buf_printf(c, "    if (seg * %d >= n) return;   // the whole warp leaves together\n", S);
            pg_buf_printf(c, "    size_t base = seg * %d + (size_t)lane * %d;\n", S, E);
        } else {
            pg_buf_printf(c, "    __shared__ %s wsum[32];\n", ct);
            pg_buf_printf(c, "    size_t base = (size_t)blockIdx.x * %d + (size_t)tid * %d;   // one %d-element segment per block\n", S, E, S);
        }
        pg_buf_printf(c, "    %s v[%d], tot = 0;\n", ct, E);
        if (E > 1) pg_buf_puts(c, "#pragma unroll\n");
        pg_buf_printf(c, "    for (int k = 0; k < %d; k++) {   // %d consecutive elements per thread\n", E, E);
        pg_buf_printf(c, "        v[k] = base + k < n ? %s[base + k] : 0;\n        tot += v[k];\n    }\n", X);
        pg_buf_printf(c, "    %s inc = tot;\n", ct);
        synth_fam_rw_warp_scan(c, "    ", ct, "inc", NULL, un ? "up" : NULL);
        pg_buf_printf(c, "    %s run = __shfl_up_sync(0xffffffffu, inc, 1);   // exclusive prefix of the thread totals\n    if (lane == 0) run = 0;\n", ct);
        if (lv == SL_BLOCK && NW > 1) {
            pg_buf_puts(c, "    if (lane == 31) wsum[wid] = inc;\n    __syncthreads();\n");
            pg_buf_printf(c, "    if (wid == 0) {   // scan the %d warp totals\n        %s w = lane < %d ? wsum[lane] : 0;\n", NW, ct, NW);
            synth_fam_rw_warp_scan(c, "        ", ct, "w", NULL, un ? "wup" : NULL);
            pg_buf_printf(c, "        %s pw = __shfl_up_sync(0xffffffffu, w, 1);\n        if (lane < %d) wsum[lane] = lane ? pw : 0;\n    }\n    __syncthreads();\n", ct, NW);
            pg_buf_puts(c, "    run += wsum[wid];\n");
        }
        if (E > 1) pg_buf_puts(c, "#pragma unroll\n");
        pg_buf_printf(c, "    for (int k = 0; k < %d; k++) {\n", E);
        if (excl) pg_buf_printf(c, "        if (base + k < n) %s[base + k] = run;\n        run += v[k];\n    }\n}\n", Y);
        else pg_buf_printf(c, "        run += v[k];\n        if (base + k < n) %s[base + k] = run;\n    }\n}\n", Y);
    } else if (lv == SL_BLELLOCH) {
        const char *P = pad ? "PAD" : "";
        if (pad) pg_buf_puts(c, "#define PAD(i) ((i) + ((i) >> 5))   // one gap per 32 entries: the tree's strided accesses avoid bank conflicts\n");
        pg_buf_printf(c, "    __shared__ %s temp[%d];\n", ct, pad ? S + S / 32 : S);
        pg_buf_printf(c, "    int tid = threadIdx.x;\n    size_t base = (size_t)blockIdx.x * %d;\n", S);
        pg_buf_printf(c, "    %s va = base + tid < n ? %s[base + tid] : 0, vb = base + tid + %d < n ? %s[base + tid + %d] : 0;\n", ct, X, B, X, B);
        pg_buf_printf(c, "    temp[%s(tid)] = va;\n    temp[%s(tid + %d)] = vb;\n    int offset = 1;\n", P, P, B);
        pg_buf_printf(c, "    for (int dd = %d; dd > 0; dd >>= 1) {   // up-sweep: partial sums in place\n        __syncthreads();\n", B);
        pg_buf_printf(c, "        if (tid < dd) {\n            int ai = offset * (2 * tid + 1) - 1, bi = offset * (2 * tid + 2) - 1;\n            temp[%s(bi)] += temp[%s(ai)];\n        }\n        offset <<= 1;\n    }\n", P, P);
        pg_buf_printf(c, "    if (tid == 0) temp[%s(%d)] = 0;\n", P, S - 1);
        pg_buf_printf(c, "    for (int dd = 1; dd < %d; dd <<= 1) {   // down-sweep: exclusive prefixes\n        offset >>= 1;\n        __syncthreads();\n", S);
        pg_buf_printf(c, "        if (tid < dd) {\n            int ai = offset * (2 * tid + 1) - 1, bi = offset * (2 * tid + 2) - 1;\n");
        pg_buf_printf(c, "            %s tt = temp[%s(ai)];\n            temp[%s(ai)] = temp[%s(bi)];\n            temp[%s(bi)] += tt;\n        }\n    }\n    __syncthreads();\n", ct, P, P, P, P);
        pg_buf_printf(c, "    if (base + tid < n) %s[base + tid] = temp[%s(tid)]%s;\n", Y, P, excl ? "" : " + va");
        pg_buf_printf(c, "    if (base + tid + %d < n) %s[base + tid + %d] = temp[%s(tid + %d)]%s;\n}\n", B, Y, B, P, B, excl ? "" : " + vb");
        if (pad) pg_buf_puts(c, "#undef PAD\n");
    } else {
        int NW = B / 32;
        pg_buf_printf(c, "    __shared__ %s wsum[32];\n    __shared__ %s carry_s;\n", ct, ct);
        if (flags) pg_buf_puts(c, "    __shared__ int wflag[32];\n");
        pg_buf_puts(c, "    unsigned int tid = threadIdx.x, lane = tid & 31, wid = tid >> 5, row = blockIdx.x;   // one block per row\n");
        pg_buf_printf(c, "    const %s* xrow = %s + (size_t)row * cols;\n    %s* yrow = %s + (size_t)row * cols;\n", ct, X, ct, Y);
        if (flags) pg_buf_printf(c, "    const unsigned char* frow = %s + (size_t)row * cols;\n", F);
        pg_buf_printf(c, "    %s carry = 0;   // the row's sum so far (from earlier chunks)\n", ct);
        pg_buf_printf(c, "    for (unsigned int c0 = 0; c0 < cols; c0 += %d) {\n", B);
        pg_buf_printf(c, "        unsigned int col = c0 + tid;\n        %s v = col < cols ? xrow[col] : 0, sc = v;\n", ct);
        if (flags) pg_buf_puts(c, "        int head = col < cols && frow[col] != 0, f = head;   // f: a segment starts at or before me (in my warp so far)\n");
        synth_fam_rw_warp_scan(c, "        ", ct, "sc", flags ? "f" : NULL, un ? "up" : NULL);
        if (NW > 1) {
            pg_buf_printf(c, "        if (lane == 31) { wsum[wid] = sc;%s }\n        __syncthreads();\n", flags ? " wflag[wid] = f;" : "");
            pg_buf_printf(c, "        if (wid == 0) {   // scan the warp totals%s\n            %s w = lane < %d ? wsum[lane] : 0;\n", flags ? " (segmented)" : "", ct, NW);
            if (flags) pg_buf_printf(c, "            int g = lane < %d ? wflag[lane] : 0;\n", NW);
            synth_fam_rw_warp_scan(c, "            ", ct, "w", flags ? "g" : NULL, un ? "wup" : NULL);
            pg_buf_printf(c, "            %s pw = __shfl_up_sync(0xffffffffu, w, 1);\n", ct);
            if (flags) pg_buf_puts(c, "            int pg = __shfl_up_sync(0xffffffffu, g, 1);\n");
            pg_buf_printf(c, "            if (lane < %d) { wsum[lane] = lane ? pw : 0;%s }\n        }\n        __syncthreads();\n", NW, flags ? " wflag[lane] = lane ? pg : 0;" : "");
            if (flags) pg_buf_puts(c, "        if (!f) sc += wsum[wid];\n        f |= wflag[wid];\n");
            else pg_buf_puts(c, "        sc += wsum[wid];\n");
        }
        pg_buf_printf(c, "        %s res = %scarry + sc;   // inclusive prefix within the row%s\n", ct, flags ? "f ? sc : " : "", flags ? "'s segment" : "");
        if (excl) pg_buf_printf(c, "        if (col < cols) yrow[col] = %sres - v;\n", flags ? "head ? 0 : " : "");
        else pg_buf_puts(c, "        if (col < cols) yrow[col] = res;\n");
        pg_buf_printf(c, "        if (tid == min(cols - c0, %du) - 1) carry_s = res;   // the chunk's last column carries on\n", B);
        pg_buf_puts(c, "        __syncthreads();\n        carry = carry_s;\n    }\n}\n");
    }

    /* ---- task.json ---- */
    json_t *root = json_object();
    synth_fam_rw_head(root, s);
    json_object_set_new(root, "family_params", json_pack("{s:s, s:b, s:s, s:i, s:s, s:s, s:s}", "dtype", t->T, "exclusive", excl, "level", LVN[lv], "segment", S,
                                                         "x", X, "y", Y, "flags", flags ? F : ""));
    char pt[8];
    snprintf(pt, sizeof pt, "%s*", t->T);
    const char *len = lv == SL_ROW ? "rows*cols" : "n";
    json_t *ps = json_array();
    json_array_append_new(ps, synth_fam_rw_ptr(X, pt, "in", len));
    if (flags) json_array_append_new(ps, synth_fam_rw_ptr_dist(F, "u8*", "in", len, "int(0,1)", "const(0)"));
    json_array_append_new(ps, synth_fam_rw_ptr(Y, pt, "out", len));
    if (lv == SL_ROW) {
        json_array_append_new(ps, synth_fam_rw_scal("rows", "u32", "rows"));
        json_array_append_new(ps, synth_fam_rw_scal("cols", "u32", "cols"));
    } else json_array_append_new(ps, synth_fam_rw_scal("n", "u32", "n"));
    json_object_set_new(root, "params", ps);
    char blk[8], grid[48];
    snprintf(blk, sizeof blk, "%d", B);
    if (lv == SL_ROW) {
        json_object_set_new(root, "sizes", synth_fam_rw_row_sizes(&r));
        snprintf(grid, sizeof grid, "rows");
    } else {
        static const int64_t SZ[2][5] = {{16777216, 1000003, 4097, 777, 1}, {8388609, 999999, 1025, 100, 3}};
        static const char *SV[] = {"n"};
        json_object_set_new(root, "sizes", synth_fam_rw_sizes(SV, 1, SZ[synth_fam_pick(&r, 2)], 5));
        snprintf(grid, sizeof grid, "cdiv(n,%d)", lv == SL_WARP ? S * (B / 32) : S);
    }
    json_object_set_new(root, "launch", json_pack("{s:[s], s:[s], s:s}", "block", blk, "grid", grid, "smem", "0"));

    /* ---- descriptions ---- */
    rw_pool P = {0};
    const char *seg = lv == SL_ROW ? (flags ? synth_fam_rw_str(&P, "each row, restarting wherever %s is nonzero", F) : "each row")
                                   : synth_fam_rw_str(&P, "each run of %d consecutive elements (the last may be partial)", S);
    const char *segz = lv == SL_ROW ? (flags ? synth_fam_rw_str(&P, "每一行内（%s 非 0 处重新开始）", F) : "每一行内") : synth_fam_rw_str(&P, "每 %d 个连续元素为一段（最后一段可能不满）", S);
    const char *formula;
    if (lv == SL_ROW && flags)
        formula = synth_fam_rw_str(&P, "%s[r][c] = sum of %s[r][k] for s <= k %s c, where s is the last column <= c with %s[r][s] != 0 (0 if none)", Y, X, excl ? "<" : "<=", F);
    else if (lv == SL_ROW) formula = synth_fam_rw_str(&P, "%s[r][c] = sum_{k %s c} %s[r][k]", Y, excl ? "<" : "<=", X);
    else formula = synth_fam_rw_str(&P, "%s[i] = sum of %s[j] for s(i) <= j %s i, s(i) = (i / %d) * %d", Y, X, excl ? "<" : "<=", S, S);
    const char *name_en[6] = {excl ? "exclusive prefix sum" : "inclusive prefix sum", excl ? "exclusive scan" : "inclusive scan",
                              lv == SL_ROW ? (flags ? "segmented scan with head flags" : "row-wise cumulative sum") : "segmented prefix sum",
                              excl ? "running total of the elements before each position" : "cumulative sum (cumsum)", NULL, NULL};
    const char *name_zh[4] = {excl ? "排他前缀和" : "包含前缀和", lv == SL_ROW ? (flags ? "带段首标志的分段扫描" : "按行累加和") : "分段前缀和", excl ? "exclusive scan" : "累加和 cumsum", NULL};
    const char *wrap = t->flt ? "" : " (32-bit integer adds wrap around)";
    const char *ex_en[4] = {synth_fam_rw_str(&P, "write to %s, within %s, the sum of %s over all positions %s the current one%s", Y, seg, X, excl ? "strictly before" : "up to and including", wrap),
                            synth_fam_rw_str(&P, "compute the %s running total of %s restarting at %s%s; %s", excl ? "exclusive" : "inclusive", X,
                                       lv == SL_ROW ? (flags ? "every row start and every nonzero flag" : "every row") : synth_fam_rw_str(&P, "every multiple of %d", S), wrap,
                                       excl ? "each segment's first output is 0" : "each output includes its own element"),
                            synth_fam_rw_str(&P, "%s %s, scanning %s%s", excl ? "exclusive-scan" : "inclusive-scan", X, seg, wrap), NULL};
    const char *ex_zh[3] = {synth_fam_rw_str(&P, "%s，%s 写入 %s 中%s当前位置的元素之和", segz, Y, X, excl ? "严格位于之前" : "到当前位置为止（含）"),
                            synth_fam_rw_str(&P, "对 %s 做%s扫描，%s", X, excl ? "排他" : "包含", segz), NULL};
    const char *how_en[3] = {NULL, NULL, NULL}, *how_zh[2] = {NULL, NULL};
    if (lv == SL_WARP) {
        how_en[0] = synth_fam_rw_str(&P, "one warp per segment: each lane scans %d consecutive elements, the lane totals are scanned with __shfl_up_sync", E);
        how_zh[0] = "每个 warp 处理一段，lane 内先局部扫描，再用 __shfl_up_sync 扫描各 lane 的总和";
    } else if (lv == SL_BLOCK) {
        how_en[0] = synth_fam_rw_str(&P, "one %d-thread block per segment, %d elements per thread: local scan, warp shuffle scan, warp totals scanned through shared memory", B, E);
        how_zh[0] = "每段一个线程块：线程内扫描、warp shuffle 扫描、共享内存扫描各 warp 总和";
    } else if (lv == SL_BLELLOCH) {
        how_en[0] = synth_fam_rw_str(&P, "work-efficient Blelloch scan in shared memory (up-sweep, clear the root, down-sweep), two elements per thread%s",
                               pad ? ", indices padded by one slot per 32 to avoid bank conflicts" : "");
        how_zh[0] = "共享内存中的 Blelloch 工作高效扫描（上扫、根清零、下扫）";
    } else {
        how_en[0] = synth_fam_rw_str(&P, "one %d-thread block per row, chunks of %d columns scanned with shuffles + shared memory and chained by a running carry%s", B, B,
                               flags ? "; the scan combines (flag, value) pairs so sums restart at heads" : "");
        how_zh[0] = "每行一个线程块，按块分段扫描并用进位串联";
    }
    desc_facts f = {0};
    f.name_en = name_en; f.name_zh = name_zh; f.formula = formula; f.explain_en = ex_en; f.explain_zh = ex_zh; f.how_en = how_en; f.how_zh = how_zh;
    f.data = lv == SL_ROW ? DESC_DATA_MATRIX : DESC_DATA_VECTOR;
    f.elems_per_thread = lv == SL_WARP || lv == SL_BLOCK ? E : lv == SL_BLELLOCH ? 2 : 0;
    f.hints = (lv == SL_BLELLOCH ? DESC_HINT_SMEM : DESC_HINT_SHUFFLE | (lv == SL_WARP ? 0u : DESC_HINT_SMEM)) | (lv == SL_ROW || E == 1 ? DESC_HINT_COALESCED : 0u);
    f.shape_en = lv == SL_ROW ? synth_fam_rw_str(&P, "%s and %s are rows x cols row-major %s matrices%s", X, Y, t->nm, flags ? synth_fam_rw_str(&P, ", %s a rows x cols byte array", F) : "")
                              : synth_fam_rw_str(&P, "%s and %s hold n %s values", X, Y, t->nm);
    f.shape_zh = synth_fam_rw_str(&P, "%s、%s 为 %s 数组", X, Y, t->zh);
    f.notes_en = t->flt ? "Single-precision adds; checked with a relative tolerance" : "Exact integer results";
    f.notes_zh = t->flt ? "单精度加法，按相对误差检查" : "整数结果必须精确";
    const char *d0 = ti == 0 ? "uniform(-1,1)" : ti == 1 ? "int(-100,100)" : "int(0,1000)";
    const char *d1 = ti == 0 ? "normal(0,1)" : ti == 1 ? "int(-2147483648,2147483647)" : "int(0,4294967295)";
    synth_fam_rw_finish(root, &f, seed, d0, d1, t->T, ti == 0 ? 1e-5 : 0.0, NULL, 0, synth_fam_ref(synth_fam_rw_scan), lv == SL_ROW ? "8*rows*cols" : "8*n", lv == SL_ROW ? "rows*cols" : "n", s);
    synth_fam_rw_pool_free(&P);
    return PG_OK;
}

/* ======================================================================================== *
 * compact
 * ======================================================================================== */
enum { CP_GT, CP_LT, CP_ABSGT, CP_NZ, CP_N };

pg_status synth_fam_rw_compact(uint64_t seed, synth_family_sample *s) {
    fam_rng r = {seed ^ 0x636f6d7061637405ull};
    bool isint = synth_fam_pick(&r, 3) == 0;
    int pr = synth_fam_pick(&r, CP_N);
    int B = 64 << synth_fam_pick(&r, 4), E = 1 << synth_fam_pick(&r, 3);
    bool ballot = synth_fam_pick(&r, 2);
    bool idxout = synth_fam_pick(&r, 3) == 0;   /* the kept elements' global indices instead of their values */
    int S = B * E, NW = B / 32;
    const char *ct = isint ? "int" : "float", *T = isint ? "s32" : "f32";
    static const char *XN[] = {"x", "in", "src", "input", "vals"};
    static const char *ON[] = {"out", "dst", "kept", "packed", "res"};
    static const char *CN[] = {"counts", "count", "num_kept", "block_counts"};
    const char *X = XN[synth_fam_pick(&r, 5)], *O = idxout ? (synth_fam_pick(&r, 2) ? "idx" : "indices") : ON[synth_fam_pick(&r, 5)], *CNT = CN[synth_fam_pick(&r, 4)];
    static const char *PRN[] = {"gt", "lt", "absgt", "nz"};
    snprintf(s->family, sizeof s->family, "compact");
    snprintf(s->source, sizeof s->source, "nvcc");
    snprintf(s->name, sizeof s->name, "%s_%s_%s_t%d_b%d_%s%s", synth_fam_pick(&r, 2) ? "compact" : "stream_compact", PRN[pr], T, S, B, ballot ? "ballot" : "shfl",
             idxout ? "_idx" : "");
    synth_fam_fit_name(s->name);   /* within the decoder's PG_NAME_MAX */
    snprintf(s->identity, sizeof s->identity, "compact:%s:%s:%d:%d:%s:%s", PRN[pr], T, S, B, ballot ? "ballot" : "shfl", idxout ? "idx" : "val");

    /* ---- CUDA C ---- */
    char pred[96];
    switch (pr) {
    case CP_GT: snprintf(pred, sizeof pred, "v > thr"); break;
    case CP_LT: snprintf(pred, sizeof pred, "v < thr"); break;
    case CP_ABSGT: snprintf(pred, sizeof pred, isint ? "abs(v) > thr" : "fabsf(v) > thr"); break;
    default: snprintf(pred, sizeof pred, "v != 0"); break;
    }
    pg_buf *c = &s->cu;
    pg_buf_printf(c, "// %s: per-tile stream compaction (%d elements per %d-thread block): keep %s, pack %s in order, count per tile.\n", s->name, S, B, pred,
                  idxout ? "their indices" : "them");
    pg_buf_printf(c, "extern \"C\" __global__ void %s(const %s* __restrict__ %s, %s* __restrict__ %s, unsigned int* __restrict__ %s,%s unsigned int n)\n{\n", s->name,
                  ct, X, idxout ? "int" : ct, O, CNT, pr == CP_NZ ? "" : isint ? " int thr," : " float thr,");
    pg_buf_printf(c, "    __shared__ unsigned int wcnt[%d];   // kept per warp in this round\n", NW);
    pg_buf_puts(c, "    unsigned int tid = threadIdx.x, lane = tid & 31, wid = tid >> 5;\n");
    pg_buf_printf(c, "    size_t tile = (size_t)blockIdx.x * %d;\n    unsigned int nkept = 0;   // kept so far in this tile (the same in every thread)\n", S);
    pg_buf_printf(c, "    for (int k = 0; k < %d; k++) {   // %d rounds of %d consecutive elements keep the order\n", E, E, B);
    pg_buf_printf(c, "        size_t i = tile + (size_t)k * %d + tid;\n", B);
    pg_buf_printf(c, "        %s v = i < n ? %s[i] : 0;\n        bool keep = i < n && (%s);\n", ct, X, pred);
    if (ballot) {
        pg_buf_puts(c, "        unsigned int bal = __ballot_sync(0xffffffffu, keep);\n");
        pg_buf_puts(c, "        unsigned int rank = __popc(bal & ((1u << lane) - 1));   // kept lanes below me\n");
        pg_buf_puts(c, "        if (lane == 0) wcnt[wid] = __popc(bal);\n");
    } else {
        pg_buf_puts(c, "        unsigned int inc = keep;\n");
        synth_fam_rw_warp_scan(c, "        ", "unsigned int", "inc", NULL, NULL);
        pg_buf_puts(c, "        unsigned int rank = inc - keep;   // kept lanes below me\n");
        pg_buf_puts(c, "        if (lane == 31) wcnt[wid] = inc;\n");
    }
    pg_buf_puts(c, "        __syncthreads();\n        unsigned int off = nkept, tot = 0;\n");
    pg_buf_printf(c, "        for (int w = 0; w < %d; w++) {\n            if (w < (int)wid) off += wcnt[w];\n            tot += wcnt[w];\n        }\n", NW);
    pg_buf_printf(c, "        if (keep) %s[tile + off + rank] = %s;\n", O, idxout ? "(int)i" : "v");
    pg_buf_puts(c, "        nkept += tot;\n        __syncthreads();   // wcnt is rewritten next round\n    }\n");
    pg_buf_printf(c, "    size_t end = tile + %d < n ? tile + %d : n;\n", S, S);
    pg_buf_printf(c, "    for (size_t j = tile + nkept + tid; j < end; j += %d) %s[j] = %s;   // the rest of the tile\n", B, O, idxout ? "-1" : "0");
    pg_buf_printf(c, "    if (tid == 0) %s[blockIdx.x] = nkept;\n}\n", CNT);

    /* ---- task.json ---- */
    json_t *root = json_object();
    synth_fam_rw_head(root, s);
    json_object_set_new(root, "family_params", json_pack("{s:s, s:s, s:i, s:s, s:s, s:s, s:b}", "pred", PRN[pr], "dtype", T, "tile", S, "x", X, "out", O, "counts",
                                                         CNT, "indices", idxout));
    char pt[8], ntile[24];
    snprintf(pt, sizeof pt, "%s*", T);
    snprintf(ntile, sizeof ntile, "cdiv(n,%d)", S);
    json_t *ps = json_array();
    json_array_append_new(ps, synth_fam_rw_ptr(X, pt, "in", "n"));
    json_array_append_new(ps, synth_fam_rw_ptr(O, idxout ? "s32*" : pt, "out", "n"));
    json_array_append_new(ps, synth_fam_rw_ptr(CNT, "u32*", "out", ntile));
    static const char *THF[] = {"0.5", "-0.25", "0.0", "1.0"}, *THI[] = {"3", "-2", "0", "7"};
    const char *thv = isint ? THI[synth_fam_pick(&r, 4)] : THF[synth_fam_pick(&r, 4)];
    if (pr == CP_ABSGT && thv[0] == '-') thv = isint ? "2" : "0.5";
    if (pr != CP_NZ) json_array_append_new(ps, synth_fam_rw_scal("thr", T, thv));
    json_array_append_new(ps, synth_fam_rw_scal("n", "u32", "n"));
    json_object_set_new(root, "params", ps);
    static const int64_t SZ[5] = {16777216, 1000003, 4097, 777, 1};
    static const char *SV[] = {"n"};
    json_object_set_new(root, "sizes", synth_fam_rw_sizes(SV, 1, SZ, 5));
    char blk[8];
    snprintf(blk, sizeof blk, "%d", B);
    json_object_set_new(root, "launch", json_pack("{s:[s], s:[s], s:s}", "block", blk, "grid", ntile, "smem", "0"));

    /* ---- descriptions ---- */
    rw_pool P = {0};
    static const char *PW[] = {"greater than thr", "less than thr", "with absolute value greater than thr", "that are nonzero"};
    static const char *PZ[] = {"大于 thr", "小于 thr", "绝对值大于 thr", "非 0"};
    const char *what = idxout ? "their global indices" : "the kept values";
    const char *pd = pr == CP_GT ? synth_fam_rw_str(&P, "%s[i] > thr", X) : pr == CP_LT ? synth_fam_rw_str(&P, "%s[i] < thr", X) : pr == CP_ABSGT ? synth_fam_rw_str(&P, "|%s[i]| > thr", X)
                                                                                                             : synth_fam_rw_str(&P, "%s[i] != 0", X);
    const char *formula = synth_fam_rw_str(&P, "for tile t = [t*%d, min(n,(t+1)*%d)): %s[t*%d + k] = %s of the k-th i in the tile with %s (in order), for k < %s[t]; "
                                         "the rest of the tile is %s; %s[t] = number kept",
                                     S, S, O, S, idxout ? "i" : synth_fam_rw_str(&P, "%s[i]", X), pd, CNT, idxout ? "-1" : "0", CNT);
    const char *name_en[6] = {"stream compaction", "filter elements by a predicate", "per-block compaction with counts", "select / copy_if within tiles",
                              idxout ? "compact the indices of matching elements" : "pack matching elements", NULL};
    const char *name_zh[4] = {"流压缩", "按条件筛选元素", "分块压缩并计数", NULL};
    const char *ex_en[4] = {
        synth_fam_rw_str(&P, "split %s into tiles of %d elements; in each tile keep the elements %s, write %s contiguously at the start of the tile's range of %s in their original order, fill the rest of the tile's range with %s, and store how many were kept in %s[tile]",
                   X, S, PW[pr], what, O, idxout ? "-1" : "0", CNT),
        synth_fam_rw_str(&P, "pack, in every %d-element tile of %s, %s of the elements %s to the front of the same range of %s (order preserved, remainder %s) and count them in %s", S, X,
                   what, PW[pr], O, idxout ? "-1" : "0", CNT),
        synth_fam_rw_str(&P, "filter each tile of %d elements of %s down to the ones %s: %s go first in %s, %s after them, the per-tile count goes to %s", S, X, PW[pr], what, O,
                   idxout ? "-1" : "zeros", CNT),
        NULL};
    const char *ex_zh[3] = {synth_fam_rw_str(&P, "把 %s 按每 %d 个元素分块，每块保留%s的元素，按原顺序把%s紧凑地写到 %s 中该块区间的开头，其余位置填 %s，保留个数写入 %s[块号]", X, S, PZ[pr],
                                       idxout ? "其全局下标" : "这些值", O, idxout ? "-1" : "0", CNT),
                            synth_fam_rw_str(&P, "分块流压缩：每块 %d 个元素，筛选%s的元素并保持顺序，计数写入 %s", S, PZ[pr], CNT), NULL};
    const char *how_en[3] = {ballot ? synth_fam_rw_str(&P, "one %d-thread block per tile, %d rounds; ranks from __ballot_sync and __popc, warp counts combined in shared memory", B, E)
                                    : synth_fam_rw_str(&P, "one %d-thread block per tile, %d rounds; ranks from a __shfl_up_sync scan of the keep flags, warp counts in shared memory", B, E),
                             NULL, NULL};
    const char *how_zh[2] = {ballot ? "每块一个线程块，用 __ballot_sync 和 __popc 计算名次" : "每块一个线程块，用 __shfl_up_sync 扫描保留标志计算名次", NULL};
    desc_facts f = {0};
    f.name_en = name_en; f.name_zh = name_zh; f.formula = formula; f.explain_en = ex_en; f.explain_zh = ex_zh; f.how_en = how_en; f.how_zh = how_zh;
    f.data = DESC_DATA_VECTOR;
    f.elems_per_thread = E;
    f.hints = DESC_HINT_COALESCED | DESC_HINT_SMEM | (ballot ? 0u : DESC_HINT_SHUFFLE);
    f.shape_en = synth_fam_rw_str(&P, "%s holds n %s values, %s has n entries%s, %s has cdiv(n,%d) uint32 counts", X, ct, O, idxout ? " (int32 indices)" : "", CNT, S);
    f.shape_zh = synth_fam_rw_str(&P, "%s 有 n 个元素，%s 有 n 个，%s 有 cdiv(n,%d) 个计数", X, O, CNT, S);
    f.notes_en = pr == CP_NZ ? "Exact results" : synth_fam_rw_str(&P, "thr is a scalar (%s in the tests); exact results", thv);
    f.notes_zh = "结果必须精确";
    const char *d0 = isint ? "int(-10,10)" : pr == CP_NZ ? "int(-1,1)" : "uniform(-1,1)";
    const char *d1 = isint ? "int(-1000,1000)" : pr == CP_NZ ? "uniform(-1,1)" : "normal(0,1)";
    synth_fam_rw_finish(root, &f, seed, d0, d1, idxout ? "s32" : T, 0.0, "u32", 0.0, synth_fam_ref(synth_fam_rw_compact), "8*n", "n", s);
    synth_fam_rw_pool_free(&P);
    return PG_OK;
}

/* ======================================================================================== *
 * histogram
 * ======================================================================================== */
enum { HM_SHIFT = 1, HM_MOD, HM_MASK, HM_RANGE, HM_CLAMP };   /* 0 was the plain byte histogram (held out) */
enum { HP_GLOBAL, HP_BLOCK, HP_WARP };

pg_status synth_fam_rw_histogram(uint64_t seed, synth_family_sample *s) {
    fam_rng r = {seed ^ 0x6869737467726d06ull};
    int in = synth_fam_pick(&r, 3);   /* 0 u8, 1 s32, 2 f32 */
    int map;
    int NB;
    static const int P2[] = {16, 32, 64, 128, 256, 512, 1024}, ANY[] = {10, 16, 50, 100, 256, 1000, 1024};
    if (in == 0) {
        /* shift (high bits) or mod; not the plain 256-bin byte histogram (held out: bench/suite-prose) */
        map = synth_fam_pick(&r, 2) ? HM_SHIFT : HM_MOD;
        NB = map == HM_SHIFT ? P2[synth_fam_pick(&r, 4)] : ANY[synth_fam_pick(&r, 4)];
    } else if (in == 1) {
        static const int M[] = {HM_MOD, HM_MASK, HM_RANGE};
        map = M[synth_fam_pick(&r, 3)];
        NB = map == HM_MASK ? P2[synth_fam_pick(&r, 7)] : ANY[synth_fam_pick(&r, 7)];
        if (map == HM_MASK && NB == 64) NB = 128;   /* held out (bench/suite): s32, low 6 bits */
    } else {
        map = synth_fam_pick(&r, 2) ? HM_RANGE : HM_CLAMP;
        NB = ANY[synth_fam_pick(&r, 7)];
    }
    int B = 128 << synth_fam_pick(&r, 3), NW = B / 32;
    int priv = synth_fam_pick(&r, 3);
    if (priv == HP_WARP && NW * NB > 8192) priv = HP_BLOCK;   /* per-warp copies must fit in shared memory */
    bool vec = in == 0 && synth_fam_pick(&r, 2);   /* uchar4 loads */
    int cap = 256 << synth_fam_pick(&r, 3);
    /* The launch variants, from a stream of their own (the draws above are those of every earlier
     * sample): the grid is min(cdiv(n, B*M), cap) for M = 1..16 (uchar4: 4..32) elements per thread
     * before the cap, while the loop steps by the grid's threads (times 4 bytes for uchar4) whatever
     * M is; the loop writes that step with blockDim.x ("bdx") or the block size as a literal. */
    fam_rng rl = {seed ^ 0x6869737467726c6eull};
    static const int MS[] = {1, 2, 4, 8, 8, 16}, MV[] = {4, 8, 16, 16, 32};
    int M = vec ? MV[synth_fam_pick(&rl, 5)] : MS[synth_fam_pick(&rl, 6)];
    bool bdx = synth_fam_pick(&rl, 2);
    const char *T = in == 0 ? "u8" : in == 1 ? "s32" : "f32", *ct = in == 0 ? "unsigned char" : in == 1 ? "int" : "float";
    static const char *MN[] = {"", "shift", "mod", "mask", "range", "clamp"};
    static const char *PN[] = {"global", "smem", "warpsmem"};
    static const char *XN[] = {"x", "data", "in", "values", "src"};
    static const char *HN[] = {"bins", "hist", "counts", "histogram"};
    const char *X = XN[synth_fam_pick(&r, 5)], *H = HN[synth_fam_pick(&r, 4)];
    snprintf(s->family, sizeof s->family, "histogram");
    snprintf(s->source, sizeof s->source, "nvcc");
    bool mdef = M == (vec ? 16 : 8);   /* the grid every sample had before the launch variants */
    char mtag[16] = "";
    if (!mdef) snprintf(mtag, sizeof mtag, "_m%d", M);
    snprintf(s->name, sizeof s->name, "hist%d_%s_%s_%s_b%d%s%s%s", NB, T, MN[map], PN[priv], B, bdx ? "d" : "", vec ? "_v4" : "", mtag);
    synth_fam_fit_name(s->name);   /* within the decoder's PG_NAME_MAX */
    snprintf(s->identity, sizeof s->identity, "histogram:%d:%s:%s:%s:%d:%s:m%d:%s", NB, T, MN[map], PN[priv], B, vec ? "v4" : "v1", M, bdx ? "bdx" : "lit");
    int sh = 0;
    while ((256 >> sh) > NB) sh++;   /* shift: bin = x >> sh keeps log2(NB) high bits */

    /* ---- CUDA C ---- */
    char bin[200];
    switch (map) {
    case HM_SHIFT: snprintf(bin, sizeof bin, "int b = v >> %d;   // the high %d bits", sh, 8 - sh); break;
    case HM_MOD:
        if (in == 0) snprintf(bin, sizeof bin, "int b = v %% %d;", NB);
        else snprintf(bin, sizeof bin, "int b = v %% %d;\n%sif (b < 0) b += %d;   // non-negative remainder", NB, "            ", NB);
        break;
    case HM_MASK: snprintf(bin, sizeof bin, "int b = v & %d;   // low bits of the two's complement value", NB - 1); break;
    case HM_RANGE:
        if (in == 1) snprintf(bin, sizeof bin, "if (v < lo || v >= hi) continue;   // outside [lo, hi): not counted\n            int b = (int)(((long long)v - lo) * %d / ((long long)hi - lo));", NB);
        else snprintf(bin, sizeof bin, "if (!(v >= lo && v < hi)) continue;   // outside [lo, hi): not counted\n            int b = min((int)((v - lo) * scale), %d);", NB - 1);
        break;
    default: snprintf(bin, sizeof bin, "int b = min(max(__float2int_rd((v - lo) * scale), 0), %d);   // outside values go to the edge bins", NB - 1); break;
    }
    const char *tgt = priv == HP_GLOBAL ? H : "sh";
    pg_buf *c = &s->cu;
    pg_buf_printf(c, "// %s: %d-bin histogram of %s values (%s binning), counts added to %s; %s.\n", s->name, NB, ct, MN[map], H,
                  priv == HP_GLOBAL ? "global atomics" : priv == HP_BLOCK ? "a shared histogram per block" : "a shared histogram per warp");
    pg_buf_printf(c, "#define NBINS %d\n", NB);
    pg_buf_printf(c, "extern \"C\" __global__ void %s(const %s* __restrict__ %s, unsigned int* __restrict__ %s,", s->name, ct, X, H);
    if (map >= HM_RANGE) pg_buf_printf(c, " %s lo, %s hi,", in == 1 ? "int" : "float", in == 1 ? "int" : "float");
    pg_buf_puts(c, " unsigned int n)\n{\n");
    pg_buf_puts(c, "    unsigned int tid = threadIdx.x;\n");
    if (priv == HP_WARP) pg_buf_puts(c, "    unsigned int wid = tid >> 5;\n");
    char shn[32];
    snprintf(shn, sizeof shn, priv == HP_BLOCK ? "NBINS" : "NBINS * %d", NW);
    if (priv != HP_GLOBAL) pg_buf_printf(c, "    __shared__ unsigned int sh[%s];\n", shn);
    if (map >= HM_RANGE && in == 2) pg_buf_puts(c, "    float scale = NBINS / (hi - lo);   // bins per unit\n");
    char bstep[16];   /* the block's threads: the step of the per-thread loops over bins */
    if (bdx) snprintf(bstep, sizeof bstep, "blockDim.x");
    else snprintf(bstep, sizeof bstep, "%d", B);
    if (priv != HP_GLOBAL) pg_buf_printf(c, "    for (unsigned int b = tid; b < %s; b += %s) sh[b] = 0;\n    __syncthreads();\n", shn, bstep);
    char at[80];
    snprintf(at, sizeof at, priv == HP_WARP ? "atomicAdd(&sh[wid * NBINS + b], 1u);" : "atomicAdd(&%s[b], 1u);", tgt);
    if (vec) {
        pg_buf_printf(c, "    size_t nv = n / 4, gtid = (size_t)blockIdx.x * %s + tid, gstride = (size_t)gridDim.x * %s;   // in uchar4 units\n", bstep, bstep);
        pg_buf_printf(c, "    const uchar4* xv = reinterpret_cast<const uchar4*>(%s);   // four bytes per load\n", X);
        pg_buf_puts(c, "    for (size_t j = gtid; j < nv; j += gstride) {\n        uchar4 q = xv[j];\n        unsigned char e4[4] = {q.x, q.y, q.z, q.w};\n");
        pg_buf_printf(c, "        for (int k = 0; k < 4; k++) {\n            unsigned char v = e4[k];\n            %s\n            %s\n        }\n    }\n", bin, at);
        pg_buf_printf(c, "    for (size_t i = nv * 4 + gtid; i < n; i += gstride) {   // the last n %% 4 bytes\n        unsigned char v = %s[i];\n        {\n            %s\n            %s\n        }\n    }\n",
                      X, bin, at);
    } else {
        pg_buf_printf(c, "    for (size_t i = (size_t)blockIdx.x * %s + tid; i < n; i += (size_t)gridDim.x * %s) {   // step: the grid's threads\n", bstep, bstep);
        pg_buf_printf(c, "        %s v = %s[i];\n        {\n            %s\n            %s\n        }\n    }\n", ct, X, bin, at);
    }
    if (priv != HP_GLOBAL) {
        pg_buf_puts(c, "    __syncthreads();\n");
        pg_buf_printf(c, "    for (unsigned int b = tid; b < NBINS; b += %s) {   // merge: one global atomic per nonzero bin\n", bstep);
        if (priv == HP_BLOCK) pg_buf_puts(c, "        unsigned int cnt = sh[b];\n");
        else pg_buf_printf(c, "        unsigned int cnt = 0;\n        for (int w = 0; w < %d; w++) cnt += sh[w * NBINS + b];\n", NW);
        pg_buf_printf(c, "        if (cnt) atomicAdd(&%s[b], cnt);\n    }\n", H);
    }
    pg_buf_puts(c, "}\n#undef NBINS\n");

    /* ---- task.json ---- */
    json_t *root = json_object();
    synth_fam_rw_head(root, s);
    json_object_set_new(root, "family_params", json_pack("{s:i, s:s, s:s, s:s, s:s}", "bins", NB, "dtype", T, "map", MN[map], "x", X, "hist", H));
    char pt[8], nbs[8];
    snprintf(pt, sizeof pt, "%s*", T);
    snprintf(nbs, sizeof nbs, "%d", NB);
    json_t *ps = json_array();
    static const char *RI[][2] = {{"-50", "50"}, {"0", "1000"}, {"-1000", "3000"}}, *RF[][2] = {{"-1.0", "1.0"}, {"0.0", "1.0"}, {"-2.5", "2.5"}, {"-0.5", "2.0"}};
    int ri = synth_fam_pick(&r, 3), rf = synth_fam_pick(&r, 4);
    if (in == 0) json_array_append_new(ps, synth_fam_rw_ptr_dist(X, pt, "in", "n", "int(0,255)", "int(100,140)"));
    else if (in == 1) json_array_append_new(ps, synth_fam_rw_ptr_dist(X, pt, "in", "n", map == HM_RANGE ? "int(-1200,3500)" : "int(-1000000,1000000)", "int(-5,40)"));
    else json_array_append_new(ps, synth_fam_rw_ptr_dist(X, pt, "in", "n", "uniform(-3,3)", "normal(0,1)"));
    json_array_append_new(ps, synth_fam_rw_ptr_dist(H, "u32*", "inout", nbs, "const(0)", "const(7)"));
    if (map >= HM_RANGE) {
        json_array_append_new(ps, synth_fam_rw_scal("lo", in == 1 ? "s32" : "f32", in == 1 ? RI[ri][0] : RF[rf][0]));
        json_array_append_new(ps, synth_fam_rw_scal("hi", in == 1 ? "s32" : "f32", in == 1 ? RI[ri][1] : RF[rf][1]));
    }
    json_array_append_new(ps, synth_fam_rw_scal("n", "u32", "n"));
    json_object_set_new(root, "params", ps);
    static const int64_t SZ[5] = {16777216, 1000003, 4097, 777, 1};
    static const char *SV[] = {"n"};
    json_object_set_new(root, "sizes", synth_fam_rw_sizes(SV, 1, SZ, 5));
    char blk[8], grid[48];
    snprintf(blk, sizeof blk, "%d", B);
    snprintf(grid, sizeof grid, "min(cdiv(n,%d),%d)", B * M, cap);
    json_object_set_new(root, "launch", json_pack("{s:[s], s:[s], s:s}", "block", blk, "grid", grid, "smem", "0"));

    /* ---- descriptions ---- */
    rw_pool P = {0};
    const char *bw;
    switch (map) {
    case HM_SHIFT: bw = synth_fam_rw_str(&P, "its top %d bits (x >> %d)", 8 - sh, sh); break;
    case HM_MOD: bw = in == 0 ? synth_fam_rw_str(&P, "x mod %d", NB) : synth_fam_rw_str(&P, "the non-negative remainder of x mod %d", NB); break;
    case HM_MASK: bw = synth_fam_rw_str(&P, "its low %d bits (x & %d, two's complement)", 31 - __builtin_clz((unsigned)NB), NB - 1); break;
    case HM_RANGE:
        bw = in == 1 ? synth_fam_rw_str(&P, "(x - lo) * %d / (hi - lo) for lo <= x < hi (other values are not counted)", NB)
                     : synth_fam_rw_str(&P, "int((x - lo) * scale) with scale = %d / (hi - lo) computed in float, capped at %d, for lo <= x < hi (other values are not counted)", NB, NB - 1);
        break;
    default: bw = synth_fam_rw_str(&P, "floor((x - lo) * scale) with scale = %d / (hi - lo) in float, clamped to [0, %d] (outside values land in the edge bins)", NB, NB - 1); break;
    }
    const char *bz;
    switch (map) {
    case HM_SHIFT: bz = synth_fam_rw_str(&P, "取高 %d 位（x >> %d）", 8 - sh, sh); break;
    case HM_MOD: bz = synth_fam_rw_str(&P, "x 对 %d 取非负余数", NB); break;
    case HM_MASK: bz = synth_fam_rw_str(&P, "取补码的低 %d 位（x & %d）", 31 - __builtin_clz((unsigned)NB), NB - 1); break;
    case HM_RANGE: bz = synth_fam_rw_str(&P, "在 [lo, hi) 内按 (x - lo) * %d / (hi - lo) 取整（范围外的值不计数）", NB); break;
    default: bz = synth_fam_rw_str(&P, "floor((x - lo) * %d / (hi - lo))，截断到 [0, %d]（范围外的值落入两端的桶）", NB, NB - 1); break;
    }
    const char *formula = synth_fam_rw_str(&P, "%s[bin(%s[i])] += 1 for every i < n, bin(x) = %s", H, X, bw);
    const char *name_en[6] = {synth_fam_rw_str(&P, "%d-bin histogram", NB), "histogram with atomics", synth_fam_rw_str(&P, "%s value histogram", in == 0 ? "byte" : in == 1 ? "integer" : "float"),
                              map >= HM_RANGE ? "range histogram (binned counts)" : "counting values per bucket", "frequency count per bin", NULL};
    const char *name_zh[4] = {synth_fam_rw_str(&P, "%d 桶直方图", NB), "直方图统计", "分桶计数", NULL};
    const char *ex_en[4] = {synth_fam_rw_str(&P, "count how many elements of %s fall into each of %d bins, where the bin of a value x is %s, and add the counts to %s (do not overwrite it)", X, NB, bw, H),
                            synth_fam_rw_str(&P, "increment, for every element x of %s, %s[bin] with bin = %s; %s already holds counts that must be kept", X, H, bw, H),
                            synth_fam_rw_str(&P, "build a %d-bucket histogram of %s (bucket = %s) on top of the existing counts in %s", NB, X, bw, H), NULL};
    const char *ex_zh[3] = {synth_fam_rw_str(&P, "统计 %s 中落入 %d 个桶的元素个数，值 x 的桶号为%s，计数累加到 %s（不要覆盖）", X, NB, bz, H),
                            synth_fam_rw_str(&P, "对 %s 的每个元素按%s分桶，%s[桶号] 加 1", X, bz, H), NULL};
    static const char *HE[] = {"every thread adds 1 to the global bin with atomicAdd (grid-stride loop)",
                               "each block keeps a shared-memory histogram (cleared first, atomicAdd on shared bins), then adds its nonzero bins to the global histogram",
                               "each warp keeps its own shared-memory sub-histogram (fewer collisions), the block sums them and adds the nonzero bins globally"};
    static const char *HZ[] = {"每个线程直接对全局桶 atomicAdd", "每个线程块在共享内存中维护私有直方图，最后把非零桶原子加到全局", "每个 warp 在共享内存中维护子直方图，块内合并后原子加到全局"};
    const char *how_en[3] = {vec ? synth_fam_rw_str(&P, "%s; uchar4 loads for the bytes", HE[priv]) : HE[priv],
                             synth_fam_rw_str(&P, "a grid-stride loop that steps by gridDim.x * %d %s (every thread of the grid), so the grid of min(cdiv(n,%d),%d) blocks only sets how many steps a thread takes",
                                              B, vec ? "uchar4 groups" : "elements", B * M, cap),
                             NULL};
    const char *how_zh[2] = {HZ[priv], NULL};
    desc_facts f = {0};
    f.name_en = name_en; f.name_zh = name_zh; f.formula = formula; f.explain_en = ex_en; f.explain_zh = ex_zh; f.how_en = how_en; f.how_zh = how_zh;
    f.data = DESC_DATA_VECTOR;
    f.vec_width = vec ? 4 : 0;
    f.hints = DESC_HINT_COALESCED | DESC_HINT_GRID_STRIDE | DESC_HINT_ATOMIC | (priv != HP_GLOBAL ? DESC_HINT_SMEM : 0u);
    f.shape_en = synth_fam_rw_str(&P, "%s holds n %s values, %s holds %d uint32 counts%s", X, in == 0 ? "uint8" : in == 1 ? "int32" : "float", H, NB,
                            map >= HM_RANGE ? synth_fam_rw_str(&P, "; lo and hi are %s scalars", in == 1 ? "int" : "float") : "");
    f.shape_zh = synth_fam_rw_str(&P, "%s 有 n 个元素，%s 有 %d 个 uint32 计数", X, H, NB);
    f.notes_en = map >= HM_RANGE ? synth_fam_rw_str(&P, "lo = %s and hi = %s in the tests; counts are exact", in == 1 ? RI[ri][0] : RF[rf][0], in == 1 ? RI[ri][1] : RF[rf][1]) : "Counts are exact";
    f.notes_zh = "计数必须精确";
    synth_fam_rw_finish(root, &f, seed, "int(0,1)", "int(0,1)", "u32", 0.0, NULL, 0, synth_fam_ref(synth_fam_rw_histogram), in == 0 ? "n" : "4*n", "n", s);
    synth_fam_rw_pool_free(&P);
    return PG_OK;
}
