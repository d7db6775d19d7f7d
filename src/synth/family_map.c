/* family_map.c — the elementwise map family (PTX template).
 *
 * out[i] = OP(x[i], y[i], scalars) for i < n, with
 *   dtype   f32 / f64 / f16 (f16 is stored as f16 and computed in f32),
 *   block   128 / 256 / 512 threads,
 *   vector  1 / 2 / 4 elements per load (f64: 1 / 2),
 *   unroll  1 / 2 / 4 vectors per thread per tile,
 *   mode    one tile per block (grid cdiv(n,TILE)) or a grid-stride loop
 *           over tiles (grid min(cdiv(n,TILE),CAP)).
 * A tile is B*U*V elements: vector u of thread t starts at
 * tile + (u*B + t)*V, so every unrolled step is one coalesced block-wide
 * access.  When all of a thread's vectors are inside [0,n) it takes the
 * vector path (all loads first, then the math, then the stores); otherwise it
 * walks its elements one by one up to n (only the last tile gets there). */
#include "ptxgen/synth.h"
#include "ptxgen/synth_family.h"

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

/* Load V elements at [addr+off] into compute registers vals[]. */
static void ld_vec(em *e, bool nc, int V, int addr, int off, int *vals) {
    const char *sp = nc ? "global.nc" : "global";
    int raw[4];
    const char *rp = e->dt == D_F16 ? "%h" : creg(e->dt);
    const char *ty = e->dt == D_F16 ? "b16" : DNAME[e->dt];
    for (int l = 0; l < V; l++) raw[l] = e->dt == D_F16 ? ++e->g.h : newc(e);
    char addrs[48];
    if (off) snprintf(addrs, sizeof addrs, "[%%rd%d+%d]", addr, off);
    else snprintf(addrs, sizeof addrs, "[%%rd%d]", addr);
    if (V == 1) pg_buf_printf(e->b, "\tld.%s.%s %s%d, %s;\n", sp, ty, rp, raw[0], addrs);
    else {
        pg_buf_printf(e->b, "\tld.%s.v%d.%s {", sp, V, ty);
        for (int l = 0; l < V; l++) pg_buf_printf(e->b, "%s%s%d", l ? ", " : "", rp, raw[l]);
        pg_buf_printf(e->b, "}, %s;\n", addrs);
    }
    for (int l = 0; l < V; l++) {
        if (e->dt == D_F16) {
            vals[l] = ++e->g.f;
            pg_buf_printf(e->b, "\tcvt.f32.f16 %%f%d, %%h%d;\n", vals[l], raw[l]);
        } else vals[l] = raw[l];
    }
}

static void st_vec(em *e, int V, int addr, int off, const int *vals) {
    int raw[4];
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
    fam_imm(zero, sizeof zero, 0.0, e->dt == D_F64);
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

static void emit_ptx(const map_cfg *c, const char *name, pg_buf *out) {
    pg_buf body = {0};
    em e = {&body, {0}, c->dt, {0, 0}};
    const int B = c->block, V = c->vec, U = c->unroll, S = DSIZE[c->dt], TILE = B * U * V;
    const bool gs = c->cap > 0, two = OPS[c->op].nin == 2, inplace = OPS[c->op].inplace;
    const char *outn = inplace ? "y" : "out";
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
    pg_buf_printf(&body, "\tmov.u32 %%r%d, %%tid.x;\n\tmov.u32 %%r%d, %%ctaid.x;\n", rt, rc);
    int rtv = rt;
    if (V > 1) {
        rtv = ++e.g.r;
        pg_buf_printf(&body, "\tshl.b32 %%r%d, %%r%d, %d;                  // t*%d: thread offset inside a step\n", rtv, rt,
                      ilog2(V), V);
    }
    int rtile = ++e.g.r;
    pg_buf_printf(&body, "\tmul.lo.u32 %%r%d, %%r%d, %d;               // tile = ctaid*%d (B*U*V)\n", rtile, rc, TILE, TILE);
    int rstride = 0;
    const char *next = gs ? "NEXT" : "DONE";
    if (gs) {
        int rg = ++e.g.r;
        rstride = ++e.g.r;
        pg_buf_printf(&body, "\tmov.u32 %%r%d, %%nctaid.x;\n", rg);
        pg_buf_printf(&body, "\tmul.lo.u32 %%r%d, %%r%d, %d;               // grid stride in elements\n", rstride, rg, TILE);
        int p0 = ++e.g.p;
        pg_buf_printf(&body, "\tsetp.ge.u32 %%p%d, %%r%d, %%r%d;\n\t@%%p%d bra DONE;\n", p0, rtile, rn, p0);
        pg_buf_puts(&body, "LOOP:\n");
    }
    int re0 = ++e.g.r, pfull = ++e.g.p;
    pg_buf_printf(&body, "\tadd.s32 %%r%d, %%r%d, %%r%d;               // e0: first element of vector 0\n", re0, rtile, rtv);
    if (U * V > 1) {
        int rend = ++e.g.r;
        pg_buf_printf(&body, "\tadd.s32 %%r%d, %%r%d, %d;                // end of this thread's last vector\n", rend, re0,
                      (U - 1) * B * V + V);
        pg_buf_printf(&body, "\tsetp.gt.u32 %%p%d, %%r%d, %%r%d;\n\t@%%p%d bra SLOW;                     // partial tile\n",
                      pfull, rend, rn, pfull);
    } else {
        pg_buf_printf(&body, "\tsetp.ge.u32 %%p%d, %%r%d, %%r%d;\n\t@%%p%d bra %s;\n", pfull, re0, rn, pfull, next);
    }
    int roff = ++e.g.rd, ax = ++e.g.rd, ay = two ? ++e.g.rd : 0, ao = inplace ? ay : ++e.g.rd;
    pg_buf_printf(&body, "\tmul.wide.u32 %%rd%d, %%r%d, %d;\n", roff, re0, S);
    pg_buf_printf(&body, "\tadd.s64 %%rd%d, %%rd%d, %%rd%d;               // &x[e0]\n", ax, rx, roff);
    if (two) pg_buf_printf(&body, "\tadd.s64 %%rd%d, %%rd%d, %%rd%d;               // &y[e0]\n", ay, ry, roff);
    if (!inplace) pg_buf_printf(&body, "\tadd.s64 %%rd%d, %%rd%d, %%rd%d;               // &out[e0]\n", ao, ro, roff);
    int xv[4][4], yv[4][4], ov[4][4];
    pg_buf_printf(&body, "\t// %d load%s per input in flight before any math\n", U, U > 1 ? "s" : "");
    for (int u = 0; u < U; u++) {
        ld_vec(&e, true, V, ax, u * B * V * S, xv[u]);
        if (two) ld_vec(&e, !inplace, V, ay, u * B * V * S, yv[u]);
    }
    for (int u = 0; u < U; u++)
        for (int l = 0; l < V; l++) ov[u][l] = op1(&e, c->op, xv[u][l], two ? yv[u][l] : 0);
    for (int u = 0; u < U; u++) st_vec(&e, V, ao, u * B * V * S, ov[u]);
    if (U * V > 1) {
        pg_buf_printf(&body, "\tbra.uni %s;\n\n", next);
        pg_buf_puts(&body, "SLOW:                                       // element by element up to n\n");
        int rv = ++e.g.r, ru = U > 1 ? ++e.g.r : 0, rlim = V > 1 ? ++e.g.r : 0, re = ++e.g.r;
        int ps = ++e.g.p;
        pg_buf_printf(&body, "\tmov.u32 %%r%d, %%r%d;                      // start of vector u\n", rv, re0);
        if (U > 1) pg_buf_printf(&body, "\tmov.u32 %%r%d, 0;\n", ru);
        pg_buf_puts(&body, "SVEC:\n");
        pg_buf_printf(&body, "\tsetp.ge.u32 %%p%d, %%r%d, %%r%d;             // later vectors start even further\n\t@%%p%d bra %s;\n",
                      ps, rv, rn, ps, next);
        if (V > 1) {
            pg_buf_printf(&body, "\tadd.s32 %%r%d, %%r%d, %d;\n\tmin.u32 %%r%d, %%r%d, %%r%d;             // end of vector u, clipped to n\n",
                          rlim, rv, V, rlim, rlim, rn);
        }
        pg_buf_printf(&body, "\tmov.u32 %%r%d, %%r%d;\n", re, rv);
        if (V > 1) pg_buf_puts(&body, "SELEM:\n");
        int so = ++e.g.rd, sx = ++e.g.rd, sy = two ? ++e.g.rd : 0, sout = inplace ? sy : ++e.g.rd;
        pg_buf_printf(&body, "\tmul.wide.u32 %%rd%d, %%r%d, %d;\n", so, re, S);
        pg_buf_printf(&body, "\tadd.s64 %%rd%d, %%rd%d, %%rd%d;\n", sx, rx, so);
        if (two) pg_buf_printf(&body, "\tadd.s64 %%rd%d, %%rd%d, %%rd%d;\n", sy, ry, so);
        if (!inplace) pg_buf_printf(&body, "\tadd.s64 %%rd%d, %%rd%d, %%rd%d;\n", sout, ro, so);
        int x1, y1 = 0, o1;
        ld_vec(&e, true, 1, sx, 0, &x1);
        if (two) ld_vec(&e, !inplace, 1, sy, 0, &y1);
        o1 = op1(&e, c->op, x1, y1);
        st_vec(&e, 1, sout, 0, &o1);
        if (V > 1) {
            int pe = ++e.g.p;
            pg_buf_printf(&body, "\tadd.s32 %%r%d, %%r%d, 1;\n\tsetp.lt.u32 %%p%d, %%r%d, %%r%d;\n\t@%%p%d bra SELEM;\n", re, re, pe,
                          re, rlim, pe);
        }
        if (U > 1) {
            int pu = ++e.g.p;
            pg_buf_printf(&body, "\tadd.s32 %%r%d, %%r%d, %d;               // next vector: %d threads x %d further\n", rv, rv,
                          B * V, B, V);
            pg_buf_printf(&body, "\tadd.s32 %%r%d, %%r%d, 1;\n\tsetp.lt.u32 %%p%d, %%r%d, %d;\n\t@%%p%d bra SVEC;\n", ru, ru, pu, ru,
                          U, pu);
        }
    }
    if (gs) {
        int pl = ++e.g.p;
        pg_buf_printf(&body, "NEXT:\n\tadd.s32 %%r%d, %%r%d, %%r%d;\n\tsetp.lt.u32 %%p%d, %%r%d, %%r%d;\n\t@%%p%d bra LOOP;\n", rtile,
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
    fam_decls(&e.g, out);
    pg_buf_putc(out, '\n');
    pg_buf_puts(out, body.data);
    pg_buf_free(&body);
    (void)outn;
}

/* ---- task.json --------------------------------------------------------------------- */
static void emit_json(const map_cfg *c, const char *name, fam_rng *r, pg_buf *out) {
    const int B = c->block, V = c->vec, U = c->unroll, TILE = B * U * V;
    const bool gs = c->cap > 0, two = OPS[c->op].nin == 2, inplace = OPS[c->op].inplace;
    const char *T = DNAME[c->dt], *CT = DCNAME[c->dt];
    const char *st = c->dt == D_F64 ? "f64" : "f32";
    char grid[64], lits[2][32] = {"", ""};
    if (gs) snprintf(grid, sizeof grid, "min(cdiv(n,%d),%d)", TILE, c->cap);
    else snprintf(grid, sizeof grid, "cdiv(n,%d)", TILE);
    for (int k = 0; k < 2 && OPS[c->op].sc[k]; k++) fam_lit(lits[k], sizeof lits[k], c->sc[k]);

    json_t *root = json_object();
    json_object_set_new(root, "name", json_string(name));
    json_object_set_new(root, "family", json_string("map"));
    json_object_set_new(root, "kernel", json_string(name));
    json_object_set_new(root, "family_params",
                        json_pack("{s:s, s:s, s:i, s:i, s:i, s:b, s:i}", "op", OPS[c->op].name, "dtype", T, "block", B, "vec",
                                  V, "unroll", U, "gridstride", gs, "grid_cap", c->cap));
    /* descriptions */
    pg_buf s = {0}, scal = {0}, scal_zh = {0}, ins = {0};
    for (int k = 0; k < 2 && OPS[c->op].sc[k]; k++) {
        pg_buf_printf(&scal, "%s%s = %s", k ? ", " : "", OPS[c->op].sc[k], lits[k]);
        pg_buf_printf(&scal_zh, "%s%s = %s", k ? "，" : "", OPS[c->op].sc[k], lits[k]);
    }
    pg_buf_printf(&ins, "`%s* x`%s", CT, two ? (inplace ? "" : ", `y`") : "");
    if (two && !inplace) { ins.len = 0; pg_buf_printf(&ins, "`%s* x`, `%s* y`", CT, CT); }
    char vecs[160], launch[200], launch_zh[200], mode[160], mode_zh[160];
    if (V == 1 && U == 1) snprintf(vecs, sizeof vecs, "one element per thread per tile");
    else if (V == 1) snprintf(vecs, sizeof vecs, "%d scalar elements per thread, %d apart (unrolled %dx)", U, B, U);
    else snprintf(vecs, sizeof vecs, "%d-wide vector loads/stores (%d bytes)%s", V, V * DSIZE[c->dt],
                  U > 1 ? (U == 2 ? ", two vectors per thread" : ", four vectors per thread") : "");
    snprintf(launch, sizeof launch, "%d threads per block, grid %s", B, grid);
    snprintf(launch_zh, sizeof launch_zh, "每块 %d 个线程，网格 %s", B, grid);
    if (gs) {
        snprintf(mode, sizeof mode, "grid-stride loop: block b handles tiles b, b+G, b+2G, ... of %d elements", TILE);
        snprintf(mode_zh, sizeof mode_zh, "网格跨步循环：第 b 块依次处理第 b、b+G、b+2G… 个 %d 元素的分块", TILE);
    } else {
        snprintf(mode, sizeof mode, "each block handles one tile of %d consecutive elements", TILE);
        snprintf(mode_zh, sizeof mode_zh, "每个线程块处理一个 %d 元素的连续分块", TILE);
    }
    const char *dtw = c->dt == D_F32 ? FAM_PICK(r, ((const char *[]){"single precision", "f32", "float32"}))
                      : c->dt == D_F64 ? FAM_PICK(r, ((const char *[]){"double precision", "f64", "float64"}))
                                       : FAM_PICK(r, ((const char *[]){"half precision", "f16", "fp16"}));
    json_t *d = json_object();
    switch (fam_pick(r, 3)) {
    case 0: pg_buf_printf(&s, "%s over n %s values", OPS[c->op].math, T); break;
    case 1: pg_buf_printf(&s, "%s: %s (%s)", name, OPS[c->op].phrase, dtw); break;
    default: pg_buf_printf(&s, "Elementwise %s: %s, %s", OPS[c->op].name, OPS[c->op].math, vecs); break;
    }
    if (scal.len && fam_pick(r, 2)) pg_buf_printf(&s, ", %s", scal.data);
    json_object_set_new(d, "terse", json_string(s.data));
    s.len = 0;
    const char *sent[4];
    char s0[400], s1[400], s2[400], s3[400];
    snprintf(s0, sizeof s0, "For every i < n compute %s in %s%s%s%s.", OPS[c->op].math, dtw, scal.len ? " with " : "",
             scal.len ? scal.data : "", inplace ? ", updating y in place" : "");
    snprintf(s1, sizeof s1, "Launch %s; %s.", launch, mode);
    snprintf(s2, sizeof s2, "Access pattern: %s; consecutive threads touch consecutive %s so every warp access is coalesced.",
             vecs, V > 1 ? "vectors" : "elements");
    snprintf(s3, sizeof s3, "n need not be a multiple of %d: the partial last tile is processed element by element and nothing at or past n is read or written.",
             TILE);
    sent[0] = s0; sent[1] = s1; sent[2] = s2; sent[3] = s3;
    int order = fam_pick(r, 3);
    static const int ORD[3][4] = {{0, 1, 2, 3}, {0, 2, 1, 3}, {0, 3, 2, 1}};
    for (int k = 0; k < 4; k++) {
        if (k == 2 && fam_pick(r, 4) == 0) continue;   /* sometimes less detail */
        pg_buf_printf(&s, "%s%s", k ? " " : "", sent[ORD[order][k]]);
    }
    if (c->dt == D_F16) pg_buf_puts(&s, " Convert to f32 for the arithmetic and round the result back to f16 once.");
    json_object_set_new(d, "detailed", json_string(s.data));
    s.len = 0;
    pg_buf_printf(&s, "## %s\n", name);
    if (fam_pick(r, 2)) {
        pg_buf_printf(&s, "- Input: %s (n)%s%s\n", ins.data, scal.len ? ", scalars " : "", scal.len ? scal.data : "");
        if (inplace) pg_buf_printf(&s, "- In/out: `%s* y` (n), updated in place\n", CT);
        else pg_buf_printf(&s, "- Output: `%s* out` (n)\n", CT);
        pg_buf_printf(&s, "- Goal: `%s`\n", OPS[c->op].math);
    } else {
        pg_buf_printf(&s, "- Goal: `%s`, %s\n", OPS[c->op].math, T);
        pg_buf_printf(&s, "- Inputs: %s (n each)\n", ins.data);
        if (scal.len) pg_buf_printf(&s, "- Scalars: %s\n", scal.data);
        pg_buf_printf(&s, "- %s: `%s* %s` (n)\n", inplace ? "In/out" : "Output", CT, inplace ? "y" : "out");
    }
    pg_buf_printf(&s, "- Launch: %d threads/block, `%s` blocks%s\n", B, grid, gs ? " (grid-stride loop)" : "");
    pg_buf_printf(&s, "- Constraint: %s; scalar tail when n %% %d != 0", vecs, TILE);
    json_object_set_new(d, "card", json_string(s.data));
    s.len = 0;
    const char *zhd = c->dt == D_F32 ? "单精度" : c->dt == D_F64 ? "双精度" : "半精度";
    if (fam_pick(r, 2))
        pg_buf_printf(&s, "%s（%s）：对 i < n 计算 %s%s%s。%s，%s。", OPS[c->op].zh, zhd, OPS[c->op].math, scal_zh.len ? "，其中 " : "",
                      scal_zh.data ? scal_zh.data : "", launch_zh, mode_zh);
    else
        pg_buf_printf(&s, "编写一个%s内核：%s，共 n 个元素%s%s。%s；每个线程每步处理 %d 个向量、每个向量 %d 个元素，n 不是 %d 的倍数时逐个处理尾部元素。",
                      zhd, OPS[c->op].math, scal_zh.len ? "，" : "", scal_zh.data ? scal_zh.data : "", launch_zh, U, V, TILE);
    json_object_set_new(d, "zh", json_string(s.data));
    json_object_set_new(root, "descriptions", d);

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
    json_object_set_new(root, "reference", json_pack("{s:s, s:s}", "kind", "c", "name", "fam_map"));
    char bytes[64], flops[64];
    snprintf(bytes, sizeof bytes, "%d*n", DSIZE[c->dt] * (OPS[c->op].nin + (inplace ? 1 : 1)));
    snprintf(flops, sizeof flops, "%d*n", OPS[c->op].flops);
    json_object_set_new(root, "cost", json_pack("{s:s, s:s}", "bytes", bytes, "flops", flops));
    synth_task_json_write(root, out);
    json_decref(root);
    pg_buf_free(&s);
    pg_buf_free(&scal);
    pg_buf_free(&scal_zh);
    pg_buf_free(&ins);
}

pg_status fam_gen_map(uint64_t seed, synth_family_sample *s) {
    fam_rng r = {seed ^ 0x6d61700000000001ull};
    map_cfg c;
    memset(&c, 0, sizeof c);
    c.op = (map_op)fam_pick(&r, OP__N);
    int d = fam_pick(&r, 4);
    c.dt = d < 2 ? D_F32 : d == 2 ? D_F64 : D_F16;
    c.block = 128 << fam_pick(&r, 3);
    c.vec = 1 << fam_pick(&r, c.dt == D_F64 ? 2 : 3);
    c.unroll = 1 << fam_pick(&r, 3);
    static const int CAPS[] = {132, 264, 528, 1056};
    c.cap = fam_pick(&r, 2) ? CAPS[fam_pick(&r, 4)] : 0;
    static const double SC[] = {2.5, -1.5, 0.75, 3.0, -0.5, 1.25, 0.125, -2.0, 0.375};
    c.sc[0] = SC[fam_pick(&r, 9)];
    c.sc[1] = SC[fam_pick(&r, 9)];
    if (c.op == OP_CLAMP) {   /* lo < hi */
        static const double LO[] = {-1.0, -0.5, -2.0, 0.0, -0.25}, HI[] = {1.0, 0.5, 2.0, 0.75, 4.0};
        c.sc[0] = LO[fam_pick(&r, 5)];
        c.sc[1] = HI[fam_pick(&r, 5)];
    }
    snprintf(s->family, sizeof s->family, "map");
    snprintf(s->source, sizeof s->source, "ptx-template");
    static const char *STY[] = {"%s_%s_v%du%d%s_b%d", "%s_%s_vec%d_x%d%s_%d", "k_%s_%s_%d_%d%s_%d"};
    char mode[8];
    snprintf(mode, sizeof mode, "%s", c.cap ? "_gs" : "");
    snprintf(s->name, sizeof s->name, STY[fam_pick(&r, 3)], OPS[c.op].name, DNAME[c.dt], c.vec, c.unroll, mode, c.block);
    snprintf(s->identity, sizeof s->identity, "map:%s:%s:b%d:v%d:u%d:%s", OPS[c.op].name, DNAME[c.dt], c.block, c.vec, c.unroll,
             c.cap ? "gs" : "tile");
    emit_ptx(&c, s->name, &s->ptx);
    emit_json(&c, s->name, &r, &s->task_json);
    return PG_OK;
}
