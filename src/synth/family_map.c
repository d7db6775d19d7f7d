/* family_map.c — the elementwise map family (PTX template).
 *
 * out[i] = OP(x[i], y[i], scalars) for i < n, with
 *   dtype   f32 / f64 / f16 (f16 is stored as f16 and computed in f32),
 *   block   128 / 256 / 512 threads,
 *   vector  1 / 2 / 4 elements per load (f64: 1 / 2),
 *   unroll  1 / 2 / 4 vectors per thread per tile,
 *   mode    one tile per block (grid cdiv(n,TILE)) or a grid-stride loop
 *           over tiles (grid min(cdiv(n,TILE*M),CAP), M = 1/2/4/8 tiles per
 *           block before the cap; the loop steps by gridDim.x tiles whatever M is).
 * A tile is B*U*V elements: vector u of thread t starts at
 * tile + (u*B + t)*V, so every unrolled step is one coalesced block-wide
 * access.  When all of a thread's vectors are inside [0,n) it takes the
 * vector path (all loads first, then the math, then the stores); otherwise it
 * walks its elements one by one up to n (only the last tile gets there). */
#include "ptxgen/synth.h"
#include "family_internal.h"
#include "describe.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

typedef enum { OP_SCALE, OP_ADD, OP_MUL, OP_AXPY, OP_AXPBY, OP_RELU, OP_CLAMP, OP_ABSDIFF, OP__N } map_op;
static const struct {
    const char *name;
    int nin;            /* 1: x; 2: x, y */
    const char *sc[2];  /* scalar parameter names */
    bool inplace;       /* output is y (inout) */
    int flops;
    const char *math, *phrase, *zh;
} OPS[OP__N] = {
    [OP_SCALE] = {"scale", 1, {"a", NULL}, false, 1, "out[i] = a * x[i]", "scale a vector by a scalar", "向量数乘"},
    [OP_ADD] = {"add", 2, {NULL, NULL}, false, 1, "out[i] = x[i] + y[i]", "add two vectors", "向量加法"},
    [OP_MUL] = {"mul", 2, {NULL, NULL}, false, 1, "out[i] = x[i] * y[i]", "multiply two vectors elementwise (Hadamard product)", "逐元素乘法"},
    [OP_AXPY] = {"axpy", 2, {"a", NULL}, true, 2, "y[i] = a * x[i] + y[i]", "AXPY update y += a*x in place", "AXPY 原地更新"},
    [OP_AXPBY] = {"axpby", 2, {"a", "b"}, false, 3, "out[i] = a * x[i] + b * y[i]", "linear combination a*x + b*y", "线性组合 a*x + b*y"},
    [OP_RELU] = {"relu", 1, {NULL, NULL}, false, 1, "out[i] = max(x[i], 0)", "apply ReLU", "ReLU 激活"},
    [OP_CLAMP] = {"clamp", 1, {"lo", "hi"}, false, 2, "out[i] = min(max(x[i], lo), hi)", "clamp every element to [lo, hi]", "把每个元素截断到 [lo, hi]"},
    [OP_ABSDIFF] = {"absdiff", 2, {NULL, NULL}, false, 2, "out[i] = |x[i] - y[i]|", "absolute difference of two vectors", "两个向量差的绝对值"},
};

typedef enum { D_F32, D_F64, D_F16 } dkind;
static const char *DNAME[] = {"f32", "f64", "f16"};
static const char *DCNAME[] = {"float", "double", "half"};
static const int DSIZE[] = {4, 8, 2};

typedef struct {
    map_op op;
    dkind dt;
    int block, vec, unroll, cap;   /* cap 0: one tile per block */
    int tiles;                     /* grid-stride: the grid's divisor in tiles (M) */
    double sc[2];
} map_cfg;

typedef struct {
    pg_buf *b;
    fam_regs g;
    dkind dt;
    int scr[2];   /* scalar registers (compute type) */
} em;

static const char *creg(dkind d) { return d == D_F64 ? "%fd" : "%f"; }
static const char *ctype(dkind d) { return d == D_F64 ? "f64" : "f32"; }
static int newc(em *e) { return e->dt == D_F64 ? ++e->g.fd : ++e->g.f; }

/* ---- the CUDA C plan ------------------------------------------------------------------ */
/* The plan's lines that head blocks of the PTX (docs/LITERATE.md).  The plan
 * mirrors the template: the same tile, vector width, unroll, grid-stride loop
 * and element-by-element path for a partial tile. */
enum { PL = 200 };
typedef struct {
    char t[PL], tile[PL], stride[PL], loop[PL], e0[PL], guard[PL], px[PL], py[PL], po[PL];
    char ldx[4][PL], ldy[4][PL], cvx[4][PL], cvy[4][PL], math[4][4][PL], st[4][PL];
    int nmath[4];   /* math lines per vector: 1 (one expression) or V (one per lane) */
    char ufor[PL], v[PL], vif[PL], efor[PL], e[PL], sld[PL], sst[PL];
} map_plan;

static const char *LANE[] = {".x", ".y", ".z", ".w"};

/* OP of the compute-type operands X and Y as C. */
static void op_expr(map_op op, bool f64, const char *X, const char *Y, char *out, size_t n) {
    switch (op) {
    case OP_SCALE: synth_fam_linef(out, n, "%s(a, %s)", f64 ? "__dmul_rn" : "__fmul_rn", X); break;
    case OP_ADD: synth_fam_linef(out, n, "%s(%s, %s)", f64 ? "__dadd_rn" : "__fadd_rn", X, Y); break;
    case OP_MUL: synth_fam_linef(out, n, "%s(%s, %s)", f64 ? "__dmul_rn" : "__fmul_rn", X, Y); break;
    case OP_AXPY: synth_fam_linef(out, n, "%s(a, %s, %s)", f64 ? "fma" : "fmaf", X, Y); break;
    case OP_AXPBY: synth_fam_linef(out, n, "%s(a, %s, %s(b, %s))", f64 ? "fma" : "fmaf", X, f64 ? "__dmul_rn" : "__fmul_rn", Y); break;
    case OP_RELU: synth_fam_linef(out, n, "%s(%s, %s)", f64 ? "fmax" : "fmaxf", X, f64 ? "0.0" : "0.0f"); break;
    case OP_CLAMP: synth_fam_linef(out, n, "%s(%s(%s, lo), hi)", f64 ? "fmin" : "fminf", f64 ? "fmax" : "fmaxf", X); break;
    case OP_ABSDIFF: synth_fam_linef(out, n, "%s(%s(%s, %s))", f64 ? "fabs" : "fabsf", f64 ? "__dsub_rn" : "__fsub_rn", X, Y); break;
    default: out[0] = 0; break;
    }
}

static void emit_plan(const map_cfg *c, const char *name, map_plan *P, pg_buf *cu) {
    const int B = c->block, V = c->vec, U = c->unroll, TILE = B * U * V;
    const bool gs = c->cap > 0, two = OPS[c->op].nin == 2, inplace = OPS[c->op].inplace, f16 = c->dt == D_F16, f64 = c->dt == D_F64;
    const char *T = f64 ? "double" : f16 ? "__half" : "float", *C = f64 ? "double" : "float";
    static const char *VF[] = {"float", "float2", "", "float4"}, *VD[] = {"double", "double2"}, *VH[] = {"__half", "__half2", "", "half4"};
    const char *VT = f64 ? VD[V - 1] : f16 ? VH[V - 1] : VF[V - 1];   /* the vector as stored */
    const char *CV = f64 ? VD[V - 1] : VF[V - 1];                       /* the vector computed on */
    const char *po = inplace ? "py" : "po";
    char mk[16];
    snprintf(mk, sizeof mk, "make_%s", CV);
    memset(P, 0, sizeof *P);
    pg_buf_printf(cu, "// %s: %s for i < n (%s), %d threads/block, %d-wide vectors x %d per thread, %s.\n", name, OPS[c->op].math,
                  DNAME[c->dt], B, V, U, gs ? "grid-stride loop over tiles" : "one tile per block");
    pg_buf_printf(cu, "// A tile is %d elements (B*U*V): vector u of thread t starts at tile + (u*%d + t)*%d, so every unrolled step is\n"
                      "// one coalesced block-wide access; a thread whose vectors are not all inside [0, n) goes element by element.\n",
                  TILE, B, V);
    if (f16) pg_buf_puts(cu, "// f16 values are converted to f32 for the math and rounded back once.\n#include <cuda_fp16.h>\n");
    if (f16 && V == 4)
        pg_buf_puts(cu, "#ifndef PTXGEN_HALF4\n#define PTXGEN_HALF4\nstruct __align__(8) half4 { __half x, y, z, w; };   // four halves, one 64-bit access\n#endif\n");
    pg_buf_printf(cu, "\nextern \"C\" __global__ void __launch_bounds__(%d) %s(const %s* __restrict__ x, ", B, name, T);
    if (two) pg_buf_printf(cu, "%s%s* __restrict__ y, ", inplace ? "" : "const ", T);
    if (!inplace) pg_buf_printf(cu, "%s* __restrict__ out, ", T);
    for (int k = 0; k < 2 && OPS[c->op].sc[k]; k++) pg_buf_printf(cu, "%s %s, ", C, OPS[c->op].sc[k]);
    pg_buf_puts(cu, "unsigned int n)\n{\n");
    int in = 1;
    if (V > 1) synth_fam_linef(P->t, PL, "unsigned int t = threadIdx.x * %d;   // the thread's offset inside a step", V);
    else synth_fam_linef(P->t, PL, "unsigned int t = threadIdx.x;");
    synth_fam_plan(cu, in, P->t);
    synth_fam_linef(P->tile, PL, "unsigned int tile = blockIdx.x * %d;   // %d elements (B*U*V) per tile", TILE, TILE);
    synth_fam_plan(cu, in, P->tile);
    if (gs) {
        synth_fam_linef(P->stride, PL, "unsigned int stride = gridDim.x * %d;   // the grid stride in elements", TILE);
        synth_fam_plan(cu, in, P->stride);
        synth_fam_linef(P->loop, PL, "for (; tile < n; tile += stride) {");
        synth_fam_plan(cu, in++, P->loop);
    }
    synth_fam_linef(P->e0, PL, "unsigned int e0 = tile + t;   // the first element of vector 0");
    synth_fam_plan(cu, in, P->e0);
    if (U * V > 1) {
        synth_fam_linef(P->guard, PL, "if (e0 + %d <= n) {   // all of this thread's vectors are inside [0, n)", (U - 1) * B * V + V);
        synth_fam_plan(cu, in++, P->guard);
    } else {
        synth_fam_linef(P->guard, PL, "if (e0 >= n) %s;", gs ? "continue" : "return");
        synth_fam_plan(cu, in, P->guard);
    }
    if (V > 1) synth_fam_linef(P->px, PL, "const %s* px = reinterpret_cast<const %s*>(x + e0);   // &x[e0], %d bytes per vector", VT, VT,
                               V * DSIZE[c->dt]);
    else synth_fam_linef(P->px, PL, "const %s* px = x + e0;", T);
    synth_fam_plan(cu, in, P->px);
    if (two) {
        const char *cq = inplace ? "" : "const ";
        if (V > 1) synth_fam_linef(P->py, PL, "%s%s* py = reinterpret_cast<%s%s*>(y + e0);", cq, VT, cq, VT);
        else synth_fam_linef(P->py, PL, "%s%s* py = y + e0;", cq, T);
        synth_fam_plan(cu, in, P->py);
    }
    if (!inplace) {
        if (V > 1) synth_fam_linef(P->po, PL, "%s* po = reinterpret_cast<%s*>(out + e0);", VT, VT);
        else synth_fam_linef(P->po, PL, "%s* po = out + e0;", T);
        synth_fam_plan(cu, in, P->po);
    }
    char l[PL];
    synth_fam_linef(l, PL, "// %d load%s per input in flight before any math", U, U > 1 ? "s" : "");
    synth_fam_plan(cu, in, l);
    for (int u = 0; u < U; u++)
        for (int w = 0; w < (two ? 2 : 1); w++) {
            char *ld = w ? P->ldy[u] : P->ldx[u], *cv = w ? P->cvy[u] : P->cvx[u];
            const char *vn = w ? "y" : "x";
            if (!f16) synth_fam_linef(ld, PL, "%s %s%d = p%s[%d];", VT, vn, u, vn, u * B);
            else {
                synth_fam_linef(ld, PL, "%s h%s%d = p%s[%d];", VT, vn, u, vn, u * B);
                if (V == 1) synth_fam_linef(cv, PL, "float %s%d = __half2float(h%s%d);", vn, u, vn, u);
                else {
                    pg_buf e = {0};
                    pg_buf_printf(&e, "%s %s%d = %s(", CV, vn, u, mk);
                    for (int k = 0; k < V; k++) pg_buf_printf(&e, "%s__half2float(h%s%d%s)", k ? ", " : "", vn, u, LANE[k]);
                    pg_buf_puts(&e, ");");
                    synth_fam_linef(cv, PL, "%s", e.data);
                    pg_buf_free(&e);
                }
            }
            synth_fam_plan(cu, in, ld);
            if (f16) synth_fam_plan(cu, in, cv);
        }
    for (int u = 0; u < U; u++) {
        char X[4][32], Y[4][32], ex[4][120];
        for (int k = 0; k < V; k++) {
            snprintf(X[k], sizeof X[k], "x%d%s", u, V > 1 ? LANE[k] : "");
            snprintf(Y[k], sizeof Y[k], "y%d%s", u, V > 1 ? LANE[k] : "");
            op_expr(c->op, f64, X[k], Y[k], ex[k], sizeof ex[k]);
        }
        pg_buf e = {0};
        if (V == 1) pg_buf_printf(&e, "%s r%d = %s;", C, u, ex[0]);
        else {
            pg_buf_printf(&e, "%s r%d = %s(", CV, u, mk);
            for (int k = 0; k < V; k++) pg_buf_printf(&e, "%s%s", k ? ", " : "", ex[k]);
            pg_buf_puts(&e, ");");
        }
        if (e.len < 150) {   /* one expression per vector, else one line per lane */
            P->nmath[u] = 1;
            synth_fam_linef(P->math[u][0], PL, "%s", e.data);
            synth_fam_plan(cu, in, P->math[u][0]);
        } else {
            P->nmath[u] = V;
            synth_fam_linef(l, PL, "%s r%d;", CV, u);
            synth_fam_plan(cu, in, l);
            for (int k = 0; k < V; k++) {
                synth_fam_linef(P->math[u][k], PL, "r%d%s = %s;", u, LANE[k], ex[k]);
                synth_fam_plan(cu, in, P->math[u][k]);
            }
        }
        pg_buf_free(&e);
    }
    for (int u = 0; u < U; u++) {
        if (!f16) synth_fam_linef(P->st[u], PL, "%s[%d] = r%d;", po, u * B, u);
        else if (V == 1) synth_fam_linef(P->st[u], PL, "%s[%d] = __float2half_rn(r%d);", po, u * B, u);
        else if (V == 2) synth_fam_linef(P->st[u], PL, "%s[%d] = __halves2half2(__float2half_rn(r%d.x), __float2half_rn(r%d.y));", po, u * B, u, u);
        else synth_fam_linef(P->st[u], PL, "%s[%d] = half4{__float2half_rn(r%d.x), __float2half_rn(r%d.y), __float2half_rn(r%d.z), __float2half_rn(r%d.w)};",
                             po, u * B, u, u, u, u);
        synth_fam_plan(cu, in, P->st[u]);
    }
    if (U * V > 1) {
        synth_fam_plan(cu, --in, "} else {   // a partial tile: element by element up to n, nothing at or past n is touched");
        in++;
        int open = 0;
        if (U > 1) {
            synth_fam_linef(P->ufor, PL, "for (unsigned int u = 0, v = e0; u < %d && v < n; u++, v += %d) {   // later vectors start even further", U, B * V);
            synth_fam_plan(cu, in++, P->ufor);
            open++;
        } else {
            synth_fam_linef(P->v, PL, "unsigned int v = e0;");
            synth_fam_plan(cu, in, P->v);
            synth_fam_linef(P->vif, PL, "if (v < n) {");
            synth_fam_plan(cu, in++, P->vif);
            open++;
        }
        if (V > 1) {
            synth_fam_linef(P->efor, PL, "for (unsigned int e = v, end = min(v + %d, n); e < end; e++) {   // vector u, clipped to n", V);
            synth_fam_plan(cu, in++, P->efor);
            open++;
        } else {
            synth_fam_linef(P->e, PL, "unsigned int e = v;");
            synth_fam_plan(cu, in, P->e);
        }
        const char *dst = inplace ? "y" : "out";
        char ex[120];
        op_expr(c->op, f64, "xe", "ye", ex, sizeof ex);
        if (f16) {
            if (two) synth_fam_linef(P->sld, PL, "float xe = __half2float(x[e]), ye = __half2float(y[e]);");
            else synth_fam_linef(P->sld, PL, "float xe = __half2float(x[e]);");
            synth_fam_linef(P->sst, PL, "%s[e] = __float2half_rn(%s);", dst, ex);
        } else {
            if (two) synth_fam_linef(P->sld, PL, "%s xe = x[e], ye = y[e];", C);
            else synth_fam_linef(P->sld, PL, "%s xe = x[e];", C);
            synth_fam_linef(P->sst, PL, "%s[e] = %s;", dst, ex);
        }
        synth_fam_plan(cu, in, P->sld);
        synth_fam_plan(cu, in, P->sst);
        while (open--) synth_fam_plan(cu, --in, "}");
        synth_fam_plan(cu, --in, "}");
    }
    if (gs) synth_fam_plan(cu, --in, "}");
    pg_buf_puts(cu, "}\n");
}

/* Load V elements at [addr+off] into compute registers vals[]; note heads the
 * load, cnote the f16 -> f32 conversions. */
static void ld_vec(em *e, bool nc, int V, int addr, int off, int *vals, const char *note, const char *cnote) {
    const char *sp = nc ? "global.nc" : "global";
    int raw[4];
    const char *rp = e->dt == D_F16 ? "%h" : creg(e->dt);
    const char *ty = e->dt == D_F16 ? "b16" : DNAME[e->dt];
    for (int l = 0; l < V; l++) raw[l] = e->dt == D_F16 ? ++e->g.h : newc(e);
    char addrs[48];
    if (off) snprintf(addrs, sizeof addrs, "[%%rd%d+%d]", addr, off);
    else snprintf(addrs, sizeof addrs, "[%%rd%d]", addr);
    if (note) synth_fam_note(e->b, note);
    if (V == 1) pg_buf_printf(e->b, "\tld.%s.%s %s%d, %s;\n", sp, ty, rp, raw[0], addrs);
    else {
        pg_buf_printf(e->b, "\tld.%s.v%d.%s {", sp, V, ty);
        for (int l = 0; l < V; l++) pg_buf_printf(e->b, "%s%s%d", l ? ", " : "", rp, raw[l]);
        pg_buf_printf(e->b, "}, %s;\n", addrs);
    }
    if (e->dt == D_F16 && cnote) synth_fam_note(e->b, cnote);
    for (int l = 0; l < V; l++) {
        if (e->dt == D_F16) {
            vals[l] = ++e->g.f;
            pg_buf_printf(e->b, "\tcvt.f32.f16 %%f%d, %%h%d;\n", vals[l], raw[l]);
        } else vals[l] = raw[l];
    }
}

static void st_vec(em *e, int V, int addr, int off, const int *vals, const char *note) {
    int raw[4];
    if (note) synth_fam_note(e->b, note);
    for (int l = 0; l < V; l++) {
        if (e->dt == D_F16) {
            raw[l] = ++e->g.h;
            pg_buf_printf(e->b, "\tcvt.rn.f16.f32 %%h%d, %%f%d;\n", raw[l], vals[l]);
        } else raw[l] = vals[l];
    }
    const char *rp = e->dt == D_F16 ? "%h" : creg(e->dt);
    const char *ty = e->dt == D_F16 ? "b16" : DNAME[e->dt];
    char addrs[48];
    if (off) snprintf(addrs, sizeof addrs, "[%%rd%d+%d]", addr, off);
    else snprintf(addrs, sizeof addrs, "[%%rd%d]", addr);
    if (V == 1) pg_buf_printf(e->b, "\tst.global.%s %s, %s%d;\n", ty, addrs, rp, raw[0]);
    else {
        pg_buf_printf(e->b, "\tst.global.v%d.%s %s, {", V, ty, addrs);
        for (int l = 0; l < V; l++) pg_buf_printf(e->b, "%s%s%d", l ? ", " : "", rp, raw[l]);
        pg_buf_puts(e->b, "};\n");
    }
}

/* One element: returns the result register. */
static int op1(em *e, map_op op, int x, int y) {
    const char *R = creg(e->dt), *T = ctype(e->dt);
    char zero[32];
    synth_fam_imm(zero, sizeof zero, 0.0, e->dt == D_F64);
    int o = newc(e), t;
    switch (op) {
    case OP_SCALE: pg_buf_printf(e->b, "\tmul.rn.%s %s%d, %s%d, %s%d;\n", T, R, o, R, e->scr[0], R, x); break;
    case OP_ADD: pg_buf_printf(e->b, "\tadd.rn.%s %s%d, %s%d, %s%d;\n", T, R, o, R, x, R, y); break;
    case OP_MUL: pg_buf_printf(e->b, "\tmul.rn.%s %s%d, %s%d, %s%d;\n", T, R, o, R, x, R, y); break;
    case OP_AXPY: pg_buf_printf(e->b, "\tfma.rn.%s %s%d, %s%d, %s%d, %s%d;\n", T, R, o, R, e->scr[0], R, x, R, y); break;
    case OP_AXPBY:
        t = o;
        o = newc(e);
        pg_buf_printf(e->b, "\tmul.rn.%s %s%d, %s%d, %s%d;\n", T, R, t, R, e->scr[1], R, y);
        pg_buf_printf(e->b, "\tfma.rn.%s %s%d, %s%d, %s%d, %s%d;\n", T, R, o, R, e->scr[0], R, x, R, t);
        break;
    case OP_RELU: pg_buf_printf(e->b, "\tmax.%s %s%d, %s%d, %s;\n", T, R, o, R, x, zero); break;
    case OP_CLAMP:
        t = o;
        o = newc(e);
        pg_buf_printf(e->b, "\tmax.%s %s%d, %s%d, %s%d;\n", T, R, t, R, x, R, e->scr[0]);
        pg_buf_printf(e->b, "\tmin.%s %s%d, %s%d, %s%d;\n", T, R, o, R, t, R, e->scr[1]);
        break;
    case OP_ABSDIFF:
        t = o;
        o = newc(e);
        pg_buf_printf(e->b, "\tsub.rn.%s %s%d, %s%d, %s%d;\n", T, R, t, R, x, R, y);
        pg_buf_printf(e->b, "\tabs.%s %s%d, %s%d;\n", T, R, o, R, t);
        break;
    default: break;
    }
    return o;
}

static int ilog2(int v) { int k = 0; while ((1 << k) < v) k++; return k; }

static void emit_ptx(const map_cfg *c, const char *name, const map_plan *P, pg_buf *out) {
    pg_buf body = {0};
    em e = {&body, {0}, c->dt, {0, 0}};
    const int B = c->block, V = c->vec, U = c->unroll, S = DSIZE[c->dt], TILE = B * U * V;
    const bool gs = c->cap > 0, two = OPS[c->op].nin == 2, inplace = OPS[c->op].inplace;
    /* %rd1 x, %rd2 y, %rd3 out (params -> global in place) */
    int rx = ++e.g.rd, ry = two ? ++e.g.rd : 0, ro = inplace ? ry : ++e.g.rd;
    pg_buf_printf(&body, "\tld.param.u64 %%rd%d, [x];\n", rx);
    if (two) pg_buf_printf(&body, "\tld.param.u64 %%rd%d, [y];\n", ry);
    if (!inplace) pg_buf_printf(&body, "\tld.param.u64 %%rd%d, [out];\n", ro);
    for (int k = 0; k < 2 && OPS[c->op].sc[k]; k++) {
        e.scr[k] = c->dt == D_F64 ? ++e.g.fd : ++e.g.f;
        pg_buf_printf(&body, "\tld.param.%s %s%d, [%s];\n", ctype(c->dt), creg(c->dt), e.scr[k], OPS[c->op].sc[k]);
    }
    int rn = ++e.g.r;
    pg_buf_printf(&body, "\tld.param.u32 %%r%d, [n];\n", rn);
    pg_buf_printf(&body, "\tcvta.to.global.u64 %%rd%d, %%rd%d;\n", rx, rx);
    if (two) pg_buf_printf(&body, "\tcvta.to.global.u64 %%rd%d, %%rd%d;\n", ry, ry);
    if (!inplace) pg_buf_printf(&body, "\tcvta.to.global.u64 %%rd%d, %%rd%d;\n", ro, ro);
    int rt = ++e.g.r, rc = ++e.g.r;
    synth_fam_note(&body, P->t);
    pg_buf_printf(&body, "\tmov.u32 %%r%d, %%tid.x;\n", rt);
    synth_fam_note(&body, P->tile);
    pg_buf_printf(&body, "\tmov.u32 %%r%d, %%ctaid.x;\n", rc);
    int rtv = rt;
    if (V > 1) {
        rtv = ++e.g.r;
        synth_fam_note(&body, P->t);
        pg_buf_printf(&body, "\tshl.b32 %%r%d, %%r%d, %d;\n", rtv, rt, ilog2(V));
        synth_fam_note(&body, P->tile);
    }
    int rtile = ++e.g.r;
    pg_buf_printf(&body, "\tmul.lo.u32 %%r%d, %%r%d, %d;\n", rtile, rc, TILE);
    int rstride = 0;
    const char *next = gs ? "NEXT" : "DONE";
    if (gs) {
        int rg = ++e.g.r;
        rstride = ++e.g.r;
        synth_fam_note(&body, P->stride);
        pg_buf_printf(&body, "\tmov.u32 %%r%d, %%nctaid.x;\n", rg);
        pg_buf_printf(&body, "\tmul.lo.u32 %%r%d, %%r%d, %d;\n", rstride, rg, TILE);
        int p0 = ++e.g.p;
        synth_fam_note(&body, P->loop);
        pg_buf_printf(&body, "\tsetp.ge.u32 %%p%d, %%r%d, %%r%d;\n\t@%%p%d bra DONE;\n", p0, rtile, rn, p0);
        pg_buf_puts(&body, "LOOP:\n");
    }
    int re0 = ++e.g.r, pfull = ++e.g.p;
    synth_fam_note(&body, P->e0);
    pg_buf_printf(&body, "\tadd.s32 %%r%d, %%r%d, %%r%d;\n", re0, rtile, rtv);
    synth_fam_note(&body, P->guard);
    if (U * V > 1) {
        int rend = ++e.g.r;
        pg_buf_printf(&body, "\tadd.s32 %%r%d, %%r%d, %d;\n", rend, re0, (U - 1) * B * V + V);
        pg_buf_printf(&body, "\tsetp.gt.u32 %%p%d, %%r%d, %%r%d;\n\t@%%p%d bra SLOW;\n", pfull, rend, rn, pfull);
    } else {
        pg_buf_printf(&body, "\tsetp.ge.u32 %%p%d, %%r%d, %%r%d;\n\t@%%p%d bra %s;\n", pfull, re0, rn, pfull, next);
    }
    int roff = ++e.g.rd, ax = ++e.g.rd, ay = two ? ++e.g.rd : 0, ao = inplace ? ay : ++e.g.rd;
    synth_fam_note(&body, P->px);
    pg_buf_printf(&body, "\tmul.wide.u32 %%rd%d, %%r%d, %d;\n", roff, re0, S);
    pg_buf_printf(&body, "\tadd.s64 %%rd%d, %%rd%d, %%rd%d;\n", ax, rx, roff);
    if (two) {
        synth_fam_note(&body, P->py);
        pg_buf_printf(&body, "\tadd.s64 %%rd%d, %%rd%d, %%rd%d;\n", ay, ry, roff);
    }
    if (!inplace) {
        synth_fam_note(&body, P->po);
        pg_buf_printf(&body, "\tadd.s64 %%rd%d, %%rd%d, %%rd%d;\n", ao, ro, roff);
    }
    int xv[4][4], yv[4][4], ov[4][4];
    for (int u = 0; u < U; u++) {
        ld_vec(&e, true, V, ax, u * B * V * S, xv[u], P->ldx[u], P->cvx[u]);
        if (two) ld_vec(&e, !inplace, V, ay, u * B * V * S, yv[u], P->ldy[u], P->cvy[u]);
    }
    for (int u = 0; u < U; u++)
        for (int l = 0; l < V; l++) {
            if (l == 0 || P->nmath[u] > 1) synth_fam_note(&body, P->math[u][P->nmath[u] > 1 ? l : 0]);
            ov[u][l] = op1(&e, c->op, xv[u][l], two ? yv[u][l] : 0);
        }
    for (int u = 0; u < U; u++) st_vec(&e, V, ao, u * B * V * S, ov[u], P->st[u]);
    if (U * V > 1) {
        pg_buf_printf(&body, "\tbra.uni %s;\n\n", next);
        pg_buf_puts(&body, "SLOW:\n");
        int rv = ++e.g.r, ru = U > 1 ? ++e.g.r : 0, rlim = V > 1 ? ++e.g.r : 0, re = ++e.g.r;
        int ps = ++e.g.p;
        synth_fam_note(&body, U > 1 ? P->ufor : P->v);
        pg_buf_printf(&body, "\tmov.u32 %%r%d, %%r%d;\n", rv, re0);
        if (U > 1) pg_buf_printf(&body, "\tmov.u32 %%r%d, 0;\n", ru);
        pg_buf_puts(&body, "SVEC:\n");
        if (U == 1) synth_fam_note(&body, P->vif);
        pg_buf_printf(&body, "\tsetp.ge.u32 %%p%d, %%r%d, %%r%d;\n\t@%%p%d bra %s;\n", ps, rv, rn, ps, next);
        if (V > 1) {
            synth_fam_note(&body, P->efor);
            pg_buf_printf(&body, "\tadd.s32 %%r%d, %%r%d, %d;\n\tmin.u32 %%r%d, %%r%d, %%r%d;\n", rlim, rv, V, rlim, rlim, rn);
        } else synth_fam_note(&body, P->e);
        pg_buf_printf(&body, "\tmov.u32 %%r%d, %%r%d;\n", re, rv);
        if (V > 1) pg_buf_puts(&body, "SELEM:\n");
        int so = ++e.g.rd, sx = ++e.g.rd, sy = two ? ++e.g.rd : 0, sout = inplace ? sy : ++e.g.rd;
        synth_fam_note(&body, P->sld);
        pg_buf_printf(&body, "\tmul.wide.u32 %%rd%d, %%r%d, %d;\n", so, re, S);
        pg_buf_printf(&body, "\tadd.s64 %%rd%d, %%rd%d, %%rd%d;\n", sx, rx, so);
        if (two) pg_buf_printf(&body, "\tadd.s64 %%rd%d, %%rd%d, %%rd%d;\n", sy, ry, so);
        if (!inplace) pg_buf_printf(&body, "\tadd.s64 %%rd%d, %%rd%d, %%rd%d;\n", sout, ro, so);
        int x1, y1 = 0, o1;
        ld_vec(&e, true, 1, sx, 0, &x1, NULL, NULL);
        if (two) ld_vec(&e, !inplace, 1, sy, 0, &y1, NULL, NULL);
        synth_fam_note(&body, P->sst);
        o1 = op1(&e, c->op, x1, y1);
        st_vec(&e, 1, sout, 0, &o1, NULL);
        if (V > 1) {
            int pe = ++e.g.p;
            synth_fam_note(&body, P->efor);
            pg_buf_printf(&body, "\tadd.s32 %%r%d, %%r%d, 1;\n\tsetp.lt.u32 %%p%d, %%r%d, %%r%d;\n\t@%%p%d bra SELEM;\n", re, re, pe,
                          re, rlim, pe);
        }
        if (U > 1) {
            int pu = ++e.g.p;
            synth_fam_note(&body, P->ufor);
            pg_buf_printf(&body, "\tadd.s32 %%r%d, %%r%d, %d;\n", rv, rv, B * V);
            pg_buf_printf(&body, "\tadd.s32 %%r%d, %%r%d, 1;\n\tsetp.lt.u32 %%p%d, %%r%d, %d;\n\t@%%p%d bra SVEC;\n", ru, ru, pu, ru,
                          U, pu);
        }
    }
    if (gs) {
        int pl = ++e.g.p;
        pg_buf_puts(&body, "NEXT:\n");
        synth_fam_note(&body, P->loop);
        pg_buf_printf(&body, "\tadd.s32 %%r%d, %%r%d, %%r%d;\n\tsetp.lt.u32 %%p%d, %%r%d, %%r%d;\n\t@%%p%d bra LOOP;\n", rtile,
                      rtile, rstride, pl, rtile, rn, pl);
    }
    pg_buf_puts(&body, "DONE:\n\tret;\n}\n");

    pg_buf_puts(out, "// GENERATED_BY: ptxgen synth/family map\n");
    pg_buf_printf(out, "// %s: %s for i < n (%s), %d threads/block, %d-wide vectors x %d per thread, %s.\n", name,
                  OPS[c->op].math, DNAME[c->dt], B, V, U,
                  gs ? "grid-stride loop over tiles" : "one tile per block");
    if (c->dt == D_F16) pg_buf_puts(out, "// f16 values are converted to f32 for the math and rounded back once.\n");
    pg_buf_puts(out, ".version 8.0\n.target sm_80\n.address_size 64\n\n");
    pg_buf_printf(out, ".visible .entry %s(\n\t.param .u64 x,\n", name);
    if (two) pg_buf_puts(out, "\t.param .u64 y,\n");
    if (!inplace) pg_buf_puts(out, "\t.param .u64 out,\n");
    for (int k = 0; k < 2 && OPS[c->op].sc[k]; k++) pg_buf_printf(out, "\t.param .%s %s,\n", ctype(c->dt), OPS[c->op].sc[k]);
    pg_buf_printf(out, "\t.param .u32 n\n)\n.maxntid %d, 1, 1\n{\n", B);
    synth_fam_decls(&e.g, out);
    pg_buf_putc(out, '\n');
    pg_buf_puts(out, body.data);
    pg_buf_free(&body);
}

/* ---- descriptions ------------------------------------------------------------------- */
/* What people call each op and how they say it (describe.h); x, y, out, a,
 * b, lo, hi and n are the kernel's parameter names. */
static const struct {
    const char *name_en[6], *name_zh[4], *explain_en[4], *explain_zh[3];
} WORDS[OP__N] = {
    [OP_SCALE] = {{"vector scale", "scalar times vector", "scale by a constant", "elementwise scaling", "SCAL"},
                  {"向量数乘", "标量乘向量", "逐元素缩放"},
                  {"multiply every element of x by the scalar a and write the products to out",
                   "write a times x[i] into out[i] for every i below n", "scale the array x by a, storing the result in out"},
                  {"把 x 的每个元素乘以标量 a，结果写入 out", "对每个 i < n，令 out[i] 等于 a 乘以 x[i]"}},
    [OP_ADD] = {{"vector add", "elementwise addition", "vecadd", "sum of two arrays", "array addition"},
                {"向量加法", "逐元素相加", "两个数组相加"},
                {"add x and y element by element and store the sums in out", "write x[i] + y[i] into out[i] for every index i below n",
                 "sum the two arrays x and y position by position into out"},
                {"把 x 和 y 逐元素相加，结果存入 out", "对每个 i < n，out[i] 等于 x[i] 与 y[i] 之和"}},
    [OP_MUL] = {{"elementwise multiply", "Hadamard product", "pointwise product", "vector multiply", "element-by-element product"},
                {"逐元素乘法", "Hadamard 积", "两个向量逐点相乘"},
                {"multiply x and y element by element and store the products in out",
                 "write the product x[i] * y[i] into out[i] for every i below n", "take the pointwise product of the arrays x and y and put it in out"},
                {"把 x 和 y 逐元素相乘，结果写入 out", "对每个 i < n，out[i] 为 x[i] 乘 y[i]"}},
    [OP_AXPY] = {{"AXPY", "in-place y += a*x", "a*x plus y update", "scaled vector accumulate"},
                 {"AXPY 原地更新", "y += a*x", "向量 AXPY", "缩放累加"},
                 {"add a times x to y in place, element by element", "update y in place so that every y[i] becomes a * x[i] + y[i]",
                  "accumulate the scaled array a*x into y, overwriting y"},
                 {"把 a 乘以 x 逐元素加到 y 上（原地更新 y）", "对每个 i < n 原地计算 y[i] = a * x[i] + y[i]"}},
    [OP_AXPBY] = {{"AXPBY", "linear combination of two vectors", "weighted sum of two arrays", "scaled vector add", "a*x + b*y"},
                  {"线性组合 a*x + b*y", "两个向量的加权和", "AXPBY"},
                  {"write a times x[i] plus b times y[i] into out[i] for every i below n",
                   "combine x and y linearly with the weights a and b and store the result in out",
                   "scale x by a and y by b and add them element by element into out"},
                  {"把 x 乘 a 与 y 乘 b 逐元素相加，写入 out", "对每个 i < n，out[i] = a*x[i] + b*y[i]"}},
    [OP_RELU] = {{"ReLU", "rectified linear unit", "relu activation", "clamp negatives to zero", "max(x, 0)"},
                 {"ReLU 激活", "线性整流", "负数置零"},
                 {"replace every negative element of x by zero and copy the rest, writing to out",
                  "write max(x[i], 0) into out[i] for every i below n",
                  "keep the positive values of x, turn the negative ones into 0, and store the result in out"},
                 {"把 x 中的负数置为 0、其余不变，结果写入 out", "对每个 i < n，out[i] 取 x[i] 和 0 中较大的那个"}},
    [OP_CLAMP] = {{"clamp", "clip to [lo, hi]", "saturate to a range", "elementwise clamp", "range clipping"},
                  {"截断到区间", "clamp 截断", "数值裁剪"},
                  {"clip every element of x into the range [lo, hi] and write it to out",
                   "write x[i], raised to at least lo and then lowered to at most hi, into out[i]",
                   "clamp x between lo and hi element by element, storing the result in out"},
                  {"把 x 的每个元素截断到 [lo, hi] 区间，写入 out", "对每个 i < n，out[i] = min(max(x[i], lo), hi)"}},
    [OP_ABSDIFF] = {{"absolute difference", "elementwise |x - y|", "abs diff", "L1 distance per element"},
                    {"差的绝对值", "逐元素绝对差", "两个数组的绝对差"},
                    {"subtract y from x element by element and store the absolute values of the differences in out",
                     "write |x[i] - y[i]| into out[i] for every i below n",
                     "compute how far apart x[i] and y[i] are (the absolute difference) for every i and put it in out"},
                    {"把 x 与 y 逐元素相减并取绝对值，写入 out", "对每个 i < n，out[i] 为 x[i] - y[i] 的绝对值"}},
};

static json_t *map_describe(const map_cfg *c, char lits[2][32], uint64_t seed, const json_t *task) {
    const int B = c->block, V = c->vec, U = c->unroll, TILE = B * U * V;
    const bool gs = c->cap > 0, two = OPS[c->op].nin == 2, inplace = OPS[c->op].inplace;
    const char *CT = DCNAME[c->dt], *CTS = c->dt == D_F16 ? "halves" : c->dt == D_F64 ? "doubles" : "floats";
    const char *names[8];
    int nn = 0;
    for (int k = 0; WORDS[c->op].name_en[k] && k < 6; k++) names[nn++] = WORDS[c->op].name_en[k];
    if (c->op == OP_AXPY) names[nn++] = c->dt == D_F32 ? "SAXPY" : c->dt == D_F64 ? "DAXPY" : "half-precision AXPY";
    names[nn] = NULL;
    char formula[160], shape[200], shape_zh[200], how[3][240], how_zh[2][240];
    pg_buf notes = {0}, notes_zh = {0};
    snprintf(formula, sizeof formula, "%s for every i < n", OPS[c->op].math);
    if (inplace) {
        snprintf(shape, sizeof shape, "x holds n %s and y (n %s) is read and overwritten", CTS, CTS);
        snprintf(shape_zh, sizeof shape_zh, "x 有 n 个 %s，y（n 个 %s）被原地读写", CT, CT);
    } else {
        snprintf(shape, sizeof shape, "%s and out hold n %s each", two ? "x, y" : "x", CTS);
        snprintf(shape_zh, sizeof shape_zh, "%s 和 out 各有 n 个 %s", two ? "x、y" : "x", CT);
    }
    for (int k = 0; k < 2 && OPS[c->op].sc[k]; k++) {
        pg_buf_printf(&notes, "%s%s = %s", k ? " and " : "", OPS[c->op].sc[k], lits[k]);
        pg_buf_printf(&notes_zh, "%s%s = %s", k ? "，" : "", OPS[c->op].sc[k], lits[k]);
    }
    if (notes.len) {
        pg_buf_printf(&notes, " (scalar kernel parameter%s)", OPS[c->op].sc[1] ? "s" : "");
        pg_buf_puts(&notes_zh, "（标量参数）");
    }
    if (c->dt == D_F16) {
        pg_buf_printf(&notes, "%sconvert the halves to f32 for the arithmetic and round the result back to f16 once", notes.len ? "; " : "");
        pg_buf_printf(&notes_zh, "%s计算时先转成 f32，结果只舍入一次回 f16", notes_zh.len ? "；" : "");
    }
    pg_buf_printf(&notes, "%sn need not be a multiple of %d: the partial last tile goes element by element and nothing at or past n is touched",
                  notes.len ? ". " : "", TILE);
    pg_buf_printf(&notes_zh, "%sn 不一定是 %d 的倍数：最后一个不满的分块逐个元素处理，不访问 n 及之后的位置", notes_zh.len ? "。" : "", TILE);
    char vecs[120];
    if (V == 1 && U == 1) snprintf(vecs, sizeof vecs, "one element per thread per tile");
    else if (V == 1) snprintf(vecs, sizeof vecs, "%d scalar elements per thread, %d apart", U, B);
    else snprintf(vecs, sizeof vecs, "%d-wide vector loads and stores (%d bytes)%s", V, V * DSIZE[c->dt],
                  U == 2 ? ", two vectors per thread" : U == 4 ? ", four vectors per thread" : "");
    snprintf(how[0], sizeof how[0], "%s, %s", vecs, gs ? "a grid-stride loop over tiles" : "one tile per block");
    snprintf(how[1], sizeof how[1], "tiles of %d elements in which vector u of thread t starts at tile + (u*%d + t)*%d, so every step is one coalesced block-wide access",
             TILE, B, V);
    if (gs) snprintf(how[2], sizeof how[2], "a grid-stride loop: block b handles the %d-element tiles b, b+G, b+2G, ... (G blocks)", TILE);
    else snprintf(how[2], sizeof how[2], "each block handles one tile of %d consecutive elements", TILE);
    snprintf(how_zh[0], sizeof how_zh[0], "每个线程每步处理 %d 个向量、每个向量 %d 个元素，%s", U, V,
             gs ? "网格跨步循环遍历分块" : "每个线程块处理一个分块");
    if (gs) snprintf(how_zh[1], sizeof how_zh[1], "网格跨步循环：第 b 块依次处理第 b、b+G、b+2G… 个 %d 元素的分块", TILE);
    else snprintf(how_zh[1], sizeof how_zh[1], "每个线程块处理一个 %d 元素的连续分块", TILE);
    const char *hw[] = {how[0], how[1], how[2], NULL}, *hz[] = {how_zh[0], how_zh[1], NULL};
    desc_facts f = {.name_en = names, .name_zh = WORDS[c->op].name_zh, .formula = formula, .explain_en = WORDS[c->op].explain_en,
                    .explain_zh = WORDS[c->op].explain_zh, .how_en = hw, .how_zh = hz, .shape_en = shape, .shape_zh = shape_zh,
                    .notes_en = notes.data, .notes_zh = notes_zh.data, .elems_per_thread = gs ? 0 : V * U,
                    .vec_width = V > 1 ? V : 0, .data = DESC_DATA_VECTOR,
                    .hints = DESC_HINT_COALESCED | DESC_HINT_MEMBOUND | (gs ? DESC_HINT_GRID_STRIDE : 0u) | (inplace ? DESC_HINT_INPLACE : 0u)};
    json_t *d = synth_desc_render_all(&f, task, seed);
    pg_buf_free(&notes);
    pg_buf_free(&notes_zh);
    return d;
}

/* ---- task.json --------------------------------------------------------------------- */
static void emit_json(const map_cfg *c, const char *name, fam_rng *r, pg_buf *out) {
    const int B = c->block, V = c->vec, U = c->unroll, TILE = B * U * V;
    const bool gs = c->cap > 0, two = OPS[c->op].nin == 2, inplace = OPS[c->op].inplace;
    const char *T = DNAME[c->dt];
    const char *st = c->dt == D_F64 ? "f64" : "f32";
    char grid[64], lits[2][32] = {"", ""};
    if (gs) snprintf(grid, sizeof grid, "min(cdiv(n,%d),%d)", TILE * (c->tiles > 1 ? c->tiles : 1), c->cap);
    else snprintf(grid, sizeof grid, "cdiv(n,%d)", TILE);
    for (int k = 0; k < 2 && OPS[c->op].sc[k]; k++) synth_fam_lit(lits[k], sizeof lits[k], c->sc[k]);

    json_t *root = json_object();
    json_object_set_new(root, "name", json_string(name));
    json_object_set_new(root, "family", json_string("map"));
    json_object_set_new(root, "kernel", json_string(name));
    json_object_set_new(root, "family_params",
                        json_pack("{s:s, s:s, s:i, s:i, s:i, s:b, s:i}", "op", OPS[c->op].name, "dtype", T, "block", B, "vec",
                                  V, "unroll", U, "gridstride", gs, "grid_cap", c->cap));
    json_object_set_new(root, "descriptions", json_null());   /* rendered below, from params and launch */

    json_t *ps = json_array();
    char pt[8];
    snprintf(pt, sizeof pt, "%s*", T);
    json_array_append_new(ps, json_pack("{s:s, s:s, s:s, s:s}", "name", "x", "type", pt, "role", "in", "len", "n"));
    if (two)
        json_array_append_new(ps, json_pack("{s:s, s:s, s:s, s:s}", "name", "y", "type", pt, "role", inplace ? "inout" : "in",
                                            "len", "n"));
    if (!inplace) json_array_append_new(ps, json_pack("{s:s, s:s, s:s, s:s}", "name", "out", "type", pt, "role", "out", "len", "n"));
    for (int k = 0; k < 2 && OPS[c->op].sc[k]; k++)
        json_array_append_new(ps, json_pack("{s:s, s:s, s:s}", "name", OPS[c->op].sc[k], "type", st, "value", lits[k]));
    json_array_append_new(ps, json_pack("{s:s, s:s, s:s}", "name", "n", "type", "u32", "value", "n"));
    json_object_set_new(root, "params", ps);
    json_t *sz = json_array();
    json_array_append_new(sz, json_pack("{s:i, s:b}", "n", 16777216, "time", 1));
    const int more[] = {1000003, TILE * 3 + 1, 4099, 777, 33, 1};
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++) json_array_append_new(sz, json_pack("{s:i}", "n", more[i]));
    json_object_set_new(root, "sizes", sz);
    char blk[16];
    snprintf(blk, sizeof blk, "%d", B);
    json_object_set_new(root, "launch", json_pack("{s:[s], s:[s], s:s}", "block", blk, "grid", grid, "smem", "0"));
    json_object_set_new(root, "distributions", json_pack("[s, s]", "uniform(-1,1)", "normal(0,10)"));
    json_t *tol = json_object();
    json_object_set_new(tol, T, json_real(c->dt == D_F32 ? 1e-5 : c->dt == D_F64 ? 1e-12 : 1e-2));
    json_object_set_new(root, "tolerance", tol);
    json_object_set_new(root, "reference", json_pack("{s:s, s:s}", "kind", "c", "name", synth_fam_ref(synth_fam_gen_map)));
    char bytes[64], flops[64];
    snprintf(bytes, sizeof bytes, "%d*n", DSIZE[c->dt] * (OPS[c->op].nin + (inplace ? 1 : 1)));
    snprintf(flops, sizeof flops, "%d*n", OPS[c->op].flops);
    json_object_set_new(root, "cost", json_pack("{s:s, s:s}", "bytes", bytes, "flops", flops));
    json_object_set_new(root, "descriptions", map_describe(c, lits, synth_fam_next(r), root));
    synth_task_json_write(root, out);
    json_decref(root);
}

pg_status synth_fam_gen_map(uint64_t seed, synth_family_sample *s) {
    fam_rng r = {seed ^ 0x6d61700000000001ull};
    map_cfg c;
    memset(&c, 0, sizeof c);
    c.op = (map_op)synth_fam_pick(&r, OP__N);
    int d = synth_fam_pick(&r, 4);
    c.dt = d < 2 ? D_F32 : d == 2 ? D_F64 : D_F16;
    c.block = 128 << synth_fam_pick(&r, 3);
    c.vec = 1 << synth_fam_pick(&r, c.dt == D_F64 ? 2 : 3);
    c.unroll = 1 << synth_fam_pick(&r, 3);
    /* held out (bench/suite saxpy_v2, f16_scale_h2): f32 AXPY and f16 scaling over 512-element tiles of 256 threads */
    if (((c.op == OP_AXPY && c.dt == D_F32) || (c.op == OP_SCALE && c.dt == D_F16)) && c.block == 256 && c.vec * c.unroll == 2) c.block = 128;
    static const int CAPS[] = {132, 264, 528, 1056};
    c.cap = synth_fam_pick(&r, 2) ? CAPS[synth_fam_pick(&r, 4)] : 0;
    static const double SC[] = {2.5, -1.5, 0.75, 3.0, -0.5, 1.25, 0.125, -2.0, 0.375};
    c.sc[0] = SC[synth_fam_pick(&r, 9)];
    c.sc[1] = SC[synth_fam_pick(&r, 9)];
    if (c.op == OP_CLAMP) {   /* lo < hi */
        static const double LO[] = {-1.0, -0.5, -2.0, 0.0, -0.25}, HI[] = {1.0, 0.5, 2.0, 0.75, 4.0};
        c.sc[0] = LO[synth_fam_pick(&r, 5)];
        c.sc[1] = HI[synth_fam_pick(&r, 5)];
    }
    {   /* the grid's divisor in tiles, from a stream of its own (every other draw stays what it was) */
        fam_rng rl = {seed ^ 0x6d61706772696474ull};
        static const int M[] = {1, 1, 2, 4, 8};
        c.tiles = M[synth_fam_pick(&rl, 5)];
    }
    snprintf(s->family, sizeof s->family, "map");
    snprintf(s->source, sizeof s->source, "ptx-template");
    static const char *STY[] = {"%s_%s_v%du%d%s_b%d", "%s_%s_vec%d_x%d%s_%d", "k_%s_%s_%d_%d%s_%d"};
    char mode[8];
    snprintf(mode, sizeof mode, "%s", c.cap ? "_gs" : "");
    snprintf(s->name, sizeof s->name, STY[synth_fam_pick(&r, 3)], OPS[c.op].name, DNAME[c.dt], c.vec, c.unroll, mode, c.block);
    synth_fam_fit_name(s->name);   /* within the decoder's PG_NAME_MAX */
    snprintf(s->identity, sizeof s->identity, "map:%s:%s:b%d:v%d:u%d:%s", OPS[c.op].name, DNAME[c.dt], c.block, c.vec, c.unroll,
             c.cap ? (c.tiles == 2 ? "gs:m2" : c.tiles == 4 ? "gs:m4" : c.tiles == 8 ? "gs:m8" : "gs") : "tile");
    map_plan plan;
    emit_plan(&c, s->name, &plan, &s->cu);
    emit_ptx(&c, s->name, &plan, &s->ptx);
    emit_json(&c, s->name, &r, &s->task_json);
    return PG_OK;
}
