/* family_reduce.c — the reduction family (PTX template).
 *
 * Block b reduces tiles of TILE = B*E elements (thread t loads elements
 * tile + j*B + t, j < E: every load is one coalesced block-wide access) —
 * one tile per block (grid cdiv(n,TILE)) or tiles b, b+G, b+2G, ... with a
 * grid-stride loop (grid min(cdiv(n,TILE),CAP)) — and combines the per-thread
 * values with either warp shuffles (butterflies, one shared slot per warp,
 * warp 0 finishes) or a shared-memory tree (bar.sync per level down to 32,
 * then warp 0 with bar.warp.sync).  Output: the per-block partial out[b], or
 * for sums optionally one red.global.add per block into out[0] (inout).
 * Ops sum / max / min over f32 or f64; the identity (0, -inf, +inf) fills
 * the missing elements of the partial tile. */
#include "ptxgen/synth.h"
#include "family_internal.h"
#include "describe.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    int op;          /* 0 sum, 1 max, 2 min */
    bool f64;
    int block, ept, cap;   /* cap 0: one tile per block */
    bool shfl, atomic;
} red_cfg;

static const char *OPN[] = {"sum", "max", "min"};
static const char *OPI[] = {"add", "max", "min"};

static void comb(pg_buf *b, const red_cfg *c, const char *R, int d, int x, int y) {
    const char *T = c->f64 ? "f64" : "f32";
    pg_buf_printf(b, "\t%s.%s %s%d, %s%d, %s%d;\n", OPI[c->op], T, R, d, R, x, R, y);
}

static void emit_ptx(const red_cfg *c, const char *name, pg_buf *out) {
    pg_buf body = {0}, *b = &body;
    fam_regs g = {0};
    const int B = c->block, E = c->ept, S = c->f64 ? 8 : 4, TILE = B * E, NW = B / 32;
    const bool gs = c->cap > 0;
    const char *R = c->f64 ? "%fd" : "%f", *T = c->f64 ? "f64" : "f32";
#define NV() (c->f64 ? ++g.fd : ++g.f)
    char ident[32];
    synth_fam_imm(ident, sizeof ident, c->op == 0 ? 0.0 : c->op == 1 ? -INFINITY : INFINITY, c->f64);
    int rx = ++g.rd, ro = ++g.rd, rn = ++g.r;
    pg_buf_printf(b, "\tld.param.u64 %%rd%d, [x];\n\tld.param.u64 %%rd%d, [out];\n\tld.param.u32 %%r%d, [n];\n", rx, ro, rn);
    pg_buf_printf(b, "\tcvta.to.global.u64 %%rd%d, %%rd%d;\n\tcvta.to.global.u64 %%rd%d, %%rd%d;\n", rx, rx, ro, ro);
    int rt = ++g.r, rc = ++g.r, rtile = ++g.r;
    pg_buf_printf(b, "\tmov.u32 %%r%d, %%tid.x;\n\tmov.u32 %%r%d, %%ctaid.x;\n", rt, rc);
    pg_buf_printf(b, "\tmul.lo.u32 %%r%d, %%r%d, %d;               // first tile = ctaid*%d\n", rtile, rc, TILE, TILE);
    int acc = NV();
    pg_buf_printf(b, "\tmov.%s %s%d, %s;                // identity of %s\n", T, R, acc, ident, OPN[c->op]);
    int rstride = 0;
    if (gs) {
        int rg = ++g.r;
        rstride = ++g.r;
        pg_buf_printf(b, "\tmov.u32 %%r%d, %%nctaid.x;\n\tmul.lo.u32 %%r%d, %%r%d, %d;               // grid stride in elements\n", rg,
                      rstride, rg, TILE);
    }
    /* every block owns at least its first tile (grid <= cdiv(n,TILE)) */
    pg_buf_puts(b, "LOOP:\n");
    int re0 = ++g.r, rend = ++g.r, pp = ++g.p, roff = ++g.rd, ra = ++g.rd;
    pg_buf_printf(b, "\tadd.s32 %%r%d, %%r%d, %%r%d;               // e0 = tile + t\n", re0, rtile, rt);
    pg_buf_printf(b, "\tmul.wide.u32 %%rd%d, %%r%d, %d;\n\tadd.s64 %%rd%d, %%rd%d, %%rd%d;               // &x[e0]\n", roff, re0, S,
                  ra, rx, roff);
    pg_buf_printf(b, "\tadd.s32 %%r%d, %%r%d, %d;\n\tsetp.gt.u32 %%p%d, %%r%d, %%r%d;            // tile not entirely inside [0,n)?\n\t@%%p%d bra PART;\n",
                  rend, rtile, TILE, pp, rend, rn, pp);
    int v[8] = {0};
    for (int j = 0; j < E; j++) {
        v[j] = NV();
        if (j) pg_buf_printf(b, "\tld.global.nc.%s %s%d, [%%rd%d+%d];\n", T, R, v[j], ra, j * B * S);
        else pg_buf_printf(b, "\tld.global.nc.%s %s%d, [%%rd%d];\n", T, R, v[j], ra);
    }
    /* pairwise tree of the E values, then into acc */
    int w[8] = {0}, nw = E;
    for (int j = 0; j < E; j++) w[j] = v[j];
    while (nw > 1) {
        for (int j = 0; j < nw / 2; j++) {
            int d = NV();
            comb(b, c, R, d, w[2 * j], w[2 * j + 1]);
            w[j] = d;
        }
        nw /= 2;
    }
    comb(b, c, R, acc, acc, w[0]);
    pg_buf_puts(b, "\tbra.uni NEXT;\n");
    pg_buf_puts(b, "PART:                                       // the partial last tile: guarded loads\n");
    for (int j = 0; j < E; j++) {
        int re = ++g.r, pj = ++g.p, vj = NV();
        if (j) pg_buf_printf(b, "\tadd.s32 %%r%d, %%r%d, %d;\n", re, re0, j * B);
        else pg_buf_printf(b, "\tmov.u32 %%r%d, %%r%d;\n", re, re0);
        pg_buf_printf(b, "\tsetp.lt.u32 %%p%d, %%r%d, %%r%d;\n\tmov.%s %s%d, %s;\n", pj, re, rn, T, R, vj, ident);
        if (j) pg_buf_printf(b, "\t@%%p%d ld.global.nc.%s %s%d, [%%rd%d+%d];\n", pj, T, R, vj, ra, j * B * S);
        else pg_buf_printf(b, "\t@%%p%d ld.global.nc.%s %s%d, [%%rd%d];\n", pj, T, R, vj, ra);
        comb(b, c, R, acc, acc, vj);
    }
    pg_buf_puts(b, "NEXT:\n");
    if (gs) {
        int pl = ++g.p;
        pg_buf_printf(b, "\tadd.s32 %%r%d, %%r%d, %%r%d;\n\tsetp.lt.u32 %%p%d, %%r%d, %%r%d;\n\t@%%p%d bra LOOP;\n", rtile, rtile, rstride,
                      pl, rtile, rn, pl);
    }
    pg_buf_putc(b, '\n');
    int rlane = ++g.r, rwarp = ++g.r, rsm = ++g.r, plane0 = ++g.p;
    const char *sname = c->shfl ? "swarp" : "sdata";
    if (c->shfl) {
        /* butterfly inside the warp: every lane ends with the warp total */
        pg_buf_puts(b, "\t// warp butterfly: after 5 steps every lane holds its warp's value\n");
        for (int off = 16; off >= 1; off /= 2) {
            int t = NV();
            if (c->f64) {
                int lo = ++g.r, hi = ++g.r;
                pg_buf_printf(b, "\tmov.b64 {%%r%d, %%r%d}, %%fd%d;\n", lo, hi, acc);
                pg_buf_printf(b, "\tshfl.sync.bfly.b32 %%r%d, %%r%d, %d, 31, -1;\n", lo, lo, off);
                pg_buf_printf(b, "\tshfl.sync.bfly.b32 %%r%d, %%r%d, %d, 31, -1;\n", hi, hi, off);
                pg_buf_printf(b, "\tmov.b64 %%fd%d, {%%r%d, %%r%d};\n", t, lo, hi);
            } else pg_buf_printf(b, "\tshfl.sync.bfly.b32 %%f%d, %%f%d, %d, 31, -1;\n", t, acc, off);
            comb(b, c, R, acc, acc, t);
        }
        pg_buf_printf(b, "\tand.b32 %%r%d, %%r%d, 31;                  // lane\n\tshr.u32 %%r%d, %%r%d, 5;                   // warp\n", rlane, rt,
                      rwarp, rt);
        pg_buf_printf(b, "\tmov.u32 %%r%d, %s;\n\tsetp.eq.u32 %%p%d, %%r%d, 0;\n", rsm, sname, plane0, rlane);
        int rw = ++g.r;
        pg_buf_printf(b, "\tshl.b32 %%r%d, %%r%d, %d;\n\tadd.s32 %%r%d, %%r%d, %%r%d;\n", rw, rwarp, c->f64 ? 3 : 2, rw, rsm, rw);
        pg_buf_printf(b, "\t@%%p%d st.shared.%s [%%r%d], %s%d;          // %s[warp]\n\tbar.sync 0;\n", plane0, T, rw, R, acc, sname);
        int pw = ++g.p, pl = ++g.p, rl = ++g.r, v2 = NV();
        pg_buf_printf(b, "\tsetp.ne.u32 %%p%d, %%r%d, 0;\n\t@%%p%d bra DONE;                     // warp 0 finishes\n", pw, rwarp, pw);
        pg_buf_printf(b, "\tsetp.lt.u32 %%p%d, %%r%d, %d;\n\tmov.%s %s%d, %s;\n", pl, rlane, NW, T, R, v2, ident);
        pg_buf_printf(b, "\tshl.b32 %%r%d, %%r%d, %d;\n\tadd.s32 %%r%d, %%r%d, %%r%d;\n\t@%%p%d ld.shared.%s %s%d, [%%r%d];\n", rl, rlane,
                      c->f64 ? 3 : 2, rl, rsm, rl, pl, T, R, v2, rl);
        for (int off = NW / 2; off >= 1; off /= 2) {
            int t = NV();
            if (c->f64) {
                int lo = ++g.r, hi = ++g.r;
                pg_buf_printf(b, "\tmov.b64 {%%r%d, %%r%d}, %%fd%d;\n", lo, hi, v2);
                pg_buf_printf(b, "\tshfl.sync.bfly.b32 %%r%d, %%r%d, %d, 31, -1;\n", lo, lo, off);
                pg_buf_printf(b, "\tshfl.sync.bfly.b32 %%r%d, %%r%d, %d, 31, -1;\n", hi, hi, off);
                pg_buf_printf(b, "\tmov.b64 %%fd%d, {%%r%d, %%r%d};\n", t, lo, hi);
            } else pg_buf_printf(b, "\tshfl.sync.bfly.b32 %%f%d, %%f%d, %d, 31, -1;\n", t, v2, off);
            comb(b, c, R, v2, v2, t);
        }
        pg_buf_printf(b, "\t@!%%p%d bra DONE;\n", plane0);
        acc = v2;
    } else {
        int ra2 = ++g.r;
        pg_buf_printf(b, "\tmov.u32 %%r%d, %s;\n\tshl.b32 %%r%d, %%r%d, %d;\n\tadd.s32 %%r%d, %%r%d, %%r%d;            // &sdata[t]\n", rsm,
                      sname, ra2, rt, c->f64 ? 3 : 2, ra2, rsm, ra2);
        pg_buf_printf(b, "\tst.shared.%s [%%r%d], %s%d;\n\tbar.sync 0;\n", T, ra2, R, acc);
        int tmp = NV();
        int pw = 0;
        for (int s = B / 2; s >= 1; s /= 2) {
            int ps = ++g.p;
            if (s == 16) pg_buf_printf(b, "\t@!%%p%d bra DONE;                    // warp 0 goes on alone\n", pw);
            pg_buf_printf(b, "\tsetp.lt.u32 %%p%d, %%r%d, %d;                // stride %d\n", ps, rt, s, s);
            pg_buf_printf(b, "\t@%%p%d ld.shared.%s %s%d, [%%r%d+%d];\n", ps, T, R, tmp, ra2, s * S);
            pg_buf_printf(b, "\t@%%p%d %s.%s %s%d, %s%d, %s%d;\n", ps, OPI[c->op], T, R, acc, R, acc, R, tmp);
            if (s > 1) pg_buf_printf(b, "\t@%%p%d st.shared.%s [%%r%d], %s%d;\n", ps, T, ra2, R, acc);
            if (s >= 32) pg_buf_puts(b, "\tbar.sync 0;\n");
            else if (s > 1) pg_buf_puts(b, "\tbar.warp.sync -1;\n");
            if (s == 32) pw = ps;
        }
        pg_buf_printf(b, "\tsetp.ne.u32 %%p%d, %%r%d, 0;\n\t@%%p%d bra DONE;\n", plane0, rt, plane0);
        (void)rlane;
        (void)rwarp;
    }
    int rdo = ++g.rd;
    if (c->atomic) {
        pg_buf_printf(b, "\tred.global.add.%s [%%rd%d], %s%d;          // one atomic per block\n", T, ro, R, acc);
        (void)rdo;
    } else {
        pg_buf_printf(b, "\tmul.wide.u32 %%rd%d, %%r%d, %d;\n\tadd.s64 %%rd%d, %%rd%d, %%rd%d;\n\tst.global.%s [%%rd%d], %s%d;          // out[ctaid]\n",
                      rdo, rc, S, rdo, ro, rdo, T, rdo, R, acc);
    }
    pg_buf_puts(b, "DONE:\n\tret;\n}\n");
#undef NV

    pg_buf_puts(out, "// GENERATED_BY: ptxgen synth/family reduce\n");
    pg_buf_printf(out, "// %s: %s of x (%s), %d threads x %d elements per tile, %s, %s block reduction, %s.\n", name, OPN[c->op], T, B,
                  E, gs ? "grid-stride over tiles" : "one tile per block", c->shfl ? "warp-shuffle" : "shared-memory tree",
                  c->atomic ? "one red.global.add per block into out[0]" : "partial result per block in out[ctaid]");
    pg_buf_puts(out, ".version 8.0\n.target sm_80\n.address_size 64\n\n");
    pg_buf_printf(out, ".visible .entry %s(\n\t.param .u64 x,\n\t.param .u64 out,\n\t.param .u32 n\n)\n.maxntid %d, 1, 1\n{\n", name, B);
    synth_fam_decls(&g, out);
    if (c->shfl) pg_buf_printf(out, "\t.shared .align %d .%s swarp[%d];\n", S, T, NW);
    else pg_buf_printf(out, "\t.shared .align %d .%s sdata[%d];\n", S, T, B);
    pg_buf_putc(out, '\n');
    pg_buf_puts(out, body.data);
    pg_buf_free(&body);
}

/* ---- descriptions (describe.h) ------------------------------------------------------ */
static json_t *red_describe(const red_cfg *c, uint64_t seed, const json_t *task) {
    const int B = c->block, E = c->ept, TILE = B * E;
    const bool gs = c->cap > 0;
    const char *CT = c->f64 ? "double" : "float";
    static const char *OPW[] = {"sum", "maximum", "minimum"}, *OPZ[] = {"和", "最大值", "最小值"}, *OPV[] = {"sum", "max", "min"};
    static const char *OPF[] = {"sum", "max", "min"};
    char nm[6][64], nz[4][64], ex[3][300], ez[2][300], formula[200], shape[160], shape_zh[160];
    const char *notes = NULL, *notes_zh = NULL;
    if (c->atomic) {
        static const char *const N[] = {"sum reduction with atomics", "global sum via atomicAdd", "array sum", "total of an array",
                                        "atomic sum reduction", "sum of all elements"};
        static const char *const Z[] = {"原子累加求和", "数组求和", "全局求和（原子加）", "所有元素之和"};
        for (int k = 0; k < 6; k++) snprintf(nm[k], sizeof nm[k], "%s", N[k]);
        for (int k = 0; k < 4; k++) snprintf(nz[k], sizeof nz[k], "%s", Z[k]);
        snprintf(formula, sizeof formula, "out[0] += sum_{i < n} x[i]");
        snprintf(ex[0], sizeof ex[0], "add up all n elements of x and add the total to out[0], each block contributing its partial sum with one atomic add");
        snprintf(ex[1], sizeof ex[1], "sum the whole array x into out[0] using one atomic add per block of %d elements", TILE);
        snprintf(ex[2], sizeof ex[2], "compute the sum of x[0] through x[n-1] and accumulate it atomically into out[0]");
        snprintf(ez[0], sizeof ez[0], "把 x 的全部 n 个元素求和并累加到 out[0]，每个线程块用一次原子加提交部分和");
        snprintf(ez[1], sizeof ez[1], "对整个数组 x 求和，结果原子地加到 out[0] 上");
        snprintf(shape, sizeof shape, "x holds n %ss; out is a single %s", CT, CT);
        snprintf(shape_zh, sizeof shape_zh, "x 有 n 个 %s，out 只有一个元素", CT);
        notes = "out[0] holds 0 on entry; the order of the additions is not fixed";
        notes_zh = "out[0] 的初值为 0；加法顺序不固定";
    } else {
        snprintf(nm[0], sizeof nm[0], "per-block %s", OPW[c->op]);
        snprintf(nm[1], sizeof nm[1], "block-wise %s reduction", OPV[c->op]);
        snprintf(nm[2], sizeof nm[2], "partial %ss per block", OPW[c->op]);
        snprintf(nm[3], sizeof nm[3], "%s reduction (one partial per block)", OPV[c->op]);
        snprintf(nm[4], sizeof nm[4], "tiled %s reduction", OPV[c->op]);
        snprintf(nm[5], sizeof nm[5], "block %s", OPF[c->op]);
        snprintf(nz[0], sizeof nz[0], "分块求%s", OPZ[c->op]);
        snprintf(nz[1], sizeof nz[1], "块内%s归约", c->op == 0 ? "求和" : c->op == 1 ? "最大值" : "最小值");
        snprintf(nz[2], sizeof nz[2], "每块一个部分%s", OPZ[c->op]);
        snprintf(nz[3], sizeof nz[3], "%s 归约（每块输出一个结果）", OPV[c->op]);
        if (gs) {
            snprintf(formula, sizeof formula, "out[b] = %s of x over the %d-element tiles b, b+G, b+2G, ... (G = gridDim.x, last tile clipped at n)",
                     OPF[c->op], TILE);
            snprintf(ex[0], sizeof ex[0], "give block b the tiles b, b+G, b+2G, ... of %d consecutive elements of x (G is the number of blocks) and write the %s of all of them to out[b]",
                     TILE, OPW[c->op]);
            snprintf(ex[1], sizeof ex[1], "cut x into tiles of %d elements, deal the tiles to the blocks round-robin and store each block's %s in out[b]",
                     TILE, OPW[c->op]);
            snprintf(ex[2], sizeof ex[2], "reduce x with %s, block b covering every G-th tile of %d elements starting at tile b, and write one result per block to out",
                     OPV[c->op], TILE);
            snprintf(ez[0], sizeof ez[0], "第 b 个线程块处理 x 的第 b、b+G、b+2G… 个分块（每块 %d 个元素，G 为块数），把它们的%s写入 out[b]", TILE, OPZ[c->op]);
            snprintf(ez[1], sizeof ez[1], "把 x 切成 %d 个元素一块，按块轮流分给线程块，每个线程块的%s存入 out[b]", TILE, OPZ[c->op]);
            snprintf(shape, sizeof shape, "x holds n %ss; out holds one %s per block", CT, CT);
            snprintf(shape_zh, sizeof shape_zh, "x 有 n 个 %s，out 每个线程块一个元素", CT);
        } else {
            snprintf(formula, sizeof formula, "out[b] = %s of x[b*%d .. min(n,(b+1)*%d)) for b < cdiv(n,%d)", OPF[c->op], TILE, TILE, TILE);
            snprintf(ex[0], sizeof ex[0], "split x into consecutive tiles of %d elements (the last one may be shorter) and write the %s of tile b to out[b]",
                     TILE, OPW[c->op]);
            snprintf(ex[1], sizeof ex[1], "reduce each run of %d consecutive elements of x to its %s and store the result of run b in out[b]", TILE,
                     OPW[c->op]);
            snprintf(ex[2], sizeof ex[2], "compute, for every block b, the %s of x[b*%d] up to x[min(n, (b+1)*%d) - 1] and put it in out[b]", OPW[c->op],
                     TILE, TILE);
            snprintf(ez[0], sizeof ez[0], "把 x 按 %d 个元素一段切开（最后一段可能不满），第 b 段的%s写入 out[b]", TILE, OPZ[c->op]);
            snprintf(ez[1], sizeof ez[1], "out[b] 为 x[b*%d .. min(n,(b+1)*%d)) 的%s", TILE, TILE, OPZ[c->op]);
            snprintf(shape, sizeof shape, "x holds n %ss; out holds cdiv(n,%d) partial results", CT, TILE);
            snprintf(shape_zh, sizeof shape_zh, "x 有 n 个 %s，out 有 cdiv(n,%d) 个部分结果", CT, TILE);
        }
    }
    char how[3][240], how_zh[2][240];
    snprintf(how[0], sizeof how[0], "%s", c->shfl ? "warp shuffles (shfl.sync butterflies), one shared slot per warp, warp 0 combines the warp results"
                                                  : "a shared-memory tree with a barrier per level down to one warp");
    snprintf(how[1], sizeof how[1], "each of the %d threads loads %d element%s per tile at tile + j*%d + t, missing elements counting as %s", B, E,
             E > 1 ? "s" : "", B, c->op == 0 ? "0" : c->op == 1 ? "-inf" : "+inf");
    snprintf(how[2], sizeof how[2], "%d threads x %d elements per tile, %s, %s", B, E, gs ? "grid-stride over tiles" : "one tile per block",
             c->shfl ? "warp-shuffle block reduction" : "shared-memory tree");
    snprintf(how_zh[0], sizeof how_zh[0], "%s", c->shfl ? "块内先用 warp 洗牌（shfl.sync）归约，再由 warp 0 合并各 warp 的结果" : "块内用共享内存树形归约（每层一次同步）");
    snprintf(how_zh[1], sizeof how_zh[1], "每个线程每个分块读取 %d 个元素（步长 %d，合并访问）", E, B);
    const char *n_en[7], *n_zh[5], *e_en[4], *e_zh[3], *hw[4], *hz[3];
    for (int k = 0; k < 6; k++) n_en[k] = nm[k];
    for (int k = 0; k < 4; k++) n_zh[k] = nz[k];
    for (int k = 0; k < 3; k++) { e_en[k] = ex[k]; hw[k] = how[k]; }
    for (int k = 0; k < 2; k++) { e_zh[k] = ez[k]; hz[k] = how_zh[k]; }
    n_en[6] = n_zh[4] = e_en[3] = e_zh[2] = hw[3] = hz[2] = NULL;
    desc_facts f = {.name_en = n_en, .name_zh = n_zh, .formula = formula, .explain_en = e_en, .explain_zh = e_zh, .how_en = hw, .how_zh = hz,
                    .shape_en = shape, .shape_zh = shape_zh, .notes_en = notes, .notes_zh = notes_zh, .elems_per_thread = gs ? 0 : E,
                    .data = DESC_DATA_VECTOR,
                    .hints = DESC_HINT_COALESCED | DESC_HINT_MEMBOUND | DESC_HINT_SMEM | (c->shfl ? DESC_HINT_SHUFFLE : 0u) |
                             (c->atomic ? DESC_HINT_ATOMIC : 0u) | (gs ? DESC_HINT_GRID_STRIDE : 0u)};
    return synth_desc_render_all(&f, task, seed);
}

static void emit_json(const red_cfg *c, const char *name, fam_rng *r, pg_buf *out) {
    const int B = c->block, E = c->ept, TILE = B * E;
    const bool gs = c->cap > 0;
    const char *T = c->f64 ? "f64" : "f32";
    char grid[64], outlen[64];
    if (gs) snprintf(grid, sizeof grid, "min(cdiv(n,%d),%d)", TILE, c->cap);
    else snprintf(grid, sizeof grid, "cdiv(n,%d)", TILE);
    snprintf(outlen, sizeof outlen, "%s", c->atomic ? "1" : grid);
    json_t *root = json_object();
    json_object_set_new(root, "name", json_string(name));
    json_object_set_new(root, "family", json_string("reduce"));
    json_object_set_new(root, "kernel", json_string(name));
    json_object_set_new(root, "family_params",
                        json_pack("{s:s, s:s, s:i, s:i, s:i, s:b, s:i, s:s, s:b}", "op", OPN[c->op], "dtype", T, "block", B, "ept", E,
                                  "tile", TILE, "gridstride", gs, "grid_cap", c->cap, "block_reduce", c->shfl ? "shfl" : "smem",
                                  "atomic", c->atomic));
    json_object_set_new(root, "descriptions", json_null());   /* rendered below, from params and launch */
    char pt[8];
    snprintf(pt, sizeof pt, "%s*", T);
    json_t *ps = json_array();
    json_array_append_new(ps, json_pack("{s:s, s:s, s:s, s:s}", "name", "x", "type", pt, "role", "in", "len", "n"));
    if (c->atomic)
        json_array_append_new(ps, json_pack("{s:s, s:s, s:s, s:s, s:[s,s]}", "name", "out", "type", pt, "role", "inout", "len", "1", "dist",
                                            "const(0)", "const(0)"));
    else json_array_append_new(ps, json_pack("{s:s, s:s, s:s, s:s}", "name", "out", "type", pt, "role", "out", "len", outlen));
    json_array_append_new(ps, json_pack("{s:s, s:s, s:s}", "name", "n", "type", "u32", "value", "n"));
    json_object_set_new(root, "params", ps);
    json_t *sz = json_array();
    json_array_append_new(sz, json_pack("{s:i, s:b}", "n", 33554432, "time", 1));
    const int more[] = {1000003, TILE * 5 + 3, TILE, 777, 1};
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++) json_array_append_new(sz, json_pack("{s:i}", "n", more[i]));
    json_object_set_new(root, "sizes", sz);
    char blk[16];
    snprintf(blk, sizeof blk, "%d", B);
    json_object_set_new(root, "launch", json_pack("{s:[s], s:[s], s:s}", "block", blk, "grid", grid, "smem", "0"));
    json_object_set_new(root, "distributions", json_pack("[s, s]", "uniform(-1,1)", "uniform(0,1)"));
    json_t *tol = json_object();
    json_object_set_new(tol, T, json_real(c->f64 ? 1e-12 : 1e-5));
    json_object_set_new(root, "tolerance", tol);
    json_object_set_new(root, "reference", json_pack("{s:s, s:s}", "kind", "c", "name", synth_fam_ref(synth_fam_gen_reduce)));
    char bytes[96];
    snprintf(bytes, sizeof bytes, "%d*n", c->f64 ? 8 : 4);
    json_object_set_new(root, "cost", json_pack("{s:s, s:s}", "bytes", bytes, "flops", "n"));
    json_object_set_new(root, "descriptions", red_describe(c, synth_fam_next(r), root));
    synth_task_json_write(root, out);
    json_decref(root);
}

pg_status synth_fam_gen_reduce(uint64_t seed, synth_family_sample *s) {
    fam_rng r = {seed ^ 0x7265647563650002ull};
    red_cfg c;
    memset(&c, 0, sizeof c);
    c.op = synth_fam_pick(&r, 3);
    c.f64 = synth_fam_pick(&r, 4) == 0;
    c.block = 128 << synth_fam_pick(&r, 3);
    c.ept = 1 << synth_fam_pick(&r, 4);
    static const int CAPS[] = {132, 264, 528, 1056};
    c.cap = synth_fam_pick(&r, 2) ? CAPS[synth_fam_pick(&r, 4)] : 0;
    c.shfl = synth_fam_pick(&r, 2);
    c.atomic = c.op == 0 && synth_fam_pick(&r, 3) == 0;
    snprintf(s->family, sizeof s->family, "reduce");
    snprintf(s->source, sizeof s->source, "ptx-template");
    static const char *STY[] = {"reduce_%s_%s_%s_b%d_e%d%s%s", "block_%s_%s_%s%d_x%d%s%s", "%s_partials_%s_%s_%d_%d%s%s"};
    snprintf(s->name, sizeof s->name, STY[synth_fam_pick(&r, 3)], OPN[c.op], c.f64 ? "f64" : "f32", c.shfl ? "shfl" : "smem", c.block, c.ept,
             c.cap ? "_gs" : "", c.atomic ? "_atomic" : "");
    synth_fam_fit_name(s->name);   /* within the decoder's PG_NAME_MAX */
    snprintf(s->identity, sizeof s->identity, "reduce:%s:%s:b%d:e%d:%s:%s:%s", OPN[c.op], c.f64 ? "f64" : "f32", c.block, c.ept,
             c.shfl ? "shfl" : "smem", c.cap ? "gs" : "tile", c.atomic ? "atomic" : "partials");
    emit_ptx(&c, s->name, &s->ptx);
    emit_json(&c, s->name, &r, &s->task_json);
    return PG_OK;
}
