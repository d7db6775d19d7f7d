/* task.c — task specs: loading (jansson; size expressions are src/expr), deterministic
 * input generation, poisoning, comparison and the C reference registry. */
#include "ptxgen/task.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmpd(const void *x, const void *y);   /* qsort comparator */

/* ---- element types ---------------------------------------------------------- */
static const struct { const char *name; int size; bool flt; } dtypes[TASK_T__COUNT] = {
    [TASK_T_NONE] = {"none", 0, false}, [TASK_T_F16] = {"f16", 2, true}, [TASK_T_BF16] = {"bf16", 2, true},
    [TASK_T_F32] = {"f32", 4, true},    [TASK_T_F64] = {"f64", 8, true}, [TASK_T_S8] = {"s8", 1, false},
    [TASK_T_S16] = {"s16", 2, false},   [TASK_T_S32] = {"s32", 4, false}, [TASK_T_S64] = {"s64", 8, false},
    [TASK_T_U8] = {"u8", 1, false},     [TASK_T_U16] = {"u16", 2, false}, [TASK_T_U32] = {"u32", 4, false},
    [TASK_T_U64] = {"u64", 8, false},
};
const char *const task_styles[TASK_NSTYLES] = {"terse", "detailed", "card", "zh", "prose"};

const char *task_dtype_name(task_dtype t) { return (unsigned)t < TASK_T__COUNT ? dtypes[t].name : "?"; }
int task_dtype_size(task_dtype t) { return (unsigned)t < TASK_T__COUNT ? dtypes[t].size : 0; }
bool task_dtype_is_float(task_dtype t) { return (unsigned)t < TASK_T__COUNT && dtypes[t].flt; }
task_dtype task_dtype_parse(const char *s) {
    for (int i = 1; i < TASK_T__COUNT; i++)
        if (!strcmp(dtypes[i].name, s)) return (task_dtype)i;
    return TASK_T_NONE;
}

uint16_t task_f32_to_f16(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u, e = (x >> 23) & 0xffu, m = x & 0x7fffffu;
    if (e == 0xff) return (uint16_t)(sign | 0x7c00u | (m ? 0x200u : 0));
    int ee = (int)e - 127 + 15;
    if (ee >= 31) return (uint16_t)(sign | 0x7c00u);
    if (ee <= 0) {
        if (ee < -10) return (uint16_t)sign;
        m |= 0x800000u;
        int shift = 14 - ee;
        uint32_t half = m >> shift, rem = m & ((1u << shift) - 1), mid = 1u << (shift - 1);
        if (rem > mid || (rem == mid && (half & 1))) half++;
        return (uint16_t)(sign | half);
    }
    uint32_t half = sign | ((uint32_t)ee << 10) | (m >> 13), rem = m & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (half & 1))) half++;
    return (uint16_t)half;
}
float task_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, x;
    if (e == 0) {
        if (!m) x = sign;
        else {
            int k = -1;
            do { k++; m <<= 1; } while (!(m & 0x400u));
            x = sign | ((uint32_t)(127 - 15 - k) << 23) | ((m & 0x3ffu) << 13);
        }
    } else if (e == 31) x = sign | 0x7f800000u | (m << 13);
    else x = sign | ((e - 15 + 127) << 23) | (m << 13);
    float f;
    memcpy(&f, &x, 4);
    return f;
}
uint16_t task_f32_to_bf16(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u);
    x += 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}
float task_bf16_to_f32(uint16_t h) {
    uint32_t x = (uint32_t)h << 16;
    float f;
    memcpy(&f, &x, 4);
    return f;
}

/* ---- loading ------------------------------------------------------------------------ */
typedef struct { const char *path; pg_diag_sink *diag; bool bad; } lctx;

static void lerr(lctx *c, const char *jpath, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void lerr(lctx *c, const char *jpath, const char *fmt, ...) {
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pg_diag_emit(c->diag, PG_E_TASK, c->path, 0, 0, "%s: %s", jpath, msg);
    c->bad = true;
}

static char *xstrdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (!p) abort();
    memcpy(p, s, n);
    return p;
}

/* Required or optional string member; numbers are accepted and turned into text. */
static char *get_str(lctx *c, json_t *obj, const char *key, const char *jpath, bool required) {
    json_t *v = json_object_get(obj, key);
    if (!v) {
        if (required) lerr(c, jpath, "missing required field '%s'", key);
        return NULL;
    }
    if (json_is_string(v)) return xstrdup(json_string_value(v));
    if (json_is_integer(v)) {
        char b[32];
        snprintf(b, sizeof b, "%lld", (long long)json_integer_value(v));
        return xstrdup(b);
    }
    if (json_is_real(v)) {
        char b[40];
        snprintf(b, sizeof b, "%.17g", json_real_value(v));
        return xstrdup(b);
    }
    lerr(c, jpath, "'%s' must be a string", key);
    return NULL;
}

static char **get_str_array(lctx *c, json_t *arr, const char *jpath, int *n) {
    *n = 0;
    if (!json_is_array(arr)) { lerr(c, jpath, "must be an array of strings"); return NULL; }
    size_t k = json_array_size(arr);
    char **v = calloc(k + 1, sizeof(char *));
    for (size_t i = 0; i < k; i++) {
        json_t *e = json_array_get(arr, i);
        if (!json_is_string(e)) { lerr(c, jpath, "element %zu must be a string", i); continue; }
        v[(*n)++] = xstrdup(json_string_value(e));
    }
    return v;
}

/* Check a generator string's name (arguments are checked at instance time). */
static bool gen_name_ok(const char *g) {
    static const char *names[] = {"uniform", "normal", "int", "const", "iota", "perm", "rowptr", "sorted", "bitonic"};
    size_t n = strcspn(g, "(");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i]) == n && !strncmp(g, names[i], n)) return true;
    return false;
}

static int gen_check(const char *g, const expr_env *env, double a[4], char *err, size_t errn);

/* A task name becomes a file name (eval --keep, run's reports): one plain path
 * component, so no spec can write outside the folder it is given. */
static bool name_ok(const char *s) {
    if (!*s || *s == '.' || strlen(s) > 100) return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-' && *s != '.') return false;
    return true;
}
/* The kernel is a PTX identifier (it is also part of temp file names). */
static bool ident_ok(const char *s) {
    if (!*s || strlen(s) > 100 || isdigit((unsigned char)*s)) return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '$') return false;
    return true;
}
/* Does v fit a scalar parameter of integer type t? */
static bool fits(task_dtype t, int64_t v) {
    switch (t) {
    case TASK_T_S8: return v >= INT8_MIN && v <= INT8_MAX;
    case TASK_T_S16: return v >= INT16_MIN && v <= INT16_MAX;
    case TASK_T_S32: return v >= INT32_MIN && v <= INT32_MAX;
    case TASK_T_U8: return v >= 0 && v <= UINT8_MAX;
    case TASK_T_U16: return v >= 0 && v <= UINT16_MAX;
    case TASK_T_U32: return v >= 0 && v <= (int64_t)UINT32_MAX;
    case TASK_T_U64: return v >= 0;
    default: return true;
    }
}
/* Launch limits of every CUDA GPU since sm_30, and the largest dynamic shared
 * memory any supported target grants a block (sm_90: 227 KiB, opt-in). */
enum { TASK_MAX_SMEM = 232448 };
static const int64_t block_max[3] = {1024, 1024, 64}, grid_max[3] = {2147483647, 65535, 65535};
#define TASK_MAX_BUFFER_BYTES ((int64_t)1 << 40)   /* 1 TiB: more is a typo, not a test size */

static pg_status task_from_json(json_t *root, const char *path, task_spec **out, pg_diag_sink *diag);

pg_status task_load(const char *path, task_spec **out, pg_diag_sink *diag) {
    *out = NULL;
    json_error_t jerr;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        bool io = strstr(jerr.text, "unable to open") != NULL;
        pg_diag_emit(diag, io ? PG_E_IO : PG_E_TASK, path, jerr.line > 0 ? jerr.line : 0, jerr.column > 0 ? jerr.column : 0,
                     "%s", jerr.text);
        return io ? PG_ERR_IO : PG_ERR_PARSE;
    }
    return task_from_json(root, path, out, diag);
}

pg_status task_load_text(const char *text, size_t len, const char *path, task_spec **out, pg_diag_sink *diag) {
    *out = NULL;
    json_error_t jerr;
    json_t *root = json_loadb(text ? text : "", text ? len : 0, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        pg_diag_emit(diag, PG_E_TASK, path, jerr.line > 0 ? jerr.line : 0, jerr.column > 0 ? jerr.column : 0, "%s", jerr.text);
        return PG_ERR_PARSE;
    }
    return task_from_json(root, path, out, diag);
}

/* Takes root (decrefs it). */
static pg_status task_from_json(json_t *root, const char *path, task_spec **out, pg_diag_sink *diag) {
    lctx c = {path, diag, false};
    task_spec *t = calloc(1, sizeof *t);
    t->path = xstrdup(path);
    const char *slash = strrchr(path, '/');
    t->dir = slash ? strndup(path, (size_t)(slash - path)) : xstrdup(".");
    if (!json_is_object(root)) { lerr(&c, "$", "the top level must be an object"); goto done; }
    t->name = get_str(&c, root, "name", "$", true);
    t->kernel = get_str(&c, root, "kernel", "$", true);
    t->family = get_str(&c, root, "family", "$", false);
    if (t->name && !name_ok(t->name))
        lerr(&c, "$.name", "'%.100s' must be a plain file name (letters, digits, '_', '-', '.', not starting with '.', "
             "at most 100 characters): results and kept kernels are named after it", t->name);
    if (t->kernel && !ident_ok(t->kernel)) lerr(&c, "$.kernel", "'%.100s' is not a PTX identifier (at most 100 characters)", t->kernel);
    json_t *d = json_object_get(root, "descriptions");
    if (!json_is_object(d)) lerr(&c, "$.descriptions", "missing object with terse, detailed, card, zh and/or prose");
    else {
        /* generated tasks carry all five styles; a hand-written request (bench/suite-prose) only the
         * one it was written in; at least one is needed */
        int have = 0;
        for (int k = 0; k < TASK_NSTYLES; k++)
            have += (t->desc[k] = get_str(&c, d, task_styles[k], "$.descriptions", false)) != NULL;
        if (!have) lerr(&c, "$.descriptions", "needs at least one of terse, detailed, card, zh, prose");
    }
    /* sizes first: params are checked against their variables */
    json_t *sz = json_object_get(root, "sizes");
    if (!json_is_array(sz) || json_array_size(sz) < 2) lerr(&c, "$.sizes", "need an array of at least 2 problem sizes");
    else {
        t->nsizes = (int)json_array_size(sz);
        t->sizes = calloc((size_t)t->nsizes, sizeof(task_size));
        bool any_time = false;
        for (int i = 0; i < t->nsizes; i++) {
            char jp[64];
            snprintf(jp, sizeof jp, "$.sizes[%d]", i);
            json_t *o = json_array_get(sz, (size_t)i);
            if (!json_is_object(o)) { lerr(&c, jp, "must be an object of size variables"); continue; }
            const char *key;
            json_t *v;
            json_object_foreach(o, key, v) {
                if (!strcmp(key, "time")) { t->sizes[i].time_it = json_is_true(v); any_time |= t->sizes[i].time_it; continue; }
                if (!json_is_integer(v) || json_integer_value(v) < 0) { lerr(&c, jp, "'%s' must be a non-negative integer", key); continue; }
                expr_env *e = &t->sizes[i].env;
                if (e->n >= EXPR_MAX_VARS) { lerr(&c, jp, "too many size variables"); break; }
                e->name[e->n] = xstrdup(key);
                e->val[e->n++] = json_integer_value(v);
            }
        }
        if (!any_time && t->nsizes) t->sizes[0].time_it = true;
    }
    json_t *ps = json_object_get(root, "params");
    if (!json_is_array(ps) || json_array_size(ps) == 0) lerr(&c, "$.params", "need a non-empty array of parameters");
    else {
        t->nparams = (int)json_array_size(ps);
        t->params = calloc((size_t)t->nparams, sizeof(task_param));
        for (int i = 0; i < t->nparams; i++) {
            char jp[64];
            snprintf(jp, sizeof jp, "$.params[%d]", i);
            json_t *o = json_array_get(ps, (size_t)i);
            task_param *p = &t->params[i];
            if (!json_is_object(o)) { lerr(&c, jp, "must be an object"); continue; }
            p->name = get_str(&c, o, "name", jp, true);
            char *ty = get_str(&c, o, "type", jp, true);
            if (ty) {
                size_t n = strlen(ty);
                p->is_pointer = n > 0 && ty[n - 1] == '*';
                if (p->is_pointer) ty[n - 1] = 0;
                p->dtype = task_dtype_parse(ty);
                if (!p->dtype) lerr(&c, jp, "unknown type '%s' (f16 bf16 f32 f64 s8..s64 u8..u64, '*' for pointers)", ty);
                free(ty);
            }
            if (p->is_pointer) {
                char *role = get_str(&c, o, "role", jp, true);
                if (role) {
                    if (!strcmp(role, "in")) p->role = TASK_ROLE_IN;
                    else if (!strcmp(role, "out")) p->role = TASK_ROLE_OUT;
                    else if (!strcmp(role, "inout")) p->role = TASK_ROLE_INOUT;
                    else lerr(&c, jp, "role must be in, out or inout, not '%s'", role);
                    free(role);
                }
                p->len = get_str(&c, o, "len", jp, true);
                json_t *dd = json_object_get(o, "dist");
                if (dd) {
                    char jp2[80];
                    snprintf(jp2, sizeof jp2, "%s.dist", jp);
                    p->dists = get_str_array(&c, dd, jp2, &p->ndists);
                    for (int k = 0; k < p->ndists; k++)
                        if (!gen_name_ok(p->dists[k])) lerr(&c, jp2, "unknown generator '%s'", p->dists[k]);
                }
            } else {
                p->value = get_str(&c, o, "value", jp, true);
            }
            for (int k = 0; k < i; k++)
                if (p->name && t->params[k].name && !strcmp(p->name, t->params[k].name)) lerr(&c, jp, "duplicate parameter '%s'", p->name);
            /* expressions must evaluate for every size */
            for (int s = 0; s < t->nsizes && !c.bad; s++) {
                const char *e = p->is_pointer ? p->len : p->value;
                if (!e) break;
                if (!p->is_pointer && task_dtype_is_float(p->dtype)) {
                    char *end;
                    strtod(e, &end);
                    if (*end == 0) break;   /* a float literal */
                }
                int64_t v;
                char err[160];
                if (!expr_size_eval(e, &t->sizes[s].env, &v, err, sizeof err)) {
                    lerr(&c, jp, "%s '%.80s': %s (in size %d)", p->is_pointer ? "len" : "value", e, err, s);
                    break;
                }
                int64_t bytes;
                if (p->is_pointer && v < 0) lerr(&c, jp, "len '%s' is negative for size %d", e, s);
                else if (p->is_pointer && (__builtin_mul_overflow(v, (int64_t)task_dtype_size(p->dtype), &bytes) ||
                                           bytes > TASK_MAX_BUFFER_BYTES))
                    lerr(&c, jp, "len '%s' is %lld elements for size %d: more than 1 TiB", e, (long long)v, s);
                else if (!p->is_pointer && !fits(p->dtype, v))
                    lerr(&c, jp, "value '%s' is %lld for size %d, out of range for .%s", e, (long long)v, s,
                         task_dtype_name(p->dtype));
            }
        }
    }
    json_t *la = json_object_get(root, "launch");
    if (!json_is_object(la)) lerr(&c, "$.launch", "missing object with block, grid and smem");
    else {
        const char *keys[2] = {"block", "grid"};
        for (int k = 0; k < 2; k++) {
            char **dst = k == 0 ? t->block : t->grid;
            json_t *a = json_object_get(la, keys[k]);
            char jp[32];
            snprintf(jp, sizeof jp, "$.launch.%s", keys[k]);
            if (!json_is_array(a) || json_array_size(a) < 1 || json_array_size(a) > 3) { lerr(&c, jp, "need 1 to 3 expressions"); continue; }
            for (size_t i = 0; i < 3; i++) {
                json_t *e = json_array_get(a, i);
                if (!e) { dst[i] = xstrdup("1"); continue; }
                if (json_is_string(e)) dst[i] = xstrdup(json_string_value(e));
                else if (json_is_integer(e)) { char b[32]; snprintf(b, sizeof b, "%lld", (long long)json_integer_value(e)); dst[i] = xstrdup(b); }
                else { lerr(&c, jp, "element %zu must be an expression string", i); dst[i] = xstrdup("1"); }
                for (int s = 0; s < t->nsizes && !c.bad; s++) {
                    int64_t v;
                    char err[160];
                    if (!expr_size_eval(dst[i], &t->sizes[s].env, &v, err, sizeof err)) lerr(&c, jp, "'%.80s': %s", dst[i], err);
                    else if (v < 1 && !(k == 1 && v == 0)) lerr(&c, jp, "'%s' is %lld for size %d", dst[i], (long long)v, s);
                    else if (v > (k == 0 ? block_max : grid_max)[i])
                        lerr(&c, jp, "'%s' is %lld for size %d: more than the %s limit of %lld in dimension %c", dst[i], (long long)v, s,
                             keys[k], (long long)(k == 0 ? block_max : grid_max)[i], "xyz"[i]);
                }
            }
        }
        for (int s = 0; s < t->nsizes && !c.bad; s++) {   /* threads per block */
            int64_t b[3];
            bool ok = true;
            for (int i = 0; i < 3; i++) ok &= expr_size_eval(t->block[i], &t->sizes[s].env, &b[i], NULL, 0);
            if (ok && b[0] * b[1] * b[2] > 1024)
                lerr(&c, "$.launch.block", "%lld threads per block for size %d: more than 1024", (long long)(b[0] * b[1] * b[2]), s);
        }
        t->smem = get_str(&c, la, "smem", "$.launch", false);
        if (!t->smem) t->smem = xstrdup("0");
        for (int s = 0; s < t->nsizes && !c.bad; s++) {
            int64_t v;
            char err[160];
            if (!expr_size_eval(t->smem, &t->sizes[s].env, &v, err, sizeof err)) lerr(&c, "$.launch.smem", "'%.80s': %s", t->smem, err);
            else if (v < 0 || v > TASK_MAX_SMEM)
                lerr(&c, "$.launch.smem", "'%s' is %lld bytes for size %d: dynamic shared memory must be 0 to %d bytes "
                     "(227 KiB, the most any supported GPU grants a block)", t->smem, (long long)v, s, TASK_MAX_SMEM);
        }
    }
    json_t *ds = json_object_get(root, "distributions");
    if (!ds) lerr(&c, "$.distributions", "missing (need at least 2 generators)");
    else {
        t->dists = get_str_array(&c, ds, "$.distributions", &t->ndists);
        if (t->ndists < 2) lerr(&c, "$.distributions", "need at least 2 distributions");
        for (int k = 0; k < t->ndists; k++)
            if (!gen_name_ok(t->dists[k])) lerr(&c, "$.distributions", "unknown generator '%s'", t->dists[k]);
    }
    for (int i = 0; i < TASK_T__COUNT; i++) t->tol[i] = 0;
    t->tol[TASK_T_F32] = 1e-5;
    t->tol[TASK_T_F64] = 1e-12;
    t->tol[TASK_T_F16] = 1e-2;
    t->tol[TASK_T_BF16] = 1e-2;
    json_t *tol = json_object_get(root, "tolerance");
    if (tol) {
        const char *key;
        json_t *v;
        if (!json_is_object(tol)) lerr(&c, "$.tolerance", "must be an object of dtype: number");
        else json_object_foreach(tol, key, v) {
            task_dtype dt = task_dtype_parse(key);
            if (!dt) lerr(&c, "$.tolerance", "unknown type '%s'", key);
            else if (!json_is_number(v) || json_number_value(v) < 0) lerr(&c, "$.tolerance", "'%s' must be a non-negative number", key);
            else t->tol[dt] = json_number_value(v);
        }
    }
    json_t *rf = json_object_get(root, "reference");
    if (!json_is_object(rf)) lerr(&c, "$.reference", "missing object {kind: c|cu, ...}");
    else {
        t->ref.kind = get_str(&c, rf, "kind", "$.reference", true);
        if (t->ref.kind && !strcmp(t->ref.kind, "c")) {
            t->ref.name = get_str(&c, rf, "name", "$.reference", true);
            if (t->ref.name && !task_ref_lookup(t->ref.name))
                lerr(&c, "$.reference.name", "no C reference named '%s' is registered", t->ref.name);
        } else if (t->ref.kind && !strcmp(t->ref.kind, "cu")) {
            t->ref.file = get_str(&c, rf, "file", "$.reference", false);
            if (!t->ref.file) t->ref.file = xstrdup("reference.cu");
            t->ref.high_precision = json_is_true(json_object_get(rf, "high_precision"));
        } else if (t->ref.kind) {
            lerr(&c, "$.reference.kind", "must be \"c\" or \"cu\", not '%s'", t->ref.kind);
        }
    }
    json_t *mw = json_is_object(rf) ? json_object_get(rf, "must_write") : NULL;
    if (mw && !json_is_boolean(mw)) lerr(&c, "$.reference.must_write", "must be true or false");
    else if (mw && json_is_true(mw) && t->ref.kind && strcmp(t->ref.kind, "cu"))
        lerr(&c, "$.reference.must_write", "only a \"cu\" oracle (a CUDA twin) can be asked to write its outputs");
    else t->ref.must_write = json_is_true(mw);
    json_t *co = json_object_get(root, "cost");
    t->cost_bytes = co ? get_str(&c, co, "bytes", "$.cost", false) : NULL;
    t->cost_flops = co ? get_str(&c, co, "flops", "$.cost", false) : NULL;
    if (!t->cost_bytes) t->cost_bytes = xstrdup("");
    if (!t->cost_flops) t->cost_flops = xstrdup("");
    for (int s = 0; s < t->nsizes && !c.bad; s++) {
        int64_t v;
        char err[160];
        if (t->cost_bytes[0] && !expr_size_eval(t->cost_bytes, &t->sizes[s].env, &v, err, sizeof err)) lerr(&c, "$.cost.bytes", "%s", err);
        if (t->cost_flops[0] && !expr_size_eval(t->cost_flops, &t->sizes[s].env, &v, err, sizeof err)) lerr(&c, "$.cost.flops", "%s", err);
    }
    /* generator arguments for every size: "uniform(1,-1)" or "normal(0,-1)" fail here, not on the GPU */
    for (int i = 0; i < t->nparams && !c.bad; i++) {
        const task_param *p = &t->params[i];
        if (!p->is_pointer || p->role == TASK_ROLE_OUT) continue;
        int ng = p->ndists ? p->ndists : t->ndists;
        for (int k = 0; k < ng && !c.bad; k++)
            for (int s = 0; s < t->nsizes && !c.bad; s++) {
                double a[4];
                char err[200], jp[80];
                const char *g = p->ndists ? p->dists[k] : t->dists[k];
                if (p->ndists) snprintf(jp, sizeof jp, "$.params[%d].dist[%d]", i, k);
                else snprintf(jp, sizeof jp, "$.distributions[%d]", k);
                if (gen_check(g, &t->sizes[s].env, a, err, sizeof err) < 0) lerr(&c, jp, "%s (size %d)", err, s);
            }
    }
done:
    json_decref(root);
    if (c.bad) {
        task_free(t);
        return PG_ERR_INVALID;
    }
    *out = t;
    return PG_OK;
}

void task_block_max(const task_spec *t, int out[3]) {
    for (int d = 0; d < 3; d++) {
        out[d] = 1;
        for (int s = 0; s < t->nsizes; s++) {
            int64_t b;
            if (expr_size_eval(t->block[d], &t->sizes[s].env, &b, NULL, 0) && b > out[d] && b <= 1024) out[d] = (int)b;
        }
    }
}

void task_free(task_spec *t) {
    if (!t) return;
    free(t->path); free(t->dir); free(t->name); free(t->kernel); free(t->family);
    for (int k = 0; k < TASK_NSTYLES; k++) free(t->desc[k]);
    for (int i = 0; i < t->nparams; i++) {
        task_param *p = &t->params[i];
        free(p->name); free(p->len); free(p->value);
        for (int k = 0; k < p->ndists; k++) free(p->dists[k]);
        free(p->dists);
    }
    free(t->params);
    for (int i = 0; i < t->nsizes; i++)
        for (int k = 0; k < t->sizes[i].env.n; k++) free((char *)t->sizes[i].env.name[k]);
    free(t->sizes);
    for (int i = 0; i < 3; i++) { free(t->block[i]); free(t->grid[i]); }
    free(t->smem);
    for (int i = 0; i < t->ndists; i++) free(t->dists[i]);
    free(t->dists);
    free(t->ref.kind); free(t->ref.name); free(t->ref.file);
    free(t->cost_bytes); free(t->cost_flops);
    free(t);
}

/* ---- random numbers: splitmix64 seeding xoshiro256** --------------------------- */
typedef struct { uint64_t s[4]; } rng;
static uint64_t splitmix(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static void rng_seed(rng *r, uint64_t seed) { for (int i = 0; i < 4; i++) r->s[i] = splitmix(&seed); }
static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
static uint64_t rng_u64(rng *r) {
    uint64_t res = rotl(r->s[1] * 5, 7) * 9, t = r->s[1] << 17;
    r->s[2] ^= r->s[0]; r->s[3] ^= r->s[1]; r->s[1] ^= r->s[2]; r->s[0] ^= r->s[3];
    r->s[2] ^= t; r->s[3] = rotl(r->s[3], 45);
    return res;
}
static double rng_unit(rng *r) { return (double)(rng_u64(r) >> 11) * (1.0 / 9007199254740992.0); }
static double rng_normal(rng *r) {
    double u = rng_unit(r), v = rng_unit(r);
    if (u < 1e-300) u = 1e-300;
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

/* store a double into element i of a typed buffer */
static void put(task_dtype t, void *buf, size_t i, double v) {
    switch (t) {
    case TASK_T_F16: ((uint16_t *)buf)[i] = task_f32_to_f16((float)v); break;
    case TASK_T_BF16: ((uint16_t *)buf)[i] = task_f32_to_bf16((float)v); break;
    case TASK_T_F32: ((float *)buf)[i] = (float)v; break;
    case TASK_T_F64: ((double *)buf)[i] = v; break;
    case TASK_T_S8: ((int8_t *)buf)[i] = (int8_t)v; break;
    case TASK_T_S16: ((int16_t *)buf)[i] = (int16_t)v; break;
    case TASK_T_S32: ((int32_t *)buf)[i] = (int32_t)v; break;
    case TASK_T_S64: ((int64_t *)buf)[i] = (int64_t)v; break;
    case TASK_T_U8: ((uint8_t *)buf)[i] = (uint8_t)v; break;
    case TASK_T_U16: ((uint16_t *)buf)[i] = (uint16_t)v; break;
    case TASK_T_U32: ((uint32_t *)buf)[i] = (uint32_t)v; break;
    case TASK_T_U64: ((uint64_t *)buf)[i] = (uint64_t)v; break;
    default: break;
    }
}
static double get(task_dtype t, const void *buf, size_t i) {
    switch (t) {
    case TASK_T_F16: return task_f16_to_f32(((const uint16_t *)buf)[i]);
    case TASK_T_BF16: return task_bf16_to_f32(((const uint16_t *)buf)[i]);
    case TASK_T_F32: return ((const float *)buf)[i];
    case TASK_T_F64: return ((const double *)buf)[i];
    case TASK_T_S8: return ((const int8_t *)buf)[i];
    case TASK_T_S16: return ((const int16_t *)buf)[i];
    case TASK_T_S32: return ((const int32_t *)buf)[i];
    case TASK_T_S64: return (double)((const int64_t *)buf)[i];
    case TASK_T_U8: return ((const uint8_t *)buf)[i];
    case TASK_T_U16: return ((const uint16_t *)buf)[i];
    case TASK_T_U32: return ((const uint32_t *)buf)[i];
    case TASK_T_U64: return (double)((const uint64_t *)buf)[i];
    default: return 0;
    }
}

void task_poison(task_dtype t, void *data, size_t count) {
    if (task_dtype_is_float(t)) {
        for (size_t i = 0; i < count; i++) put(t, data, i, NAN);
    } else {
        memset(data, 0xA5, count * (size_t)task_dtype_size(t));
    }
}

/* Parse "name(a,b)" arguments as doubles or size expressions. */
static int gen_args(const char *g, const expr_env *env, double *a, int max, char *err, size_t errn) {
    const char *p = strchr(g, '(');
    if (!p) return 0;
    p++;
    int n = 0;
    while (*p && *p != ')' && n < max) {
        const char *q = p;
        int depth = 0;
        while (*q && !((*q == ',' || *q == ')') && depth == 0)) { if (*q == '(') depth++; if (*q == ')') depth--; q++; }
        char buf[128];
        size_t len = (size_t)(q - p);
        if (len >= sizeof buf) len = sizeof buf - 1;
        memcpy(buf, p, len);
        buf[len] = 0;
        char *end;
        double v = strtod(buf, &end);
        while (*end == ' ') end++;
        if (*end) {
            int64_t iv;
            if (!expr_size_eval(buf, env, &iv, err, errn)) return -1;
            v = (double)iv;
        }
        a[n++] = v;
        p = *q == ',' ? q + 1 : q;
    }
    return n;
}

/* The arguments of generator g for one size: parsed into a[4] (defaults 0, 1),
 * finite, and in the generator's domain (low <= high, sigma >= 0, nnz >= 0).
 * task_load runs it for every size, so a bad spec fails before any GPU work. */
static int gen_check(const char *g, const expr_env *env, double a[4], char *err, size_t errn) {
    a[0] = 0; a[1] = 1; a[2] = a[3] = 0;
    int na = gen_args(g, env, a, 4, err, errn);
    if (na < 0) return -1;
    size_t nl = strcspn(g, "(");
#define IS(s) (nl == strlen(s) && !strncmp(g, s, nl))
    for (int i = 0; i < na; i++)
        if (!isfinite(a[i]) && !IS("const")) { snprintf(err, errn, "%s: argument %d is not a finite number", g, i + 1); return -1; }
    if ((IS("uniform") || IS("sorted") || IS("bitonic") || IS("int")) && na >= 2 && a[0] > a[1]) {
        snprintf(err, errn, "%s: low %g is greater than high %g", g, a[0], a[1]);
        return -1;
    }
    if (IS("normal") && a[1] < 0) { snprintf(err, errn, "%s: the standard deviation %g is negative", g, a[1]); return -1; }
    if (IS("rowptr") && na >= 1 && a[0] < 0) { snprintf(err, errn, "%s: nnz %g is negative", g, a[0]); return -1; }
#undef IS
    return na;
}

static bool generate(const char *g, task_dtype t, void *buf, size_t count, const expr_env *env, rng *r, char *err, size_t errn) {
    double a[4];
    int na = gen_check(g, env, a, err, errn);
    if (na < 0) return false;
    size_t nl = strcspn(g, "(");
    bool flt = task_dtype_is_float(t);
#define IS(s) (nl == strlen(s) && !strncmp(g, s, nl))
    if (IS("uniform") || IS("sorted") || IS("bitonic")) {
        if (na < 2) { snprintf(err, errn, "%s needs (low, high)", g); return false; }
        for (size_t i = 0; i < count; i++) {
            double v = flt ? a[0] + (a[1] - a[0]) * rng_unit(r)
                           : a[0] + (double)(rng_u64(r) % (uint64_t)(a[1] - a[0] + 1));
            put(t, buf, i, v);
        }
        if (IS("sorted")) {
            /* insertion-free: sort via qsort on doubles then store */
            double *tmp = malloc(sizeof(double) * (count ? count : 1));
            for (size_t i = 0; i < count; i++) tmp[i] = get(t, buf, i);
            qsort(tmp, count, sizeof(double), cmpd);
            for (size_t i = 0; i < count; i++) put(t, buf, i, tmp[i]);
            free(tmp);
        }
    } else if (IS("normal")) {
        for (size_t i = 0; i < count; i++) put(t, buf, i, a[0] + a[1] * rng_normal(r));
    } else if (IS("int")) {
        if (na < 2 || a[1] < a[0]) { snprintf(err, errn, "%s needs (low, high) with low <= high", g); return false; }
        for (size_t i = 0; i < count; i++) put(t, buf, i, a[0] + (double)(rng_u64(r) % (uint64_t)(a[1] - a[0] + 1)));
    } else if (IS("const")) {
        for (size_t i = 0; i < count; i++) put(t, buf, i, a[0]);
    } else if (IS("iota")) {
        for (size_t i = 0; i < count; i++) put(t, buf, i, (double)i);
    } else if (IS("perm")) {
        for (size_t i = 0; i < count; i++) put(t, buf, i, (double)i);
        for (size_t i = count; i > 1; i--) {
            size_t j = (size_t)(rng_u64(r) % i);
            double x = get(t, buf, i - 1), y = get(t, buf, j);
            put(t, buf, i - 1, y);
            put(t, buf, j, x);
        }
    } else if (IS("rowptr")) {
        if (na < 1 || count < 1) { snprintf(err, errn, "rowptr needs (nnz) and len >= 1"); return false; }
        size_t rows = count - 1;
        int64_t nnz = (int64_t)a[0];
        /* random cut points in [0, nnz], sorted */
        double *cut = malloc(sizeof(double) * (count ? count : 1));
        for (size_t i = 0; i < rows; i++) cut[i] = (double)(rng_u64(r) % (uint64_t)(nnz + 1));
        qsort(cut, rows, sizeof(double), cmpd);
        put(t, buf, 0, 0);
        for (size_t i = 1; i < rows; i++) put(t, buf, i, cut[i - 1]);
        if (rows) put(t, buf, rows, (double)nnz);
        free(cut);
    } else {
        snprintf(err, errn, "unknown generator '%s'", g);
        return false;
    }
#undef IS
    return true;
}

static int cmpd(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

static double eval_or_zero(const char *e, const expr_env *env) {
    int64_t v;
    if (!e || !e[0] || !expr_size_eval(e, env, &v, NULL, 0)) return 0;
    return (double)v;
}

pg_status task_inst_make(const task_spec *t, int size_index, int dist_index, uint64_t seed, task_inst *in, pg_diag_sink *diag) {
    memset(in, 0, sizeof *in);
    if (size_index < 0 || size_index >= t->nsizes || dist_index < 0 || dist_index >= t->ndists) return PG_ERR_USAGE;
    in->spec = t;
    in->size_index = size_index;
    in->dist_index = dist_index;
    in->seed = seed;
    in->env = t->sizes[size_index].env;
    in->args = calloc((size_t)t->nparams, sizeof(task_arg));
    char err[200];
    for (int i = 0; i < t->nparams; i++) {
        const task_param *p = &t->params[i];
        task_arg *a = &in->args[i];
        if (!p->is_pointer) {
            char *end;
            double fv = strtod(p->value, &end);
            int64_t iv = 0;
            if (*end != 0 || !task_dtype_is_float(p->dtype)) {
                if (!expr_size_eval(p->value, &in->env, &iv, err, sizeof err)) {
                    pg_diag_emit(diag, PG_E_TASK, t->path, 0, 0, "$.params[%d].value: %s", i, err);
                    task_inst_free(in);
                    return PG_ERR_INVALID;
                }
                fv = (double)iv;
            } else {
                iv = (int64_t)fv;
            }
            if (task_dtype_is_float(p->dtype)) a->scalar.f = fv;
            else a->scalar.i = iv;
            continue;
        }
        int64_t n;
        if (!expr_size_eval(p->len, &in->env, &n, err, sizeof err) || n < 0) {
            pg_diag_emit(diag, PG_E_TASK, t->path, 0, 0, "$.params[%d].len: %s", i, n < 0 ? "negative" : err);
            task_inst_free(in);
            return PG_ERR_INVALID;
        }
        a->count = (size_t)n;
        a->bytes = a->count * (size_t)task_dtype_size(p->dtype);
        a->data = malloc(a->bytes ? a->bytes : 1);
        if (!a->data) { task_inst_free(in); return PG_ERR_NOMEM; }
        if (p->role == TASK_ROLE_OUT) {
            task_poison(p->dtype, a->data, a->count);
            continue;
        }
        const char *g = p->ndists ? p->dists[dist_index % p->ndists] : t->dists[dist_index];
        rng r;
        rng_seed(&r, seed * 0x100000001b3ull ^ ((uint64_t)size_index << 48) ^ ((uint64_t)dist_index << 40) ^ ((uint64_t)i << 32));
        if (!generate(g, p->dtype, a->data, a->count, &in->env, &r, err, sizeof err)) {
            pg_diag_emit(diag, PG_E_TASK, t->path, 0, 0, "$.params[%d] generator: %s", i, err);
            task_inst_free(in);
            return PG_ERR_INVALID;
        }
    }
    for (int k = 0; k < 3; k++) {
        in->grid[k] = (unsigned)eval_or_zero(t->grid[k], &in->env);
        in->block[k] = (unsigned)eval_or_zero(t->block[k], &in->env);
    }
    in->smem = (size_t)eval_or_zero(t->smem, &in->env);
    in->bytes = eval_or_zero(t->cost_bytes, &in->env);
    in->flops = eval_or_zero(t->cost_flops, &in->env);
    return PG_OK;
}

pg_status task_inst_clone(const task_inst *src, task_inst *dst) {
    *dst = *src;
    dst->args = calloc((size_t)src->spec->nparams, sizeof(task_arg));
    if (!dst->args) return PG_ERR_NOMEM;
    for (int i = 0; i < src->spec->nparams; i++) {
        dst->args[i] = src->args[i];
        if (src->args[i].data) {
            dst->args[i].data = malloc(src->args[i].bytes ? src->args[i].bytes : 1);
            if (!dst->args[i].data) return PG_ERR_NOMEM;
            memcpy(dst->args[i].data, src->args[i].data, src->args[i].bytes);
        }
    }
    return PG_OK;
}

void task_inst_free(task_inst *in) {
    if (!in->args) return;
    for (int i = 0; i < in->spec->nparams; i++) free(in->args[i].data);
    free(in->args);
    in->args = NULL;
}

pg_status task_reference_run(const task_inst *in, task_inst *ref, pg_diag_sink *diag) {
    const task_spec *t = in->spec;
    if (!t->ref.kind || strcmp(t->ref.kind, "c") != 0) return PG_ERR_USAGE;
    task_ref_fn fn = task_ref_lookup(t->ref.name);
    if (!fn) {
        pg_diag_emit(diag, PG_E_TASK, t->path, 0, 0, "no C reference named '%s'", t->ref.name);
        return PG_ERR_USAGE;
    }
    pg_status st = task_inst_clone(in, ref);
    if (st != PG_OK) return st;
    ref->diag = diag;
    return fn(ref);
}

/* ---- comparison ---------------------------------------------------------------- */
task_cmp task_compare(const task_spec *t, int p, const task_arg *got, const task_arg *want) {
    task_cmp c;
    memset(&c, 0, sizeof c);
    const task_param *pp = &t->params[p];
    snprintf(c.param, sizeof c.param, "%s", pp->name);
    c.count = want->count;
    c.first_bad = SIZE_MAX;
    c.tol = t->tol[pp->dtype];
    if (got->count != want->count) { c.ok = false; c.mismatches = c.count; return c; }
    if (!task_dtype_is_float(pp->dtype)) {
        size_t es = (size_t)task_dtype_size(pp->dtype);
        for (size_t i = 0; i < c.count; i++) {
            if (memcmp((const char *)got->data + i * es, (const char *)want->data + i * es, es) != 0) {
                if (c.first_bad == SIZE_MAX) c.first_bad = i;
                c.mismatches++;
                double d = fabs(get(pp->dtype, got->data, i) - get(pp->dtype, want->data, i));
                if (d > c.max_abs) c.max_abs = d;
            }
        }
        c.rel_l2 = c.mismatches ? 1.0 : 0.0;
        c.ok = c.mismatches == 0;
        return c;
    }
    double num = 0, den = 0;
    for (size_t i = 0; i < c.count; i++) {
        double g = get(pp->dtype, got->data, i), w = get(pp->dtype, want->data, i);
        if (isnan(g) && !isnan(w)) {
            c.nan_count++;
            if (c.first_bad == SIZE_MAX) c.first_bad = i;
            continue;
        }
        if (isnan(w)) continue;   /* the reference itself produced NaN: compare the rest */
        double d = g - w;
        if (isinf(g) || isinf(w)) d = (g == w) ? 0 : INFINITY;
        num += d * d;
        den += w * w;
        if (fabs(d) > c.max_abs) c.max_abs = fabs(d);
        if (fabs(d) > c.tol * (fabs(w) + 1e-6) * 16 + 1e-30 && c.first_bad == SIZE_MAX) c.first_bad = i;
    }
    c.rel_l2 = sqrt(num) / (sqrt(den) > 1e-30 ? sqrt(den) : 1e-30);
    if (isnan(c.rel_l2)) c.rel_l2 = INFINITY;
    c.ok = c.nan_count == 0 && c.rel_l2 <= c.tol;
    return c;
}

bool task_inputs_unchanged(const task_spec *t, const task_inst *before, const task_inst *after, int *bad_param) {
    for (int i = 0; i < t->nparams; i++) {
        if (!t->params[i].is_pointer || t->params[i].role != TASK_ROLE_IN) continue;
        if (memcmp(before->args[i].data, after->args[i].data, before->args[i].bytes) != 0) {
            if (bad_param) *bad_param = i;
            return false;
        }
    }
    return true;
}

/* ---- accessors for references ------------------------------------------------------ */
static int param_index(const task_inst *in, const char *name) {
    for (int i = 0; i < in->spec->nparams; i++)
        if (!strcmp(in->spec->params[i].name, name)) return i;
    fprintf(stderr, "ptxgen: reference asked for unknown parameter '%s' of task %s\n", name, in->spec->name);
    abort();
}
void *task_buf(task_inst *in, const char *param) { return in->args[param_index(in, param)].data; }
double task_scalar_f(const task_inst *in, const char *param) {
    int i = param_index(in, param);
    return task_dtype_is_float(in->spec->params[i].dtype) ? in->args[i].scalar.f : (double)in->args[i].scalar.i;
}
int64_t task_scalar_i(const task_inst *in, const char *param) {
    int i = param_index(in, param);
    return task_dtype_is_float(in->spec->params[i].dtype) ? (int64_t)in->args[i].scalar.f : in->args[i].scalar.i;
}
int64_t task_var(const task_inst *in, const char *var) {
    for (int i = 0; i < in->env.n; i++)
        if (!strcmp(in->env.name[i], var)) return in->env.val[i];
    fprintf(stderr, "ptxgen: reference asked for unknown size variable '%s' of task %s\n", var, in->spec->name);
    abort();
}
