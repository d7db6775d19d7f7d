/* learn.c — learning from verification: what eval and gen need to count
 * reward-hygiene rejections and to pick the best of k verified candidates.
 * See docs/LEARNING.md for the loop these feed (best-of-k, expert iteration). */
#include "ptxgen/eval.h"
#include "ptxgen/gpu.h"

#include <string.h>

json_t *eval_hygiene_counts(json_t *rows, const char *cfg) {
    json_int_t n[GPU_HYG__COUNT] = {0}, total = 0;
    size_t i;
    json_t *r;
    json_array_foreach(rows, i, r) {
        const char *rc = json_string_value(json_object_get(r, "config"));
        if (cfg && (!rc || strcmp(rc, cfg))) continue;
        const char *h = json_string_value(json_object_get(r, "hygiene"));
        if (!h) continue;
        for (int k = 1; k < GPU_HYG__COUNT; k++)
            if (!strcmp(h, gpu_hyg_name((gpu_hyg)k))) { n[k]++; total++; }
    }
    json_t *o = json_object();
    for (int k = 1; k < GPU_HYG__COUNT; k++) json_object_set_new(o, gpu_hyg_name((gpu_hyg)k), json_integer(n[k]));
    json_object_set_new(o, "total", json_integer(total));
    return o;
}

void eval_hygiene_markdown(json_t *doc, pg_buf *out) {
    json_t *c = eval_hygiene_counts(json_object_get(doc, "rows"), NULL);
    if (json_integer_value(json_object_get(c, "total")) > 0) {
        pg_buf_puts(out, "\nReward hygiene (samples rejected, or flagged when faster than light, all configs):");
        for (int k = 1; k < GPU_HYG__COUNT; k++) {
            json_int_t v = json_integer_value(json_object_get(c, gpu_hyg_name((gpu_hyg)k)));
            if (v) pg_buf_printf(out, " %s %lld", gpu_hyg_name((gpu_hyg)k), (long long)v);
        }
        pg_buf_puts(out, "\n");
    }
    json_decref(c);
}

int eval_stage_rank(const char *stage) {
    static const char *const order[] = {"generation", "validator", "ptxas", "gpu-not-run", "load",
                                        "timeout", "fault", "wrong", "correct", "timed"};
    for (int i = 0; stage && i < (int)(sizeof order / sizeof order[0]); i++)
        if (!strcmp(stage, order[i])) return i;
    return 0;
}

/* clean: correct and neither rejected nor flagged (a flagged kernel is never kept as "the" answer when a clean one exists) */
static bool clean(const eval_funnel_result *r) { return r->correct && !r->faster_than_light && !r->hygiene; }

bool eval_better(const eval_funnel_result *c, const eval_funnel_result *b) {
    if (!c) return false;
    if (!b) return true;
    if (clean(c) != clean(b)) return clean(c);
    if (clean(c)) {
        if ((c->speedup > 0) != (b->speedup > 0)) return c->speedup > 0;
        if (c->speedup > 0 && c->speedup != b->speedup) return c->speedup > b->speedup;
        return c->ms > 0 && b->ms > 0 && c->ms < b->ms;
    }
    if (c->correct != b->correct) return c->correct;
    return eval_stage_rank(c->stage) > eval_stage_rank(b->stage);
}
