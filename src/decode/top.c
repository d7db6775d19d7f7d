/* top.c — gen_top_sample (top.h): a draw from a row's top-K candidates with the performance
 * bias and a mask applied, exactly model_sample's on the whole row, or "need the whole row".
 *
 * Why it is exact.  Order entries by (value descending, id ascending), a strict total order;
 * model_sample reads the first k finite entries of the (biased, masked) row in that order and
 * nothing else (greedy: the first; top_k <= 64 without top_p: the first k).  S, the candidates,
 * is the first K entries of the raw row in that order, (vK, idK) the last of them.  After the
 * bias, an entry j outside S (its raw logit at most vK; equal only with id > idK):
 *  - with no add, keeps its raw value, so it still comes after (vK, idK);
 *  - with adds d1, d2, ... (in dec_bias_apply's order) has the value ((raw + d1) + d2) ... ,
 *    at most U_j = ((vK + d1) + d2) ... : a float add of a fixed addend is monotone under
 *    round-to-nearest.  So (value, j) comes at or after (U_j, j).
 * Let A be the allowed candidates with their biased values, sorted, and T the k-th of A.  If T
 * comes strictly before every allowed outside entry's bound -- before (vK, idK)'s position
 * (T before or equal it) when any allowed outside id has no add, before (U_j, j) for each allowed
 * outside id with adds -- then the first k allowed entries of the whole row are A's first k, and
 * model_sample on A's values (in that order: its ties go by position, here by id) computes the
 * same probabilities from the same floats and makes the same one random draw.  With fewer than k
 * in A the whole row is needed, unless no allowed entry lies outside S at all (every finite
 * entry of the row is in S, or the allowed ids are a list all found in S): then A is every
 * allowed finite entry, as model_sample would collect them.  -inf and NaN stay so under any
 * add, and model_sample never takes them. */
#include "top.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool before(float v, int32_t i, float w, int32_t j) { return v > w || (v == w && i < j); }

static int cmp_i32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static bool allowed(const gen_allow *a, int32_t id) {
    if (!a) return true;
    if (a->bits) return id >= 0 && id < a->nbits && (a->bits[id >> 5] >> (id & 31) & 1);
    if (a->ids) return bsearch(&id, a->ids, (size_t)a->nids, sizeof id, cmp_i32) != NULL;
    return true;
}

/* an add's id and its place in the list: sorted by (id, place), each id's adds stay in order */
typedef struct { int32_t id; int at; } add_ref;
static int cmp_add(const void *a, const void *b) {
    const add_ref *x = a, *y = b;
    return x->id != y->id ? (x->id > y->id) - (x->id < y->id) : (x->at > y->at) - (x->at < y->at);
}
static bool has_add(const add_ref *r, int n, int32_t id) {
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (r[mid].id < id) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && r[lo].id == id;
}

static int find(const gen_top *c, int32_t id) {
    for (int i = 0; i < c->n; i++)
        if (c->ids[i] == id) return i;
    return -1;
}

int32_t gen_top_sample(model_sampler *s, const gen_top *c, const dec_bias_adds *adds, const gen_allow *allow, bool *need_full) {
    *need_full = true;
    bool greedy = s->o.temperature <= 0;
    int k = greedy ? 1 : s->o.top_k;
    if (!greedy && (k <= 0 || k > MODEL_TOPK || (s->o.top_p > 0 && s->o.top_p < 1))) return -1;
    if (c->n <= 0 || c->n > MODEL_TOPK) return -1;
    bool complete = c->n < MODEL_TOPK;   /* S is every finite entry of the row */
    float vK = c->vals[c->n - 1], bv[MODEL_TOPK];
    int32_t idK = c->ids[c->n - 1];
    memcpy(bv, c->vals, sizeof(float) * (size_t)c->n);
    /* the adds, id by id: onto the candidates' values, or into the outside ids' bounds */
    bool out_bound = false;   /* an allowed outside id with adds; (ov, oid) the first of their bounds */
    float ov = 0;
    int32_t oid = 0;
    int na = adds ? adds->n : 0;
    add_ref *ord = NULL;
    if (na > 0) {
        ord = malloc(sizeof *ord * (size_t)na);
        if (!ord) return -1;
        for (int i = 0; i < na; i++) ord[i] = (add_ref){adds->id[i], i};
        qsort(ord, (size_t)na, sizeof *ord, cmp_add);
        for (int a = 0; a < na;) {
            int32_t id = ord[a].id;
            int at = find(c, id);
            float v = at >= 0 ? bv[at] : vK;
            for (; a < na && ord[a].id == id; a++) v += adds->delta[ord[a].at];
            if (at >= 0) bv[at] = v;
            else if (!complete && allowed(allow, id) && (!out_bound || before(v, id, ov, oid))) out_bound = true, ov = v, oid = id;
        }
    }
    /* does an allowed id outside S without adds exist?  Only a list of ids can say no */
    bool out_plain = !complete;
    if (out_plain && allow && allow->ids) {
        out_plain = false;
        for (int i = 0; i < allow->nids && !out_plain; i++)
            out_plain = find(c, allow->ids[i]) < 0 && !has_add(ord, na, allow->ids[i]);
    }
    free(ord);
    /* A: the allowed finite candidates, biased, in order (insertion: at most 64) */
    float av[MODEL_TOPK];
    int32_t ai[MODEL_TOPK];
    int m = 0;
    for (int i = 0; i < c->n; i++) {
        float v = bv[i];
        int32_t id = c->ids[i];
        if (v == -INFINITY || isnan(v) || !allowed(allow, id)) continue;
        int j = m++;
        while (j > 0 && before(v, id, av[j - 1], ai[j - 1])) { av[j] = av[j - 1]; ai[j] = ai[j - 1]; j--; }
        av[j] = v;
        ai[j] = id;
    }
    if (m == 0) return -1;
    if (out_plain || out_bound) {
        if (m < k) return -1;
        float vT = av[k - 1];
        int32_t iT = ai[k - 1];
        if (out_plain && before(vK, idK, vT, iT)) return -1;
        if (out_bound && !before(vT, iT, ov, oid)) return -1;
    }
    int32_t t = model_sample(s, av, m);
    if (t < 0) return -1;   /* (cannot happen: every entry of A is finite) */
    *need_full = false;
    return ai[t];
}
