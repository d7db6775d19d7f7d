/* describe.c — the phrase grammar of describe.h.
 *
 * A style is a list of frames (templates); the seed picks one, and a frame
 * that needs a fact the family did not give is skipped for the next.  The
 * template language is small:
 *
 *   {slot}      a fact or a phrase derived from it (table below); a frame or
 *               group with an empty slot is not used
 *   {Slot}      the same with its first letter capitalised (never when the
 *               value starts with a parameter name: "y[i] = ...")
 *   {a|b|c}     one of the alternatives (they may hold slots and groups)
 *   [ ... ]     optional group: dropped when one of its slots is empty
 *   [? ... ]    optional group that the seed also drops half of the time
 *
 * Slots: name name_zh a_name name_k a_name_k kname dt dt_zh dtc data data_pl data_zh what
 * what_zh formula sem_zh goal goal_zh shape shape_zh notes notes_zh how
 * how_zh hint hint_zh block grid launch launch_s launch_zh launch_zh_s
 * card_launch card_launch_zh sig ins outs card_in card_in_zh card_out card_inout io.
 *
 * A slot value that ends in ASCII letters or digits gets a space between it
 * and adjacent ASCII or CJK text ("单精度 AXPY 更新", "数据为 fp32"), the way
 * people type mixed Chinese. */
#include "describe.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- the seed's choices ------------------------------------------------------------ */
typedef struct { uint64_t s; } drng;
static uint64_t dnext(drng *r) {   /* splitmix64 */
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static int dpick(drng *r, int n) { return n > 0 ? (int)(dnext(r) % (uint64_t)n) : 0; }
static int list_len(const char *const *l) {
    int n = 0;
    while (l && l[n]) n++;
    return n;
}
/* One entry of a NULL-terminated list, or dflt when the list is empty. */
static const char *lpick(drng *r, const char *const *l, const char *dflt) {
    int n = list_len(l);
    return n ? l[dpick(r, n)] : dflt;
}
#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define APICK(r, arr) ((arr)[dpick((r), NELEM(arr))])

/* ---- what the task says about itself ------------------------------------------------- */
typedef struct {
    const char *name;
    const char *etype;                   /* element type: the first float pointer's, else the first pointer's */
    pg_buf ins, outs, inouts, scalars;   /* "`float* x` (n), ..." lists for cards */
    pg_buf sig;                          /* "float* x, float* y, unsigned n" */
    const char *pnames[32];              /* every parameter name [np] */
    const char *inames[16], *onames[16]; /* input / output+inout pointer names [ni] [no] */
    int np, ni, no;
    const char *block[3], *grid[3];      /* launch dimensions [nb] [ng] */
    int nb, ng;
    const char *smem;                    /* dynamic shared memory bytes, or NULL */
    bool twod;                           /* a size named rows/cols/M/N/H/W...: matrices */
} task_view;

static const char *ctype_of(const char *t) {
    static const struct { const char *t, *c; } m[] = {
        {"f32", "float"}, {"f64", "double"}, {"f16", "half"}, {"bf16", "bf16"}, {"s32", "int"}, {"u32", "unsigned"},
        {"s64", "long long"}, {"u64", "unsigned long long"}, {"s8", "int8_t"}, {"u8", "uint8_t"}, {"s16", "short"}, {"u16", "unsigned short"}};
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
        if (!strcmp(m[i].t, t)) return m[i].c;
    return t;
}

static void view_init(const json_t *task, task_view *v) {
    memset(v, 0, sizeof *v);
    v->name = json_string_value(json_object_get(task, "name"));
    json_t *ps = json_object_get(task, "params");
    const char *first_ptr = NULL;
    for (size_t i = 0; i < json_array_size(ps); i++) {
        json_t *p = json_array_get(ps, i);
        const char *nm = json_string_value(json_object_get(p, "name")), *ty = json_string_value(json_object_get(p, "type"));
        const char *role = json_string_value(json_object_get(p, "role")), *len = json_string_value(json_object_get(p, "len"));
        if (!nm || !ty) continue;
        if (v->np < NELEM(v->pnames)) v->pnames[v->np++] = nm;
        size_t tl = strlen(ty);
        bool ptr = tl && ty[tl - 1] == '*';
        char base[16];
        snprintf(base, sizeof base, "%.*s", (int)(ptr ? tl - 1 : tl), ty);
        pg_buf_printf(&v->sig, "%s%s%s %s", v->sig.len ? ", " : "", ctype_of(base), ptr ? "*" : "", nm);
        if (ptr) {
            if (!first_ptr) first_ptr = ty;
            if (!v->etype && (base[0] == 'f' || !strcmp(base, "bf16"))) v->etype = ty;
            bool out = role && !strcmp(role, "out"), inout = role && !strcmp(role, "inout");
            pg_buf *b = out ? &v->outs : inout ? &v->inouts : &v->ins;
            pg_buf_printf(b, "%s`%s* %s`%s%s%s", b->len ? ", " : "", ctype_of(base), nm, len ? " (" : "", len ? len : "", len ? ")" : "");
            if (out || inout) { if (v->no < NELEM(v->onames)) v->onames[v->no++] = nm; }
            else if (v->ni < NELEM(v->inames)) v->inames[v->ni++] = nm;
        } else {
            pg_buf_printf(&v->scalars, "%s`%s %s`", v->scalars.len ? ", " : "", ctype_of(base), nm);
            static const char *const dims[] = {"rows", "cols", "M", "N", "K", "H", "W", "height", "width", "nx", "ny", "nrows", "ncols"};
            for (int k = 0; k < NELEM(dims); k++)
                if (!strcmp(nm, dims[k])) v->twod = true;
        }
    }
    if (!v->etype) v->etype = first_ptr;
    json_t *la = json_object_get(task, "launch");
    for (int k = 0; k < 3; k++) {
        const char *b = json_string_value(json_array_get(json_object_get(la, "block"), (size_t)k));
        const char *g = json_string_value(json_array_get(json_object_get(la, "grid"), (size_t)k));
        if (b) v->block[v->nb++] = b;
        if (g) v->grid[v->ng++] = g;
    }
    v->smem = json_string_value(json_object_get(la, "smem"));
    if (v->smem && !strcmp(v->smem, "0")) v->smem = NULL;
}
static void view_free(task_view *v) {
    pg_buf_free(&v->ins); pg_buf_free(&v->outs); pg_buf_free(&v->inouts); pg_buf_free(&v->scalars); pg_buf_free(&v->sig);
}
static bool is_param(const task_view *v, const char *w, size_t n) {
    for (int i = 0; i < v->np; i++)
        if (strlen(v->pnames[i]) == n && !strncmp(v->pnames[i], w, n)) return true;
    return false;
}

/* ---- element types and data nouns ------------------------------------------------------- */
typedef struct {
    const char *t, *c, *cpl, *tn;   /* "f32", "float", "floats", "float32" */
    const char *en[6];              /* element type words */
    const char *zh[4];              /* Chinese element type words */
    const char *zhn;                /* Chinese noun prefix: "单精度" */
} dtype_words;
static const dtype_words DTW[] = {
    {"f32", "float", "floats", "float32", {"float", "fp32", "f32", "single-precision", "float32", NULL}, {"单精度", "float", "fp32", NULL}, "单精度"},
    {"f64", "double", "doubles", "float64", {"double", "fp64", "f64", "double-precision", "float64", NULL}, {"双精度", "double", "fp64", NULL}, "双精度"},
    {"f16", "half", "halves", "float16", {"half", "fp16", "f16", "half-precision", "float16", NULL}, {"半精度", "half", "fp16", NULL}, "半精度"},
    {"bf16", "bf16", "bf16 values", "bfloat16", {"bf16", "bfloat16", NULL}, {"bf16", "bfloat16", NULL}, "bf16"},
    {"s32", "int", "ints", "int32", {"int32", "s32", "32-bit integer", NULL}, {"32 位整数", "int32", NULL}, "整数"},
    {"u32", "unsigned", "unsigned ints", "uint32", {"uint32", "u32", "unsigned 32-bit", NULL}, {"32 位无符号整数", "uint32", NULL}, "无符号整数"},
    {"s64", "long long", "64-bit ints", "int64", {"int64", "s64", NULL}, {"64 位整数", "int64", NULL}, "64 位整数"},
    {"u64", "unsigned long long", "64-bit unsigned ints", "uint64", {"uint64", "u64", NULL}, {"64 位无符号整数", NULL}, "64 位无符号整数"},
    {"s16", "short", "shorts", "int16", {"int16", "s16", NULL}, {"16 位整数", NULL}, "16 位整数"},
    {"u16", "unsigned short", "unsigned shorts", "uint16", {"uint16", "u16", NULL}, {"16 位无符号整数", NULL}, "16 位无符号整数"},
    {"s8", "int8", "int8 values", "int8", {"int8", "s8", NULL}, {"int8", "8 位整数", NULL}, "int8"},
    {"u8", "uint8", "bytes", "uint8", {"uint8", "u8", "byte", NULL}, {"uint8", "字节", NULL}, "字节"},
};
static const dtype_words *dtype_of(const char *ptr_type) {
    if (!ptr_type) return NULL;
    size_t n = strcspn(ptr_type, "*");
    for (int i = 0; i < NELEM(DTW); i++)
        if (strlen(DTW[i].t) == n && !strncmp(DTW[i].t, ptr_type, n)) return &DTW[i];
    return NULL;
}

/* "a" or "an" before w, by sound: "an fp32 buffer", "an AXPY", "a GEMV",
 * "a SAXPY", "an 8-point", "a unit". */
static const char *article(const char *w) {
    unsigned char c0 = (unsigned char)w[0], c1 = (unsigned char)(c0 ? w[1] : 0);
    if (isdigit(c0)) return c0 == '8' || (!strncmp(w, "11", 2) && !isdigit((unsigned char)w[2])) ||
                                    (!strncmp(w, "18", 2) && !isdigit((unsigned char)w[2])) ? "an" : "a";
    if (!strncmp(w, "SAX", 3) || !strncmp(w, "saxpy", 5)) return "a";
    bool spelled = (isupper(c0) && (isupper(c1) || isdigit(c1))) || (islower(c0) && isdigit(c1)) ||
                   (c0 == 'f' && c1 == 'p' && isdigit((unsigned char)w[2]));
    if (spelled) return strchr("AEFHILMNORSXaefhilmnorsx", c0) ? "an" : "a";
    if (!strncasecmp(w, "uni", 3) || !strncasecmp(w, "use", 3) || !strncasecmp(w, "one", 3) || !strncasecmp(w, "eu", 2)) return "a";
    return strchr("aeiouAEIOU", c0) ? "an" : "a";
}

/* A data noun phrase from a pattern: %C ctype, %P plural, %T a short type
 * word, %N tensor dtype, %Z Chinese type prefix; a leading '@' asks for an
 * article. */
static void data_phrase(drng *r, const dtype_words *d, const char *pat, pg_buf *out) {
    pg_buf b = {0};
    bool art = pat[0] == '@';
    for (const char *p = pat + art; *p; p++) {
        if (*p == '%' && p[1]) {
            const char *s = p[1] == 'C' ? d->c : p[1] == 'P' ? d->cpl : p[1] == 'N' ? d->tn : p[1] == 'Z' ? d->zhn
                          : p[1] == 'T' ? lpick(r, d->en, d->c) : "";
            pg_buf_puts(&b, s);
            /* "fp32 缓冲区": a space between an ASCII word and Chinese */
            size_t sl = strlen(s);
            if (sl && isalnum((unsigned char)s[sl - 1]) && (unsigned char)p[2] >= 0x80) pg_buf_putc(&b, ' ');
            p++;
        } else pg_buf_putc(&b, *p);
    }
    if (art && b.data) pg_buf_printf(out, "%s %s", article(b.data), b.data);
    else if (b.data) pg_buf_puts(out, b.data);
    pg_buf_free(&b);
}

/* ---- slots ------------------------------------------------------------------------------ */
enum { MAX_SLOTS = 56 };
typedef struct {
    const char *key[MAX_SLOTS];
    char *val[MAX_SLOTS];        /* NULL: the fact is missing */
    int n;
    const task_view *v;
    drng *r;
} ctx;

static void sset(ctx *c, const char *k, const char *v) {
    if (c->n >= MAX_SLOTS) return;   /* a programming error: the test renders every frame */
    c->key[c->n] = k;
    c->val[c->n++] = v && *v ? strdup(v) : NULL;
}
/* A sentence-like fact without its final period (frames add their own). */
static void sset_clause(ctx *c, const char *k, const char *v) {
    if (!v) { sset(c, k, NULL); return; }
    size_t n = strlen(v);
    while (n && (v[n - 1] == ' ' || v[n - 1] == '.')) n--;
    if (n >= 3 && !strncmp(v + n - 3, "\xe3\x80\x82", 3)) n -= 3;   /* 。 */
    char *t = strndup(v, n);
    sset(c, k, t);
    free(t);
}
static void sset_buf(ctx *c, const char *k, pg_buf *b) {
    sset(c, k, b->data);
    b->len = 0;
    if (b->data) b->data[0] = 0;
}
static const char *sget(const ctx *c, const char *k, size_t kn) {
    for (int i = 0; i < c->n; i++)
        if (strlen(c->key[i]) == kn && !strncmp(c->key[i], k, kn)) return c->val[i];
    return NULL;
}
static void ctx_free(ctx *c) {
    for (int i = 0; i < c->n; i++) free(c->val[i]);
}

/* ---- expansion ------------------------------------------------------------------------ */
enum { CL_OTHER, CL_ALNUM, CL_CJK };
static int cls_at(const char *s) {
    unsigned char u = (unsigned char)*s;
    if (u < 0x80) return isalnum(u) ? CL_ALNUM : CL_OTHER;
    return u >= 0xE4 && u <= 0xE9 ? CL_CJK : CL_OTHER;   /* U+4E00..U+9FFF */
}
static int last_cls(const pg_buf *b) {
    if (!b->len) return CL_OTHER;
    size_t i = b->len - 1;
    while (i > 0 && ((unsigned char)b->data[i] & 0xC0) == 0x80) i--;
    return cls_at(b->data + i);
}
static void edge_space(pg_buf *out, const char *next) {
    int a = last_cls(out), b = cls_at(next);
    if ((a == CL_ALNUM && b != CL_OTHER) || (a == CL_CJK && b == CL_ALNUM)) pg_buf_putc(out, ' ');
}

static const char *match_close(const char *p, const char *end) {
    char open = *p, close = open == '{' ? '}' : ']';
    int depth = 0;
    for (; p < end; p++) {
        if (*p == open) depth++;
        else if (*p == close && --depth == 0) return p;
    }
    return NULL;
}

/* Capitalise the first letter unless the value starts with a parameter name,
 * a function or array name, or is not a lower-case word. */
static void put_cap(const ctx *c, const char *s, pg_buf *out) {
    size_t w = 0;
    while (isalnum((unsigned char)s[w]) || s[w] == '_') w++;
    if (islower((unsigned char)s[0]) && !is_param(c->v, s, w) && s[w] != '(' && s[w] != '[') {   /* not "Fma(x, y, z)" */
        pg_buf_putc(out, (char)toupper((unsigned char)s[0]));
        pg_buf_puts(out, s + 1);
    } else pg_buf_puts(out, s);
}

/* Expand [p, end) into out; false when a slot it needs is empty. */
static bool expand(ctx *c, const char *p, const char *end, pg_buf *out) {
    bool edge = false;   /* the last thing appended was a slot or a group */
    while (p < end) {
        if (*p != '{' && *p != '[') {
            if (edge) edge_space(out, p);
            edge = false;
            pg_buf_putc(out, *p++);
            continue;
        }
        const char *q = match_close(p, end);
        if (!q) { pg_buf_putn(out, p, (size_t)(end - p)); return true; }   /* malformed: the test sees it */
        if (*p == '[') {
            const char *a = p + 1;
            bool maybe = a < q && *a == '?';
            if (maybe) a++;
            if (!maybe || dpick(c->r, 2)) {
                pg_buf t = {0};
                if (expand(c, a, q, &t) && t.len) {
                    edge_space(out, t.data);
                    pg_buf_puts(out, t.data);
                    edge = true;
                }
                pg_buf_free(&t);
            }
        } else {
            const char *alt[12], *alt_end[12];
            int na = 0, depth = 0;
            const char *st = p + 1;
            for (const char *x = p + 1; x < q; x++) {
                if (*x == '{' || *x == '[') depth++;
                else if (*x == '}' || *x == ']') depth--;
                else if (*x == '|' && !depth && na < 11) { alt[na] = st; alt_end[na++] = x; st = x + 1; }
            }
            if (na) {
                alt[na] = st;
                alt_end[na++] = q;
                int k = dpick(c->r, na);
                pg_buf t = {0};
                bool ok = expand(c, alt[k], alt_end[k], &t);
                if (ok && t.len) { edge_space(out, t.data); pg_buf_puts(out, t.data); edge = true; }
                pg_buf_free(&t);
                if (!ok) return false;
            } else {
                bool cap = isupper((unsigned char)p[1]);
                char key[32];
                size_t kn = (size_t)(q - p - 1);
                if (kn >= sizeof key) return false;
                memcpy(key, p + 1, kn);
                key[kn] = 0;
                key[0] = (char)tolower((unsigned char)key[0]);
                const char *v = sget(c, key, kn);
                if (!v) return false;
                edge_space(out, v);
                if (cap) put_cap(c, v, out);
                else pg_buf_puts(out, v);
                edge = true;
            }
        }
        p = q + 1;
    }
    return true;
}

/* Trailing spaces off every line, runs of spaces to one, no blank lines at
 * the ends. */
static void tidy(const char *s, pg_buf *out) {
    while (*s == ' ' || *s == '\n') s++;
    size_t start = out->len;
    for (; *s; s++) {
        if (*s == ' ' && (s[1] == ' ' || s[1] == '\n' || !s[1])) continue;
        pg_buf_putc(out, *s);
    }
    while (out->len > start && (out->data[out->len - 1] == '\n' || out->data[out->len - 1] == ' ')) out->data[--out->len] = 0;
}

/* ---- the frames ------------------------------------------------------------------------ */
static const char *const TERSE_EN[] = {
    "{name}",
    "{name}, {dt}",
    "{dt} {name}",
    "{name_k} ({dt})",
    "I need {a_name_k}[?, {dt}]",
    "{write|generate|emit} PTX for {name}[? on {data_pl}]",
    "{name} on {data_pl}",
    "PTX kernel: {name}[? ({dt})]",
    "need a {fast|quick} {name_k}[? for {data_pl}]",
    "{name} — {formula}",
    "{formula}",
    "{formula} ({dt})",
    "kernel for {name}: {formula}",
    "quick one: {name}, {dt}[?, {hint}]",
    "{Name} for {data_pl}[?; {hint}]",
    "can you give me {a_name_k}? {dt}[?, {hint}]",
    "{What}",
    "kernel to {what}",
    "{name}: {what}",
    "{dt} {name}, {launch}",
    "implement {name} ({formula})",
    "{name} in PTX[?, {hint}]",
    "{Name}. {Hint}.",
    "GPU {name}, {data_pl}",
    "{name} ({dt}): {formula}",
    "{Name}[? ({dt})] — {hint}",
};
static const char *const TERSE_ZH[] = {
    "{name_zh}，{dt}",
    "{name} {name_zh}, {dt}",
    "写个 {name} kernel，{dt}",
    "{name}，{dt_zh}",
    "帮我写 {name}：{formula}",
    "{name_zh}：{formula}",
    "用 PTX 实现 {name}[?（{dt}）]",
    "{dt} {name_zh}",
    "给我一个 {name} 的 kernel[?，{hint_zh}]",
    "{formula}，{dt_zh}",
    "{name_zh} kernel，{what_zh}",
    "{name}（{dt_zh}），{hint_zh}",
};
static const char *const DETAILED_EN[] = {
    "{Compute|Calculate|Evaluate} {formula}.[ {Shape}.][ {Notes}.][ Technique: {how}.][? Signature: {sig}.][ {launch_s}]",
    "{Io}. For each output element, {formula}.[ {Notes}.][ {Shape}.][ {launch_s}][? {Hint}.]",
    "{Write|Implement|Give me} a kernel that computes {formula} ({dt}).[ {Shape}.][ {Notes}.][ {launch_s}][ Use {how}.]",
    "Kernel {kname}: {formula}.[ {Shape}.][? Parameters: {sig}.][ {Notes}.][ {launch_s}][ Approach: {how}.]",
    "{Shape}. Compute {formula}.[ {Notes}.][ {launch_s}][? {Hint}.]",
    "Semantics: {formula}.[? In words: {what}.][ {Notes}.][ {Shape}.][ {launch_s}]",
    "{What}, i.e. {formula}.[ {Shape}.][ {Notes}.][ {launch_s}]",
    "Implement {name} for {data_pl}: {formula}.[ {Notes}.][ {Shape}.][ {launch_s}][ Technique: {how}.]",
    "Given {card_in}, compute {formula}.[ {Notes}.][ {Shape}.][ {launch_s}]",
    "{Name} ({dt}). {Formula}.[ {Shape}.][ {Notes}.][? Signature: {sig}.][ {launch_s}]",
    "The kernel takes {sig} and computes {formula}.[ {Notes}.][ {Shape}.][ {launch_s}]",
    "For {data_pl}: {formula}.[ {Shape}.][ {Notes}.][? Approach: {how}.][ {launch_s}]",
    "{Goal|Target|Result}: {formula}. Element type: {dtc}.[ {Shape}.][ {Notes}.][ {launch_s}][? Hint: {hint}.]",
    "{launch_s} The kernel computes {formula}.[ {Shape}.][ {Notes}.][? Technique: {how}.]",
    "We need {a_name_k}: {formula}.[ {Shape}.][ {Notes}.][ {launch_s}][? Preferably {how}.]",
    "Inputs: {card_in}.[ In/out: {card_inout}.][ Output: {card_out}.] Compute {formula}.[ {Notes}.][ {launch_s}]",
    "Evaluate {formula}.[ {Shape}.][ {Notes}.][ {launch_s}][? {Hint}.]",
    "Produce {outs} from {ins}: {formula}.[ {Shape}.][ {Notes}.][ {launch_s}]",
    "{Name}. {What}. Exactly: {formula}.[ {Shape}.][ {Notes}.][ {launch_s}]",
    "Task: {formula} ({dt}).[ {Shape}.][ {Notes}.][ Technique: {how}.][ {launch_s}]",
    "Please implement {formula} on {data_pl}.[ {Notes}.][ {Shape}.][ {launch_s}][? {Hint}.]",
    "Formula: {formula}. Element type: {dt}.[ Layout: {shape}.][ {Notes}.][ {launch_s}]",
    "{What}.[ {Shape}.][ {Notes}.][ {launch_s}][? Technique: {how}.]",
    "{Io}. {What}.[ {Notes}.][ {launch_s}]",
};
static const char *const DETAILED_ZH[] = {
    "计算 {formula}（{dt_zh}）。[{shape_zh}。][{notes_zh}。][技巧：{how_zh}。][{launch_zh_s}]",
    "输入：{card_in_zh}[；输入输出：{card_inout}][；输出：{card_out}]。对每个输出元素计算 {formula}。[{notes_zh}。][{launch_zh_s}]",
    "{name_zh}（{dt_zh}）：{formula}。[{shape_zh}。][{notes_zh}。][?做法：{how_zh}。][{launch_zh_s}]",
    "实现 {kname}：{formula}。[{shape_zh}。][{notes_zh}。][{launch_zh_s}]",
    "{shape_zh}。计算 {formula}。[{notes_zh}。][{launch_zh_s}][?{hint_zh}。]",
    "公式：{formula}。[?含义：{what_zh}。][{notes_zh}。][{launch_zh_s}]",
    "{what_zh}，即 {formula}。[{shape_zh}。][{notes_zh}。][{launch_zh_s}]",
    "编写 kernel {kname}，计算 {formula}，数据为{dt_zh}。[{notes_zh}。][{launch_zh_s}]",
    "签名：{sig}。计算 {formula}。[{shape_zh}。][{notes_zh}。][{launch_zh_s}]",
    "{launch_zh_s}kernel 计算 {formula}。[{shape_zh}。][{notes_zh}。][?{how_zh}。]",
    "{what_zh}。[{shape_zh}。][{notes_zh}。][{launch_zh_s}]",
};
static const char *const CARD_EN[] = {
    "## {kname}\n[- Input: {card_in}\n][- In/out: {card_inout}\n][- Output: {card_out}\n]- {Goal|Compute|Task}: {goal}\n[- Notes: {notes}\n][- Constraint: {how}\n][- Launch: {card_launch}]",
    "## {kname}\n- Goal: {goal}\n[- Inputs: {card_in}\n][- In/out: {card_inout}\n][- Output: {card_out}\n][- Notes: {notes}\n][- Launch: {card_launch}]",
    "### {kname}\n[* Input: {card_in}\n][* In/out: {card_inout}\n][* Output: {card_out}\n]* Compute: {goal}\n[* Notes: {notes}\n][* Launch: {card_launch}]",
    "## Kernel `{kname}`\n[- Args in: {card_in}\n][- Args in/out: {card_inout}\n][- Args out: {card_out}\n]- Semantics: {goal}\n[- Layout: {shape}\n][- Notes: {notes}\n][- Launch: {card_launch}]",
    "# {kname}\n{What}.\n\n[- Input: {card_in}\n][- In/out: {card_inout}\n][- Output: {card_out}\n][- Formula: `{formula}`\n][- Notes: {notes}\n][- Launch: {card_launch}]",
    "## {kname} ({dt})\n[- Input: {card_in}\n][- In/out: {card_inout}\n][- Output: {card_out}\n]- Goal: {goal}\n[- Notes: {notes}\n][- Constraints: {how}[?; {hint}]\n][- Launch: {card_launch}]",
    "**{kname}**\n[- in: {card_in}\n][- in/out: {card_inout}\n][- out: {card_out}\n]- op: {goal}\n[- notes: {notes}\n][- launch: {card_launch}]",
    "## {Name}\n- Kernel name: `{kname}`\n[- Input: {card_in}\n][- In/out: {card_inout}\n][- Output: {card_out}\n]- Goal: {goal}\n[- Notes: {notes}\n][- Launch: {card_launch}]",
    "## {kname}\n- Task: {what}\n[- Math: `{formula}`\n][- Input: {card_in}\n][- In/out: {card_inout}\n][- Output: {card_out}\n][- Notes: {notes}\n][- Launch: {card_launch}]",
    "## {kname}\n[- Signature: `{sig}`\n][- Output: {card_out}\n][- In/out: {card_inout}\n]- Goal: {goal}\n[- Shape: {shape}\n][- Notes: {notes}\n][- Launch: {card_launch}]",
    "## {kname}\n[- Input: {card_in}\n][- Output: {card_out}\n][- In/out: {card_inout}\n]- Goal: {goal}\n[- Technique: {how}\n][- Notes: {notes}\n][- Launch: {card_launch}]",
    "## {kname}\nInput: {card_in}\n[In/out: {card_inout}\n][Output: {card_out}\n]Goal: {goal}\n[Notes: {notes}\n][Launch: {card_launch}]",
    "## {kname} — {name}\n[- Input: {card_in}\n][- In/out: {card_inout}\n][- Output: {card_out}\n]- Goal: {goal}\n[- Notes: {notes}\n][- Perf: {hint}\n][- Launch: {card_launch}]",
    "## {kname}\n- Goal: {goal}\n[- Notes: {notes}\n][- Input: {card_in}\n][- In/out: {card_inout}\n][- Output: {card_out}\n][- Constraint: {how}\n][- Launch: {card_launch}]",
    "## {kname}\n- Description: {what}\n[- Input: {card_in}\n][- In/out: {card_inout}\n][- Output: {card_out}\n][- Exact: `{formula}`\n][- Notes: {notes}\n][- Launch: {card_launch}]",
    "## {kname}\n[- Launch: {card_launch}\n][- Input: {card_in}\n][- In/out: {card_inout}\n][- Output: {card_out}\n]- Goal: {goal}\n[- Notes: {notes}]",
    "### Kernel: {kname}\n[- Reads: {card_in}\n][- Updates: {card_inout}\n][- Writes: {card_out}\n]- Computes: {goal}\n[- Notes: {notes}\n][- Launch: {card_launch}]",
    "## {kname}\n[- Input: {card_in}\n][- In/out: {card_inout}\n][- Output: {card_out}\n]- Goal: {goal}\n[- Layout: {shape}\n][- Notes: {notes}\n][- Constraint: {hint}\n][- Launch: {card_launch}]",
    "## {kname}\n- Type: {dt}\n[- Input: {card_in}\n][- In/out: {card_inout}\n][- Output: {card_out}\n]- Goal: {goal}\n[- Notes: {notes}\n][- Launch: {card_launch}]",
    "## {kname}\n[* Inputs: {card_in}\n][* In/out: {card_inout}\n][* Output: {card_out}\n]* Goal: {goal}\n[* Notes: {notes}\n][* Technique: {how}\n][* Launch: {card_launch}]",
    "## {kname}\n[- Parameters: `{sig}`\n][- Output: {card_out}\n][- In/out: {card_inout}\n]- Semantics: {goal}\n[- Notes: {notes}\n][- Launch: {card_launch}]",
    "## {kname}\n[- Input: {card_in}\n][- In/out: {card_inout}\n][- Output: {card_out}\n]- Math: {goal}\n[- In words: {what}\n][- Notes: {notes}\n][- Launch: {card_launch}]",
    "## {kname}\n> {What}.\n\n[- Input: {card_in}\n][- In/out: {card_inout}\n][- Output: {card_out}\n]- Goal: {goal}\n[- Notes: {notes}\n][- Launch: {card_launch}]",
};
static const char *const CARD_ZH[] = {
    "## {kname}\n[- 输入：{card_in_zh}\n][- 输入/输出：{card_inout}\n][- 输出：{card_out}\n]- 目标：{goal_zh}\n[- 说明：{notes_zh}\n][- 约束：{how_zh}\n][- 启动：{card_launch_zh}]",
    "## {kname}\n- 功能：{what_zh}\n[- 公式：`{formula}`\n][- 输入：{card_in_zh}\n][- 输入输出：{card_inout}\n][- 输出：{card_out}\n][- 说明：{notes_zh}\n][- 启动配置：{card_launch_zh}]",
    "### {kname}（{name_zh}）\n[- 输入：{card_in_zh}\n][- 读写：{card_inout}\n][- 输出：{card_out}\n]- 计算：{goal_zh}\n[- 备注：{notes_zh}\n][- 启动：{card_launch_zh}]",
    "## {kname}\n- 目标：{goal_zh}\n[- 输入：{card_in_zh}\n][- 输入/输出：{card_inout}\n][- 输出：{card_out}\n][- 数据布局：{shape_zh}\n][- 说明：{notes_zh}\n][- 启动：{card_launch_zh}]",
    "## {name_zh}：{kname}\n[- 输入: {card_in_zh}\n][- 输入/输出: {card_inout}\n][- 输出: {card_out}\n]- 目标: {goal_zh}\n[- 说明: {notes_zh}\n][- 性能要求: {hint_zh}\n][- 启动: {card_launch_zh}]",
    "## {kname}\n[- Input: {card_in}\n][- In/out: {card_inout}\n][- Output: {card_out}\n]- 目标：{goal_zh}\n[- 说明：{notes_zh}\n][- Launch: {card_launch}]",
    "# {kname}\n{what_zh}。\n\n[- 输入：{card_in_zh}\n][- 输入/输出：{card_inout}\n][- 输出：{card_out}\n][- 公式：`{formula}`\n][- 说明：{notes_zh}\n][- 启动：{card_launch_zh}]",
    "## {kname}\n[- 签名：`{sig}`\n][- 输出：{card_out}\n][- 输入/输出：{card_inout}\n]- 目标：{goal_zh}\n[- 说明：{notes_zh}\n][- 技巧：{how_zh}\n][- 启动：{card_launch_zh}]",
    "**{kname}**\n[- 输入：{card_in_zh}\n][- 输入/输出：{card_inout}\n][- 输出：{card_out}\n]- 运算：{goal_zh}\n[- 说明：{notes_zh}\n][- 启动：{card_launch_zh}]",
    "## {kname}\n- 类型：{dt_zh}\n[- 输入：{card_in_zh}\n][- 输入/输出：{card_inout}\n][- 输出：{card_out}\n]- 目标：{goal_zh}\n[- 说明：{notes_zh}\n][- 启动：{card_launch_zh}]",
    "## {kname}\n[* 输入：{card_in_zh}\n][* 输入/输出：{card_inout}\n][* 输出：{card_out}\n]* 目标：{goal_zh}\n[* 注意：{notes_zh}\n][* 约束：{hint_zh}\n][* 启动：{card_launch_zh}]",
};
static const char *const ZH_ZH[] = {
    "{name_zh}（{dt_zh}）：{sem_zh}。[{shape_zh}。][{notes_zh}。][?{how_zh}。][?{launch_zh}。]",
    "{给我|帮我写|来}一个{name_zh}的 kernel（{dt_zh}）：{sem_zh}。[{notes_zh}。][?{hint_zh}。]",
    "{帮我写|请写|写}一个{dt_zh}{name_zh}内核，{sem_zh}。[{notes_zh}。][?{launch_zh}。]",
    "用 PTX 实现{name_zh}：{sem_zh}。[{shape_zh}。][{notes_zh}。]",
    "请用 PTX 实现{name_zh}（{dt_zh}）：{sem_zh}。[{notes_zh}。][?要求：{hint_zh}。]",
    "实现{name_zh}，数据为{data_zh}：{sem_zh}。[{notes_zh}。]",
    "我需要一个 kernel：{what_zh}。[{notes_zh}。][?{hint_zh}。]",
    "写一个 GPU 内核，{what_zh}。[?公式：{formula}。][{notes_zh}。]",
    "任务：{sem_zh}。[数据布局：{shape_zh}。][{notes_zh}。][?启动配置：{launch_zh}。]",
    "{name_zh}。{what_zh}。[{notes_zh}。]",
    "有{data_zh}，想{what_zh}。[{notes_zh}。][?{hint_zh}。]",
    "需求：{what_zh}，即 {formula}。[{notes_zh}。][?{launch_zh}。]",
    "编写{name_zh}内核（{dt_zh}）。计算公式：{formula}。[{shape_zh}。][{notes_zh}。][?{how_zh}。]",
    "{formula}（{dt_zh}）[，{notes_zh}]。[?{hint_zh}。]",
    "帮忙实现一下{name_zh}：{what_zh}[?（{formula}）]。[{notes_zh}。]",
    "麻烦写个 PTX kernel，{what_zh}。[{notes_zh}。][?{hint_zh}。]",
    "目标：{sem_zh}。输入：{ins}；输出：{outs}。[{notes_zh}。][?{launch_zh}。]",
    "{name_zh}，{dt_zh}[?，{hint_zh}][。{notes_zh}]",
    "想用 GPU 做{name_zh}：{what_zh}。[{shape_zh}。][{notes_zh}。]",
    "请写一个 kernel 完成以下计算：{sem_zh}。[{shape_zh}。][{notes_zh}。][?技术要求：{how_zh}。]",
    "{name_zh}（{name}）：{sem_zh}。[{notes_zh}。][?{launch_zh}。]",
    "对{data_zh}做{name_zh}：{sem_zh}。[{notes_zh}。]",
    "kernel 需求 —— {what_zh}。[{notes_zh}。][?性能：{hint_zh}。]",
};
static const char *const PROSE_EN[] = {
    "{I need|I want|I'm after} a kernel that does the following: {what}.[ {Notes}.][? Ideally {how}.]",
    "Can you write PTX to {what}?[ {Notes}.][? {Hint}, please.]",
    "Here is what the kernel {should|has to|needs to} do: {what}.[ {Notes}.]",
    "{What}.[ {Notes}.][? {Hint}.]",
    "I'm working with {data_pl}. {What}.[ {Notes}.]",
    "Write me a GPU kernel for {name}: {what}.[ {Notes}.]",
    "We want {name} on the GPU — {what}.[ {Notes}.][? {Hint}.]",
    "I have {data_pl} and want to {what}.[ {Notes}.][? {Hint}.]",
    "quick one: {what}[ ({notes})][?, {hint}]",
    "Could you give me PTX that will {what}?[ {Notes}.]",
    "The job is simple: {what}.[ {Notes}.][? Performance note: {hint}.]",
    "I'm looking for {a_name_k}. It should {what}.[ {Notes}.]",
    "{What}. That's {name}, basically.[ {Notes}.][? {Hint}.]",
    "In plain terms: {what}. In math: {formula}.[ {Notes}.]",
    "Please {what}.[ {Notes}.][? Launch config: {launch}.]",
    "I want to {what}. The data is {dt}.[ {Notes}.][? {Hint}.]",
    "Help me write PTX for this: {what}[? ({formula})].[ {Notes}.]",
    "Given {ins}, {what}.[ {Notes}.]",
    "For my {dt} data I need to {what}.[ {Notes}.][? {Hint}.]",
    "Let's do {name}: {what}.[ {Notes}.][? Performance hint: {hint}.]",
    "It must {what}.[ {Notes}.] Also: {hint}.",
    "So I've got {data_pl}: {what}[?, i.e. {formula}].[ {Notes}.]",
    "Task for the GPU: {what}.[ {Notes}.][? Use {launch}.]",
    "What I need: {what}. The result goes to {outs}.[ {Notes}.]",
    "Looking for a kernel to {what}.[ {Notes}.][? {Hint} if you can.]",
};
static const char *const PROSE_ZH[] = {
    "{帮我写个|写一个|来个} kernel：{what}.[ {Notes}.]",
    "我需要一个 kernel，{what}.[ {Notes}.][? {hint_zh}。]",
    "{What}. 用 PTX 写，{dt}.[ {Notes}.]",
    "需求如下：{what_zh}。[{notes_zh}。] Thanks!",
    "I need a kernel: {what_zh}。[{notes_zh}。]",
    "用 PTX 实现 {name}：{what}.[ {Notes}.]",
    "麻烦写一个 {name} 的 kernel —— {what}.[ {Notes}.]",
    "{What}（{dt_zh}）。[ {Notes}.][?{hint_zh}。]",
    "Can you {what}? 数据是{data_zh}。[ {Notes}.]",
    "想要一个 GPU kernel：{what_zh}。[{notes_zh}。][? In math: {formula}.]",
    "{name_zh}: {what}.[ {Notes}.][? {Hint}.]",
    "{What}.[ {Notes}.] 性能上：{hint_zh}。",
};

typedef struct {
    const char *const *en;
    int nen;
    const char *const *zh;
    int nzh;
    int zh_pct;   /* how often a Chinese frame is drawn (zh: always) */
} style_frames;
static const style_frames FRAMES[TASK_NSTYLES] = {
    [TASK_STYLE_TERSE] = {TERSE_EN, NELEM(TERSE_EN), TERSE_ZH, NELEM(TERSE_ZH), 12},
    [TASK_STYLE_DETAILED] = {DETAILED_EN, NELEM(DETAILED_EN), DETAILED_ZH, NELEM(DETAILED_ZH), 8},
    [TASK_STYLE_CARD] = {CARD_EN, NELEM(CARD_EN), CARD_ZH, NELEM(CARD_ZH), 8},
    [TASK_STYLE_ZH] = {NULL, 0, ZH_ZH, NELEM(ZH_ZH), 100},
    [TASK_STYLE_PROSE] = {PROSE_EN, NELEM(PROSE_EN), PROSE_ZH, NELEM(PROSE_ZH), 12},
};

/* ---- hints: only what the facts say ------------------------------------------------------ */
enum { MAX_HINTS = 16, HINT_LEN = 200 };
typedef struct { char en[MAX_HINTS][HINT_LEN], zh[MAX_HINTS][HINT_LEN]; int nen, nzh; } hint_pool;

static void hadd(char (*l)[HINT_LEN], int *n, const char *s) {
    if (s && *s && *n < MAX_HINTS) snprintf(l[(*n)++], HINT_LEN, "%s", s);
}
static void hints_build(const desc_facts *f, const task_view *v, const dtype_words *dw, drng *r, hint_pool *h) {
    char t[HINT_LEN];
    memset(h, 0, sizeof *h);
    int k = f->elems_per_thread;
    if (k == 1) {
        static const char *const en[] = {"one thread per element", "one element per thread", "a thread per output element",
                                         "map one thread to each output"};
        static const char *const zh[] = {"每个线程处理一个元素", "一个线程负责一个输出", "每线程一个元素"};
        hadd(h->en, &h->nen, APICK(r, en));
        hadd(h->zh, &h->nzh, APICK(r, zh));
    } else if (k > 1) {
        static const char *const en[] = {"%d elements per thread", "have each thread handle %d elements", "let every thread process %d elements"};
        static const char *const zh[] = {"每个线程处理 %d 个元素", "每线程 %d 个元素"};
        snprintf(t, sizeof t, APICK(r, en), k);
        hadd(h->en, &h->nen, t);
        snprintf(t, sizeof t, APICK(r, zh), k);
        hadd(h->zh, &h->nzh, t);
    }
    bool mem = f->hints & DESC_HINT_MEMBOUND;
    if (f->vec_width > 1) {
        char vt[48];
        const char *c = dw ? dw->c : "";
        if ((!strcmp(c, "float") && (f->vec_width == 2 || f->vec_width == 4)) || (!strcmp(c, "double") && f->vec_width == 2) ||
            (!strcmp(c, "half") && f->vec_width == 2))
            snprintf(vt, sizeof vt, "%s%d", c, f->vec_width);
        else snprintf(vt, sizeof vt, "%d-element vectors", f->vec_width);
        switch (dpick(r, mem ? 4 : 3)) {
        case 0: snprintf(t, sizeof t, "%d-wide vector loads and stores", f->vec_width); break;
        case 1: snprintf(t, sizeof t, "vectorize the memory accesses (%s)", vt); break;
        case 2: snprintf(t, sizeof t, "use %s loads and stores", vt); break;
        default: snprintf(t, sizeof t, "memory-bound, so vectorize the loads (%s)", vt); break;
        }
        hadd(h->en, &h->nen, t);
        snprintf(t, sizeof t, dpick(r, 2) ? "用 %s 向量化读写" : "向量化访存（%s）", vt);
        hadd(h->zh, &h->nzh, t);
    }
    if (mem) {
        static const char *const en[] = {"keep memory traffic minimal (it is memory-bound)", "optimize for bandwidth, it's memory-bound",
                                         "treat it as a bandwidth-bound kernel"};
        static const char *const zh[] = {"这是访存受限的 kernel，尽量减少内存流量", "带宽受限，注意访存效率"};
        hadd(h->en, &h->nen, APICK(r, en));
        hadd(h->zh, &h->nzh, APICK(r, zh));
    }
    static const struct { unsigned bit; const char *en[5], *zh[4]; } B[] = {   /* NULL-terminated lists */
        {DESC_HINT_COALESCED, {"make it coalesced", "keep the global accesses coalesced", "coalesced loads and stores",
                               "have consecutive threads touch consecutive addresses"}, {"保证合并访存", "相邻线程访问相邻地址", "访存要合并"}},
        {DESC_HINT_SMEM, {"use shared memory", "go through shared memory", "make use of shared memory", NULL}, {"使用共享内存", "用共享内存暂存数据", NULL}},
        {DESC_HINT_GRID_STRIDE, {"use a grid-stride loop", "a grid-stride loop (the grid is capped)", "loop over the data with a grid stride", NULL},
         {"使用网格跨步循环", "网格有上限，用 grid-stride 循环", NULL}},
        {DESC_HINT_INPLACE, {"do it in place", "update in place", "work in place, no extra buffer", NULL}, {"原地更新", "就地修改，不要额外缓冲区", NULL}},
        {DESC_HINT_SHUFFLE, {"use warp shuffles", "reduce within each warp with shfl.sync", "warp-shuffle reductions", NULL},
         {"用 warp shuffle 归约", "warp 内用 shfl.sync 归约", NULL}},
        {DESC_HINT_ATOMIC, {"combine the blocks with an atomic add", "one atomic add per block", "finish with atomics", NULL},
         {"用原子操作合并各块结果", "每块一次原子加", NULL}},
        {DESC_HINT_ATOMIC_MAX, {"combine the blocks with an atomic max", "one atomic max per block (floats have no atomicMax: use the bit pattern or a CAS loop)",
                                "merge the per-block maxima atomically", NULL}, {"用原子 max 合并各块结果", "每块一次原子 max（float 没有 atomicMax：用位模式或 CAS 循环）", NULL}},
        {DESC_HINT_ATOMIC_MIN, {"combine the blocks with an atomic min", "one atomic min per block (floats have no atomicMin: use the bit pattern or a CAS loop)",
                                "merge the per-block minima atomically", NULL}, {"用原子 min 合并各块结果", "每块一次原子 min（float 没有 atomicMin：用位模式或 CAS 循环）", NULL}},
    };
    for (int i = 0; i < NELEM(B); i++) {
        if (!(f->hints & B[i].bit)) continue;
        hadd(h->en, &h->nen, lpick(r, B[i].en, NULL));
        hadd(h->zh, &h->nzh, lpick(r, B[i].zh, NULL));
    }
    if (v->nb == 1) {
        static const char *const en[] = {"%s threads per block", "block size %s", "launch %s threads per block"};
        static const char *const zh[] = {"每块 %s 个线程", "块大小 %s"};
        snprintf(t, sizeof t, APICK(r, en), v->block[0]);
        hadd(h->en, &h->nen, t);
        snprintf(t, sizeof t, APICK(r, zh), v->block[0]);
        hadd(h->zh, &h->nzh, t);
    } else if (v->nb == 2) {
        snprintf(t, sizeof t, dpick(r, 2) ? "%sx%s thread blocks" : "blocks of %s x %s threads", v->block[0], v->block[1]);
        hadd(h->en, &h->nen, t);
        snprintf(t, sizeof t, "线程块 %sx%s", v->block[0], v->block[1]);
        hadd(h->zh, &h->nzh, t);
    }
    hadd(h->en, &h->nen, lpick(r, f->how_en, NULL));
    hadd(h->zh, &h->nzh, lpick(r, f->how_zh, NULL));
}

/* ---- launch phrases -------------------------------------------------------------------- */
static void launch_slots(ctx *c, const task_view *v) {
    drng *r = c->r;
    pg_buf b = {0};
    if (!v->nb || !v->ng) {
        const char *keys[] = {"block", "grid", "launch", "launch_s", "launch_zh", "launch_zh_s", "card_launch", "card_launch_zh"};
        for (int i = 0; i < NELEM(keys); i++) sset(c, keys[i], NULL);
        return;
    }
    pg_buf bs = {0}, gs = {0};   /* "16x16", "(cdiv(cols,16), cdiv(rows,16))" */
    for (int i = 0; i < v->nb; i++) pg_buf_printf(&bs, "%s%s", i ? "x" : "", v->block[i]);
    if (v->ng > 1) pg_buf_putc(&gs, '(');
    for (int i = 0; i < v->ng; i++) pg_buf_printf(&gs, "%s%s", i ? ", " : "", v->grid[i]);
    if (v->ng > 1) pg_buf_putc(&gs, ')');
    sset(c, "block", bs.data);
    sset(c, "grid", gs.data);
    const char *B = bs.data, *G = gs.data;
    bool one = v->nb == 1 && v->ng == 1;
    char sm[96] = "", smz[96] = "";
    if (v->smem) {
        snprintf(sm, sizeof sm, " with %s bytes of dynamic shared memory", v->smem);
        snprintf(smz, sizeof smz, "，动态共享内存 %s 字节", v->smem);
    }
    /* launch: a phrase */
    if (one) {
        switch (dpick(r, 3)) {
        case 0: pg_buf_printf(&b, "%s threads per block, grid %s%s", B, G, sm); break;
        case 1: pg_buf_printf(&b, "%s blocks of %s threads%s", G, B, sm); break;
        default: pg_buf_printf(&b, "block %s, grid %s%s", B, G, sm); break;
        }
    } else pg_buf_printf(&b, dpick(r, 2) ? "%s thread blocks on a %s grid%s" : "block %s, grid %s%s", B, G, sm);
    sset_buf(c, "launch", &b);
    /* launch_s: a sentence */
    if (one) {
        switch (dpick(r, 6)) {
        case 0: pg_buf_printf(&b, "Launch %s threads per block and %s blocks%s.", B, G, sm); break;
        case 1: pg_buf_printf(&b, "Use %s threads per block, grid %s%s.", B, G, sm); break;
        case 2: pg_buf_printf(&b, "Block size %s, grid %s%s.", B, G, sm); break;
        case 3: pg_buf_printf(&b, "%s threads/block, %s blocks%s.", B, G, sm); break;
        case 4: pg_buf_printf(&b, "The launch is %s blocks of %s threads%s.", G, B, sm); break;
        default: pg_buf_printf(&b, "Run it with blockDim.x = %s and gridDim.x = %s%s.", B, G, sm); break;
        }
    } else {
        switch (dpick(r, 3)) {
        case 0: pg_buf_printf(&b, "Launch blocks of %s threads on a %s grid%s.", B, G, sm); break;
        case 1: pg_buf_printf(&b, "Block %s, grid %s%s.", B, G, sm); break;
        default: pg_buf_printf(&b, "Use %s thread blocks and a %s grid%s.", B, G, sm); break;
        }
    }
    sset_buf(c, "launch_s", &b);
    if (one) {
        switch (dpick(r, 3)) {
        case 0: pg_buf_printf(&b, "每块 %s 个线程，网格 %s%s", B, G, smz); break;
        case 1: pg_buf_printf(&b, "块大小 %s，网格 %s%s", B, G, smz); break;
        default: pg_buf_printf(&b, "共 %s 个线程块，每块 %s 个线程%s", G, B, smz); break;
        }
    } else pg_buf_printf(&b, dpick(r, 2) ? "线程块 %s，网格 %s%s" : "块大小 %s，网格 %s%s", B, G, smz);
    sset(c, "launch_zh", b.data);
    pg_buf_puts(&b, "。");
    sset_buf(c, "launch_zh_s", &b);
    if (one) pg_buf_printf(&b, dpick(r, 2) ? "%s threads/block, `%s` blocks%s" : "block %s, grid `%s`%s", B, G, sm);
    else {
        pg_buf_puts(&b, "block (");
        for (int i = 0; i < v->nb; i++) pg_buf_printf(&b, "%s%s", i ? ", " : "", v->block[i]);
        pg_buf_puts(&b, "), grid (");
        for (int i = 0; i < v->ng; i++) pg_buf_printf(&b, "%s`%s`", i ? ", " : "", v->grid[i]);
        pg_buf_printf(&b, ")%s", sm);
    }
    sset_buf(c, "card_launch", &b);
    if (one) pg_buf_printf(&b, "每块 %s 个线程，`%s` 个块%s", B, G, smz);
    else pg_buf_printf(&b, "线程块 %s，网格 `%s`%s", B, G, smz);
    sset_buf(c, "card_launch_zh", &b);
    pg_buf_free(&b);
    pg_buf_free(&bs);
    pg_buf_free(&gs);
}

/* "x", "x and y", "x, y and z" (zh: "x、y、z") */
static void join_names(const char *const *n, int k, bool zh, pg_buf *out) {
    for (int i = 0; i < k; i++) pg_buf_printf(out, "%s%s", i == 0 ? "" : zh ? "、" : i == k - 1 ? " and " : ", ", n[i]);
}

static void slots_build(const desc_facts *f, const task_view *v, ctx *c) {
    drng *r = c->r;
    pg_buf b = {0};
    const dtype_words *dw = dtype_of(v->etype);
    const char *name = lpick(r, f->name_en, v->name);
    sset(c, "name", name);
    sset(c, "name_zh", lpick(r, f->name_zh, name));
    if (name) { pg_buf_printf(&b, "%s %s", article(name), name); sset_buf(c, "a_name", &b); }
    else sset(c, "a_name", NULL);
    /* "a GEMV kernel", but "a kernel for partial sums per block" */
    bool phrase = name && (strstr(name, " per ") || strstr(name, " with ") || strstr(name, " via ") || strstr(name, " over ") ||
                           strstr(name, " of ") || strstr(name, " to ") || strchr(name, '(') || strchr(name, '=') || strstr(name, "kernel"));
    if (name && phrase) pg_buf_printf(&b, "kernel for %s", name);
    else if (name) pg_buf_printf(&b, "%s kernel", name);
    sset(c, "name_k", b.data);
    if (b.data) { char *t = strdup(b.data); b.len = 0; pg_buf_printf(&b, "%s %s", article(t), t); free(t); }
    sset_buf(c, "a_name_k", &b);
    sset(c, "kname", v->name);
    sset(c, "dt", dw ? lpick(r, dw->en, dw->c) : NULL);
    sset(c, "dt_zh", dw ? lpick(r, dw->zh, dw->zhn) : NULL);
    sset(c, "dtc", dw ? dw->c : NULL);
    /* data nouns */
    int kind = f->data ? f->data : v->twod ? DESC_DATA_MATRIX : DESC_DATA_VECTOR;
    static const char *const VEC[] = {"@%C array", "@array of %P", "@%C vector", "@%T buffer", "@%N tensor", "@1D %C array", "@contiguous %C buffer"};
    static const char *const VEC_PL[] = {"%C arrays", "arrays of %P", "%T buffers", "%N tensors", "%C vectors"};
    static const char *const VEC_ZH[] = {"一个 %C 数组", "%Z向量", "%T 缓冲区", "%N 张量", "%Z数组", "一维 %C 数组"};
    static const char *const MAT[] = {"@%C matrix", "@2D %C array", "@%T matrix", "@%N matrix", "@dense %C matrix"};
    static const char *const MAT_PL[] = {"%C matrices", "2D %C arrays", "%T matrices", "dense %C matrices"};
    static const char *const MAT_ZH[] = {"%Z矩阵", "一个 %C 矩阵", "二维 %C 数组", "%T 矩阵"};
    static const char *const GRD[] = {"@2D %C grid", "@%C image", "@2D %T field", "@%C 2D grid"};
    static const char *const GRD_PL[] = {"2D %C grids", "%C images", "2D %T fields"};
    static const char *const GRD_ZH[] = {"二维%Z网格", "%C 二维网格", "一张 %C 图像"};
    const char *const *sg = kind == DESC_DATA_MATRIX ? MAT : kind == DESC_DATA_GRID ? GRD : VEC;
    const char *const *pl = kind == DESC_DATA_MATRIX ? MAT_PL : kind == DESC_DATA_GRID ? GRD_PL : VEC_PL;
    const char *const *zh = kind == DESC_DATA_MATRIX ? MAT_ZH : kind == DESC_DATA_GRID ? GRD_ZH : VEC_ZH;
    int nsg = kind == DESC_DATA_MATRIX ? NELEM(MAT) : kind == DESC_DATA_GRID ? NELEM(GRD) : NELEM(VEC);
    int npl = kind == DESC_DATA_MATRIX ? NELEM(MAT_PL) : kind == DESC_DATA_GRID ? NELEM(GRD_PL) : NELEM(VEC_PL);
    int nzh = kind == DESC_DATA_MATRIX ? NELEM(MAT_ZH) : kind == DESC_DATA_GRID ? NELEM(GRD_ZH) : NELEM(VEC_ZH);
    if (dw) {
        data_phrase(r, dw, sg[dpick(r, nsg)], &b);
        sset_buf(c, "data", &b);
        data_phrase(r, dw, pl[dpick(r, npl)], &b);
        sset_buf(c, "data_pl", &b);
        data_phrase(r, dw, zh[dpick(r, nzh)], &b);
        sset_buf(c, "data_zh", &b);
    } else {
        sset(c, "data", NULL);
        sset(c, "data_pl", NULL);
        sset(c, "data_zh", NULL);
    }
    /* semantics */
    const char *what = lpick(r, f->explain_en, NULL), *what_zh = lpick(r, f->explain_zh, NULL);
    sset_clause(c, "what", what);
    sset_clause(c, "what_zh", what_zh);
    sset(c, "formula", f->formula);
    sset_clause(c, "sem_zh", f->formula && (!what_zh || dpick(r, 2)) ? f->formula : what_zh);
    if (f->formula) pg_buf_printf(&b, "`%s`", f->formula);
    else if (what) pg_buf_puts(&b, what);
    sset_buf(c, "goal", &b);
    if (f->formula) pg_buf_printf(&b, "`%s`", f->formula);
    else if (what_zh) pg_buf_puts(&b, what_zh);
    sset_buf(c, "goal_zh", &b);
    sset_clause(c, "shape", f->shape_en);
    sset_clause(c, "shape_zh", f->shape_zh ? f->shape_zh : f->shape_en);
    sset_clause(c, "notes", f->notes_en);
    sset_clause(c, "notes_zh", f->notes_zh ? f->notes_zh : f->notes_en);
    sset_clause(c, "how", lpick(r, f->how_en, NULL));
    sset_clause(c, "how_zh", lpick(r, f->how_zh, NULL));
    hint_pool h;
    hints_build(f, v, dw, r, &h);
    sset(c, "hint", h.nen ? h.en[dpick(r, h.nen)] : NULL);
    sset(c, "hint_zh", h.nzh ? h.zh[dpick(r, h.nzh)] : NULL);
    launch_slots(c, v);
    /* parameters (none by name when the explanation refers to them by position) */
    if (f->nameless) {
        const char *keys[] = {"sig", "ins", "outs", "card_in", "card_in_zh", "card_out", "card_inout", "io"};
        for (int i = 0; i < NELEM(keys); i++) sset(c, keys[i], NULL);
        pg_buf_free(&b);
        return;
    }
    sset(c, "sig", v->sig.data);
    join_names(v->inames, v->ni, false, &b);
    sset_buf(c, "ins", &b);
    join_names(v->onames, v->no, false, &b);
    sset_buf(c, "outs", &b);
    if (v->ins.len) pg_buf_puts(&b, v->ins.data);
    if (v->scalars.len) pg_buf_printf(&b, "%s%s%s", b.len ? ", " : "", strchr(v->scalars.data, ',') ? "scalars " : "scalar ", v->scalars.data);
    sset_buf(c, "card_in", &b);
    if (v->ins.len) pg_buf_puts(&b, v->ins.data);
    if (v->scalars.len) pg_buf_printf(&b, "%s标量 %s", b.len ? "，" : "", v->scalars.data);
    sset_buf(c, "card_in_zh", &b);
    sset(c, "card_out", v->outs.data);
    sset(c, "card_inout", v->inouts.data);
    const char *cin = sget(c, "card_in", 7);
    if (cin) pg_buf_printf(&b, "%s%s", dpick(r, 2) ? "inputs: " : "reads ", cin);
    if (v->inouts.len) pg_buf_printf(&b, "%s%s", b.len ? "; in/out: " : "in/out: ", v->inouts.data);
    if (v->outs.len) pg_buf_printf(&b, "%s%s", b.len ? (dpick(r, 2) ? "; output: " : "; writes ") : "output: ", v->outs.data);
    sset_buf(c, "io", &b);
    pg_buf_free(&b);
}

/* ---- rendering --------------------------------------------------------------------------- */
static bool has_word(const char *s, const char *w) {
    size_t n = strlen(w);
    for (const char *p = s; (p = strstr(p, w)); p++) {
        bool l = p == s || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
        bool rgt = !(isalnum((unsigned char)p[n]) || p[n] == '_');
        if (l && rgt) return true;
    }
    return false;
}

/* Casual typing: sometimes a lower-case first word, no final period. */
static void casual(const task_view *v, drng *r, pg_buf *b, int style) {
    if (!b->len) return;
    size_t w = 0;
    while (isalpha((unsigned char)b->data[w])) w++;
    bool word = w > 0 && isupper((unsigned char)b->data[0]) && !is_param(v, b->data, w);
    for (size_t i = 1; i < w && word; i++) word = islower((unsigned char)b->data[i]);
    if (word && dpick(r, 6) == 0) b->data[0] = (char)tolower((unsigned char)b->data[0]);
    if (style == TASK_STYLE_PROSE && b->len > 2 && b->data[b->len - 1] == '.' && isalpha((unsigned char)b->data[b->len - 2]) && dpick(r, 3) == 0)
        b->data[--b->len] = 0;
}

/* Detailed and card always name every output: append the outputs when the
 * frame left one out. */
static void name_outputs(const task_view *v, bool card, bool zh, pg_buf *b) {
    for (int i = 0; i < v->no; i++) {
        if (b->data && has_word(b->data, v->onames[i])) continue;
        pg_buf all = {0};
        if (v->outs.len) pg_buf_puts(&all, v->outs.data);
        if (v->inouts.len) pg_buf_printf(&all, "%s%s", all.len ? ", " : "", v->inouts.data);
        if (card) pg_buf_printf(b, zh ? "\n- 输出：%s" : "\n- Output: %s", all.data);
        else pg_buf_printf(b, zh ? "输出：%s。" : " Output: %s.", all.data);
        pg_buf_free(&all);
        return;
    }
}

void synth_desc_render_framed(const desc_facts *f, const json_t *task, int style, uint64_t seed, pg_buf *out, char *frame,
                        size_t frame_n) {
    if (style < 0 || style >= TASK_NSTYLES) style = TASK_STYLE_PROSE;
    task_view v;
    view_init(task, &v);
    drng r = {seed ^ (0xde5c000000000000ull + (uint64_t)style * 0x9E3779B97F4A7C15ull)};
    ctx c = {.v = &v, .r = &r};
    slots_build(f, &v, &c);
    const style_frames *sf = &FRAMES[style];
    bool zh_first = !sf->nen || dpick(&r, 100) < sf->zh_pct;
    pg_buf b = {0};
    char id[48] = "";
    for (int pass = 0; pass < 2 && !id[0]; pass++) {
        bool zh = pass == 0 ? zh_first : !zh_first;
        const char *const *L = zh ? sf->zh : sf->en;
        int n = zh ? sf->nzh : sf->nen, k0 = dpick(&r, n);
        for (int i = 0; i < n && !id[0]; i++) {
            int k = (k0 + i) % n;
            pg_buf t = {0};
            if (expand(&c, L[k], L[k] + strlen(L[k]), &t) && t.len) {
                tidy(t.data, &b);
                snprintf(id, sizeof id, "%s.%s%02d", task_styles[style], zh ? "zh" : "en", k);
            }
            pg_buf_free(&t);
        }
    }
    if (!id[0]) {   /* facts too sparse for every frame */
        const char *nm = sget(&c, "name", 4);
        pg_buf_puts(&b, nm ? nm : v.name ? v.name : "kernel");
        snprintf(id, sizeof id, "%s.fallback", task_styles[style]);
    }
    bool zh_frame = strstr(id, ".zh") != NULL;
    if (style == TASK_STYLE_DETAILED || style == TASK_STYLE_CARD) name_outputs(&v, style == TASK_STYLE_CARD, zh_frame, &b);
    if ((style == TASK_STYLE_TERSE || style == TASK_STYLE_PROSE) && !zh_frame) casual(&v, &r, &b, style);
    if (b.data) pg_buf_puts(out, b.data);
    if (frame && frame_n) snprintf(frame, frame_n, "%s", id);
    pg_buf_free(&b);
    ctx_free(&c);
    view_free(&v);
}

int synth_desc_frame_count(int style, bool zh) {
    if (style < 0 || style >= TASK_NSTYLES) return 0;
    return zh ? FRAMES[style].nzh : FRAMES[style].nen;
}

void synth_desc_render(const desc_facts *f, const json_t *task, int style, uint64_t seed, pg_buf *out) {
    synth_desc_render_framed(f, task, style, seed, out, NULL, 0);
}

json_t *synth_desc_render_all(const desc_facts *f, const json_t *task, uint64_t seed) {
    json_t *d = json_object(), *fr = json_object();
    for (int s = 0; s < TASK_NSTYLES; s++) {
        pg_buf b = {0};
        char id[48];
        synth_desc_render_framed(f, task, s, seed, &b, id, sizeof id);
        json_object_set_new(d, task_styles[s], json_string(b.data ? b.data : ""));
        json_object_set_new(fr, task_styles[s], json_string(id));
        pg_buf_free(&b);
    }
    json_object_set_new(d, "frames", fr);
    return d;
}

void synth_desc_param_names(uint64_t seed, int n_in, const char **in, int n_out, const char **out) {
    static const char *const ins[][4] = {{"x", "y", "z", "w"},     {"a", "b", "c", "d"},         {"in", "in2", "in3", "in4"},
                                         {"src", "src2", "src3", "src4"}, {"input", "other", "third", "fourth"},
                                         {"x", "w", "u", "v"},     {"lhs", "rhs", "c", "d"},     {"in0", "in1", "in2", "in3"},
                                         {"u", "v", "s", "t"},     {"p", "q", "r", "s"}};
    static const char *const outs[][2] = {{"out", "out2"}, {"y", "y2"},         {"dst", "dst2"}, {"output", "aux"},
                                          {"z", "z2"},     {"result", "result2"}, {"res", "res2"}, {"o", "o2"}};
    drng r = {seed ^ 0x6e616d6573000000ull};
    int a = dpick(&r, (int)(sizeof ins / sizeof ins[0]));
    int b = dpick(&r, (int)(sizeof outs / sizeof outs[0]));
    for (int i = 0; i < n_in && i < 4; i++) in[i] = ins[a][i];
    for (int i = 0; i < n_out && i < 2; i++) {
        out[i] = outs[b][i];
        /* an output never shares a name with an input ("y" after {"x","y"}) */
        for (int k = 0; k < n_in && k < 4; k++)
            if (!strcmp(out[i], in[k])) out[i] = i ? "out2" : "out";
    }
}
