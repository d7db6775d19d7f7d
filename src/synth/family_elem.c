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

/* ---- plan styles -------------------------------------------------------------------- */
static const char *const IDX_T[] = {"unsigned int", "int", "const int", "size_t"};
static const char *const IDX_ID[] = {"uint", "int", "const_int", "size_t"};
static const char *const SHAPE_ID[] = {"fixed", "inline", "block", "return"};

fe_style synth_fe_style(uint64_t seed, const synth_family_sample *s) {
    fe_style st = {FE_SHAPE_FIXED, FE_IDX_UINT, 0};
    if (!s || s->plan_style != SYNTH_PLAN_VARIED) return st;
    fam_rng r = {seed ^ 0x706c616e5f737479ull};   /* "plan_sty": no family draws from this stream */
    /* shares after bench/suite's references: mostly unsigned int, size_t for flattened 2D sizes */
    static const int IDXW[] = {FE_IDX_UINT, FE_IDX_UINT, FE_IDX_UINT, FE_IDX_UINT, FE_IDX_UINT,
                               FE_IDX_INT,  FE_IDX_INT,  FE_IDX_CINT, FE_IDX_SIZE, FE_IDX_SIZE};
    /* shapes: house 20%, early return with natural names 20%, block 20%, one-line guard 40% (the
     * suites' most common form of a one-expression body; a longer body gets the early return) */
    static const int SHW[] = {FE_SHAPE_FIXED, FE_SHAPE_FIXED, FE_SHAPE_RETURN, FE_SHAPE_RETURN, FE_SHAPE_BLOCK,
                              FE_SHAPE_BLOCK, FE_SHAPE_INLINE, FE_SHAPE_INLINE, FE_SHAPE_INLINE, FE_SHAPE_INLINE};
    st.shape = SHW[synth_fam_pick(&r, 10)];
    st.index = IDXW[synth_fam_pick(&r, 10)];
    st.names = st.shape == FE_SHAPE_FIXED ? 0 : 1 + synth_fam_pick(&r, 4);
    return st;
}

static bool is_id(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

/* How often identifier w occurs in t as a whole token. */
static int count_tok(const char *t, const char *w) {
    size_t n = strlen(w);
    int c = 0;
    if (!t || !n) return 0;
    for (const char *p = strstr(t, w); p; p = strstr(p + 1, w))
        if ((p == t || !is_id(p[-1])) && !is_id(p[n])) c++;
    return c;
}

/* t with each whole token from[k] replaced by to[k]. */
static void replace_toks(pg_buf *o, const char *t, const char *const *from, const char *const *to, int nk) {
    for (const char *p = t; *p;) {
        if (is_id(*p)) {
            size_t n = 0;
            while (is_id(p[n])) n++;
            int hit = -1;
            for (int k = 0; k < nk && hit < 0; k++)
                if (strlen(from[k]) == n && !strncmp(p, from[k], n)) hit = k;
            if (hit >= 0) pg_buf_puts(o, to[hit]);
            else pg_buf_putn(o, p, n);
            p += n;
        } else pg_buf_putc(o, *p++);
    }
}

static bool name_used(const fe_kernel *k, const char *w, char names[][40], int upto) {
    if (!strcmp(w, "i") || !strcmp(w, "n") || count_tok(k->sig, w) || count_tok(k->prologue, w) || count_tok(k->body, w) ||
        count_tok(k->n, w))
        return true;
    for (int a = 0; a < k->narr; a++)
        if (!strcmp(k->arr[a].name, w) || (a < upto && !strcmp(names[a], w))) return true;
    return false;
}

/* The locals: name_e (names 0), else one scheme of natural names — 1: v for the one input
 * and r for the one output (xi, yi when there are several), 2: xi, 3: x_val, 4: xv — each
 * falling back to the next when it would meet a name the kernel already uses. */
static void local_names(const fe_kernel *k, int scheme, char names[][40]) {
    int nin = 0, nout = 0;
    for (int a = 0; a < k->narr; a++) {
        if (k->arr[a].role == FE_OUT) nout++;
        else nin++;
    }
    for (int a = 0; a < k->narr; a++) {
        const fe_arr *A = &k->arr[a];
        snprintf(names[a], 40, "%s_e", A->name);
        if (!scheme) continue;
        char cand[5][40];
        int nc = 0;
        if (scheme == 1 && A->role != FE_OUT && nin == 1) snprintf(cand[nc++], 40, "v");
        if (scheme == 1 && A->role == FE_OUT && nout == 1) snprintf(cand[nc++], 40, "r");
        if (scheme <= 2) snprintf(cand[nc++], 40, "%si", A->name);
        if (scheme <= 3) snprintf(cand[nc++], 40, "%s_val", A->name);
        snprintf(cand[nc++], 40, "%sv", A->name);
        for (int c = 0; c < nc; c++)
            if (!name_used(k, cand[c], names, a)) { memcpy(names[a], cand[c], 40); break; }
    }
}

static void put_lines(pg_buf *b, const char *text, int d) {   /* text re-indented */
    for (const char *p = text; *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n) { indent(b, d); pg_buf_putn(b, p, n); }
        pg_buf_putc(b, '\n');
        p += n + (e ? 1 : 0);
    }
}

/* Per-element code with scalar loads/stores at index i, the locals called names[]
 * (natural: an output first assigned at the top level of the body is declared there). */
static void scalar_elem(const fe_kernel *k, pg_buf *b, int d, char names[][40], bool natural) {
    const char *from[8], *to[8];
    bool decl_at[8] = {false};
    pg_buf body = {0};
    char fromb[8][40];
    for (int a = 0; a < k->narr; a++) {
        snprintf(fromb[a], sizeof fromb[a], "%s_e", k->arr[a].name);
        from[a] = fromb[a];
        to[a] = names[a];
    }
    replace_toks(&body, k->body, from, to, k->narr);
    const char *bt = body.data ? body.data : "";
    for (int a = 0; natural && a < k->narr; a++) {
        if (k->arr[a].role != FE_OUT) continue;
        /* the first line that mentions it must be `name = ...` at the top level */
        for (const char *p = bt; *p;) {
            const char *e = strchr(p, '\n');
            size_t n = e ? (size_t)(e - p) : strlen(p);
            char line[512];
            snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line - 1 ? n : sizeof line - 1), p);
            if (count_tok(line, names[a])) {
                size_t m = strlen(names[a]);
                decl_at[a] = !strncmp(line, names[a], m) && !strncmp(line + m, " = ", 3) && !memchr(bt, '{', (size_t)(p - bt));
                break;
            }
            p += n + (e ? 1 : 0);
        }
    }
    for (int a = 0; a < k->narr; a++) {
        const fe_arr *A = &k->arr[a];
        if (A->role == FE_OUT) {
            if (decl_at[a]) continue;
            indent(b, d);
            pg_buf_printf(b, "%s %s;\n", local_of(A), names[a]);
        } else {
            char s[80];
            snprintf(s, sizeof s, "%s[i]", A->name);
            indent(b, d);
            pg_buf_printf(b, "%s %s = ", local_of(A), names[a]);
            conv_in(b, A, s, false);
            pg_buf_puts(b, ";\n");
        }
    }
    for (const char *p = bt; *p;) {   /* the body, re-indented */
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n) {
            indent(b, d);
            for (int a = 0; a < k->narr; a++) {
                size_t m = strlen(names[a]);
                if (decl_at[a] && n > m + 3 && !strncmp(p, names[a], m) && !strncmp(p + m, " = ", 3)) {
                    pg_buf_printf(b, "%s ", local_of(&k->arr[a]));
                    decl_at[a] = false;   /* declared once, at its first assignment */
                }
            }
            pg_buf_putn(b, p, n);
        }
        pg_buf_putc(b, '\n');
        p += n + (e ? 1 : 0);
    }
    pg_buf_free(&body);
    for (int a = 0; a < k->narr; a++) {
        const fe_arr *A = &k->arr[a];
        if (A->role == FE_IN) continue;
        indent(b, d);
        pg_buf_printf(b, "%s[i] = ", A->name);
        conv_out(b, A, names[a], false);
        pg_buf_puts(b, ";\n");
    }
}

/* e is fn(inner) as a whole: inner into o. */
static bool unwrap(const char *e, const char *fn, pg_buf *o) {
    size_t n = strlen(fn), len = strlen(e);
    if (strncmp(e, fn, n) || e[n] != '(' || len < n + 2 || e[len - 1] != ')') return false;
    int depth = 0;
    for (size_t p = n; p < len; p++) {
        depth += e[p] == '(' ? 1 : e[p] == ')' ? -1 : 0;
        if (depth == 0 && p != len - 1) return false;   /* fn(...) is only a prefix */
    }
    pg_buf_putn(o, e + n + 1, len - n - 2);
    return true;
}

/* The body as one statement with the loads inlined: `y[i] = <expr>;` (+ its comment) into o.
 * False unless the body is one assignment `y_e = E;` to the one array written, E does not
 * read y_e (unless y is in-place) and reads no input more than 4 times (twice if its load
 * converts). */
static bool inline_stmt(const fe_kernel *k, pg_buf *o) {
    int w = -1;
    for (int a = 0; a < k->narr; a++)
        if (k->arr[a].role != FE_IN) {
            if (w >= 0) return false;
            w = a;
        }
    if (w < 0 || !k->body) return false;
    const fe_arr *W = &k->arr[w];
    const char *b = k->body;
    size_t len = strlen(b);
    while (len && b[len - 1] == '\n') len--;
    if (memchr(b, '\n', len)) return false;
    char lhs[48];
    snprintf(lhs, sizeof lhs, "%s_e = ", W->name);
    if (strncmp(b, lhs, strlen(lhs))) return false;
    const char *e0 = b + strlen(lhs), *semi = memchr(e0, ';', len - (size_t)(e0 - b));
    if (!semi) return false;
    const char *rest = semi + 1, *end = b + len;
    while (rest < end && *rest == ' ') rest++;
    if (rest < end && strncmp(rest, "//", 2)) return false;   /* a second statement */
    char expr[600];
    if ((size_t)(semi - e0) >= sizeof expr) return false;
    snprintf(expr, sizeof expr, "%.*s", (int)(semi - e0), e0);
    pg_buf ld[8] = {{0}};
    const char *from[8], *to[8];
    char fromb[8][40];
    bool ok = true;
    for (int a = 0; a < k->narr; a++) {
        const fe_arr *A = &k->arr[a];
        snprintf(fromb[a], sizeof fromb[a], "%s_e", A->name);
        from[a] = fromb[a];
        int uses = count_tok(expr, fromb[a]);
        char s[80];
        snprintf(s, sizeof s, "%s[i]", A->name);
        conv_in(&ld[a], A, s, false);
        /* x[i] * x[i] * x[i] is written; a conversion repeated more than twice is not */
        if (uses > (strcmp(ld[a].data, s) ? 2 : 4) || (A->role == FE_OUT && uses)) ok = false;
        to[a] = ld[a].data;
    }
    if (ok) {
        pg_buf e = {0}, inner = {0}, bare = {0};
        replace_toks(&e, expr, from, to, k->narr);
        if (unwrap(e.data, "", &bare)) {   /* `y[i] = (a / b);`: the assignment needs no parentheses */
            pg_buf_free(&e);
            e = bare;
            bare = (pg_buf){0};
        }
        pg_buf_printf(o, "%s[i] = ", W->name);
        /* a raw half output written as its bits: store the half itself, not its bits re-cast */
        if (W->raw && !strcmp(W->dt, "f16") && unwrap(e.data, "__half_as_ushort", &inner)) pg_buf_puts(o, inner.data);
        else if (W->raw && !strcmp(W->dt, "bf16") && unwrap(e.data, "__bfloat16_as_ushort", &inner)) pg_buf_puts(o, inner.data);
        else conv_out(o, W, e.data, false);
        pg_buf_putn(o, semi, (size_t)(end - semi));
        pg_buf_putc(o, '\n');
        pg_buf_free(&e);
        pg_buf_free(&inner);
        pg_buf_free(&bare);
    }
    for (int a = 0; a < k->narr; a++) pg_buf_free(&ld[a]);
    return ok;
}

static const char LANE[] = "xyzw";

static void vector_elems(const fe_kernel *k, pg_buf *b, int d, const char *it) {
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
    pg_buf_printf(b, "%s i = i0 + l;\n", it);
    for (int a = 0; a < k->narr; a++) {
        const fe_arr *A = &k->arr[a];
        indent(b, d + 1);
        if (A->role == FE_OUT) pg_buf_printf(b, "%s %s_e;\n", local_of(A), A->name);
        else pg_buf_printf(b, "%s %s_e = %s_v[l];\n", local_of(A), A->name, A->name);
    }
    put_lines(b, k->body, d + 1);
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

void synth_fe_emit_styled(const fe_kernel *k, const fe_style *st, pg_buf *cu, char *variant, size_t vn) {
    static const fe_style FIXED = {FE_SHAPE_FIXED, FE_IDX_UINT, 0};
    bool fixed_only = !st;
    if (!st) st = &FIXED;
    int shape = st->shape, index = st->index;
    if (k->grid_stride && index == FE_IDX_CINT) index = FE_IDX_INT;   /* a loop variable cannot be const */
    const char *it = IDX_T[index], *n = k->n;
    /* the index expression: size_t widens before the multiply, as people write it for large n */
    const char *first = index == FE_IDX_SIZE ? "(size_t)blockIdx.x * blockDim.x + threadIdx.x" : "blockIdx.x * blockDim.x + threadIdx.x";
    const char *step = index == FE_IDX_SIZE ? "(size_t)gridDim.x * blockDim.x" : "gridDim.x * blockDim.x";
    char names[8][40];
    pg_buf one = {0};
    if (k->V == 1) {
        if (shape == FE_SHAPE_INLINE && !inline_stmt(k, &one)) shape = FE_SHAPE_RETURN;   /* several statements */
        if (shape == FE_SHAPE_FIXED && st->names) shape = FE_SHAPE_RETURN;
        if (shape == FE_SHAPE_RETURN && k->grid_stride) shape = FE_SHAPE_BLOCK;   /* a loop body has no early return */
        local_names(k, shape == FE_SHAPE_FIXED ? 0 : st->names ? st->names : 1, names);
    }
    if (variant && vn) {
        if (fixed_only) variant[0] = 0;
        else snprintf(variant, vn, "%s/%s", k->V == 1 ? SHAPE_ID[shape] : "vector", IDX_ID[index]);
    }
    pg_buf_puts(cu, "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n");
    pg_buf_printf(cu, "// %s: %s\n", k->name, k->comment);
    pg_buf_printf(cu, "extern \"C\" __global__ void %s(%s)\n{\n", k->name, k->sig);
    if (k->prologue) pg_buf_printf(cu, "%s", k->prologue);
    bool natural = shape != FE_SHAPE_FIXED;
    if (k->V == 1) {
        if (k->grid_stride) {
            pg_buf_printf(cu, "    for (%s i = %s; i < %s; i += %s) {\n", it, first, n, step);
            if (shape == FE_SHAPE_INLINE) put_lines(cu, one.data, 2);
            else scalar_elem(k, cu, 2, names, natural);
            pg_buf_puts(cu, "    }\n}\n");
        } else {
            pg_buf_printf(cu, "    %s i = %s;\n", it, first);
            if (shape == FE_SHAPE_INLINE) {
                pg_buf_printf(cu, "    if (i < %s) ", n);
                pg_buf_puts(cu, one.data);
            } else if (shape == FE_SHAPE_BLOCK) {
                pg_buf_printf(cu, "    if (i < %s) {\n", n);
                scalar_elem(k, cu, 2, names, natural);
                pg_buf_puts(cu, "    }\n");
            } else {
                pg_buf_printf(cu, "    if (i >= %s) return;\n", n);
                scalar_elem(k, cu, 1, names, natural);
            }
            pg_buf_puts(cu, "}\n");
        }
        pg_buf_free(&one);
        return;
    }
    /* V elements per step: thread t owns i0 = V*t .. V*t+V-1 */
    if (k->grid_stride)
        pg_buf_printf(cu, "    for (%s t = %s; t * %d < %s; t += %s) {\n", it, first, k->V, n, step);
    else pg_buf_printf(cu, "    %s t = %s;\n    if (t * %d < %s) {\n", it, first, k->V, n);
    const char *lt = index == FE_IDX_CINT ? "int" : it;   /* the tail's loop variable */
    pg_buf_printf(cu, "        %s i0 = t * %d;\n        if (i0 + %d <= %s) {   // a full vector\n", it, k->V, k->V, n);
    vector_elems(k, cu, 3, it);
    pg_buf_printf(cu, "        } else {   // the tail: one element at a time\n            for (%s i = i0; i < %s; i++) {\n", lt, n);
    local_names(k, 0, names);
    scalar_elem(k, cu, 4, names, false);
    pg_buf_puts(cu, "            }\n        }\n    }\n}\n");
}

void synth_fe_emit(const fe_kernel *k, uint64_t seed, synth_family_sample *s, pg_buf *cu) {
    fe_style st = synth_fe_style(seed, s);
    synth_fe_emit_styled(k, s->plan_style == SYNTH_PLAN_VARIED ? &st : NULL, cu, s->plan_variant, sizeof s->plan_variant);
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

int synth_fe_grid_mult(uint64_t seed) {
    fam_rng r = {seed ^ 0x6665677269646d75ull};   /* a stream no family draws from */
    static const int M[] = {1, 1, 2, 4, 8};
    return M[synth_fam_pick(&r, 5)];
}

void synth_fe_launch1(json_t *root, int block, int V, bool grid_stride, int cap, int mult, const char *count) {
    char b[16], g[96];
    snprintf(b, sizeof b, "%d", block);
    if (grid_stride) snprintf(g, sizeof g, "min(cdiv(%s,%d),%d)", count, block * V * (mult > 1 ? mult : 1), cap);
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

