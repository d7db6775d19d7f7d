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

/* ---- the CUDA C plan ------------------------------------------------------------------ */
/* The plan's lines that head blocks of the PTX (docs/LITERATE.md): the same
 * tile, loads per thread, grid-stride loop, guarded partial tile, warp
 * shuffles or shared-memory tree, partials or one atomic per block. */
enum { PL = 200 };
typedef struct {
    char t[PL], tile[PL], acc[PL], stride[PL], loop[PL], e0[PL], p[PL], full[PL], loads[PL], tree[3][PL], fold[PL], part[8][PL], next[PL];
    char bfly[PL], lw[PL], pub[PL], sync[PL], w0[PL], v[PL], bfly2[PL], l0[PL];     /* shuffles */
    char sp[PL], sst[PL], quit32[PL], lvl[10][PL], lsync[10][PL], t0[PL];            /* shared-memory tree */
    char store[PL];
} red_plan;

/* OP(a, b) of the family's operator as C. */
static void op_c(const red_cfg *c, const char *a, const char *b, char *out, size_t n) {
    if (c->op == 0) synth_fam_linef(out, n, "%s + %s", a, b);
    else synth_fam_linef(out, n, "%s%s(%s, %s)", c->op == 1 ? "fmax" : "fmin", c->f64 ? "" : "f", a, b);
}

static void emit_plan(const red_cfg *c, const char *name, red_plan *P, pg_buf *cu) {
    const int B = c->block, E = c->ept, TILE = B * E, NW = B / 32;
    const bool gs = c->cap > 0;
    const char *T = c->f64 ? "double" : "float";
    const char *id = c->op == 0 ? (c->f64 ? "0.0" : "0.0f") : c->op == 1 ? "-INFINITY" : "INFINITY";
    char e1[96], e2[96];
    memset(P, 0, sizeof *P);
    pg_buf_printf(cu, "// %s: %s of x (%s), %d threads x %d elements per tile, %s, %s block reduction, %s.\n", name, OPN[c->op],
                  c->f64 ? "f64" : "f32", B, E, gs ? "grid-stride over tiles" : "one tile per block", c->shfl ? "warp-shuffle" : "shared-memory tree",
                  c->atomic ? "one atomic add per block into out[0]" : "partial result per block in out[blockIdx.x]");
    pg_buf_printf(cu, "// Thread t loads the elements tile + j*%d + t, j < %d: every load is one coalesced block-wide access; the identity\n"
                      "// of %s fills the missing elements of the partial last tile.\n",
                  B, E, OPN[c->op]);
    pg_buf_printf(cu, "extern \"C\" __global__ void __launch_bounds__(%d) %s(const %s* __restrict__ x, %s* __restrict__ out, unsigned int n)\n{\n", B,
                  name, T, T);
    int in = 1;
    char l[PL];
    if (c->shfl) synth_fam_linef(l, PL, "__shared__ %s swarp[%d];   // one value per warp", T, NW);
    else synth_fam_linef(l, PL, "__shared__ %s sdata[%d];   // one value per thread", T, B);
    synth_fam_plan(cu, in, l);
    synth_fam_linef(P->t, PL, "unsigned int t = threadIdx.x;");
    synth_fam_plan(cu, in, P->t);
    synth_fam_linef(P->tile, PL, "unsigned int tile = blockIdx.x * %d;   // the first tile; every block owns one (grid <= cdiv(n, %d))", TILE, TILE);
    synth_fam_plan(cu, in, P->tile);
    synth_fam_linef(P->acc, PL, "%s acc = %s;   // the identity of %s", T, id, OPN[c->op]);
    synth_fam_plan(cu, in, P->acc);
    if (gs) {
        synth_fam_linef(P->stride, PL, "unsigned int stride = gridDim.x * %d;   // the grid stride in elements", TILE);
        synth_fam_plan(cu, in, P->stride);
        synth_fam_linef(P->loop, PL, "do {   // the tiles blockIdx.x, +gridDim.x, ...");
        synth_fam_plan(cu, in++, P->loop);
    }
    synth_fam_linef(P->e0, PL, "unsigned int e0 = tile + t;");
    synth_fam_plan(cu, in, P->e0);
    synth_fam_linef(P->p, PL, "const %s* p = x + e0;   // &x[e0]", T);
    synth_fam_plan(cu, in, P->p);
    synth_fam_linef(P->full, PL, "if (tile + %d <= n) {   // the tile is entirely inside [0, n): %d load%s in flight", TILE, E, E > 1 ? "s" : "");
    synth_fam_plan(cu, in++, P->full);
    pg_buf ld = {0};
    pg_buf_printf(&ld, "%s ", T);
    for (int j = 0; j < E; j++) pg_buf_printf(&ld, "%sv%d = p[%d]", j ? ", " : "", j, j * B);
    pg_buf_puts(&ld, ";");
    synth_fam_linef(P->loads, PL, "%s", ld.data);
    pg_buf_free(&ld);
    synth_fam_plan(cu, in, P->loads);
    /* the pairwise tree, level by level: v -> a -> b -> c */
    const char *lv = "v";
    int nw = E, level = 0;
    static const char *NAMES[] = {"a", "b", "c"};
    while (nw > 1) {
        pg_buf tr = {0};
        pg_buf_printf(&tr, "%s ", T);
        for (int j = 0; j < nw / 2; j++) {
            char a[16], b[16];
            snprintf(a, sizeof a, "%s%d", lv, 2 * j);
            snprintf(b, sizeof b, "%s%d", lv, 2 * j + 1);
            op_c(c, a, b, e1, sizeof e1);
            pg_buf_printf(&tr, "%s%s%d = %s", j ? ", " : "", NAMES[level], j, e1);
        }
        pg_buf_puts(&tr, level == 0 ? ";   // pairwise: a shorter dependency chain" : ";");
        synth_fam_linef(P->tree[level], PL, "%s", tr.data);
        pg_buf_free(&tr);
        synth_fam_plan(cu, in, P->tree[level]);
        lv = NAMES[level++];
        nw /= 2;
    }
    snprintf(e2, sizeof e2, "%s0", lv);
    op_c(c, "acc", e2, e1, sizeof e1);
    synth_fam_linef(P->fold, PL, "acc = %s;", e1);
    synth_fam_plan(cu, in, P->fold);
    synth_fam_plan(cu, in - 1, "} else {   // the partial last tile: guarded loads, the identity where an element is missing");
    for (int j = 0; j < E; j++) {
        char g[64];
        if (j) snprintf(g, sizeof g, "e0 + %d < n ? p[%d] : %s", j * B, j * B, id);
        else snprintf(g, sizeof g, "e0 < n ? p[0] : %s", id);
        op_c(c, "acc", g, e1, sizeof e1);
        synth_fam_linef(P->part[j], PL, "acc = %s;", e1);
        synth_fam_plan(cu, in, P->part[j]);
    }
    synth_fam_plan(cu, --in, "}");
    if (gs) {
        synth_fam_linef(P->next, PL, "} while ((tile += stride) < n);");
        synth_fam_plan(cu, --in, P->next);
    }
    if (c->shfl) {
        synth_fam_plan(cu, in, "// warp butterfly: after 5 steps every lane holds its warp's value");
        synth_fam_plan(cu, in, "#pragma unroll");
        op_c(c, "acc", "__shfl_xor_sync(0xffffffffu, acc, o)", e1, sizeof e1);
        synth_fam_linef(P->bfly, PL, "for (int o = 16; o > 0; o >>= 1) acc = %s;", e1);
        synth_fam_plan(cu, in, P->bfly);
        synth_fam_linef(P->lw, PL, "unsigned int lane = t & 31, warp = t >> 5;");
        synth_fam_plan(cu, in, P->lw);
        synth_fam_linef(P->pub, PL, "if (lane == 0) swarp[warp] = acc;");
        synth_fam_plan(cu, in, P->pub);
        synth_fam_linef(P->sync, PL, "__syncthreads();");
        synth_fam_plan(cu, in, P->sync);
        synth_fam_linef(P->w0, PL, "if (warp != 0) return;   // warp 0 finishes");
        synth_fam_plan(cu, in, P->w0);
        synth_fam_linef(P->v, PL, "%s v = lane < %d ? swarp[lane] : %s;", T, NW, id);
        synth_fam_plan(cu, in, P->v);
        synth_fam_plan(cu, in, "#pragma unroll");
        op_c(c, "v", "__shfl_xor_sync(0xffffffffu, v, o)", e1, sizeof e1);
        synth_fam_linef(P->bfly2, PL, "for (int o = %d; o > 0; o >>= 1) v = %s;", NW / 2, e1);
        synth_fam_plan(cu, in, P->bfly2);
        synth_fam_linef(P->l0, PL, "if (lane != 0) return;");
        synth_fam_plan(cu, in, P->l0);
        synth_fam_plan(cu, in, "acc = v;");
    } else {
        synth_fam_linef(P->sp, PL, "%s* sp = &sdata[t];", T);
        synth_fam_plan(cu, in, P->sp);
        synth_fam_linef(P->sst, PL, "*sp = acc;");
        synth_fam_plan(cu, in, P->sst);
        synth_fam_linef(P->sync, PL, "__syncthreads();");
        synth_fam_plan(cu, in, P->sync);
        int k = 0;
        for (int st = B / 2; st >= 1; st /= 2, k++) {
            if (st == 16) {
                synth_fam_linef(P->quit32, PL, "if (t >= 32) return;   // warp 0 goes on alone");
                synth_fam_plan(cu, in, P->quit32);
            }
            char ix[24];
            snprintf(ix, sizeof ix, "sp[%d]", st);
            op_c(c, "acc", ix, e1, sizeof e1);
            if (st > 1) synth_fam_linef(P->lvl[k], PL, "if (t < %d) { acc = %s; *sp = acc; }   // stride %d", st, e1, st);
            else synth_fam_linef(P->lvl[k], PL, "if (t < 1) acc = %s;   // stride 1", e1);
            synth_fam_plan(cu, in, P->lvl[k]);
            if (st >= 32) synth_fam_linef(P->lsync[k], PL, "__syncthreads();");
            else if (st > 1) synth_fam_linef(P->lsync[k], PL, "__syncwarp();   // memory order within the warp");
            if (st > 1) synth_fam_plan(cu, in, P->lsync[k]);
        }
        synth_fam_linef(P->t0, PL, "if (t != 0) return;");
        synth_fam_plan(cu, in, P->t0);
    }
    if (c->atomic) synth_fam_linef(P->store, PL, "atomicAdd(out, acc);   // one atomic per block; the old value is not used (red)");
    else synth_fam_linef(P->store, PL, "out[blockIdx.x] = acc;");
    synth_fam_plan(cu, in, P->store);
    pg_buf_puts(cu, "}\n");
}

static void emit_ptx(const red_cfg *c, const char *name, const red_plan *P, pg_buf *out) {
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
    synth_fam_note(b, P->t);
    pg_buf_printf(b, "\tmov.u32 %%r%d, %%tid.x;\n", rt);
    synth_fam_note(b, P->tile);
    pg_buf_printf(b, "\tmov.u32 %%r%d, %%ctaid.x;\n", rc);
    pg_buf_printf(b, "\tmul.lo.u32 %%r%d, %%r%d, %d;\n", rtile, rc, TILE);
    int acc = NV();
    synth_fam_note(b, P->acc);
    pg_buf_printf(b, "\tmov.%s %s%d, %s;\n", T, R, acc, ident);
    int rstride = 0;
    if (gs) {
        int rg = ++g.r;
        rstride = ++g.r;
        synth_fam_note(b, P->stride);
        pg_buf_printf(b, "\tmov.u32 %%r%d, %%nctaid.x;\n\tmul.lo.u32 %%r%d, %%r%d, %d;\n", rg, rstride, rg, TILE);
    }
    /* every block owns at least its first tile (grid <= cdiv(n,TILE)) */
    pg_buf_puts(b, "LOOP:\n");
    int re0 = ++g.r, rend = ++g.r, pp = ++g.p, roff = ++g.rd, ra = ++g.rd;
    synth_fam_note(b, P->e0);
    pg_buf_printf(b, "\tadd.s32 %%r%d, %%r%d, %%r%d;\n", re0, rtile, rt);
    synth_fam_note(b, P->p);
    pg_buf_printf(b, "\tmul.wide.u32 %%rd%d, %%r%d, %d;\n\tadd.s64 %%rd%d, %%rd%d, %%rd%d;\n", roff, re0, S, ra, rx, roff);
    synth_fam_note(b, P->full);
    pg_buf_printf(b, "\tadd.s32 %%r%d, %%r%d, %d;\n\tsetp.gt.u32 %%p%d, %%r%d, %%r%d;\n\t@%%p%d bra PART;\n", rend, rtile, TILE, pp, rend, rn, pp);
    int v[8] = {0};
    synth_fam_note(b, P->loads);
    for (int j = 0; j < E; j++) {
        v[j] = NV();
        if (j) pg_buf_printf(b, "\tld.global.nc.%s %s%d, [%%rd%d+%d];\n", T, R, v[j], ra, j * B * S);
        else pg_buf_printf(b, "\tld.global.nc.%s %s%d, [%%rd%d];\n", T, R, v[j], ra);
    }
    /* pairwise tree of the E values, then into acc */
    int w[8] = {0}, nw = E, level = 0;
    for (int j = 0; j < E; j++) w[j] = v[j];
    while (nw > 1) {
        synth_fam_note(b, P->tree[level++]);
        for (int j = 0; j < nw / 2; j++) {
            int d = NV();
            comb(b, c, R, d, w[2 * j], w[2 * j + 1]);
            w[j] = d;
        }
        nw /= 2;
    }
    synth_fam_note(b, P->fold);
    comb(b, c, R, acc, acc, w[0]);
    pg_buf_puts(b, "\tbra.uni NEXT;\n");
    pg_buf_puts(b, "PART:\n");
    for (int j = 0; j < E; j++) {
        int re = ++g.r, pj = ++g.p, vj = NV();
        synth_fam_note(b, P->part[j]);
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
        synth_fam_note(b, P->next);
        pg_buf_printf(b, "\tadd.s32 %%r%d, %%r%d, %%r%d;\n\tsetp.lt.u32 %%p%d, %%r%d, %%r%d;\n\t@%%p%d bra LOOP;\n", rtile, rtile, rstride,
                      pl, rtile, rn, pl);
    }
    pg_buf_putc(b, '\n');
    int rlane = ++g.r, rwarp = ++g.r, rsm = ++g.r, plane0 = ++g.p;
    const char *sname = c->shfl ? "swarp" : "sdata";
    if (c->shfl) {
        /* butterfly inside the warp: every lane ends with the warp total */
        synth_fam_note(b, P->bfly);
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
        synth_fam_note(b, P->lw);
        pg_buf_printf(b, "\tand.b32 %%r%d, %%r%d, 31;\n\tshr.u32 %%r%d, %%r%d, 5;\n", rlane, rt, rwarp, rt);
        synth_fam_note(b, P->pub);
        pg_buf_printf(b, "\tmov.u32 %%r%d, %s;\n\tsetp.eq.u32 %%p%d, %%r%d, 0;\n", rsm, sname, plane0, rlane);
        int rw = ++g.r;
        pg_buf_printf(b, "\tshl.b32 %%r%d, %%r%d, %d;\n\tadd.s32 %%r%d, %%r%d, %%r%d;\n", rw, rwarp, c->f64 ? 3 : 2, rw, rsm, rw);
        pg_buf_printf(b, "\t@%%p%d st.shared.%s [%%r%d], %s%d;\n", plane0, T, rw, R, acc);
        synth_fam_note(b, P->sync);
        pg_buf_puts(b, "\tbar.sync 0;\n");
        int pw = ++g.p, pl = ++g.p, rl = ++g.r, v2 = NV();
        synth_fam_note(b, P->w0);
        pg_buf_printf(b, "\tsetp.ne.u32 %%p%d, %%r%d, 0;\n\t@%%p%d bra DONE;\n", pw, rwarp, pw);
        synth_fam_note(b, P->v);
        pg_buf_printf(b, "\tsetp.lt.u32 %%p%d, %%r%d, %d;\n\tmov.%s %s%d, %s;\n", pl, rlane, NW, T, R, v2, ident);
        pg_buf_printf(b, "\tshl.b32 %%r%d, %%r%d, %d;\n\tadd.s32 %%r%d, %%r%d, %%r%d;\n\t@%%p%d ld.shared.%s %s%d, [%%r%d];\n", rl, rlane,
                      c->f64 ? 3 : 2, rl, rsm, rl, pl, T, R, v2, rl);
        synth_fam_note(b, P->bfly2);
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
        synth_fam_note(b, P->l0);
        pg_buf_printf(b, "\t@!%%p%d bra DONE;\n", plane0);
        acc = v2;
    } else {
        int ra2 = ++g.r;
        synth_fam_note(b, P->sp);
        pg_buf_printf(b, "\tmov.u32 %%r%d, %s;\n\tshl.b32 %%r%d, %%r%d, %d;\n\tadd.s32 %%r%d, %%r%d, %%r%d;\n", rsm, sname, ra2, rt,
                      c->f64 ? 3 : 2, ra2, rsm, ra2);
        synth_fam_note(b, P->sst);
        pg_buf_printf(b, "\tst.shared.%s [%%r%d], %s%d;\n", T, ra2, R, acc);
        synth_fam_note(b, P->sync);
        pg_buf_puts(b, "\tbar.sync 0;\n");
        int tmp = NV();
        int pw = 0, k = 0;
        for (int s = B / 2; s >= 1; s /= 2, k++) {
            int ps = ++g.p;
            if (s == 16) {
                synth_fam_note(b, P->quit32);
                pg_buf_printf(b, "\t@!%%p%d bra DONE;\n", pw);
            }
            synth_fam_note(b, P->lvl[k]);
            pg_buf_printf(b, "\tsetp.lt.u32 %%p%d, %%r%d, %d;\n", ps, rt, s);
            pg_buf_printf(b, "\t@%%p%d ld.shared.%s %s%d, [%%r%d+%d];\n", ps, T, R, tmp, ra2, s * S);
            pg_buf_printf(b, "\t@%%p%d %s.%s %s%d, %s%d, %s%d;\n", ps, OPI[c->op], T, R, acc, R, acc, R, tmp);
            if (s > 1) pg_buf_printf(b, "\t@%%p%d st.shared.%s [%%r%d], %s%d;\n", ps, T, ra2, R, acc);
            if (s > 1) synth_fam_note(b, P->lsync[k]);
            if (s >= 32) pg_buf_puts(b, "\tbar.sync 0;\n");
            else if (s > 1) pg_buf_puts(b, "\tbar.warp.sync -1;\n");
            if (s == 32) pw = ps;
        }
        synth_fam_note(b, P->t0);
        pg_buf_printf(b, "\tsetp.ne.u32 %%p%d, %%r%d, 0;\n\t@%%p%d bra DONE;\n", plane0, rt, plane0);
        (void)rlane;
        (void)rwarp;
    }
    int rdo = ++g.rd;
    synth_fam_note(b, P->store);
    if (c->atomic) {
        pg_buf_printf(b, "\tred.global.add.%s [%%rd%d], %s%d;\n", T, ro, R, acc);
        (void)rdo;
    } else {
        pg_buf_printf(b, "\tmul.wide.u32 %%rd%d, %%r%d, %d;\n\tadd.s64 %%rd%d, %%rd%d, %%rd%d;\n\tst.global.%s [%%rd%d], %s%d;\n", rdo, rc, S,
                      rdo, ro, rdo, T, rdo, R, acc);
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
    /* An f32 sum by atomics adds n / tile block partials to one running total in whatever order
     * the blocks finish: at n = 2^25 the rounding of 32k adds reached rel L2 3.2e-5 on an H100
     * (2026-12-08, tests/gpu/families.sh; 2 of 15 samples over 1e-5), so those get 1e-4, the
     * tolerance of an f32 dot product elsewhere.  One partial a block (no atomics) keeps 1e-5. */
    json_t *tol = json_object();
    json_object_set_new(tol, T, json_real(c->f64 ? 1e-12 : c->atomic && c->op == 0 ? 1e-4 : 1e-5));
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
    /* held out (bench/suite reduce_max_f32_b512): the f32 max with 512 threads x 8 elements, one
     * 4096-element chunk per block, partials out[b] (found 2026-12-07, h101: it was drawn) */
    if (c.op == 1 && !c.f64 && c.block == 512 && c.ept == 8 && !c.cap) c.ept = 4;
    snprintf(s->family, sizeof s->family, "reduce");
    snprintf(s->source, sizeof s->source, "ptx-template");
    static const char *STY[] = {"reduce_%s_%s_%s_b%d_e%d%s%s", "block_%s_%s_%s%d_x%d%s%s", "%s_partials_%s_%s_%d_%d%s%s"};
    snprintf(s->name, sizeof s->name, STY[synth_fam_pick(&r, 3)], OPN[c.op], c.f64 ? "f64" : "f32", c.shfl ? "shfl" : "smem", c.block, c.ept,
             c.cap ? "_gs" : "", c.atomic ? "_atomic" : "");
    synth_fam_fit_name(s->name);   /* within the decoder's PG_NAME_MAX */
    snprintf(s->identity, sizeof s->identity, "reduce:%s:%s:b%d:e%d:%s:%s:%s", OPN[c.op], c.f64 ? "f64" : "f32", c.block, c.ept,
             c.shfl ? "shfl" : "smem", c.cap ? "gs" : "tile", c.atomic ? "atomic" : "partials");
    red_plan plan;
    emit_plan(&c, s->name, &plan, &s->cu);
    emit_ptx(&c, s->name, &plan, &s->ptx);
    emit_json(&c, s->name, &r, &s->task_json);
    return PG_OK;
}
