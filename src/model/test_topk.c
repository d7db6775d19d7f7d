/* test_topk.c — sampling from a row's top-K candidates (model_sample_top, model_topk_ref: what
 * the GPU engine copies instead of the whole row) against model_sample on the masked full row:
 * random logits (with ties, -inf and NaN), random masks from dense to a handful of allowed ids,
 * greedy and the recipe's top-k 5 at temperature 0.3; the fallback taken exactly when fewer
 * than the needed allowed ids are among the K, and then the full row decides. */
#include "common/test.h"
#include "ptxgen/model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { V = 3000, K = 64 };

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void) { return model_rng_next(&rng); }

static void test_ref_order(void) {
    float row[10] = {1, 3, 3, -INFINITY, NAN, 2, 3, 0, -1, 2};
    float v[4];
    int32_t id[4];
    int m = model_topk_ref(row, 10, 4, v, id);
    CHECK(m == 4 && id[0] == 1 && id[1] == 2 && id[2] == 6 && id[3] == 5 && v[3] == 2, "ties lower id first, no -inf or NaN: %d %d %d %d",
          id[0], id[1], id[2], id[3]);
    m = model_topk_ref(row, 10, 10, (float[10]){0}, (int32_t[10]){0});
    CHECK(m == 8, "a row with 8 finite entries gives 8 (got %d)", m);
}

static void test_against_full_row(void) {
    static float row[V], masked[V], vals[K];
    static int32_t ids[K];
    static uint32_t allow[(V + 31) / 32];
    int fallbacks = 0, fast = 0, mism = 0;
    for (int trial = 0; trial < 3000; trial++) {
        for (int i = 0; i < V; i++) {
            uint64_t r = next();
            row[i] = (float)((int)(r % 2000) - 1000) / (r % 3 ? 37.0f : 8.0f);   /* coarse: many ties */
            if (r % 997 == 0) row[i] = -INFINITY;
            if (r % 1499 == 0) row[i] = NAN;
        }
        int density = (int)(next() % 5);   /* 1/1 .. 1/10000 of the ids allowed */
        uint64_t every = density == 0 ? 1 : density == 1 ? 3 : density == 2 ? 60 : density == 3 ? 600 : 3000;
        memset(allow, 0, sizeof allow);
        for (int i = 0; i < V; i++)
            if (next() % every == 0) allow[i >> 5] |= 1u << (i & 31);
        for (int i = 0; i < V; i++) masked[i] = (allow[i >> 5] >> (i & 31) & 1) ? row[i] : -INFINITY;
        int nc = model_topk_ref(row, V, K, vals, ids);
        model_sampler_opts so[2] = {{0, 0, 1, 0}, {0.3f, 5, 1, 0}};
        for (int g = 0; g < 2; g++) {
            so[g].seed = 1000 + (uint64_t)trial;
            model_sampler a, b;
            model_sampler_init(&a, &so[g]);
            model_sampler_init(&b, &so[g]);
            bool full;
            int32_t got = model_sample_top(&a, vals, ids, nc, allow, &full);
            if (full) {
                fallbacks++;
                CHECK(got == -1 && a.rng == b.rng, "a fallback leaves the sampler untouched");
                int need = g == 0 ? 1 : 5, in = 0;
                for (int i = 0; i < nc; i++) in += (int)(allow[ids[i] >> 5] >> (ids[i] & 31) & 1);
                CHECK(in < need, "fallback only when fewer than %d allowed among the K (%d were)", need, in);
                got = model_sample(&a, masked, V);   /* the caller's full row */
            } else
                fast++;
            int32_t want = model_sample(&b, masked, V);
            if (got != want || a.rng != b.rng) mism++;
        }
    }
    CHECK(mism == 0, "%d of %d draws differ from the masked full row", mism, fallbacks + fast);
    CHECK(fast > 1000 && fallbacks > 100, "both paths exercised: %d from the candidates, %d fallbacks", fast, fallbacks);
}

static void test_needs_full(void) {
    float v[3] = {3, 2, 1};
    int32_t id[3] = {0, 1, 2};
    bool full;
    model_sampler s;
    model_sampler_init(&s, &(model_sampler_opts){0.3f, 0, 1, 1});
    CHECK(model_sample_top(&s, v, id, 3, NULL, &full) == -1 && full, "top_k 0 reads the whole row");
    model_sampler_init(&s, &(model_sampler_opts){0.3f, 2, 0.9f, 1});
    CHECK(model_sample_top(&s, v, id, 3, NULL, &full) == -1 && full, "top_p reads past the k first");
    model_sampler_init(&s, &(model_sampler_opts){0, 0, 1, 1});
    CHECK(model_sample_top(&s, v, id, 3, NULL, &full) == 0 && !full, "greedy needs one allowed candidate");
}

int main(void) {
    test_ref_order();
    test_needs_full();
    test_against_full_row();
    return TEST_DONE();
}
