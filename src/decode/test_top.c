/* test_top.c — gen_top_sample (top.h: a draw from a row's top 64 with the performance bias's
 * adds and a mask applied) against model_sample on the whole row biased and masked as gen.c's
 * pick does it: random rows (ties, -inf, NaN), random adds (on candidates and outside them,
 * repeated ids, large lifts), masks as bitsets and id lists, greedy and top-k samplers.  Where
 * it decides, the token and the sampler's state equal the whole row's; where it cannot, it
 * leaves the sampler untouched; and the cases it must refuse (a mask that leaves none of the
 * 64, a lift that could put an outside id among the draw's entries) are refused. */
#include "common/test.h"
#include "decode/top.h"

enum { V = 3000, K = MODEL_TOPK };

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static uint64_t next(void) { return model_rng_next(&rng); }

static int cmp_i32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static void seeded(model_sampler *s, const model_sampler_opts *o, uint64_t seed) {
    model_sampler_opts so = *o;
    so.seed = seed;
    model_sampler_init(s, &so);
}

/* the whole row as pick sees it: adds in order, then every refused id -inf */
static void whole_row(const float *row, const dec_bias_adds *a, const gen_allow *al, float *out) {
    memcpy(out, row, sizeof(float) * V);
    for (int i = 0; a && i < a->n; i++) out[a->id[i]] += a->delta[i];
    if (!al) return;
    for (int i = 0; i < V; i++) {
        bool ok = al->bits ? (i < al->nbits && (al->bits[i >> 5] >> (i & 31) & 1))
                           : bsearch(&(int32_t){i}, al->ids, (size_t)al->nids, sizeof(int32_t), cmp_i32) != NULL;
        if (!ok) out[i] = -INFINITY;
    }
}

static void test_random(void) {
    static float row[V], full[V], vals[K];
    static int32_t ids[K], list[1024], near_i[2 * K];
    static float near_v[2 * K];
    static uint32_t bits[(V + 31) / 32];
    dec_bias_adds a = {0};
    int fast = 0, slow = 0, mism = 0, touched = 0, lifted_fast = 0;
    for (int trial = 0; trial < 4000; trial++) {
        int finite_every = trial % 10 == 0 ? 100 : 1;   /* some rows with fewer than 64 finite entries */
        for (int i = 0; i < V; i++) {
            uint64_t r = next();
            row[i] = (float)((int)(r % 2000) - 1000) / (r % 3 ? 37.0f : 8.0f);
            if (r % 997 == 0 || (finite_every > 1 && r % (uint64_t)finite_every)) row[i] = -INFINITY;
            if (r % 1499 == 0) row[i] = NAN;
        }
        int n = model_topk_ref(row, V, K, vals, ids);
        int nn = model_topk_ref(row, V, 2 * K, near_v, near_i) - n;   /* the next 64: near misses */
        float span = n > 0 ? vals[0] - vals[n - 1] : 1;
        a.n = 0;
        int nadd = (int)(next() % 24);
        for (int j = 0; j < nadd; j++) {   /* ids of candidates, near misses and anywhere; some twice */
            uint64_t w = next() % 3;
            int32_t id = w == 0 && n > 0 ? ids[next() % (uint64_t)n] : w == 1 && nn > 0 ? near_i[n + (int)(next() % (uint64_t)nn)]
                                                                                    : (int32_t)(next() % V);
            float d = (float)((int)(next() % 21) - 10) / 10.0f;
            if (next() % 4 == 0) d = span * (float)(next() % 1200) / 1000.0f;   /* a lift that may bring it up among the first */
            if (w == 0 && d > 1) d = -d;   /* a candidate pushed down, maybe below the 64th */
            dec_bias_adds one = {&id, &d, 1, 1};
            for (int rep = 1 + (int)(next() % 2); rep > 0; rep--) {
                if (a.n == a.cap) {
                    a.cap = a.cap ? 2 * a.cap : 64;
                    a.id = realloc(a.id, sizeof *a.id * (size_t)a.cap);
                    a.delta = realloc(a.delta, sizeof *a.delta * (size_t)a.cap);
                }
                a.id[a.n] = one.id[0];
                a.delta[a.n++] = one.delta[0];
            }
        }
        gen_allow al = {0};
        int kind = (int)(next() % 3);   /* 0 none, 1 a bitset, 2 a list */
        if (kind == 1) {
            uint64_t every = (uint64_t[]){1, 2, 30, 600}[next() % 4];
            memset(bits, 0, sizeof bits);
            for (int i = 0; i < V; i++)
                if (next() % every == 0) bits[i >> 5] |= 1u << (i & 31);
            al = (gen_allow){bits, V - (int)(next() % 2) * 100, NULL, 0};   /* sometimes the vocabulary ends early */
        } else if (kind == 2) {
            int nl = 0;
            uint64_t every = (uint64_t[]){3, 30, 600}[next() % 3];
            for (int i = 0; i < V && nl < 1024; i++)
                if (next() % every == 0) list[nl++] = i;
            if (next() % 2)   /* a list of candidates only: nothing allowed lies outside */
                for (nl = 0; nl < n && nl < 40; nl++) list[nl] = ids[nl];
            qsort(list, (size_t)nl, sizeof *list, cmp_i32);
            al = (gen_allow){NULL, 0, list, nl};
        }
        bool any = kind == 0 ? true : false;
        for (int i = 0; i < V && !any; i++) any = kind == 1 ? (bits[i >> 5] >> (i & 31) & 1) && i < al.nbits : false;
        if (kind == 2) any = al.nids > 0;
        if (!any) continue;
        whole_row(row, &a, kind ? &al : NULL, full);
        model_sampler_opts so[4] = {{0, 0, 1, 0}, {0.3f, 5, 1, 0}, {1.0f, 64, 1, 0}, {0.5f, 1, 1, 0}};
        for (int g = 0; g < 4; g++) {
            model_sampler x, y;   /* one for the candidates, one for the whole row, in the same state */
            seeded(&x, &so[g], 77 + (uint64_t)trial);
            seeded(&y, &so[g], 77 + (uint64_t)trial);
            bool need;
            int32_t got = gen_top_sample(&x, &(gen_top){vals, ids, n}, a.n ? &a : NULL, kind ? &al : NULL, &need);
            int32_t want = model_sample(&y, full, V);
            if (need) {
                model_sampler z;
                seeded(&z, &so[g], 77 + (uint64_t)trial);
                slow++;
                touched += got != -1 || x.rng != z.rng;
                continue;
            }
            fast++;
            if (got != want || x.rng != y.rng) mism++;
            for (int j = 0; j < a.n && got == want; j++) {   /* decided although an outside id was lifted */
                bool in = false;
                for (int c = 0; c < n; c++) in |= ids[c] == a.id[j];
                lifted_fast += !in && a.delta[j] > 1;
            }
        }
    }
    CHECK(mism == 0, "%d of %d decided draws differ from the whole row's", mism, fast);
    CHECK(touched == 0, "%d refusals touched the sampler", touched);
    CHECK(fast > 8000 && slow > 500, "both ways exercised: %d decided, %d refused", fast, slow);
    CHECK(lifted_fast > 100, "decided past lifted outside ids by their bounds: %d", lifted_fast);
    dec_bias_adds_free(&a);
}

/* The refusals the argument needs, on a row of 200 entries: 0..63 the candidates (values 100
 * down to 37), the rest 30 and below. */
static void test_must_refuse(void) {
    float vals[K];
    int32_t ids[K];
    for (int i = 0; i < K; i++) vals[i] = 100.0f - (float)i, ids[i] = i;
    gen_top c = {vals, ids, K};
    model_sampler s;
    bool need;
    model_sampler_opts greedy = {0, 0, 1, 1}, top5 = {0.3f, 5, 1, 1};
    /* a mask that excludes all 64 */
    static uint32_t bits[(V + 31) / 32];
    memset(bits, 0, sizeof bits);
    bits[100 >> 5] |= 1u << (100 & 31);
    model_sampler_init(&s, &greedy);
    CHECK(gen_top_sample(&s, &c, NULL, &(gen_allow){bits, V, NULL, 0}, &need) == -1 && need, "no candidate allowed: the whole row");
    /* a list of ids outside the candidates, without adds: refused (their logits are unknown) */
    int32_t list[2] = {100, 101};
    CHECK(gen_top_sample(&s, &c, NULL, &(gen_allow){NULL, 0, list, 2}, &need) == -1 && need, "an allowed list outside: the whole row");
    /* an outside id lifted by 70: could stand first (its logit is at most 37) */
    int32_t lid = 150;
    float ld = 70.0f;
    dec_bias_adds lift = {&lid, &ld, 1, 1};
    CHECK(gen_top_sample(&s, &c, &lift, NULL, &need) == -1 && need, "a lift past the first candidate: the whole row");
    /* ... by 50: its bound 87 is below the first (100), so greedy is decided, top-5 too (96 > 87) */
    ld = 50.0f;
    CHECK(gen_top_sample(&s, &c, &lift, NULL, &need) == 0 && !need, "a lift short of the first: decided");
    model_sampler_init(&s, &top5);
    gen_top_sample(&s, &c, &lift, NULL, &need);
    CHECK(!need, "a lift short of the fifth (bound 87 < 96): decided");
    ld = 60.0f;   /* bound 97: above the fifth (96) */
    model_sampler_init(&s, &top5);
    CHECK(gen_top_sample(&s, &c, &lift, NULL, &need) == -1 && need, "a lift past the fifth: the whole row for top-5");
    /* the lifted id refused by the mask: it cannot be drawn, so the candidates decide */
    memset(bits, 0xff, sizeof bits);
    bits[150 >> 5] &= ~(1u << (150 & 31));
    gen_top_sample(&s, &c, &lift, &(gen_allow){bits, V, NULL, 0}, &need);
    CHECK(!need, "a lifted id the mask refuses does not matter");
    /* a candidate pushed below the 64th: the fifth allowed may then come after outside entries */
    int32_t did[5] = {0, 1, 2, 3, 4};
    float dd[5] = {-80, -80, -80, -80, -80};
    dec_bias_adds down = {did, dd, 5, 5};
    int32_t first5[4] = {0, 1, 2, 3};   /* and only 4 of them allowed: the fifth is outside */
    model_sampler_init(&s, &top5);
    CHECK(gen_top_sample(&s, &c, &down, NULL, &need) != -1 && !need, "5 candidates lowered, 59 others above the 64th: decided");
    CHECK(gen_top_sample(&s, &c, NULL, &(gen_allow){NULL, 0, first5, 4}, &need) != -1 && !need,
          "a list all among the candidates, shorter than top-k: every allowed entry is known");
    /* every candidate pushed below the 64th's logit: an outside id without adds may come first */
    int32_t all_i[K];
    float all_d[K];
    for (int i = 0; i < K; i++) all_i[i] = i, all_d[i] = -80;
    model_sampler_init(&s, &greedy);
    CHECK(gen_top_sample(&s, &c, &(dec_bias_adds){all_i, all_d, K, K}, NULL, &need) == -1 && need,
          "the draw's entry below the 64th: the whole row");
    /* a row of fewer than 64 finite entries is the whole row: any lift outside it stays -inf */
    c.n = 10;
    ld = 1000.0f;
    model_sampler_init(&s, &greedy);
    CHECK(gen_top_sample(&s, &c, &lift, NULL, &need) == 0 && !need, "a short row is every finite entry");
    /* samplers that read past their k first */
    c.n = K;
    model_sampler_init(&s, &(model_sampler_opts){0.3f, 0, 1, 1});
    CHECK(gen_top_sample(&s, &c, NULL, NULL, &need) == -1 && need, "top_k 0 reads the whole row");
    model_sampler_init(&s, &(model_sampler_opts){0.3f, 5, 0.9f, 1});
    CHECK(gen_top_sample(&s, &c, NULL, NULL, &need) == -1 && need, "top_p reads past the k first");
    model_sampler_init(&s, &(model_sampler_opts){0.3f, 65, 1, 1});
    CHECK(gen_top_sample(&s, &c, NULL, NULL, &need) == -1 && need, "top_k 65 reads past the 64");
}

int main(void) {
    test_must_refuse();
    test_random();
    return TEST_DONE();
}
