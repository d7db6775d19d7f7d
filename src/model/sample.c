/* sample.c — next-token sampling: greedy, temperature, top-k, top-p. */
#include "ptxgen/model.h"

#include <math.h>
#include <stdlib.h>

uint64_t model_rng_next(uint64_t *s) {   /* xorshift64* */
    uint64_t x = *s ? *s : 0x9E3779B97F4A7C15ull;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

void model_sampler_init(model_sampler *s, const model_sampler_opts *o) {
    s->o = *o;
    s->rng = o->seed ^ 0x9E3779B97F4A7C15ull;   /* seed 0 must not give the all-zero state */
    if (!s->rng) s->rng = 1;
}

typedef struct { float v; int32_t i; } cand;
#define TOPK_FAST 64   /* top-k up to this many is kept by insertion in one pass */

static int cand_desc(const void *a, const void *b) {
    const cand *x = a, *y = b;
    if (x->v != y->v) return x->v < y->v ? 1 : -1;
    return x->i < y->i ? -1 : x->i > y->i;   /* ties: lower id first, deterministic */
}

int32_t model_sample(model_sampler *s, const float *logits, int n) {
    int32_t best = -1;
    for (int i = 0; i < n; i++)
        if (logits[i] != -INFINITY && !isnan(logits[i]) && (best < 0 || logits[i] > logits[best])) best = i;
    if (best < 0 || s->o.temperature <= 0) return best;
    /* candidates: finite entries, sorted by logit (top-k keeps the first k); ties: lower id first */
    int m = 0;
    cand *c;
    if (s->o.top_k > 0 && s->o.top_k <= TOPK_FAST) {
        /* the k best in one pass (insertion into a short sorted list): the same k entries in the
         * same order as sorting all of them, without sorting 150k logits per token */
        c = malloc((size_t)s->o.top_k * sizeof *c);
        if (!c) return best;
        int k = s->o.top_k;
        for (int i = 0; i < n; i++) {
            float v = logits[i];
            if (v == -INFINITY || isnan(v) || (m == k && !(v > c[k - 1].v))) continue;
            int j = m < k ? m++ : k - 1;   /* the slot it takes before moving up */
            while (j > 0 && v > c[j - 1].v) { c[j] = c[j - 1]; j--; }   /* strict: an equal earlier id stays first */
            c[j] = (cand){v, i};
        }
    } else {
        c = malloc((size_t)n * sizeof *c);
        if (!c) return best;
        for (int i = 0; i < n; i++)
            if (logits[i] != -INFINITY && !isnan(logits[i])) c[m++] = (cand){logits[i], i};
        qsort(c, (size_t)m, sizeof *c, cand_desc);
        if (s->o.top_k > 0 && s->o.top_k < m) m = s->o.top_k;
    }
    double sum = 0, mx = c[0].v;
    double *p = malloc((size_t)m * sizeof *p);
    if (!p) { free(c); return best; }
    for (int i = 0; i < m; i++) sum += p[i] = exp(((double)c[i].v - mx) / s->o.temperature);
    if (s->o.top_p > 0 && s->o.top_p < 1) {   /* nucleus: the smallest prefix with mass >= top_p */
        double acc = 0;
        int keep = m;
        for (int i = 0; i < m; i++) {
            acc += p[i] / sum;
            if (acc >= s->o.top_p) { keep = i + 1; break; }
        }
        m = keep;
        sum = 0;
        for (int i = 0; i < m; i++) sum += p[i];
    }
    double u = (double)(model_rng_next(&s->rng) >> 11) / 9007199254740992.0 * sum;
    int32_t pick = c[m - 1].i;
    for (int i = 0; i < m; i++) {
        u -= p[i];
        if (u < 0) { pick = c[i].i; break; }
    }
    free(p);
    free(c);
    return pick;
}

/* ---- sampling from a row's top-K candidates (model.h) ----------------------------------- */
static bool cand_before(float v, int32_t i, float w, int32_t j) { return v > w || (v == w && i < j); }

int model_topk_ref(const float *row, int n, int K, float *vals, int32_t *ids) {
    int m = 0;
    for (int i = 0; i < n; i++) {
        float v = row[i];
        if (v == -INFINITY || isnan(v) || (m == K && !cand_before(v, i, vals[K - 1], ids[K - 1]))) continue;
        int j = m < K ? m++ : K - 1;
        while (j > 0 && cand_before(v, i, vals[j - 1], ids[j - 1])) { vals[j] = vals[j - 1]; ids[j] = ids[j - 1]; j--; }
        vals[j] = v;
        ids[j] = i;
    }
    return m;
}

/* Exactness: the candidates S are the row's K first entries in the order (logit descending, id
 * ascending) over finite logits, a strict total order, the one model_sample ranks by.  The masked
 * sampler reads only the first k allowed entries in that order (k = top_k, or 1 for greedy).  If
 * at least k entries of S are allowed, those first k all lie in S: an allowed entry outside S
 * ranks after every entry of S.  So the list, its probabilities (computed from the same floats in
 * the same order, as model_sample computes them) and the one random draw are model_sample's on
 * the masked full row.  Otherwise (fewer than k allowed in S, or a sampler that reads past its k
 * first: top_k 0 or above TOPK_FAST, top_p < 1) the caller needs the full row; nothing of the
 * sampler's state was used then. */
int32_t model_sample_top(model_sampler *s, const float *vals, const int32_t *ids, int nc, const uint32_t *allow, bool *need_full) {
    bool greedy = s->o.temperature <= 0;
    int k = greedy ? 1 : s->o.top_k;
    *need_full = true;
    if (!greedy && (k <= 0 || k > TOPK_FAST || (s->o.top_p > 0 && s->o.top_p < 1))) return -1;
    cand c[TOPK_FAST];
    int m = 0;
    for (int i = 0; i < nc && m < k; i++)
        if (!allow || (allow[ids[i] >> 5] >> (ids[i] & 31) & 1)) c[m++] = (cand){vals[i], ids[i]};
    if (m < k) return -1;
    *need_full = false;
    if (greedy) return c[0].i;
    double sum = 0, mx = c[0].v, p[TOPK_FAST];
    for (int i = 0; i < m; i++) sum += p[i] = exp(((double)c[i].v - mx) / s->o.temperature);
    double u = (double)(model_rng_next(&s->rng) >> 11) / 9007199254740992.0 * sum;
    int32_t pick = c[m - 1].i;
    for (int i = 0; i < m; i++) {
        u -= p[i];
        if (u < 0) { pick = c[i].i; break; }
    }
    return pick;
}
