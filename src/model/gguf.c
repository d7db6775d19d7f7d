/* gguf.c — read GGUF files (llama.cpp's model format) and dequantize ggml blocks.
 *
 * Layout (all little-endian):
 *   "GGUF"  u32 version  u64 n_tensors  u64 n_kv
 *   n_kv x      { str key, u32 vtype, value }        str = u64 len + bytes
 *   n_tensors x { str name, u32 n_dims, u64 ne[n_dims], u32 type, u64 offset }
 *   padding to general.alignment, then the data section; tensor offsets are
 *   relative to its start.
 * An array value is { u32 elem_type, u64 n, n elements }.
 *
 * model_gguf_open checks all of it before handing anything out (see gguf.h), so the
 * rest of this file and its callers may trust every count, length and range.
 * Values are read byte by byte: nothing in the file is assumed to be aligned,
 * and the host's byte order does not matter. */
#include "gguf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Dequantization must round exactly like gguf-py: no fused multiply-adds.
 * GCC does not contract in ISO C mode (-std=c11); clang needs telling. */
#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif

#define HEADER_BYTES 24                  /* magic, version, two counts */
#define NAME_MAX_BYTES ((int)sizeof(((gguf_tensor *)0)->name) - 1)
#define MAX_ALIGNMENT (1u << 30)

struct gguf_file {
    char *path;                          /* for messages */
    const uint8_t *base;                 /* [size] the whole file */
    size_t size;
    void *map;                           /* the mmap, NULL for model_gguf_open_mem */
    uint32_t version;
    uint64_t alignment, data_start;
    gguf_kv *kv;                         /* [n_kv] */
    int n_kv;
    gguf_tensor *t;                      /* [n_t] */
    int n_t;
    int32_t *kv_by_key;                  /* [n_kv] kv indices sorted by key */
    int32_t *t_by_name;                  /* [n_t] tensor indices sorted by name */
    uint64_t *str_off;                   /* offsets of string-array elements, shared by every such kv */
};

/* ---- type facts ------------------------------------------------------------ */

static const struct { int type; const char *name; int block; int bytes; } types[] = {
    {GGUF_T_F32, "F32", 1, 4},           {GGUF_T_F16, "F16", 1, 2},           {GGUF_T_BF16, "BF16", 1, 2},
    {GGUF_T_Q4_0, "Q4_0", 32, 18},       {GGUF_T_Q4_1, "Q4_1", 32, 20},       {GGUF_T_Q5_0, "Q5_0", 32, 22},
    {GGUF_T_Q5_1, "Q5_1", 32, 24},       {GGUF_T_Q8_0, "Q8_0", 32, 34},       {GGUF_T_Q2_K, "Q2_K", 256, 84},
    {GGUF_T_Q3_K, "Q3_K", 256, 110},     {GGUF_T_Q4_K, "Q4_K", 256, 144},     {GGUF_T_Q5_K, "Q5_K", 256, 176},
    {GGUF_T_Q6_K, "Q6_K", 256, 210},
};
#define NTYPES ((int)(sizeof types / sizeof types[0]))

static int type_index(int type) {
    for (int i = 0; i < NTYPES; i++)
        if (types[i].type == type) return i;
    return -1;
}
bool model_gguf_type_known(int type) { return type_index(type) >= 0; }
const char *model_gguf_type_name(int type) { int i = type_index(type); return i < 0 ? "?" : types[i].name; }
int model_gguf_type_block(int type) { int i = type_index(type); return i < 0 ? 0 : types[i].block; }
size_t model_gguf_type_block_bytes(int type) { int i = type_index(type); return i < 0 ? 0 : (size_t)types[i].bytes; }

/* Size of a scalar metadata value; 0 for string/array (variable), -1 unknown. */
static int vtype_size(uint32_t v) {
    switch (v) {
    case GGUF_V_U8: case GGUF_V_I8: case GGUF_V_BOOL: return 1;
    case GGUF_V_U16: case GGUF_V_I16: return 2;
    case GGUF_V_U32: case GGUF_V_I32: case GGUF_V_F32: return 4;
    case GGUF_V_U64: case GGUF_V_I64: case GGUF_V_F64: return 8;
    case GGUF_V_STRING: case GGUF_V_ARRAY: return 0;
    default: return -1;
    }
}

static const char *vtype_name(uint32_t v) {
    static const char *const n[] = {"u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "string", "array", "u64", "i64", "f64"};
    return v < sizeof n / sizeof n[0] ? n[v] : "?";
}

/* ---- little-endian loads ----------------------------------------------------- */

static uint16_t ld16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t ld32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t ld64(const uint8_t *p) { return (uint64_t)ld32(p) | (uint64_t)ld32(p + 4) << 32; }
static float ldf32(const uint8_t *p) { union { uint32_t u; float f; } v = {ld32(p)}; return v.f; }
static double ldf64(const uint8_t *p) { union { uint64_t u; double f; } v = {ld64(p)}; return v.f; }
static float ldh(const uint8_t *p) { return model_f16_to_f32(ld16(p)); }

/* ---- the parser ------------------------------------------------------------------ */

typedef struct {
    gguf_file *g;
    size_t pos;
    pg_diag_sink *diag;
    const char *name;                    /* the caller's string: it outlives a failed open */
} rd;

static bool err(rd *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool err(rd *r, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    pg_diag_vemit(r->diag, PG_E_MODEL_FILE, r->name, 0, 0, fmt, ap);
    va_end(ap);
    return false;
}

/* A key or name for a message: printable ASCII kept, the rest \xNN, at most ~80 bytes. */
static const char *show(const char *s, uint64_t n, char buf[static 400]) {
    size_t k = 0;
    for (uint64_t i = 0; i < n && k < 380; i++) {
        unsigned char c = (unsigned char)s[i];
        if (i == 80) { memcpy(buf + k, "...", 3); k += 3; break; }
        if (c >= 0x20 && c < 0x7f && c != '\\') buf[k++] = (char)c;
        else k += (size_t)snprintf(buf + k, 400 - k, "\\x%02x", c);
    }
    buf[k] = 0;
    return buf;
}

static size_t left(const rd *r) { return r->g->size - r->pos; }

/* Read a string (u64 length + bytes) at r->pos.  `what` names it in messages. */
static bool rd_str(rd *r, gguf_str *s, const char *what) {
    if (left(r) < 8)
        return err(r, "%s: truncated: string length at offset %zu runs past the end of the file (%zu bytes)", what, r->pos,
                   r->g->size);
    uint64_t n = ld64(r->g->base + r->pos);
    if (n > left(r) - 8)
        return err(r, "%s: string of %llu bytes at offset %zu runs past the end of the file (%zu bytes)", what,
                   (unsigned long long)n, r->pos, r->g->size);
    s->s = (const char *)r->g->base + r->pos + 8;
    s->len = n;
    r->pos += 8 + (size_t)n;
    return true;
}

/* Space the offsets of string-array elements need, counted in a first pass. */
typedef struct { uint64_t n_str; } counts;

/* One key/value pair; string arrays get their element offsets recorded in
 * off (NULL during the counting pass). */
static bool rd_kv(rd *r, gguf_kv *kv, int idx, uint64_t **off, counts *c) {
    char where[64], kb[400];
    snprintf(where, sizeof where, "key #%d", idx);
    if (!rd_str(r, &kv->key, where)) return false;
    const char *key = show(kv->key.s, kv->key.len, kb);
    if (left(r) < 4) return err(r, "key '%s': truncated before its value type", key);
    uint32_t vt = ld32(r->g->base + r->pos);
    r->pos += 4;
    int sz = vtype_size(vt);
    if (sz < 0) return err(r, "key '%s': unknown value type %u", key, vt);
    kv->type = (gguf_vtype)vt;
    kv->value = r->g->base + r->pos;
    if (sz > 0) {
        if (left(r) < (size_t)sz) return err(r, "key '%s': truncated %s value", key, vtype_name(vt));
        r->pos += (size_t)sz;
        return true;
    }
    if (vt == GGUF_V_STRING) {
        gguf_str s;
        return rd_str(r, &s, key);   /* the message names the key */
    }
    /* array */
    if (left(r) < 12) return err(r, "key '%s': truncated array header", key);
    uint32_t et = ld32(r->g->base + r->pos);
    uint64_t n = ld64(r->g->base + r->pos + 4);
    r->pos += 12;
    int esz = vtype_size(et);
    if (esz < 0) return err(r, "key '%s': array of unknown value type %u", key, et);
    if (et == GGUF_V_ARRAY) return err(r, "key '%s': arrays of arrays are not supported", key);
    kv->arr_type = (gguf_vtype)et;
    kv->arr_len = n;
    kv->value = r->g->base + r->pos;
    if (esz > 0) {
        if (n > left(r) / (size_t)esz)
            return err(r, "key '%s': array of %llu %s values runs past the end of the file (%zu bytes)", key,
                       (unsigned long long)n, vtype_name(et), r->g->size);
        r->pos += (size_t)n * (size_t)esz;
        return true;
    }
    /* strings: each at least its 8-byte length */
    if (n > left(r) / 8)
        return err(r, "key '%s': array of %llu strings cannot fit in the rest of the file (%zu bytes)", key,
                   (unsigned long long)n, left(r));
    size_t start = r->pos;
    if (off) kv->str_off = *off;
    for (uint64_t i = 0; i < n; i++) {
        if (off) (*off)[i] = r->pos - start;
        uint64_t len = left(r) >= 8 ? ld64(r->g->base + r->pos) : 0;
        if (left(r) < 8 || len > left(r) - 8) {   /* the message names the element: formatted only now */
            char ew[480];
            snprintf(ew, sizeof ew, "key '%s' element %llu", key, (unsigned long long)i);
            gguf_str s;
            return rd_str(r, &s, ew);
        }
        r->pos += 8 + (size_t)len;
    }
    if (off) *off += n;
    else c->n_str += n;
    return true;
}

/* One tensor info (name, dims, type, offset); data ranges are checked later. */
static bool rd_tensor(rd *r, gguf_tensor *t, int idx) {
    char where[64], nb[400];
    snprintf(where, sizeof where, "tensor #%d", idx);
    gguf_str name;
    if (!rd_str(r, &name, where)) return false;
    const char *nm = show(name.s, name.len, nb);
    if (name.len == 0) return err(r, "tensor #%d: empty name", idx);
    if (name.len > (uint64_t)NAME_MAX_BYTES)
        return err(r, "tensor '%s': name too long (%llu bytes, at most %d)", nm, (unsigned long long)name.len, NAME_MAX_BYTES);
    if (memchr(name.s, 0, (size_t)name.len)) return err(r, "tensor '%s': name contains a NUL byte", nm);
    memcpy(t->name, name.s, (size_t)name.len);
    t->name[name.len] = 0;
    if (left(r) < 4) return err(r, "tensor '%s': truncated before n_dims", nm);
    uint32_t nd = ld32(r->g->base + r->pos);
    r->pos += 4;
    if (nd < 1 || nd > 4) return err(r, "tensor '%s': n_dims %u is outside 1..4", nm, nd);
    t->n_dims = (int)nd;
    if (left(r) < 8 * (size_t)nd + 12) return err(r, "tensor '%s': truncated tensor info", nm);
    for (int i = 0; i < 4; i++) t->ne[i] = 1;
    for (uint32_t i = 0; i < nd; i++) {
        uint64_t d = ld64(r->g->base + r->pos + 8 * i);
        if (d == 0 || d > (uint64_t)INT64_MAX)
            return err(r, "tensor '%s': ne[%u] = %lld is not a positive size", nm, i, (long long)d);
        t->ne[i] = (int64_t)d;
    }
    r->pos += 8 * (size_t)nd;
    uint32_t ty = ld32(r->g->base + r->pos);
    t->offset = ld64(r->g->base + r->pos + 4);
    r->pos += 12;
    if (!model_gguf_type_known((int)ty)) return err(r, "tensor '%s': unknown or unsupported tensor type %u", nm, ty);
    t->type = (gguf_type)ty;
    int blk = model_gguf_type_block((int)ty);
    if (t->ne[0] % blk)
        return err(r, "tensor '%s': row length ne[0] = %lld is not a whole number of %s blocks (%d)", nm, (long long)t->ne[0],
                   model_gguf_type_name((int)ty), blk);
    /* bytes = (ne0 / blk) * block_bytes * ne1 * ne2 * ne3, refused when over the file size (or 2^63) */
    uint64_t limit = r->g->size, nblk = (uint64_t)(t->ne[0] / blk), bytes = 0;
    bool over = nblk > limit;
    if (!over) bytes = nblk * model_gguf_type_block_bytes((int)ty);   /* < 2^56 * 210: no overflow */
    over = over || bytes > limit;
    for (int i = 1; i < 4 && !over; i++) {
        if ((uint64_t)t->ne[i] > limit || bytes > limit / (uint64_t)t->ne[i]) over = true;
        else bytes *= (uint64_t)t->ne[i];
    }
    if (over)
        return err(r, "tensor '%s': dims [%lld, %lld, %lld, %lld] of %s need more bytes than the file has (%zu)", nm,
                   (long long)t->ne[0], (long long)t->ne[1], (long long)t->ne[2], (long long)t->ne[3], model_gguf_type_name((int)ty),
                   r->g->size);
    t->nbytes = (size_t)bytes;
    return true;
}

static const gguf_file *sort_g;          /* qsort has no context argument */
static int cmp_key(const void *a, const void *b) {
    const gguf_str *x = &sort_g->kv[*(const int32_t *)a].key, *y = &sort_g->kv[*(const int32_t *)b].key;
    uint64_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->s, y->s, (size_t)n);
    if (c) return c;
    return x->len < y->len ? -1 : x->len > y->len;
}
static int cmp_name(const void *a, const void *b) {
    int c = strcmp(sort_g->t[*(const int32_t *)a].name, sort_g->t[*(const int32_t *)b].name);
    return c ? c : (*(const int32_t *)a > *(const int32_t *)b) - (*(const int32_t *)a < *(const int32_t *)b);
}
static int cmp_offset(const void *a, const void *b) {
    uint64_t x = sort_g->t[*(const int32_t *)a].offset, y = sort_g->t[*(const int32_t *)b].offset;
    return x < y ? -1 : x > y;
}

static pg_status parse(gguf_file *g, const char *name, pg_diag_sink *diag) {
    rd r = {g, 0, diag, name};
    const uint8_t *b = g->base;
    if (g->size < 4 || memcmp(b, "GGUF", 4)) {
        char mb[400];
        return err(&r, "not a GGUF file: magic '%s', expected 'GGUF'", show((const char *)b, g->size < 4 ? g->size : 4, mb)),
               PG_ERR_PARSE;
    }
    if (g->size < HEADER_BYTES)
        return err(&r, "truncated: %zu bytes, the GGUF header alone is %d", g->size, HEADER_BYTES), PG_ERR_PARSE;
    g->version = ld32(b + 4);
    if (g->version != 2 && g->version != 3) {
        if (g->version == 1) return err(&r, "GGUF version 1 (32-bit counts) is not supported; convert it to v3"), PG_ERR_INVALID;
        if (g->version == 0x03000000u || g->version == 0x02000000u)
            return err(&r, "big-endian GGUF files are not supported"), PG_ERR_INVALID;
        return err(&r, "GGUF version %u is not supported (2 and 3 are)", g->version), PG_ERR_INVALID;
    }
    uint64_t nt = ld64(b + 8), nkv = ld64(b + 16);
    r.pos = HEADER_BYTES;
    /* a key/value takes at least 13 bytes (8 length + 4 type + 1 value), a tensor info 33 */
    if (nkv > left(&r) / 13 || nt > left(&r) / 33 || nkv * 13 + nt * 33 > left(&r))
        return err(&r, "header counts %llu tensors and %llu key/value pairs, more than the file's %zu bytes can hold",
                   (unsigned long long)nt, (unsigned long long)nkv, g->size), PG_ERR_PARSE;
    g->n_kv = (int)nkv;
    g->n_t = (int)nt;
    g->kv = calloc(nkv ? nkv : 1, sizeof *g->kv);
    g->t = calloc(nt ? nt : 1, sizeof *g->t);
    g->kv_by_key = malloc((nkv ? nkv : 1) * sizeof *g->kv_by_key);
    g->t_by_name = malloc((nt ? nt : 1) * sizeof *g->t_by_name);
    if (!g->kv || !g->t || !g->kv_by_key || !g->t_by_name) return PG_ERR_NOMEM;

    /* key/values twice: count string-array elements, then record their offsets */
    counts c = {0};
    for (int i = 0; i < g->n_kv; i++)
        if (!rd_kv(&r, &g->kv[i], i, NULL, &c)) return PG_ERR_PARSE;
    size_t kv_end = r.pos;
    g->str_off = malloc((c.n_str ? c.n_str : 1) * sizeof *g->str_off);
    if (!g->str_off) return PG_ERR_NOMEM;
    uint64_t *off = g->str_off;
    r.pos = HEADER_BYTES;
    for (int i = 0; i < g->n_kv; i++) rd_kv(&r, &g->kv[i], i, &off, &c);
    if (r.pos != kv_end) return PG_ERR_PARSE;   /* cannot happen: the same bytes were read */

    for (int i = 0; i < g->n_kv; i++) g->kv_by_key[i] = i;
    sort_g = g;
    qsort(g->kv_by_key, (size_t)g->n_kv, sizeof *g->kv_by_key, cmp_key);
    for (int i = 1; i < g->n_kv; i++)
        if (!cmp_key(&g->kv_by_key[i - 1], &g->kv_by_key[i])) {
            char kb[400];
            const gguf_str *k = &g->kv[g->kv_by_key[i]].key;
            return err(&r, "key '%s' appears twice", show(k->s, k->len, kb)), PG_ERR_PARSE;
        }

    g->alignment = 32;
    const gguf_kv *al = model_gguf_find(g, "general.alignment");
    if (al) {
        if (al->type != GGUF_V_U32)
            return err(&r, "key 'general.alignment': expected a u32, got %s", vtype_name(al->type)), PG_ERR_PARSE;
        g->alignment = ld32(al->value);
        if (g->alignment == 0 || (g->alignment & (g->alignment - 1)) || g->alignment > MAX_ALIGNMENT)
            return err(&r, "key 'general.alignment': %llu is not a power of two up to 2^30", (unsigned long long)g->alignment),
                   PG_ERR_PARSE;
    }

    for (int i = 0; i < g->n_t; i++)
        if (!rd_tensor(&r, &g->t[i], i)) return PG_ERR_PARSE;
    g->data_start = ((uint64_t)r.pos + g->alignment - 1) & ~(g->alignment - 1);
    for (int i = 0; i < g->n_t; i++) {
        gguf_tensor *t = &g->t[i];
        if (t->offset % g->alignment)
            return err(&r, "tensor '%s': data offset %llu is not a multiple of general.alignment (%llu)", t->name,
                       (unsigned long long)t->offset, (unsigned long long)g->alignment), PG_ERR_PARSE;
        uint64_t begin = g->data_start + t->offset;   /* no overflow: both are below 2^63 + 2^30 */
        if (t->offset > g->size || begin > g->size || t->nbytes > g->size - begin)
            return err(&r, "tensor '%s': data [%llu, %llu) past the end of the file (%zu bytes)", t->name,
                       (unsigned long long)begin, (unsigned long long)(begin + t->nbytes), g->size), PG_ERR_PARSE;
        t->data = g->base + begin;
    }
    for (int i = 0; i < g->n_t; i++) g->t_by_name[i] = i;
    qsort(g->t_by_name, (size_t)g->n_t, sizeof *g->t_by_name, cmp_name);
    for (int i = 1; i < g->n_t; i++)
        if (!strcmp(g->t[g->t_by_name[i - 1]].name, g->t[g->t_by_name[i]].name))
            return err(&r, "tensor '%s' appears twice (tensors #%d and #%d)", g->t[g->t_by_name[i]].name, g->t_by_name[i - 1],
                       g->t_by_name[i]), PG_ERR_PARSE;
    /* overlaps: sorted by offset, each must end before the next begins */
    int32_t *by_off = malloc((nt ? nt : 1) * sizeof *by_off);
    if (!by_off) return PG_ERR_NOMEM;
    for (int i = 0; i < g->n_t; i++) by_off[i] = i;
    qsort(by_off, (size_t)g->n_t, sizeof *by_off, cmp_offset);
    pg_status st = PG_OK;
    for (int i = 1; i < g->n_t && st == PG_OK; i++) {
        const gguf_tensor *a = &g->t[by_off[i - 1]], *t = &g->t[by_off[i]];
        if (a->offset + a->nbytes > t->offset) {
            err(&r, "tensor '%s': data at offset %llu overlaps tensor '%s' [%llu, %llu)", t->name, (unsigned long long)t->offset,
                a->name, (unsigned long long)a->offset, (unsigned long long)(a->offset + a->nbytes));
            st = PG_ERR_PARSE;
        }
    }
    free(by_off);
    return st;
}

static void free_parts(gguf_file *g) {
    free(g->kv);
    free(g->t);
    free(g->kv_by_key);
    free(g->t_by_name);
    free(g->str_off);
    free(g->path);
    if (g->map) munmap(g->map, g->size);
    free(g);
}

static pg_status finish(gguf_file *g, const char *name, gguf_file **out, pg_diag_sink *diag) {
    pg_status st = parse(g, name, diag);
    if (st == PG_ERR_NOMEM) pg_diag_emit(diag, PG_E_MODEL_FILE, name, 0, 0, "out of memory reading the GGUF header");
    if (st != PG_OK) { free_parts(g); return st; }
    *out = g;
    return PG_OK;
}

pg_status model_gguf_open_mem(const void *data, size_t size, const char *name, gguf_file **out, pg_diag_sink *diag) {
    *out = NULL;
    gguf_file *g = calloc(1, sizeof *g);
    if (!g || !(g->path = strdup(name ? name : "(memory)"))) { free(g); return PG_ERR_NOMEM; }
    g->base = data;
    g->size = size;
    return finish(g, name ? name : "(memory)", out, diag);
}

pg_status model_gguf_open(const char *path, gguf_file **out, pg_diag_sink *diag) {
    *out = NULL;
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        pg_diag_emit(diag, PG_E_MODEL_FILE, path, 0, 0, "cannot open: %s", strerror(errno));
        return PG_ERR_IO;
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        pg_diag_emit(diag, PG_E_MODEL_FILE, path, 0, 0, "not a regular file");
        close(fd);
        return PG_ERR_IO;
    }
    size_t size = (size_t)sb.st_size;
    if (size < HEADER_BYTES) {          /* mmap cannot map 0 bytes; a short file gets the parser's message */
        uint8_t head[HEADER_BYTES];
        ssize_t n = read(fd, head, sizeof head);
        close(fd);
        gguf_file *g = NULL;
        pg_status st = model_gguf_open_mem(head, n > 0 ? (size_t)n : 0, path, &g, diag);
        model_gguf_close(g);
        return st == PG_OK ? PG_ERR_PARSE : st;
    }
    void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        pg_diag_emit(diag, PG_E_MODEL_FILE, path, 0, 0, "mmap failed: %s", strerror(errno));
        return PG_ERR_IO;
    }
    gguf_file *g = calloc(1, sizeof *g);
    if (!g || !(g->path = strdup(path))) {
        free(g);
        munmap(map, size);
        return PG_ERR_NOMEM;
    }
    g->map = map;
    g->base = map;
    g->size = size;
    return finish(g, path, out, diag);
}

void model_gguf_close(gguf_file *g) {
    if (g) free_parts(g);
}

const char *model_gguf_path(const gguf_file *g) { return g->path; }
uint64_t model_gguf_file_size(const gguf_file *g) { return g->size; }
uint32_t model_gguf_version(const gguf_file *g) { return g->version; }
uint64_t model_gguf_alignment(const gguf_file *g) { return g->alignment; }
uint64_t model_gguf_data_start(const gguf_file *g) { return g->data_start; }

/* ---- metadata --------------------------------------------------------------------- */

int model_gguf_kv_count(const gguf_file *g) { return g->n_kv; }
const gguf_kv *model_gguf_kv_at(const gguf_file *g, int i) { return i >= 0 && i < g->n_kv ? &g->kv[i] : NULL; }

const gguf_kv *model_gguf_find(const gguf_file *g, const char *key) {
    size_t n = strlen(key);
    int lo = 0, hi = g->n_kv;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        const gguf_str *k = &g->kv[g->kv_by_key[mid]].key;
        uint64_t m = k->len < n ? k->len : n;
        int c = memcmp(k->s, key, (size_t)m);
        if (!c) c = k->len < n ? -1 : k->len > n;
        if (!c) return &g->kv[g->kv_by_key[mid]];
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

/* A scalar integer of any width at p; false for other types or a u64 past INT64_MAX. */
static bool int_at(uint32_t type, const uint8_t *p, int64_t *v) {
    switch (type) {
    case GGUF_V_U8: *v = p[0]; return true;
    case GGUF_V_I8: *v = (int8_t)p[0]; return true;
    case GGUF_V_U16: *v = ld16(p); return true;
    case GGUF_V_I16: *v = (int16_t)ld16(p); return true;
    case GGUF_V_U32: *v = ld32(p); return true;
    case GGUF_V_I32: *v = (int32_t)ld32(p); return true;
    case GGUF_V_I64: *v = (int64_t)ld64(p); return true;
    case GGUF_V_U64: if (ld64(p) > (uint64_t)INT64_MAX) return false; *v = (int64_t)ld64(p); return true;
    default: return false;
    }
}

static bool float_at(uint32_t type, const uint8_t *p, double *v) {
    if (type == GGUF_V_F32) { *v = ldf32(p); return true; }
    if (type == GGUF_V_F64) { *v = ldf64(p); return true; }
    return false;
}

bool model_gguf_get_int(const gguf_file *g, const char *key, int64_t *v) {
    const gguf_kv *kv = model_gguf_find(g, key);
    return kv && int_at(kv->type, kv->value, v);
}
bool model_gguf_get_float(const gguf_file *g, const char *key, double *v) {
    const gguf_kv *kv = model_gguf_find(g, key);
    return kv && float_at(kv->type, kv->value, v);
}
bool model_gguf_get_bool(const gguf_file *g, const char *key, bool *v) {
    const gguf_kv *kv = model_gguf_find(g, key);
    if (!kv || kv->type != GGUF_V_BOOL) return false;
    *v = kv->value[0] != 0;
    return true;
}
bool model_gguf_get_str(const gguf_file *g, const char *key, gguf_str *v) {
    const gguf_kv *kv = model_gguf_find(g, key);
    if (!kv || kv->type != GGUF_V_STRING) return false;
    v->len = ld64(kv->value);
    v->s = (const char *)kv->value + 8;
    return true;
}

bool model_gguf_arr_str(const gguf_kv *kv, uint64_t i, gguf_str *v) {
    if (kv->type != GGUF_V_ARRAY || kv->arr_type != GGUF_V_STRING || i >= kv->arr_len) return false;
    const uint8_t *p = kv->value + kv->str_off[i];
    v->len = ld64(p);
    v->s = (const char *)p + 8;
    return true;
}
bool model_gguf_arr_int(const gguf_kv *kv, uint64_t i, int64_t *v) {
    if (kv->type != GGUF_V_ARRAY || i >= kv->arr_len || vtype_size(kv->arr_type) <= 0) return false;
    return int_at(kv->arr_type, kv->value + i * (uint64_t)vtype_size(kv->arr_type), v);
}
bool model_gguf_arr_float(const gguf_kv *kv, uint64_t i, double *v) {
    if (kv->type != GGUF_V_ARRAY || i >= kv->arr_len || vtype_size(kv->arr_type) <= 0) return false;
    return float_at(kv->arr_type, kv->value + i * (uint64_t)vtype_size(kv->arr_type), v);
}

/* ---- tensors ---------------------------------------------------------------------- */

int model_gguf_tensor_count(const gguf_file *g) { return g->n_t; }
const gguf_tensor *model_gguf_tensor_at(const gguf_file *g, int i) { return i >= 0 && i < g->n_t ? &g->t[i] : NULL; }

const gguf_tensor *model_gguf_tensor_find(const gguf_file *g, const char *name) {
    int lo = 0, hi = g->n_t;
    while (lo < hi) {
        int mid = (lo + hi) / 2, c = strcmp(g->t[g->t_by_name[mid]].name, name);
        if (!c) return &g->t[g->t_by_name[mid]];
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

int64_t model_gguf_tensor_rows(const gguf_tensor *t) { return t->ne[1] * t->ne[2] * t->ne[3]; }
size_t model_gguf_tensor_row_bytes(const gguf_tensor *t) {
    return (size_t)(t->ne[0] / model_gguf_type_block(t->type)) * model_gguf_type_block_bytes(t->type);
}

/* ---- dequantization ------------------------------------------------------------------
 * One function per block layout, each the scalar transcription of ggml's
 * dequantize_row_* (ggml-quants.c).  Bit-exact with gguf-py's numpy version:
 * the same f32 operations in the same order, one rounding each (products and
 * sums are separate statements so no compiler fuses them into an FMA). */

static void dq_q4_0(const uint8_t *b, float *y) {          /* d, qs[16]: low nibbles then high */
    float d = ldh(b);
    for (int j = 0; j < 16; j++) {
        y[j] = d * (float)((b[2 + j] & 0xF) - 8);
        y[j + 16] = d * (float)((b[2 + j] >> 4) - 8);
    }
}
static void dq_q4_1(const uint8_t *b, float *y) {          /* d, m, qs[16] */
    float d = ldh(b), m = ldh(b + 2);
    for (int j = 0; j < 16; j++) {
        float lo = d * (float)(b[4 + j] & 0xF), hi = d * (float)(b[4 + j] >> 4);
        y[j] = lo + m;
        y[j + 16] = hi + m;
    }
}
static void dq_q5_0(const uint8_t *b, float *y) {          /* d, qh (u32: bit j = 5th bit of element j), qs[16] */
    float d = ldh(b);
    uint32_t qh = ld32(b + 2);
    for (int j = 0; j < 16; j++) {
        int lo = (b[6 + j] & 0xF) | (int)((qh >> j) & 1) << 4, hi = (b[6 + j] >> 4) | (int)((qh >> (j + 16)) & 1) << 4;
        y[j] = d * (float)(lo - 16);
        y[j + 16] = d * (float)(hi - 16);
    }
}
static void dq_q5_1(const uint8_t *b, float *y) {          /* d, m, qh, qs[16] */
    float d = ldh(b), m = ldh(b + 2);
    uint32_t qh = ld32(b + 4);
    for (int j = 0; j < 16; j++) {
        int lo = (b[8 + j] & 0xF) | (int)((qh >> j) & 1) << 4, hi = (b[8 + j] >> 4) | (int)((qh >> (j + 16)) & 1) << 4;
        float a = d * (float)lo, c = d * (float)hi;
        y[j] = a + m;
        y[j + 16] = c + m;
    }
}
static void dq_q8_0(const uint8_t *b, float *y) {          /* d, qs[32] int8 */
    float d = ldh(b);
    for (int j = 0; j < 32; j++) y[j] = (float)(int8_t)b[2 + j] * d;
}
static void dq_q2_k(const uint8_t *b, float *y) {          /* scales[16] (lo: scale, hi: min), qs[64], d, dmin */
    const uint8_t *sc = b, *q = b + 16;
    float d = ldh(b + 80), dmin = ldh(b + 82);
    for (int e = 0; e < 256; e++) {                        /* element e: 2 bits at q[(e/128)*32 + e%32] >> 2*((e/32)%4) */
        int s = sc[e / 16], v = (q[(e / 128) * 32 + e % 32] >> (2 * ((e / 32) % 4))) & 3;
        float dl = d * (float)(s & 0xF), ml = dmin * (float)(s >> 4), p = dl * (float)v;
        y[e] = p - ml;
    }
}
static void dq_q3_k(const uint8_t *b, float *y) {          /* hmask[32], qs[64], scales[12] (16 x 6 bits), d */
    const uint8_t *hm = b, *q = b + 32, *s = b + 96;
    float d = ldh(b + 108);
    for (int e = 0; e < 256; e++) {
        int i = e / 16;                                     /* scale: low 4 bits in s[i%8] (>>4 for i>=8), high 2 in s[8+i%4] */
        int lo = i < 8 ? s[i] & 0xF : s[i - 8] >> 4, hi = (s[8 + i % 4] >> (2 * (i / 4))) & 3;
        float dl = d * (float)((lo | hi << 4) - 32);
        int v = (q[(e / 128) * 32 + e % 32] >> (2 * ((e / 32) % 4))) & 3;
        if (!((hm[e % 32] >> (e / 32)) & 1)) v -= 4;        /* the high bit is stored inverted */
        y[e] = dl * (float)v;
    }
}
/* Q4_K / Q5_K: 8 sub-blocks of 32, a 6-bit scale and min each packed into 12 bytes. */
static void scale_min_k4(int j, const uint8_t *s, int *sc, int *m) {
    if (j < 4) { *sc = s[j] & 63; *m = s[j + 4] & 63; }
    else { *sc = (s[j + 4] & 0xF) | (s[j - 4] >> 6) << 4; *m = (s[j + 4] >> 4) | (s[j] >> 6) << 4; }
}
static void dq_q4_k(const uint8_t *b, float *y) {          /* d, dmin, scales[12], qs[128] */
    float d = ldh(b), dmin = ldh(b + 2);
    const uint8_t *q = b + 16;
    for (int g = 0; g < 8; g++) {                           /* sub-block g: nibble g%2 of q[(g/2)*32 + j] */
        int sc, m;
        scale_min_k4(g, b + 4, &sc, &m);
        float d1 = d * (float)sc, m1 = dmin * (float)m;
        for (int j = 0; j < 32; j++) {
            float p = d1 * (float)((q[(g / 2) * 32 + j] >> (4 * (g % 2))) & 0xF);
            y[g * 32 + j] = p - m1;
        }
    }
}
static void dq_q5_k(const uint8_t *b, float *y) {          /* d, dmin, scales[12], qh[32], qs[128] */
    float d = ldh(b), dmin = ldh(b + 2);
    const uint8_t *qh = b + 16, *q = b + 48;
    for (int g = 0; g < 8; g++) {                           /* 5th bit of element g*32+j: bit g of qh[j] */
        int sc, m;
        scale_min_k4(g, b + 4, &sc, &m);
        float d1 = d * (float)sc, m1 = dmin * (float)m;
        for (int j = 0; j < 32; j++) {
            int v = ((q[(g / 2) * 32 + j] >> (4 * (g % 2))) & 0xF) | ((qh[j] >> g) & 1) << 4;
            float p = d1 * (float)v;
            y[g * 32 + j] = p - m1;
        }
    }
}
static void dq_q6_k(const uint8_t *b, float *y) {          /* ql[128], qh[64], scales[16] int8, d */
    const uint8_t *ql = b, *qh = b + 128;
    const int8_t *sc = (const int8_t *)(b + 192);
    float d = ldh(b + 208);
    for (int h = 0; h < 2; h++)                             /* two halves of 128 */
        for (int l = 0; l < 32; l++) {
            const uint8_t *L = ql + 64 * h, *H = qh + 32 * h;
            int q1 = ((L[l] & 0xF) | ((H[l] >> 0) & 3) << 4) - 32;
            int q2 = ((L[l + 32] & 0xF) | ((H[l] >> 2) & 3) << 4) - 32;
            int q3 = ((L[l] >> 4) | ((H[l] >> 4) & 3) << 4) - 32;
            int q4 = ((L[l + 32] >> 4) | ((H[l] >> 6) & 3) << 4) - 32;
            float *o = y + 128 * h;
            const int8_t *s = sc + 8 * h + l / 16;
            o[l] = (d * (float)s[0]) * (float)q1;
            o[l + 32] = (d * (float)s[2]) * (float)q2;
            o[l + 64] = (d * (float)s[4]) * (float)q3;
            o[l + 96] = (d * (float)s[6]) * (float)q4;
        }
}

void model_gguf_dequant_row(int type, const void *data, float *out, int64_t n) {
    const uint8_t *p = data;
    switch (type) {
    case GGUF_T_F32: for (int64_t i = 0; i < n; i++) out[i] = ldf32(p + 4 * i); return;
    case GGUF_T_F16: for (int64_t i = 0; i < n; i++) out[i] = ldh(p + 2 * i); return;
    case GGUF_T_BF16: for (int64_t i = 0; i < n; i++) out[i] = bf16_to_f32(ld16(p + 2 * i)); return;
    default: break;
    }
    void (*f)(const uint8_t *, float *) = NULL;
    switch (type) {
    case GGUF_T_Q4_0: f = dq_q4_0; break;
    case GGUF_T_Q4_1: f = dq_q4_1; break;
    case GGUF_T_Q5_0: f = dq_q5_0; break;
    case GGUF_T_Q5_1: f = dq_q5_1; break;
    case GGUF_T_Q8_0: f = dq_q8_0; break;
    case GGUF_T_Q2_K: f = dq_q2_k; break;
    case GGUF_T_Q3_K: f = dq_q3_k; break;
    case GGUF_T_Q4_K: f = dq_q4_k; break;
    case GGUF_T_Q5_K: f = dq_q5_k; break;
    case GGUF_T_Q6_K: f = dq_q6_k; break;
    default: memset(out, 0, (size_t)n * sizeof *out); return;
    }
    int blk = model_gguf_type_block(type);
    size_t bb = model_gguf_type_block_bytes(type);
    for (int64_t i = 0; i < n / blk; i++) f(p + (size_t)i * bb, out + i * blk);
}
