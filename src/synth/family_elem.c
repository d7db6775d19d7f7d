/* family_elem.c — the elementwise kernel builder and task.json helpers shared
 * by the elementwise curriculum families (see family_elem.h). */
#include "family_elem.h"

#include "ptxgen/synth.h"

#include <stdio.h>
#include <string.h>

/* ---- types ------------------------------------------------------------------------ */
static const struct {
    const char *dt, *ptr, *local, *raw_local, *vec;   /* vec: prefix of the CUDA vector type ("float" -> float2) */
    int size;
} TY[] = {
    {"f32", "float", "float", "float", "float", 4},
    {"f64", "double", "double", "double", "double", 8},
    {"f16", "__half", "float", "unsigned short", "ushort", 2},
    {"bf16", "__nv_bfloat16", "float", "unsigned short", "ushort", 2},
    {"s8", "signed char", "int", "int", "char", 1},
    {"u8", "unsigned char", "int", "int", "uchar", 1},
    {"s32", "int", "int", "int", "int", 4},
    {"u32", "unsigned int", "unsigned int", "unsigned int", "uint", 4},
    {"s64", "long long", "long long", "long long", "longlong", 8},
    {"u64", "unsigned long long", "unsigned long long", "unsigned long long", "ulonglong", 8},
    {"?", "?", "?", "?", "?", 0},
};
enum { NTY = (int)(sizeof TY / sizeof TY[0]) - 1 };   /* the last row is the unknown type */

/* Callers pass only the names above (the families draw their types from
 * fixed lists); an unknown name is a bug in a family, reported as the
 * impossible type "?" so that nvcc rejects the kernel instead of the
 * sample silently reading the wrong type. */
static int ty(const char *dt) {
    for (int k = 0; k < NTY; k++)
        if (!strcmp(TY[k].dt, dt)) return k;
    return NTY;
}

int synth_fe_size(const char *dt) { return TY[ty(dt)].size; }
bool synth_fe_is_half(const char *dt) { return !strcmp(dt, "f16") || !strcmp(dt, "bf16"); }

const char *synth_fe_ctype(const char *dt) { return TY[ty(dt)].ptr; }

const char *synth_fe_prec_en(const char *dt) {
    if (!strcmp(dt, "f64")) return "double precision";
    if (!strcmp(dt, "f16")) return "half precision (fp16)";
    if (!strcmp(dt, "bf16")) return "bfloat16";
    return "single precision";
}
const char *synth_fe_prec_zh(const char *dt) {
    if (!strcmp(dt, "f64")) return "双精度";
    if (!strcmp(dt, "f16")) return "半精度（fp16）";
    if (!strcmp(dt, "bf16")) return "bfloat16";
    return "单精度";
}
double synth_fe_tol(const char *dt) {
    if (!strcmp(dt, "f64")) return 1e-12;
    if (!strcmp(dt, "f16")) return 2e-3;   /* one f16 rounding of the output: ~5e-4 */
    if (!strcmp(dt, "bf16")) return 1e-2;  /* one bf16 rounding: ~4e-3 */
    return 1e-5;
}
double synth_fe_tol_cancel(const char *dt) {
    if (!strcmp(dt, "f64")) return 1e-10;
    if (!strcmp(dt, "f32")) return 1e-4;
    return synth_fe_tol(dt);
}
int synth_fe_cap(fam_rng *r) {
    static const int caps[] = {120, 256, 264, 512, 1024};
    return caps[synth_fam_pick(r, 5)];
}

void synth_fe_sig_ptr(pg_buf *sig, const char *name, const char *dt, int role) {
    pg_buf_printf(sig, "%s%s%s* __restrict__ %s", sig->len ? ", " : "", role == FE_IN ? "const " : "", synth_fe_ctype(dt), name);
}
void synth_fe_sig_scal(pg_buf *sig, const char *name, const char *dt) {
    const char *c = !strcmp(dt, "f64") ? "double" : !strcmp(dt, "u32") ? "unsigned int" : !strcmp(dt, "s32") ? "int" : "float";
    pg_buf_printf(sig, "%s%s %s", sig->len ? ", " : "", c, name);
}

/* ---- loads and stores ------------------------------------------------------------- */
static const char *local_of(const fe_arr *a) { return a->raw ? TY[ty(a->dt)].raw_local : TY[ty(a->dt)].local; }

/* Expression converting stored value `s` (of the pointer's C type) to the local. */
static void conv_in(pg_buf *b, const fe_arr *a, const char *s, bool bits) {
    /* bits: s is an unsigned short holding the bits (vector lanes) */
    if (!strcmp(a->dt, "f16")) {
        if (a->raw) pg_buf_printf(b, bits ? "%s" : "__half_as_ushort(%s)", s);
        else pg_buf_printf(b, bits ? "__half2float(__ushort_as_half(%s))" : "__half2float(%s)", s);
    } else if (!strcmp(a->dt, "bf16")) {
        if (a->raw) pg_buf_printf(b, bits ? "%s" : "__bfloat16_as_ushort(%s)", s);
        else pg_buf_printf(b, bits ? "__bfloat162float(__ushort_as_bfloat16(%s))" : "__bfloat162float(%s)", s);
    } else pg_buf_puts(b, s);
}
/* Expression converting local value `v` to what is stored (bits for vector lanes). */
static void conv_out(pg_buf *b, const fe_arr *a, const char *v, bool bits) {
    if (!strcmp(a->dt, "f16")) {
        if (a->raw) pg_buf_printf(b, bits ? "%s" : "__ushort_as_half(%s)", v);
        else pg_buf_printf(b, bits ? "__half_as_ushort(__float2half_rn(%s))" : "__float2half_rn(%s)", v);
    } else if (!strcmp(a->dt, "bf16")) {
        if (a->raw) pg_buf_printf(b, bits ? "%s" : "__ushort_as_bfloat16(%s)", v);
        else pg_buf_printf(b, bits ? "__bfloat16_as_ushort(__float2bfloat16_rn(%s))" : "__float2bfloat16_rn(%s)", v);
    } else if (!strcmp(a->dt, "s8")) pg_buf_printf(b, "(signed char)(%s)", v);
    else if (!strcmp(a->dt, "u8")) pg_buf_printf(b, "(unsigned char)(%s)", v);
    else pg_buf_puts(b, v);
}

void synth_fe_ld(pg_buf *b, const char *dt, const char *elem) {
    fe_arr a = {"", dt, FE_IN, false};
    conv_in(b, &a, elem, false);
}
void synth_fe_st(pg_buf *b, const char *dt, const char *v) {
    fe_arr a = {"", dt, FE_OUT, false};
    conv_out(b, &a, v, false);
}

static void indent(pg_buf *b, int d) {
    for (int k = 0; k < d; k++) pg_buf_puts(b, "    ");
}

/* Per-element code with scalar loads/stores at index i. */
static void scalar_elem(const fe_kernel *k, pg_buf *b, int d) {
    for (int a = 0; a < k->narr; a++) {
        const fe_arr *A = &k->arr[a];
        indent(b, d);
        if (A->role == FE_OUT) pg_buf_printf(b, "%s %s_e;\n", local_of(A), A->name);
        else {
            char s[80];
            snprintf(s, sizeof s, "%s[i]", A->name);
            pg_buf_printf(b, "%s %s_e = ", local_of(A), A->name);
            conv_in(b, A, s, false);
            pg_buf_puts(b, ";\n");
        }
    }
    /* the body, re-indented */
    for (const char *p = k->body; *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n) { indent(b, d); pg_buf_putn(b, p, n); }
        pg_buf_putc(b, '\n');
        p += n + (e ? 1 : 0);
    }
    for (int a = 0; a < k->narr; a++) {
        const fe_arr *A = &k->arr[a];
        if (A->role == FE_IN) continue;
        char v[80];
        snprintf(v, sizeof v, "%s_e", A->name);
        indent(b, d);
        pg_buf_printf(b, "%s[i] = ", A->name);
        conv_out(b, A, v, false);
        pg_buf_puts(b, ";\n");
    }
}

static const char LANE[] = "xyzw";

static void vector_elems(const fe_kernel *k, pg_buf *b, int d) {
    int V = k->V;
    for (int a = 0; a < k->narr; a++) {
        const fe_arr *A = &k->arr[a];
        indent(b, d);
        pg_buf_printf(b, "%s %s_v[%d];\n", local_of(A), A->name, V);
        if (A->role == FE_OUT) continue;
        indent(b, d);
        pg_buf_printf(b, "{\n");
        indent(b, d + 1);
        pg_buf_printf(b, "%s%d vec = reinterpret_cast<const %s%d*>(%s)[t];\n", TY[ty(A->dt)].vec, V, TY[ty(A->dt)].vec, V, A->name);
        for (int l = 0; l < V; l++) {
            char s[8];
            snprintf(s, sizeof s, "vec.%c", LANE[l]);
            indent(b, d + 1);
            pg_buf_printf(b, "%s_v[%d] = ", A->name, l);
            conv_in(b, A, s, true);
            pg_buf_puts(b, ";\n");
        }
        indent(b, d);
        pg_buf_puts(b, "}\n");
    }
    indent(b, d);
    pg_buf_printf(b, "#pragma unroll\n");
    indent(b, d);
    pg_buf_printf(b, "for (int l = 0; l < %d; l++) {\n", V);
    indent(b, d + 1);
    pg_buf_puts(b, "unsigned int i = i0 + l;\n");
    for (int a = 0; a < k->narr; a++) {
        const fe_arr *A = &k->arr[a];
        indent(b, d + 1);
        if (A->role == FE_OUT) pg_buf_printf(b, "%s %s_e;\n", local_of(A), A->name);
        else pg_buf_printf(b, "%s %s_e = %s_v[l];\n", local_of(A), A->name, A->name);
    }
    for (const char *p = k->body; *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n) { indent(b, d + 1); pg_buf_putn(b, p, n); }
        pg_buf_putc(b, '\n');
        p += n + (e ? 1 : 0);
    }
    for (int a = 0; a < k->narr; a++) {
        const fe_arr *A = &k->arr[a];
        if (A->role == FE_IN) continue;
        indent(b, d + 1);
        pg_buf_printf(b, "%s_v[l] = %s_e;\n", A->name, A->name);
    }
    indent(b, d + 1);
    pg_buf_puts(b, "(void)i;\n");
    indent(b, d);
    pg_buf_puts(b, "}\n");
    for (int a = 0; a < k->narr; a++) {
        const fe_arr *A = &k->arr[a];
        if (A->role == FE_IN) continue;
        indent(b, d);
        pg_buf_printf(b, "{\n");
        indent(b, d + 1);
        pg_buf_printf(b, "%s%d vec;\n", TY[ty(A->dt)].vec, V);
        for (int l = 0; l < V; l++) {
            char v[64];
            snprintf(v, sizeof v, "%s_v[%d]", A->name, l);
            indent(b, d + 1);
            pg_buf_printf(b, "vec.%c = ", LANE[l]);
            conv_out(b, A, v, true);
            pg_buf_puts(b, ";\n");
        }
        indent(b, d + 1);
        pg_buf_printf(b, "reinterpret_cast<%s%d*>(%s)[t] = vec;\n", TY[ty(A->dt)].vec, V, A->name);
        indent(b, d);
        pg_buf_puts(b, "}\n");
    }
}

void synth_fe_emit(const fe_kernel *k, pg_buf *cu) {
    pg_buf_puts(cu, "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n");
    pg_buf_printf(cu, "// %s: %s\n", k->name, k->comment);
    pg_buf_printf(cu, "extern \"C\" __global__ void %s(%s)\n{\n", k->name, k->sig);
    if (k->prologue) pg_buf_printf(cu, "%s", k->prologue);
    const char *n = k->n;
    if (k->V == 1) {
        if (k->grid_stride) {
            pg_buf_printf(cu, "    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < %s; i += gridDim.x * blockDim.x) {\n", n);
            scalar_elem(k, cu, 2);
            pg_buf_puts(cu, "    }\n}\n");
        } else {
            pg_buf_printf(cu, "    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i >= %s) return;\n", n);
            scalar_elem(k, cu, 1);
            pg_buf_puts(cu, "}\n");
        }
        return;
    }
    /* V elements per step: thread t owns i0 = V*t .. V*t+V-1 */
    if (k->grid_stride)
        pg_buf_printf(cu, "    for (unsigned int t = blockIdx.x * blockDim.x + threadIdx.x; t * %d < %s; t += gridDim.x * blockDim.x) {\n", k->V, n);
    else pg_buf_printf(cu, "    unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;\n    if (t * %d < %s) {\n", k->V, n);
    pg_buf_printf(cu, "        unsigned int i0 = t * %d;\n        if (i0 + %d <= %s) {   // a full vector\n", k->V, k->V, n);
    vector_elems(k, cu, 3);
    pg_buf_printf(cu, "        } else {   // the tail: one element at a time\n            for (unsigned int i = i0; i < %s; i++) {\n", n);
    scalar_elem(k, cu, 4);
    pg_buf_puts(cu, "            }\n        }\n    }\n}\n");
}

/* ---- task.json ---------------------------------------------------------------------- */
static const char *role_name(int role) { return role == FE_OUT ? "out" : role == FE_INOUT ? "inout" : "in"; }

json_t *synth_fe_root(const char *name, const char *family) {
    json_t *root = json_object();
    json_object_set_new(root, "name", json_string(name));
    json_object_set_new(root, "family", json_string(family));
    json_object_set_new(root, "kernel", json_string(name));
    return root;
}

void synth_fe_ptr(json_t *ps, const char *name, const char *dt, int role, const char *len) {
    char t[16];
    snprintf(t, sizeof t, "%s*", dt);
    json_array_append_new(ps, json_pack("{s:s, s:s, s:s, s:s}", "name", name, "type", t, "role", role_name(role), "len", len));
}
void synth_fe_ptr_dist(json_t *ps, const char *name, const char *dt, int role, const char *len, const char *d0, const char *d1,
                 const char *d2) {
    char t[16];
    snprintf(t, sizeof t, "%s*", dt);
    json_t *d = d2 ? json_pack("[s, s, s]", d0, d1, d2) : json_pack("[s, s]", d0, d1);
    json_array_append_new(ps, json_pack("{s:s, s:s, s:s, s:s, s:o}", "name", name, "type", t, "role", role_name(role), "len", len,
                                        "dist", d));
}
void synth_fe_scal(json_t *ps, const char *name, const char *dt, const char *value) {
    json_array_append_new(ps, json_pack("{s:s, s:s, s:s}", "name", name, "type", dt, "value", value));
}
void synth_fe_lit(char *t, size_t n, double v) {
    if (v == (double)(long long)v && v > -1e6 && v < 1e6) snprintf(t, n, "%.1f", v);   /* integral: no exponent */
    else synth_fam_lit(t, n, v);
}
void synth_fe_scal_f(json_t *ps, const char *name, const char *dt, double value) {
    char lit[40];
    synth_fe_lit(lit, sizeof lit, value);
    synth_fe_scal(ps, name, dt, lit);
}

json_t *synth_fe_sizes1(const char *var, const long *vals) {
    json_t *a = json_array();
    for (int k = 0; vals[k]; k++) {
        json_t *o = json_object();
        json_object_set_new(o, var, json_integer(vals[k]));
        if (k == 0) json_object_set_new(o, "time", json_true());
        json_array_append_new(a, o);
    }
    return a;
}

void synth_fe_launch1(json_t *root, int block, int V, bool grid_stride, int cap, const char *count) {
    char b[16], g[96];
    snprintf(b, sizeof b, "%d", block);
    if (grid_stride) snprintf(g, sizeof g, "min(cdiv(%s,%d),%d)", count, block * V, cap);
    else snprintf(g, sizeof g, "cdiv(%s,%d)", count, block * V);
    json_object_set_new(root, "launch", json_pack("{s:[s], s:[s], s:s}", "block", b, "grid", g, "smem", "0"));
}

void synth_fe_finish(json_t *root, const desc_facts *f, uint64_t seed, const char *dt, double tol, const char *dt2, double tol2,
               const char *ref, const char *bytes, const char *flops, pg_buf *out) {
    if (!json_object_get(root, "distributions"))
        json_object_set_new(root, "distributions", json_pack("[s, s]", "uniform(-1,1)", "normal(0,1)"));
    json_t *t = json_object();
    json_object_set_new(t, dt, json_real(tol));
    if (dt2 && strcmp(dt2, dt)) json_object_set_new(t, dt2, json_real(tol2));
    json_object_set_new(root, "tolerance", t);
    json_object_set_new(root, "reference", json_pack("{s:s, s:s}", "kind", "c", "name", ref));
    json_object_set_new(root, "cost", json_pack("{s:s, s:s}", "bytes", bytes, "flops", flops));
    json_object_set_new(root, "descriptions", synth_desc_render_all(f, root, seed));
    synth_task_json_write(root, out);
    json_decref(root);
}

/* ---- templates ---------------------------------------------------------------------- */
const char *synth_fe_t(fe_strs *s, const char *const *kv, const char *tmpl) {
    if (s->n >= FE_NSTRS) return "";
    pg_buf *b = &s->b[s->n++];
    for (const char *p = tmpl; *p;) {
        bool hit = false;
        if (*p == '{')
            for (int k = 0; kv && kv[k] && !hit; k += 2) {
                size_t n = strlen(kv[k]);
                if (!strncmp(p + 1, kv[k], n) && p[1 + n] == '}') {
                    pg_buf_puts(b, kv[k + 1]);
                    p += n + 2;
                    hit = true;
                }
            }
        if (!hit) pg_buf_putc(b, *p++);
    }
    return b->data ? b->data : "";
}
void synth_fe_strs_free(fe_strs *s) {
    for (int k = 0; k < s->n; k++) pg_buf_free(&s->b[k]);
    s->n = 0;
}

/* ---- technique phrases ---------------------------------------------------------------- */
const char *synth_fe_how_en(fe_strs *T, int V, bool gs) {
    pg_buf b = {0};
    if (V > 1) pg_buf_printf(&b, "%d consecutive elements per thread with %d-wide vector loads and stores, the last partial group one element at a time", V, V);
    else pg_buf_puts(&b, "one element per thread");
    if (gs) pg_buf_puts(&b, ", in a grid-stride loop (the grid is capped)");
    const char *s = synth_fe_t(T, NULL, b.data);
    pg_buf_free(&b);
    return s;
}
const char *synth_fe_how_zh(fe_strs *T, int V, bool gs) {
    pg_buf b = {0};
    if (V > 1) pg_buf_printf(&b, "每个线程用 %d 宽向量读写处理 %d 个相邻元素，不足一组的尾部逐个处理", V, V);
    else pg_buf_puts(&b, "每个线程处理一个元素");
    if (gs) pg_buf_puts(&b, "；网格有上限，使用 grid-stride 循环");
    const char *s = synth_fe_t(T, NULL, b.data);
    pg_buf_free(&b);
    return s;
}

