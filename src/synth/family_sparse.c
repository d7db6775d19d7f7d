/* family_sparse.c — the helpers of family_sparse.h (task.json assembly and
 * description facts for the sparse group's families). */
#include "family_sparse.h"

#include "ptxgen/synth.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void synth_sp_add(sp_list *l, const char *fmt, ...) {
    if (l->n >= SP_LIST_MAX) return;   /* lists are the generators' own, bounded by construction */
    va_list ap;
    va_start(ap, fmt);
    pg_buf b = {0};
    char tmp[2048];
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    pg_buf_puts(&b, tmp);
    l->v[l->n++] = b.data;   /* pg_buf's data is a malloc'd NUL-terminated string */
    l->v[l->n] = NULL;
}

static void sp_list_free(sp_list *l) {
    for (int i = 0; i < l->n; i++) free(l->v[i]);
    memset(l, 0, sizeof *l);
}

void synth_sp_facts_free(sp_facts *f) {
    sp_list_free(&f->name_en); sp_list_free(&f->name_zh); sp_list_free(&f->explain_en);
    sp_list_free(&f->explain_zh); sp_list_free(&f->how_en); sp_list_free(&f->how_zh);
    pg_buf_free(&f->formula); pg_buf_free(&f->shape_en); pg_buf_free(&f->shape_zh);
    pg_buf_free(&f->notes_en); pg_buf_free(&f->notes_zh);
}

void synth_sp_begin(sp_task *t, synth_family_sample *s, const char *family) {
    t->s = s;
    snprintf(s->family, sizeof s->family, "%s", family);
    snprintf(s->source, sizeof s->source, "nvcc");
    t->root = json_object();
    t->params = json_array();
    json_object_set_new(t->root, "name", json_string(s->name));
    json_object_set_new(t->root, "family", json_string(family));
    json_object_set_new(t->root, "kernel", json_string(s->name));
}

void synth_sp_ptr(sp_task *t, const char *name, const char *type, const char *role, const char *len, const char *dist0, const char *dist1) {
    json_t *p = json_pack("{s:s, s:s, s:s, s:s}", "name", name, "type", type, "role", role, "len", len);
    if (dist0 || dist1) {
        json_t *d = json_array();
        if (dist0) json_array_append_new(d, json_string(dist0));
        if (dist1) json_array_append_new(d, json_string(dist1));
        json_object_set_new(p, "dist", d);
    }
    json_array_append_new(t->params, p);
}

void synth_sp_scal(sp_task *t, const char *name, const char *type, const char *value) {
    json_array_append_new(t->params, json_pack("{s:s, s:s, s:s}", "name", name, "type", type, "value", value));
}

void synth_sp_sizes(sp_task *t, const char *text) {
    json_error_t e;
    json_t *a = json_loads(text, 0, &e);
    if (!json_is_array(a)) abort();   /* a generator's literal is malformed: a bug, caught by the family test */
    json_object_set_new(t->root, "sizes", a);
}

void synth_sp_launch(sp_task *t, const char *b0, const char *b1, const char *b2, const char *g0, const char *g1, const char *g2,
               const char *smem) {
    json_t *b = json_array(), *g = json_array();
    const char *bs[3] = {b0, b1, b2}, *gs[3] = {g0, g1, g2};
    for (int i = 0; i < 3 && bs[i]; i++) json_array_append_new(b, json_string(bs[i]));
    for (int i = 0; i < 3 && gs[i]; i++) json_array_append_new(g, json_string(gs[i]));
    json_object_set_new(t->root, "launch", json_pack("{s:o, s:o, s:s}", "block", b, "grid", g, "smem", smem ? smem : "0"));
}

void synth_sp_fparams(sp_task *t, json_t *fp) { json_object_set_new(t->root, "family_params", fp); }

static const char *opt(const pg_buf *b) { return b->len ? b->data : NULL; }
static const char *const *optl(const sp_list *l) { return l->n ? SP_L(*l) : NULL; }

void synth_sp_finish(sp_task *t, const sp_facts *f, uint64_t seed, const char *d0, const char *d1, const char *T, double tol,
               const char *ref, const char *bytes, const char *flops) {
    json_object_set_new(t->root, "params", t->params);
    t->params = NULL;
    desc_facts df = {
        .name_en = optl(&f->name_en), .name_zh = optl(&f->name_zh), .formula = opt(&f->formula),
        .explain_en = optl(&f->explain_en), .explain_zh = optl(&f->explain_zh), .how_en = optl(&f->how_en),
        .how_zh = optl(&f->how_zh), .shape_en = opt(&f->shape_en), .shape_zh = opt(&f->shape_zh),
        .notes_en = opt(&f->notes_en), .notes_zh = opt(&f->notes_zh), .elems_per_thread = f->elems_per_thread,
        .vec_width = f->vec_width, .hints = f->hints, .data = f->data,
    };
    json_object_set_new(t->root, "descriptions", synth_desc_render_all(&df, t->root, seed));
    json_object_set_new(t->root, "distributions", json_pack("[s, s]", d0, d1));
    json_t *tl = json_object();
    json_object_set_new(tl, T, json_real(tol));
    json_object_set_new(t->root, "tolerance", tl);
    json_object_set_new(t->root, "reference", json_pack("{s:s, s:s}", "kind", "c", "name", ref));
    json_object_set_new(t->root, "cost", json_pack("{s:s, s:s}", "bytes", bytes, "flops", flops));
    synth_task_json_write(t->root, &t->s->task_json);
    json_decref(t->root);
    t->root = NULL;
}

void synth_sp_seal_name(synth_family_sample *s) {
    const char *code = s->cu.data ? s->cu.data : "";
    uint64_t h = pg_hash64_add(PG_HASH64_INIT_SHORT, code, strlen(code));
    char old[sizeof s->name], base[sizeof s->name];
    snprintf(old, sizeof old, "%s", s->name);
    snprintf(base, sizeof base, "%s", s->name);
    synth_fam_shorten(base, PG_NAME_MAX - 7);   /* the hash covers what is cut: the code holds the whole name */
    snprintf(s->name, sizeof s->name, "%.*s_%06x", PG_NAME_MAX - 7, base, (unsigned)(h & 0xffffff));
    pg_buf cu = {0};
    size_t ol = strlen(old);
    for (const char *p = s->cu.data ? s->cu.data : ""; *p;) {
        const char *hit = strstr(p, old);
        if (!hit) { pg_buf_puts(&cu, p); break; }
        pg_buf_putn(&cu, p, (size_t)(hit - p));
        pg_buf_puts(&cu, s->name);
        p = hit + ol;
    }
    pg_buf_free(&s->cu);
    s->cu = cu;
}

