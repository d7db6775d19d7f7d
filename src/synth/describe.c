/* describe.c — the phrase grammar of describe.h.  Frames are chosen per
 * style from the seed; {slots} are filled from the family's facts and the
 * task's params/launch.  Slots: {name} operation name, {dt} element type
 * phrase, {what} plain-words semantics, {formula}, {ins}/{outs} parameter
 * lists. */
#include "describe.h"

#include <stdio.h>
#include <string.h>

const char *const desc_style_names[DESC_NSTYLES] = {"terse", "detailed", "card", "zh", "prose"};

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
#define APICK(r, arr) ((arr)[dpick((r), (int)(sizeof(arr) / sizeof((arr)[0])))])

/* ---- what the task says about itself ------------------------------------------------- */
typedef struct {
    const char *name;
    const char *ftype;         /* "f32", "f64", "f16", "bf16" of the first float pointer, or NULL */
    pg_buf ins, outs, inouts, scalars;   /* "x (n floats)" style lists */
    pg_buf sig;                /* "float* x, float* y, unsigned n" */
    const char *block, *grid;  /* first launch dimension, or NULL */
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
    for (size_t i = 0; i < json_array_size(ps); i++) {
        json_t *p = json_array_get(ps, i);
        const char *nm = json_string_value(json_object_get(p, "name")), *ty = json_string_value(json_object_get(p, "type"));
        const char *role = json_string_value(json_object_get(p, "role")), *len = json_string_value(json_object_get(p, "len"));
        if (!nm || !ty) continue;
        size_t tl = strlen(ty);
        bool ptr = tl && ty[tl - 1] == '*';
        char base[16];
        snprintf(base, sizeof base, "%.*s", (int)(ptr ? tl - 1 : tl), ty);
        pg_buf_printf(&v->sig, "%s%s%s %s", v->sig.len ? ", " : "", ctype_of(base), ptr ? "*" : "", nm);
        if (ptr) {
            if (!v->ftype && base[0] == 'f') v->ftype = !strcmp(base, "f32") ? "f32" : !strcmp(base, "f64") ? "f64" : "f16";
            if (!v->ftype && !strcmp(base, "bf16")) v->ftype = "bf16";
            pg_buf *b = role && !strcmp(role, "out") ? &v->outs : role && !strcmp(role, "inout") ? &v->inouts : &v->ins;
            pg_buf_printf(b, "%s`%s* %s`%s%s%s", b->len ? ", " : "", ctype_of(base), nm, len ? " (" : "", len ? len : "", len ? ")" : "");
        } else {
            pg_buf_printf(&v->scalars, "%s`%s %s`", v->scalars.len ? ", " : "", ctype_of(base), nm);
        }
    }
    json_t *la = json_object_get(task, "launch");
    v->block = json_string_value(json_array_get(json_object_get(la, "block"), 0));
    v->grid = json_string_value(json_array_get(json_object_get(la, "grid"), 0));
}
static void view_free(task_view *v) {
    pg_buf_free(&v->ins); pg_buf_free(&v->outs); pg_buf_free(&v->inouts); pg_buf_free(&v->scalars); pg_buf_free(&v->sig);
}

static const char *dt_en(drng *r, const char *ft) {
    if (!ft) return "";
    if (!strcmp(ft, "f64")) { static const char *a[] = {"double", "fp64", "f64", "double-precision"}; return APICK(r, a); }
    if (!strcmp(ft, "f16")) { static const char *a[] = {"half", "fp16", "f16", "half-precision"}; return APICK(r, a); }
    if (!strcmp(ft, "bf16")) { static const char *a[] = {"bf16", "bfloat16"}; return APICK(r, a); }
    static const char *a[] = {"float", "fp32", "f32", "single-precision", "float32"};
    return APICK(r, a);
}
static const char *dt_zh(const char *ft) {
    if (!ft) return "";
    if (!strcmp(ft, "f64")) return "双精度";
    if (!strcmp(ft, "f16")) return "半精度";
    if (!strcmp(ft, "bf16")) return "bf16";
    return "单精度";
}

/* Fill a frame: {name} {dt} {what} {formula}; anything else is copied. */
static void fill(const char *frame, const char *name, const char *dt, const char *what, const char *formula, pg_buf *out) {
    for (const char *p = frame; *p;) {
        const struct { const char *k, *v; } slots[] = {{"{name}", name}, {"{dt}", dt}, {"{what}", what}, {"{formula}", formula}};
        bool hit = false;
        for (size_t i = 0; i < sizeof slots / sizeof slots[0] && !hit; i++) {
            size_t n = strlen(slots[i].k);
            if (!strncmp(p, slots[i].k, n)) {
                pg_buf_puts(out, slots[i].v ? slots[i].v : "");
                p += n;
                hit = true;
            }
        }
        if (!hit) pg_buf_putc(out, *p++);
    }
}

static void launch_en(drng *r, const task_view *v, pg_buf *out) {
    if (!v->block || !v->grid) return;
    static const char *f[] = {" Launch %s threads per block and %s blocks.", " Use %s threads per block, grid %s.",
                              " Block size %s, grid %s.", " %s threads/block, %s blocks."};
    pg_buf_printf(out, APICK(r, f), v->block, v->grid);
}
static void launch_zh(const task_view *v, pg_buf *out) {
    if (v->block && v->grid) pg_buf_printf(out, "每块 %s 个线程，网格 %s。", v->block, v->grid);
}

/* ---- styles ------------------------------------------------------------------------- */
static void terse(const desc_facts *f, const task_view *v, drng *r, pg_buf *out) {
    static const char *fr[] = {"{name}", "{name}, {dt}", "{dt} {name}", "{name} kernel ({dt})", "I need a {name} kernel",
                               "write PTX for {name}", "{name} on {dt} data", "PTX kernel: {name}", "{name} ({dt})",
                               "need a fast {name}", "{name} — {dt}", "kernel for {name}: {formula}"};
    const char *frame = APICK(r, fr);
    if (strstr(frame, "{formula}") && !f->formula) frame = "{name}, {dt}";
    fill(frame, lpick(r, f->name_en, v->name), dt_en(r, v->ftype), NULL, f->formula, out);
}

static void detailed(const desc_facts *f, const task_view *v, drng *r, pg_buf *out) {
    static const char *lead[] = {"Compute ", "Calculate ", "Write a kernel that computes ", "For every element, "};
    if (f->formula) pg_buf_printf(out, "%s%s.", APICK(r, lead), f->formula);
    else pg_buf_printf(out, "%s.", lpick(r, f->explain_en, ""));
    if (f->shape_en) pg_buf_printf(out, " %s.", f->shape_en);
    if (f->notes_en) pg_buf_printf(out, " %s.", f->notes_en);
    const char *how = lpick(r, f->how_en, NULL);
    if (how) pg_buf_printf(out, " Technique: %s.", how);
    if (dpick(r, 2)) pg_buf_printf(out, " Signature: %s.", v->sig.data ? v->sig.data : "");
    launch_en(r, v, out);
}

static void card(const desc_facts *f, const task_view *v, drng *r, pg_buf *out) {
    pg_buf_printf(out, "## %s\n", v->name ? v->name : "kernel");
    if (v->ins.len || v->scalars.len)
        pg_buf_printf(out, "- Input: %s%s%s\n", v->ins.data ? v->ins.data : "", v->ins.len && v->scalars.len ? ", scalars " : "",
                      v->scalars.data ? v->scalars.data : "");
    if (v->inouts.len) pg_buf_printf(out, "- In/out: %s\n", v->inouts.data);
    if (v->outs.len) pg_buf_printf(out, "- Output: %s\n", v->outs.data);
    if (f->formula) pg_buf_printf(out, "- Goal: `%s`\n", f->formula);
    else pg_buf_printf(out, "- Goal: %s\n", lpick(r, f->explain_en, ""));
    if (f->notes_en) pg_buf_printf(out, "- Notes: %s\n", f->notes_en);
    const char *how = lpick(r, f->how_en, NULL);
    if (how) pg_buf_printf(out, "- Constraint: %s\n", how);
    if (v->block && v->grid) pg_buf_printf(out, "- Launch: %s threads/block, `%s` blocks\n", v->block, v->grid);
}

static void zh(const desc_facts *f, const task_view *v, drng *r, pg_buf *out) {
    static const char *fr[] = {"{name}（{dt}）：", "给我一个{name}的 kernel（{dt}）：", "写一个{dt}{name}内核：", "实现{name}，数据为{dt}：",
                               "请用 PTX 实现{name}（{dt}）："};
    fill(APICK(r, fr), lpick(r, f->name_zh, v->name), dt_zh(v->ftype), NULL, NULL, out);
    if (f->formula && dpick(r, 2)) pg_buf_printf(out, "%s。", f->formula);
    else pg_buf_printf(out, "%s。", lpick(r, f->explain_zh, f->formula ? f->formula : ""));
    if (f->shape_zh) pg_buf_printf(out, "%s。", f->shape_zh);
    if (f->notes_zh) pg_buf_printf(out, "%s。", f->notes_zh);
    const char *how = lpick(r, f->how_zh, NULL);
    if (how && dpick(r, 2)) pg_buf_printf(out, "%s。", how);
    if (dpick(r, 2)) launch_zh(v, out);
}

static void prose(const desc_facts *f, const task_view *v, drng *r, pg_buf *out) {
    static const char *fr[] = {"I need a kernel that does the following: {what}.", "Can you write PTX that {what}?",
                               "Here is what the kernel should do: {what}.", "{what}.", "My data is {dt}. {what}.",
                               "Write me a GPU kernel for {name}: {what}.", "We want {name} on the GPU — {what}."};
    const char *what = lpick(r, f->explain_en, f->formula ? f->formula : "");
    fill(APICK(r, fr), lpick(r, f->name_en, v->name), dt_en(r, v->ftype), what, f->formula, out);
    if (f->notes_en && dpick(r, 3)) pg_buf_printf(out, " %s.", f->notes_en);
    const char *how = lpick(r, f->how_en, NULL);
    if (how && dpick(r, 2)) pg_buf_printf(out, " Ideally %s.", how);
}

void desc_render(const desc_facts *f, const json_t *task, int style, uint64_t seed, pg_buf *out) {
    task_view v;
    view_init(task, &v);
    drng r = {seed ^ (0xde5c000000000000ull + (uint64_t)style * 0x9E3779B97F4A7C15ull)};
    switch (style) {
    case DESC_TERSE: terse(f, &v, &r, out); break;
    case DESC_DETAILED: detailed(f, &v, &r, out); break;
    case DESC_CARD: card(f, &v, &r, out); break;
    case DESC_ZH: zh(f, &v, &r, out); break;
    default: prose(f, &v, &r, out); break;
    }
    view_free(&v);
}

json_t *desc_render_all(const desc_facts *f, const json_t *task, uint64_t seed) {
    json_t *d = json_object();
    for (int s = 0; s < DESC_NSTYLES; s++) {
        pg_buf b = {0};
        desc_render(f, task, s, seed, &b);
        json_object_set_new(d, desc_style_names[s], json_string(b.data ? b.data : ""));
        pg_buf_free(&b);
    }
    return d;
}

void desc_param_names(uint64_t seed, int n_in, const char **in, int n_out, const char **out) {
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
