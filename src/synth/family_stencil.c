/* family_stencil.c — the 1D stencil family (PTX template).
 *
 * out[i] = sum_{k=-R..R} c_{k+R} * x[i+k] for i < n, radius R = 1 or 2, f32
 * or f64, coefficients as scalar parameters c0..c2R or baked into the code
 * as immediates, boundary
 *   zero   x outside [0,n) reads as 0,
 *   clamp  indices are clamped into [0,n-1],
 *   copy   out[i] = x[i] where the window leaves the array (i < R, i >= n-R),
 * and either direct loads (each thread reads its 2R+1 inputs from global
 * memory; neighbours hit in L1/L2) or a shared-memory tile of B+2R values
 * (threads t < R also load the left and right halo) behind one bar.sync.
 * One output per thread, grid cdiv(n,B).
 *
 * Symmetric variant (2026-12-07, h101): radius 1..3, a weight per distance,
 *   out[i] = c0*X(i) + c1*(X(i-1) + X(i+1)) + ... + cR*(X(i-R) + X(i+R)),
 * so c0 is the centre and c_d the pair at distance d (R+1 parameters, not
 * 2R+1 in tap order); family_params "tap_coeff" names each tap's parameter.
 * The suite's f32 radius-2 copy-boundary 256-thread one (stencil1d_5pt) is
 * never drawn: that draw takes the clamp rule instead. */
#include "ptxgen/synth.h"
#include "family_internal.h"
#include "describe.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    int radius, block;
    bool f64, scalars, smem;
    int bnd;               /* 0 zero, 1 clamp, 2 copy */
    bool sym;              /* weights by distance: c[k] = w[|k-R|], parameters c0..cR */
    double c[7];
} st_cfg;

static const char *BND[] = {"zero", "clamp", "copy"};

typedef struct { pg_buf *b; fam_regs g; const st_cfg *c; int rx, rn, rnm1; } sem;

static int nv(sem *e) { return e->c->f64 ? ++e->g.fd : ++e->g.f; }

/* v = X(j) for a signed index register j, with the boundary rule (copy reads
 * 0 outside, those values are never used). */
static int load_x(sem *e, int rj) {
    const st_cfg *c = e->c;
    const char *R = c->f64 ? "%fd" : "%f", *T = c->f64 ? "f64" : "f32";
    int v = nv(e), ra = ++e->g.rd;
    char zero[32];
    synth_fam_imm(zero, sizeof zero, 0.0, c->f64);
    if (c->bnd == 1) {
        int rc = ++e->g.r;
        pg_buf_printf(e->b, "\tmax.s32 %%r%d, %%r%d, 0;\n\tmin.s32 %%r%d, %%r%d, %%r%d;\n", rc, rj,
                      rc, rc, e->rnm1);
        pg_buf_printf(e->b, "\tmul.wide.s32 %%rd%d, %%r%d, %d;\n\tadd.s64 %%rd%d, %%rd%d, %%rd%d;\n", ra, rc, c->f64 ? 8 : 4, ra, e->rx, ra);
        pg_buf_printf(e->b, "\tld.global.nc.%s %s%d, [%%rd%d];\n", T, R, v, ra);
    } else {
        int p1 = ++e->g.p, p2 = ++e->g.p;
        pg_buf_printf(e->b, "\tsetp.ge.s32 %%p%d, %%r%d, 0;\n\tsetp.lt.s32 %%p%d, %%r%d, %%r%d;\n\tand.pred %%p%d, %%p%d, %%p%d;\n", p1, rj,
                      p2, rj, e->rn, p1, p1, p2);
        pg_buf_printf(e->b, "\tmov.%s %s%d, %s;\n", T, R, v, zero);
        pg_buf_printf(e->b, "\tmul.wide.s32 %%rd%d, %%r%d, %d;\n\tadd.s64 %%rd%d, %%rd%d, %%rd%d;\n", ra, rj, c->f64 ? 8 : 4, ra, e->rx, ra);
        pg_buf_printf(e->b, "\t@%%p%d ld.global.nc.%s %s%d, [%%rd%d];\n", p1, T, R, v, ra);
    }
    return v;
}

/* ---- the CUDA C plan ------------------------------------------------------------------ */
/* The plan's lines that head blocks of the PTX (docs/LITERATE.md): the same
 * boundary rule, coefficients (parameters or literals), direct loads or a
 * shared tile with halo, and the copy of the edges. */
enum { PL = 240 };
typedef struct {
    char nm1[PL], t[PL], i[PL], ts[PL], mid[PL], halo[PL], left[PL], right[PL], sync[PL], quit[PL], vals[PL];
    char po[PL], edge[PL], copy[PL], tap[7][PL], mul[PL], fmas[PL], store[PL];
} st_plan;

/* The coefficient parameter of tap k (0..2R): ck, or c|k-R| when symmetric. */
static int coef_of(const st_cfg *c, int k) { return c->sym ? (k < c->radius ? c->radius - k : k - c->radius) : k; }
/* How many coefficient parameters the kernel takes. */
static int ncoef(const st_cfg *c) { return c->sym ? c->radius + 1 : 2 * c->radius + 1; }

/* X(j) as C: x[j] with the boundary rule (copy reads 0 outside; those values are never used). */
static void x_expr(const st_cfg *c, const char *j, char *out, size_t n) {
    if (c->bnd == 1) synth_fam_linef(out, n, "x[min(max(%s, 0), nm1)]", j);
    else synth_fam_linef(out, n, "%s >= 0 && %s < (int)n ? x[%s] : %s", j, j, j, c->f64 ? "0.0" : "0.0f");
}

static void emit_plan(const st_cfg *c, const char *name, st_plan *P, pg_buf *cu) {
    const int R0 = c->radius, K = 2 * R0 + 1, B = c->block;
    const char *T = c->f64 ? "double" : "float";
    char co[7][40], e[PL], j[32];
    for (int k = 0; k < K; k++) {
        if (c->scalars) snprintf(co[k], sizeof co[k], "c%d", coef_of(c, k));
        else {
            synth_fam_lit(co[k], sizeof co[k], c->c[k]);
            if (!c->f64) strcat(co[k], "f");
        }
    }
    memset(P, 0, sizeof *P);
    pg_buf_printf(cu, "// %s: %d-point 1D stencil (radius %d, %s), boundary %s, %s, coefficients %s.\n", name, K, R0, c->f64 ? "f64" : "f32",
                  BND[c->bnd], c->smem ? "shared-memory tile with halo" : "direct global loads", c->scalars ? "as parameters" : "baked in");
    if (c->sym)
        pg_buf_printf(cu, "// out[i] = c0*X(i) + sum over d = 1..%d of c_d * (X(i - d) + X(i + d)) (symmetric), one output per thread; X(j) is x[j] %s.\n", R0,
                  c->bnd == 0 ? "inside [0, n) and 0 outside" : c->bnd == 1 ? "with j clamped into [0, n-1]"
                                                                 : "inside [0, n), and out[i] = x[i] where the window leaves the array");
    else pg_buf_printf(cu, "// out[i] = sum over k of c_k * X(i - %d + k), one output per thread; X(j) is x[j] %s.\n", R0,
                  c->bnd == 0 ? "inside [0, n) and 0 outside" : c->bnd == 1 ? "with j clamped into [0, n-1]"
                                                                 : "inside [0, n), and out[i] = x[i] where the window leaves the array");
    pg_buf_printf(cu, "extern \"C\" __global__ void __launch_bounds__(%d) %s(const %s* __restrict__ x, %s* __restrict__ out, ", B, name, T, T);
    if (c->scalars)
        for (int k = 0; k < ncoef(c); k++) pg_buf_printf(cu, "%s c%d, ", T, k);
    pg_buf_puts(cu, "unsigned int n)\n{\n");
    int in = 1;
    if (c->smem) {
        synth_fam_linef(e, PL, "__shared__ %s tile[%d];   // the block's %d inputs and a halo of %d on each side", T, B + 2 * R0, B, R0);
        synth_fam_plan(cu, in, e);
    }
    if (c->bnd == 1) {
        synth_fam_linef(P->nm1, PL, "int nm1 = (int)n - 1;   // the last valid index");
        synth_fam_plan(cu, in, P->nm1);
    }
    synth_fam_linef(P->t, PL, "unsigned int t = threadIdx.x;");
    synth_fam_plan(cu, in, P->t);
    synth_fam_linef(P->i, PL, "int i = blockIdx.x * %d + t;   // the global index", B);
    synth_fam_plan(cu, in, P->i);
    if (c->smem) {
        synth_fam_linef(P->ts, PL, "%s* ts = &tile[t];   // ts[k] is X(i - %d + k)", T, R0);
        synth_fam_plan(cu, in, P->ts);
        x_expr(c, "i", e, sizeof e);
        synth_fam_linef(P->mid, PL, "ts[%d] = %s;   // every thread, also past n: X(i)", R0, e);
        synth_fam_plan(cu, in, P->mid);
        synth_fam_linef(P->halo, PL, "if (t < %d) {   // threads t < %d also load the left and the right halo", R0, R0);
        synth_fam_plan(cu, in++, P->halo);
        snprintf(j, sizeof j, "i - %d", R0);
        x_expr(c, j, e, sizeof e);
        synth_fam_linef(P->left, PL, "ts[0] = %s;", e);
        synth_fam_plan(cu, in, P->left);
        snprintf(j, sizeof j, "i + %d", B);
        x_expr(c, j, e, sizeof e);
        synth_fam_linef(P->right, PL, "ts[%d] = %s;", B + R0, e);
        synth_fam_plan(cu, in, P->right);
        synth_fam_plan(cu, --in, "}");
        synth_fam_linef(P->sync, PL, "__syncthreads();   // the tile is complete");
        synth_fam_plan(cu, in, P->sync);
    }
    synth_fam_linef(P->quit, PL, "if ((unsigned int)i >= n) return;");
    synth_fam_plan(cu, in, P->quit);
    if (c->smem) {
        pg_buf v = {0};
        pg_buf_printf(&v, "%s ", T);
        for (int k = 0; k < K; k++) pg_buf_printf(&v, "%sv%d = ts[%d]", k ? ", " : "", k, k);
        pg_buf_puts(&v, ";");
        synth_fam_linef(P->vals, PL, "%s", v.data);
        synth_fam_plan(cu, in, P->vals);
        pg_buf_free(&v);
    }
    synth_fam_linef(P->po, PL, "%s* po = out + i;   // &out[i]", T);
    synth_fam_plan(cu, in, P->po);
    if (c->bnd == 2) {
        synth_fam_linef(P->edge, PL, "if ((unsigned int)i < %d || (unsigned int)(i + %d) >= n) {   // the window leaves the array", R0, R0);
        synth_fam_plan(cu, in++, P->edge);
        if (c->smem) synth_fam_linef(P->copy, PL, "*po = v%d;   // edge: copy x[i]", R0);
        else synth_fam_linef(P->copy, PL, "*po = x[i];   // edge: copy x[i]");
        synth_fam_plan(cu, in, P->copy);
        synth_fam_plan(cu, in, "return;");
        synth_fam_plan(cu, --in, "}");
    }
    if (!c->smem)
        for (int k = 0; k < K; k++) {
            if (k == R0) snprintf(j, sizeof j, "i");
            else snprintf(j, sizeof j, "i %c %d", k < R0 ? '-' : '+', k < R0 ? R0 - k : k - R0);
            x_expr(c, j, e, sizeof e);
            synth_fam_linef(P->tap[k], PL, "%s v%d = %s;", T, k, e);
            synth_fam_plan(cu, in, P->tap[k]);
        }
    pg_buf f = {0};
    if (c->sym) {   /* the centre, then each pair at distance d: its sum times c_d */
        synth_fam_linef(P->mul, PL, "%s s = %s(%s, v%d);", T, c->f64 ? "__dmul_rn" : "__fmul_rn", co[R0], R0);
        for (int d = 1; d <= R0; d++)
            pg_buf_printf(&f, "%ss = %s(%s, v%d + v%d, s);", d > 1 ? " " : "", c->f64 ? "fma" : "fmaf", co[R0 + d], R0 - d, R0 + d);
    } else {
        synth_fam_linef(P->mul, PL, "%s s = %s(%s, v0);", T, c->f64 ? "__dmul_rn" : "__fmul_rn", co[0]);
        for (int k = 1; k < K; k++) pg_buf_printf(&f, "%ss = %s(%s, v%d, s);", k > 1 ? " " : "", c->f64 ? "fma" : "fmaf", co[k], k);
    }
    synth_fam_plan(cu, in, P->mul);
    synth_fam_linef(P->fmas, PL, "%s", f.data);
    synth_fam_plan(cu, in, P->fmas);
    pg_buf_free(&f);
    synth_fam_linef(P->store, PL, "*po = s;");
    synth_fam_plan(cu, in, P->store);
    pg_buf_puts(cu, "}\n");
}

static void emit_ptx(const st_cfg *c, const char *name, const st_plan *P, pg_buf *out) {
    pg_buf body = {0};
    sem e = {&body, {0}, c, 0, 0, 0};
    pg_buf *b = &body;
    const int R0 = c->radius, K = 2 * R0 + 1, B = c->block, S = c->f64 ? 8 : 4;
    const char *R = c->f64 ? "%fd" : "%f", *T = c->f64 ? "f64" : "f32";
    e.rx = ++e.g.rd;
    int ro = ++e.g.rd;
    pg_buf_printf(b, "\tld.param.u64 %%rd%d, [x];\n\tld.param.u64 %%rd%d, [out];\n", e.rx, ro);
    char co[7][40];
    if (c->scalars) {
        char pc[7][40];
        for (int q = 0; q < ncoef(c); q++) {
            int rcf = nv(&e);
            pg_buf_printf(b, "\tld.param.%s %s%d, [c%d];\n", T, R, rcf, q);
            snprintf(pc[q], sizeof pc[q], "%s%d", R, rcf);
        }
        for (int k = 0; k < K; k++) snprintf(co[k], sizeof co[k], "%s", pc[coef_of(c, k)]);
    } else
        for (int k = 0; k < K; k++) synth_fam_imm(co[k], sizeof co[k], c->c[k], c->f64);
    e.rn = ++e.g.r;
    pg_buf_printf(b, "\tld.param.u32 %%r%d, [n];\n", e.rn);
    pg_buf_printf(b, "\tcvta.to.global.u64 %%rd%d, %%rd%d;\n\tcvta.to.global.u64 %%rd%d, %%rd%d;\n", e.rx, e.rx, ro, ro);
    if (c->bnd == 1) {
        e.rnm1 = ++e.g.r;
        synth_fam_note(b, P->nm1);
        pg_buf_printf(b, "\tadd.s32 %%r%d, %%r%d, -1;\n", e.rnm1, e.rn);
    }
    int rt = ++e.g.r, rc = ++e.g.r, rbase = ++e.g.r, ri = ++e.g.r;
    synth_fam_note(b, P->t);
    pg_buf_printf(b, "\tmov.u32 %%r%d, %%tid.x;\n", rt);
    synth_fam_note(b, P->i);
    pg_buf_printf(b, "\tmov.u32 %%r%d, %%ctaid.x;\n", rc);
    pg_buf_printf(b, "\tmul.lo.u32 %%r%d, %%r%d, %d;\n\tadd.s32 %%r%d, %%r%d, %%r%d;\n", rbase, rc, B, ri, rbase, rt);
    int vals[7];
    int rsm = 0;
    if (c->smem) {
        /* tile s[0 .. B+2R): s[t+R] = X(i); threads t < R: s[t] = X(base-R+t), s[B+R+t] = X(base+B+t) */
        rsm = ++e.g.r;
        int rat = ++e.g.r;
        synth_fam_note(b, P->ts);
        pg_buf_printf(b, "\tmov.u32 %%r%d, tile;\n\tshl.b32 %%r%d, %%r%d, %d;\n\tadd.s32 %%r%d, %%r%d, %%r%d;\n", rsm, rat, rt,
                      c->f64 ? 3 : 2, rat, rsm, rat);
        synth_fam_note(b, P->mid);
        int v0 = load_x(&e, ri);
        pg_buf_printf(b, "\tst.shared.%s [%%r%d+%d], %s%d;\n", T, rat, R0 * S, R, v0);
        int ph = ++e.g.p;
        synth_fam_note(b, P->halo);
        pg_buf_printf(b, "\tsetp.ge.u32 %%p%d, %%r%d, %d;\n\t@%%p%d bra HALO_DONE;\n", ph, rt, R0, ph);
        int rl = ++e.g.r, rr = ++e.g.r;
        synth_fam_note(b, P->left);
        pg_buf_printf(b, "\tadd.s32 %%r%d, %%r%d, %d;\n", rl, ri, -R0);
        int vl = load_x(&e, rl);
        pg_buf_printf(b, "\tst.shared.%s [%%r%d], %s%d;\n", T, rat, R, vl);
        synth_fam_note(b, P->right);
        pg_buf_printf(b, "\tadd.s32 %%r%d, %%r%d, %d;\n", rr, ri, B);
        int vr = load_x(&e, rr);
        pg_buf_printf(b, "\tst.shared.%s [%%r%d+%d], %s%d;\n", T, rat, (B + R0) * S, R, vr);
        pg_buf_puts(b, "HALO_DONE:\n");
        synth_fam_note(b, P->sync);
        pg_buf_puts(b, "\tbar.sync 0;\n");
        int pd = ++e.g.p;
        synth_fam_note(b, P->quit);
        pg_buf_printf(b, "\tsetp.ge.u32 %%p%d, %%r%d, %%r%d;\n\t@%%p%d bra DONE;\n", pd, ri, e.rn, pd);
        synth_fam_note(b, P->vals);
        for (int k = 0; k < K; k++) {
            vals[k] = nv(&e);
            pg_buf_printf(b, "\tld.shared.%s %s%d, [%%r%d+%d];\n", T, R, vals[k], rat, k * S);
        }
    } else {
        int pd = ++e.g.p;
        synth_fam_note(b, P->quit);
        pg_buf_printf(b, "\tsetp.ge.u32 %%p%d, %%r%d, %%r%d;\n\t@%%p%d bra DONE;\n", pd, ri, e.rn, pd);
    }
    int rdo = ++e.g.rd;
    synth_fam_note(b, P->po);
    pg_buf_printf(b, "\tmul.wide.u32 %%rd%d, %%r%d, %d;\n\tadd.s64 %%rd%d, %%rd%d, %%rd%d;\n", rdo, ri, S, rdo, ro, rdo);
    if (c->bnd == 2) {
        int p1 = ++e.g.p, p2 = ++e.g.p, rr = ++e.g.r;
        synth_fam_note(b, P->edge);
        pg_buf_printf(b, "\tsetp.lt.u32 %%p%d, %%r%d, %d;\n\tadd.s32 %%r%d, %%r%d, %d;\n\tsetp.ge.u32 %%p%d, %%r%d, %%r%d;\n\tor.pred %%p%d, %%p%d, %%p%d;\n",
                      p1, ri, R0, rr, ri, R0, p2, rr, e.rn, p1, p1, p2);
        pg_buf_printf(b, "\t@!%%p%d bra INTERIOR;\n", p1);
        int vc;
        synth_fam_note(b, P->copy);
        if (c->smem) vc = vals[R0];
        else {
            vc = nv(&e);
            int ra = ++e.g.rd;
            pg_buf_printf(b, "\tmul.wide.u32 %%rd%d, %%r%d, %d;\n\tadd.s64 %%rd%d, %%rd%d, %%rd%d;\n\tld.global.nc.%s %s%d, [%%rd%d];\n", ra, ri,
                          S, ra, e.rx, ra, T, R, vc, ra);
        }
        pg_buf_printf(b, "\tst.global.%s [%%rd%d], %s%d;\n\tbra.uni DONE;\nINTERIOR:\n", T, rdo, R, vc);
    }
    if (!c->smem) {
        for (int k = 0; k < K; k++) {
            int rj = ++e.g.r;
            synth_fam_note(b, P->tap[k]);
            pg_buf_printf(b, "\tadd.s32 %%r%d, %%r%d, %d;\n", rj, ri, k - R0);
            vals[k] = load_x(&e, rj);
        }
    }
    int acc = nv(&e);
    synth_fam_note(b, P->mul);
    if (c->sym) {
        pg_buf_printf(b, "\tmul.rn.%s %s%d, %s, %s%d;\n", T, R, acc, co[R0], R, vals[R0]);
        synth_fam_note(b, P->fmas);
        for (int d = 1; d <= R0; d++) {
            int ps = nv(&e), a2 = nv(&e);
            pg_buf_printf(b, "\tadd.rn.%s %s%d, %s%d, %s%d;\n", T, R, ps, R, vals[R0 - d], R, vals[R0 + d]);
            pg_buf_printf(b, "\tfma.rn.%s %s%d, %s, %s%d, %s%d;\n", T, R, a2, co[R0 + d], R, ps, R, acc);
            acc = a2;
        }
    } else {
        pg_buf_printf(b, "\tmul.rn.%s %s%d, %s, %s%d;\n", T, R, acc, co[0], R, vals[0]);
        synth_fam_note(b, P->fmas);
        for (int k = 1; k < K; k++) {
            int a2 = nv(&e);
            pg_buf_printf(b, "\tfma.rn.%s %s%d, %s, %s%d, %s%d;\n", T, R, a2, co[k], R, vals[k], R, acc);
            acc = a2;
        }
    }
    synth_fam_note(b, P->store);
    pg_buf_printf(b, "\tst.global.%s [%%rd%d], %s%d;\n", T, rdo, R, acc);
    pg_buf_puts(b, "DONE:\n\tret;\n}\n");

    pg_buf_puts(out, "// GENERATED_BY: ptxgen synth/family stencil1d\n");
    pg_buf_printf(out, "// %s: %d-point 1D stencil (radius %d, %s), boundary %s, %s, coefficients %s.\n", name, K, R0, T, BND[c->bnd],
                  c->smem ? "shared-memory tile with halo" : "direct global loads", c->scalars ? "as parameters" : "baked in");
    pg_buf_puts(out, ".version 8.0\n.target sm_80\n.address_size 64\n\n");
    pg_buf_printf(out, ".visible .entry %s(\n\t.param .u64 x,\n\t.param .u64 out,\n", name);
    if (c->scalars)
        for (int k = 0; k < ncoef(c); k++) pg_buf_printf(out, "\t.param .%s c%d,\n", T, k);
    pg_buf_printf(out, "\t.param .u32 n\n)\n.maxntid %d, 1, 1\n{\n", B);
    synth_fam_decls(&e.g, out);
    if (c->smem) pg_buf_printf(out, "\t.shared .align %d .%s tile[%d];\n", S, T, B + 2 * R0);
    pg_buf_putc(out, '\n');
    pg_buf_puts(out, body.data);
    pg_buf_free(&body);
    (void)rsm;
}

/* ---- descriptions (describe.h) ------------------------------------------------------ */
static json_t *st_describe(const st_cfg *c, const char *formula, char lit[7][32], uint64_t seed, const json_t *task) {
    const int R0 = c->radius, K = 2 * R0 + 1;
    const char *CT = c->f64 ? "double" : "float";
    pg_buf w = {0}, win = {0}, win_zh = {0}, coefl = {0}, notes = {0}, notes_zh = {0};
    for (int k = 0; k < K; k++) {   /* the weights in tap order, the window's elements */
        if (c->scalars) pg_buf_printf(&w, "%sc%d", k ? ", " : "", coef_of(c, k));
        else pg_buf_printf(&w, "%s%s", k ? ", " : "", lit[k]);
        pg_buf_printf(&win, "%sx[i%+d]", k ? (k == K - 1 ? " and " : ", ") : "", k - R0);
        pg_buf_printf(&win_zh, "%sx[i%+d]", k ? "、" : "", k - R0);
    }
    for (int q = 0; q < ncoef(c); q++) pg_buf_printf(&coefl, "%sc%d = %s", q ? ", " : "", q, lit[c->sym ? R0 + q : q]);
    for (pg_buf *b2 = &win; b2; b2 = b2 == &win ? &win_zh : NULL) {   /* "x[i+0]" reads "x[i]" */
        char *p = strstr(b2->data, "[i+0]");
        if (p) { memmove(p + 2, p + 4, strlen(p + 4) + 1); b2->len -= 2; }
    }
    char nm[5][64], nz[3][64], ex[3][400], ez[2][400], shape[96], shape_zh[96];
    snprintf(nm[0], sizeof nm[0], "%d-point 1D stencil", K);
    snprintf(nm[1], sizeof nm[1], "1D radius-%d stencil", R0);
    snprintf(nm[2], sizeof nm[2], "%d-tap 1D convolution", K);
    snprintf(nm[3], sizeof nm[3], "1D %d-point filter", K);
    snprintf(nm[4], sizeof nm[4], "radius-%d stencil", R0);
    snprintf(nz[0], sizeof nz[0], "一维 %d 点模板", K);
    snprintf(nz[1], sizeof nz[1], "半径 %d 的一维模板计算", R0);
    snprintf(nz[2], sizeof nz[2], "%d 抽头一维卷积", K);
    snprintf(ex[0], sizeof ex[0], "replace every x[i] by the weighted sum of %s with the weights %s (in that order), writing it to out[i]", win.data,
             w.data);
    snprintf(ex[1], sizeof ex[1], "slide a %d-point window over x and write the weighted sum with the weights %s (leftmost neighbour first) to out at the window's centre",
             K, w.data);
    snprintf(ex[2], sizeof ex[2], "smooth x with the %d taps %s centred on each element (offsets -%d to +%d) and store the result in out", K, w.data,
             R0, R0);
    snprintf(ez[0], sizeof ez[0], "把 %s 按权重 %s 加权求和，写入 out[i]", win_zh.data, w.data);
    snprintf(ez[1], sizeof ez[1], "用 %d 个系数 %s（从最左边的邻居开始）对 x 做滑动加权和，结果写到窗口中心对应的 out 位置", K, w.data);
    if (c->sym) {   /* one weight per distance: the pair x[i-d], x[i+d] shares it */
        pg_buf pw = {0};
        for (int q = 0; q <= R0; q++) {
            const char *cq = c->scalars ? NULL : lit[R0 + q];
            char cn[16];
            snprintf(cn, sizeof cn, "c%d", q & 7);
            if (!q) pg_buf_printf(&pw, "%s for x[i]", cq ? cq : cn);
            else pg_buf_printf(&pw, "%s%s for x[i-%d] and x[i+%d]", q == R0 ? " and " : ", ", cq ? cq : cn, q, q);
        }
        snprintf(ex[0], sizeof ex[0], "replace every x[i] by a symmetric weighted sum of its window: weight %s, writing it to out[i]", pw.data);
        snprintf(ex[1], sizeof ex[1], "apply a symmetric %d-point stencil whose weight depends only on the distance from i (%s) and store it in out[i]", K,
                 pw.data);
        snprintf(ex[2], sizeof ex[2], "out[i] is the centre weight times x[i] plus, for each distance d = 1..%d, the weight of d times x[i-d] + x[i+d]",
                 R0);
        snprintf(ez[0], sizeof ez[0], "对称加权：x[i] 乘中心系数，距离为 d 的一对 x[i-d]、x[i+d] 之和乘第 d 个系数（d = 1..%d），求和写入 out[i]", R0);
        snprintf(ez[1], sizeof ez[1], "%d 点对称模板，系数只取决于到 i 的距离", K);
        pg_buf_free(&pw);
    }
    snprintf(shape, sizeof shape, "x and out hold n %ss", CT);
    snprintf(shape_zh, sizeof shape_zh, "x 和 out 各有 n 个 %s", CT);
    static const char *BW[] = {"values of x outside [0, n) count as zero", "out-of-range indices are clamped to [0, n-1]",
                               "where the window leaves the array (i < R or i >= n-R) out[i] = x[i]"};
    static const char *BZ[] = {"越界的 x 按 0 处理", "越界下标截断到 [0, n-1]", "窗口越界处（i < R 或 i >= n-R）直接复制 out[i] = x[i]"};
    pg_buf_printf(&notes, "%s (R = %d)", BW[c->bnd], R0);
    pg_buf_printf(&notes_zh, "%s（R = %d）", BZ[c->bnd], R0);
    if (c->scalars) {
        pg_buf_printf(&notes, "; the coefficients are kernel parameters, here %s", coefl.data);
        pg_buf_printf(&notes_zh, "；系数是 kernel 参数，这里 %s", coefl.data);
    }
    const char *n_en[] = {nm[0], nm[1], nm[2], nm[3], nm[4], NULL}, *n_zh[] = {nz[0], nz[1], nz[2], NULL};
    const char *e_en[] = {ex[0], ex[1], ex[2], NULL}, *e_zh[] = {ez[0], ez[1], NULL};
    const char *hw[3], *hz[2];
    if (c->smem) {
        hw[0] = "a shared-memory tile of the block's inputs plus a halo of R on each side, one barrier";
        hw[1] = "stage the block's inputs and the halo in shared memory, synchronize once, then read the window from shared memory";
        hz[0] = "使用带光环（halo）的共享内存分块，一次同步";
    } else {
        hw[0] = "direct global loads: each thread reads its window from global memory (neighbours hit in cache)";
        hw[1] = "one output per thread reading its window straight from global memory";
        hz[0] = "每个线程直接从全局内存读取自己的窗口";
    }
    hw[2] = hz[1] = NULL;
    desc_facts f = {.name_en = n_en, .name_zh = n_zh, .formula = formula, .explain_en = e_en, .explain_zh = e_zh, .how_en = hw, .how_zh = hz,
                    .shape_en = shape, .shape_zh = shape_zh, .notes_en = notes.data, .notes_zh = notes_zh.data, .elems_per_thread = 1,
                    .data = DESC_DATA_VECTOR, .hints = DESC_HINT_COALESCED | DESC_HINT_MEMBOUND | (c->smem ? DESC_HINT_SMEM : 0u)};
    json_t *d = synth_desc_render_all(&f, task, seed);
    pg_buf_free(&w); pg_buf_free(&win); pg_buf_free(&win_zh); pg_buf_free(&coefl); pg_buf_free(&notes); pg_buf_free(&notes_zh);
    return d;
}

static void emit_json(const st_cfg *c, const char *name, fam_rng *r, pg_buf *out) {
    const int R0 = c->radius, K = 2 * R0 + 1, B = c->block;
    const char *T = c->f64 ? "f64" : "f32";
    char lit[7][32], grid[32];
    for (int k = 0; k < K; k++) synth_fam_lit(lit[k], sizeof lit[k], c->c[k]);
    snprintf(grid, sizeof grid, "cdiv(n,%d)", B);
    json_t *root = json_object();
    json_object_set_new(root, "name", json_string(name));
    json_object_set_new(root, "family", json_string("stencil1d"));
    json_object_set_new(root, "kernel", json_string(name));
    json_t *taps = json_array(), *cs = json_array();
    for (int k = 0; k < K; k++) {
        json_array_append_new(taps, json_pack("[i,i]", 0, k - R0));
        json_array_append_new(cs, json_real(c->c[k]));
    }
    json_object_set_new(root, "family_params",
                        json_pack("{s:s, s:i, s:i, s:s, s:b, s:b, s:o, s:o, s:b}", "dtype", T, "radius", R0, "block", B, "boundary",
                                  BND[c->bnd], "smem", c->smem, "coeff_params", c->scalars, "taps", taps, "coeffs", cs, "symmetric", c->sym));
    if (c->sym) {   /* tap k's parameter: c|k-R| (the reference reads it) */
        json_t *tc = json_array();
        for (int k = 0; k < K; k++) json_array_append_new(tc, json_integer(coef_of(c, k)));
        json_object_set_new(json_object_get(root, "family_params"), "tap_coeff", tc);
    }
    pg_buf formula = {0};
    pg_buf_puts(&formula, "out[i] = ");
    if (c->sym)
        for (int q = 0; q <= R0; q++) {
            char cq[40];
            if (c->scalars) snprintf(cq, sizeof cq, "c%d", q);
            else snprintf(cq, sizeof cq, "%s", lit[R0 + q]);
            if (!q) pg_buf_printf(&formula, "%s*x[i]", cq);
            else pg_buf_printf(&formula, " + %s*(x[i-%d] + x[i+%d])", cq, q, q);
        }
    else
        for (int k = 0; k < K; k++) {
            if (c->scalars) pg_buf_printf(&formula, "%sc%d*x[i%+d]", k ? " + " : "", k, k - R0);
            else pg_buf_printf(&formula, "%s%s*x[i%+d]", k ? " + " : "", lit[k], k - R0);
        }
    { /* "x[i+0]" reads better as "x[i]" */
        char *p = strstr(formula.data, "[i+0]");
        if (p) { memmove(p + 2, p + 4, strlen(p + 4) + 1); formula.len -= 2; }
    }
    json_object_set_new(root, "descriptions", json_null());   /* rendered below, from params and launch */
    char pt[8];
    snprintf(pt, sizeof pt, "%s*", T);
    json_t *ps = json_array();
    json_array_append_new(ps, json_pack("{s:s, s:s, s:s, s:s}", "name", "x", "type", pt, "role", "in", "len", "n"));
    json_array_append_new(ps, json_pack("{s:s, s:s, s:s, s:s}", "name", "out", "type", pt, "role", "out", "len", "n"));
    if (c->scalars)
        for (int q = 0; q < ncoef(c); q++) {
            char nm[16];
            snprintf(nm, sizeof nm, "c%d", q & 7);
            json_array_append_new(ps, json_pack("{s:s, s:s, s:s}", "name", nm, "type", T, "value", lit[c->sym ? R0 + q : q]));
        }
    json_array_append_new(ps, json_pack("{s:s, s:s, s:s}", "name", "n", "type", "u32", "value", "n"));
    json_object_set_new(root, "params", ps);
    json_t *sz = json_array();
    json_array_append_new(sz, json_pack("{s:i, s:b}", "n", 33554432, "time", 1));
    const int more[] = {1000003, B + 1, 777, 5, 2, 1};
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++) json_array_append_new(sz, json_pack("{s:i}", "n", more[i]));
    json_object_set_new(root, "sizes", sz);
    char blk[16];
    snprintf(blk, sizeof blk, "%d", B);
    json_object_set_new(root, "launch", json_pack("{s:[s], s:[s], s:s}", "block", blk, "grid", grid, "smem", "0"));
    json_object_set_new(root, "distributions", json_pack("[s, s]", "uniform(-1,1)", "normal(0,10)"));
    json_t *tol = json_object();
    json_object_set_new(tol, T, json_real(c->f64 ? 1e-12 : 1e-5));
    json_object_set_new(root, "tolerance", tol);
    json_object_set_new(root, "reference", json_pack("{s:s, s:s}", "kind", "c", "name", synth_fam_ref(synth_fam_gen_stencil1d)));
    char bytes[32], flops[32];
    snprintf(bytes, sizeof bytes, "%d*n", c->f64 ? 16 : 8);
    snprintf(flops, sizeof flops, "%d*n", 2 * K - 1);
    json_object_set_new(root, "cost", json_pack("{s:s, s:s}", "bytes", bytes, "flops", flops));
    json_object_set_new(root, "descriptions", st_describe(c, formula.data, lit, synth_fam_next(r), root));
    synth_task_json_write(root, out);
    json_decref(root);
    pg_buf_free(&formula);
}

pg_status synth_fam_gen_stencil1d(uint64_t seed, synth_family_sample *s) {
    fam_rng r = {seed ^ 0x7374656e63696c31ull};
    st_cfg c;
    memset(&c, 0, sizeof c);
    c.radius = 1 + synth_fam_pick(&r, 2);
    c.block = 128 << synth_fam_pick(&r, 3);
    c.f64 = synth_fam_pick(&r, 4) == 0;
    c.scalars = synth_fam_pick(&r, 2);
    c.smem = synth_fam_pick(&r, 2);
    c.bnd = synth_fam_pick(&r, 3);
    /* coefficients: multiples of 1/8 in [-2, 2], exact in every type; a few classic sets */
    static const double CLASSIC3[][3] = {{0.25, 0.5, 0.25}, {-1.0, 2.0, -1.0}, {1.0, -2.0, 1.0}, {0.25, 0.5, -0.75}};
    static const double CLASSIC5[][5] = {{0.0625, 0.25, 0.375, 0.25, 0.0625}, {-0.125, 1.0, 0.0, -1.0, 0.125}};
    int K = 2 * c.radius + 1, kind = synth_fam_pick(&r, 3);
    for (int k = 0; k < K; k++) c.c[k] = (double)(synth_fam_pick(&r, 33) - 16) / 8.0;
    if (kind == 0 && K == 3) memcpy(c.c, CLASSIC3[synth_fam_pick(&r, 4)], sizeof(double) * 3);
    if (kind == 0 && K == 5) memcpy(c.c, CLASSIC5[synth_fam_pick(&r, 2)], sizeof(double) * 5);
    if (c.c[c.radius] == 0 && kind) c.c[c.radius] = 1.0;
    snprintf(s->family, sizeof s->family, "stencil1d");
    snprintf(s->source, sizeof s->source, "ptx-template");
    static const char *STY[] = {"stencil1d_%dpt_%s_%s%s_b%d", "st%d_%s_%s%s_%d", "conv1d_r%d_%s_%s%s_%d"};
    int st = synth_fam_pick(&r, 3);
    /* the symmetric variant, from a stream of its own (the draws above stay as they were):
     * a third of the samples, radius 1, 2 or 3, a weight per distance */
    fam_rng r2 = {seed ^ 0x73796d6d73743144ull};
    if (synth_fam_pick(&r2, 3) == 0) {
        c.sym = true;
        c.radius = 1 + synth_fam_pick(&r2, 3);
        K = 2 * c.radius + 1;
        double wd[4];
        for (int q = 0; q <= c.radius; q++) wd[q] = (double)(synth_fam_pick(&r2, 33) - 16) / 8.0;
        if (wd[0] == 0) wd[0] = 1.0;
        for (int k = 0; k < K; k++) c.c[k] = wd[k < c.radius ? c.radius - k : k - c.radius];
        /* held out (bench/suite stencil1d_5pt): f32, radius 2, parameters, copy edges, 256 threads */
        if (!c.f64 && c.radius == 2 && c.scalars && c.bnd == 2 && c.block == 256) c.bnd = 1;
    }
    const char *sy = c.sym ? "sym_" : "";
    if (st == 0) snprintf(s->name, sizeof s->name, "stencil1d_%dpt_%s%s_%s%s_b%d", K, sy, c.f64 ? "f64" : "f32", BND[c.bnd], c.smem ? "_smem" : "", c.block);
    else if (st == 1) snprintf(s->name, sizeof s->name, "st%d_%s%s_%s%s_%d", K, sy, c.f64 ? "f64" : "f32", BND[c.bnd], c.smem ? "_smem" : "", c.block);
    else snprintf(s->name, sizeof s->name, "conv1d_r%d_%s%s_%s%s_%d", c.radius, sy, c.f64 ? "f64" : "f32", BND[c.bnd], c.smem ? "_smem" : "", c.block);
    (void)STY;
    synth_fam_fit_name(s->name);   /* within the decoder's PG_NAME_MAX */
    /* coefficients are part of what is computed when baked in */
    pg_buf id = {0};
    pg_buf_printf(&id, "stencil1d:%s:r%d:%s:%s:b%d:%s%s", c.f64 ? "f64" : "f32", c.radius, BND[c.bnd], c.smem ? "smem" : "direct", c.block,
                  c.scalars ? "params" : "baked", c.sym ? ":sym" : "");
    if (!c.scalars)
        for (int k = 0; k < K; k++) pg_buf_printf(&id, ":%g", c.c[k]);
    snprintf(s->identity, sizeof s->identity, "%s", id.data);
    pg_buf_free(&id);
    st_plan plan;
    emit_plan(&c, s->name, &plan, &s->cu);
    emit_ptx(&c, s->name, &plan, &s->ptx);
    emit_json(&c, s->name, &r, &s->task_json);
    return PG_OK;
}
