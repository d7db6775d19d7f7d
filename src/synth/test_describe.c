/* test_describe.c — tests of the phrase grammar (describe.h).
 *
 * With facts that fill every slot, many seeds reach every frame of every
 * style (>= 20 English and >= 10 Chinese frames each; zh >= 20 Chinese);
 * every rendering is non-empty valid UTF-8 without an unfilled {slot} or a
 * leftover [group], and detailed/card name every output parameter.  Sparse
 * facts still render (never "(null)"), a hint is never said without its
 * fact, renderings are deterministic, terse/prose/zh carry the semantics in
 * a good share of renderings, and every registered family's descriptions
 * pass the same checks; the expr family states its formula in the function-call
 * text or (about half of the styles) the notation people write, never both, and
 * part of its prose is a recipe or nested words with the inputs by position, which
 * a parser of the test's own reads back to the tree's values; its terse always says
 * what out gets (a formula or an explanation).
 * Last line: "N passed, N failed". */
#include "ptxgen/synth_expr.h"
#include "synth/family_internal.h"   /* the per-family generators */
#include "synth/describe.h"

#include "common/test.h"

#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double urand_d(uint64_t *s, double lo, double hi) {   /* an LCG: the test's own inputs */
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * ((double)(*s >> 11) / 9007199254740992.0);
}

static bool utf8_ok(const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        int n = *p < 0x80 ? 0 : (*p & 0xE0) == 0xC0 ? 1 : (*p & 0xF0) == 0xE0 ? 2 : (*p & 0xF8) == 0xF0 ? 3 : -1;
        if (n < 0) return false;
        p++;
        for (int i = 0; i < n; i++, p++)
            if ((*p & 0xC0) != 0x80) return false;
    }
    return true;
}
/* "{slot}" left in the text (a formula's "{-1,0,1}" is not a slot) */
static bool has_unfilled(const char *s) {
    for (const char *p = strchr(s, '{'); p; p = strchr(p + 1, '{')) {
        const char *q = p + 1;
        while ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || *q == '_') q++;
        if (q > p + 1 && *q == '}') return true;
    }
    return strstr(s, "[?") != NULL || strstr(s, "(null)") != NULL;
}
static bool has_word(const char *s, const char *w) {
    size_t n = strlen(w);
    for (const char *p = s; (p = strstr(p, w)); p++) {
        bool l = p == s || !((p[-1] >= 'a' && p[-1] <= 'z') || (p[-1] >= 'A' && p[-1] <= 'Z') || (p[-1] >= '0' && p[-1] <= '9') || p[-1] == '_');
        char c = p[n];
        bool r = !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_');
        if (l && r) return true;
    }
    return false;
}

/* A row-softmax-like task with every fact and a 1D launch; `inout` makes y
 * an in/out parameter. */
static json_t *task_1d(void) {
    return json_loads("{\"name\": \"softmax_rows_f32_w\", \"params\": ["
                      "{\"name\": \"x\", \"type\": \"f32*\", \"role\": \"in\", \"len\": \"rows*cols\"},"
                      "{\"name\": \"y\", \"type\": \"f32*\", \"role\": \"out\", \"len\": \"rows*cols\"},"
                      "{\"name\": \"stats\", \"type\": \"f32*\", \"role\": \"inout\", \"len\": \"rows\"},"
                      "{\"name\": \"rows\", \"type\": \"u32\", \"value\": \"rows\"},"
                      "{\"name\": \"cols\", \"type\": \"u32\", \"value\": \"cols\"}],"
                      "\"launch\": {\"block\": [\"128\"], \"grid\": [\"cdiv(rows,4)\"], \"smem\": \"0\"}}",
                      0, NULL);
}
static json_t *task_2d(void) {
    return json_loads("{\"name\": \"blur_f64\", \"params\": ["
                      "{\"name\": \"in\", \"type\": \"f64*\", \"role\": \"in\", \"len\": \"H*W\"},"
                      "{\"name\": \"out\", \"type\": \"f64*\", \"role\": \"out\", \"len\": \"H*W\"},"
                      "{\"name\": \"H\", \"type\": \"u32\", \"value\": \"H\"}, {\"name\": \"W\", \"type\": \"u32\", \"value\": \"W\"}],"
                      "\"launch\": {\"block\": [\"16\", \"16\"], \"grid\": [\"cdiv(W,16)\", \"cdiv(H,16)\"], \"smem\": \"1024\"}}",
                      0, NULL);
}

static const char *const NAMES[] = {"row-wise softmax", "softmax over each row", "row softmax", "AXPY", NULL};
static const char *const NAMES_ZH[] = {"按行 softmax", "逐行 softmax 归一化", "行 softmax", NULL};
static const char *const EXPL[] = {"turn every row of x into probabilities that sum to one, subtracting the row maximum before exponentiating",
                                   "exponentiate each row of x after subtracting its maximum and divide by the row sum", NULL};
static const char *const EXPL_ZH[] = {"把 x 的每一行变成和为 1 的概率：先减去行最大值再取指数，再除以行和", "对每一行先减最大值再求 exp，然后除以该行之和", NULL};
static const char *const HOW[] = {"one warp per row with shuffle reductions", "a warp per row", NULL};
static const char *const HOW_ZH[] = {"每行一个 warp，用 shuffle 归约", NULL};

static desc_facts full_facts(void) {
    desc_facts f = {.name_en = NAMES, .name_zh = NAMES_ZH,
                    .formula = "y[r][c] = exp(x[r][c] - max_c x[r][c]) / sum_c exp(x[r][c] - max_c x[r][c])",
                    .explain_en = EXPL, .explain_zh = EXPL_ZH, .how_en = HOW, .how_zh = HOW_ZH,
                    .shape_en = "x and y are rows x cols, row-major", .shape_zh = "x 和 y 为 rows x cols 行主序矩阵",
                    .notes_en = "stats[r] receives the row sum. rows may be 1.", .notes_zh = "stats[r] 累加行和"};
    f.elems_per_thread = 4;
    f.vec_width = 4;
    f.hints = DESC_HINT_COALESCED | DESC_HINT_SMEM | DESC_HINT_GRID_STRIDE | DESC_HINT_INPLACE | DESC_HINT_MEMBOUND |
              DESC_HINT_SHUFFLE | DESC_HINT_ATOMIC | DESC_HINT_ATOMIC_MAX | DESC_HINT_ATOMIC_MIN;
    return f;
}

/* Every check on one rendering. */
static void check_text(const char *what, int style, const char *s, const json_t *task) {
    CHECK(s && *s, "%s: %s is empty", what, task_styles[style]);
    if (!s) return;
    CHECK(utf8_ok(s), "%s: %s is not UTF-8: %s", what, task_styles[style], s);
    CHECK(!has_unfilled(s), "%s: %s has an unfilled slot: %s", what, task_styles[style], s);
    CHECK(!strstr(s, "  "), "%s: %s has a double space: %s", what, task_styles[style], s);
    if (style == TASK_STYLE_DETAILED || style == TASK_STYLE_CARD) {
        json_t *ps = json_object_get(task, "params");
        for (size_t i = 0; i < json_array_size(ps); i++) {
            json_t *p = json_array_get(ps, i);
            const char *role = json_string_value(json_object_get(p, "role")), *nm = json_string_value(json_object_get(p, "name"));
            if (role && nm && (!strcmp(role, "out") || !strcmp(role, "inout")))
                CHECK(has_word(s, nm), "%s: %s does not name output %s: %s", what, task_styles[style], nm, s);
        }
    }
}

static void test_frames_reachable(void) {
    json_t *tasks[2] = {task_1d(), task_2d()};
    desc_facts f = full_facts();
    for (int s = 0; s < TASK_NSTYLES; s++) {
        int nen = synth_desc_frame_count(s, false), nzh = synth_desc_frame_count(s, true);
        if (s == TASK_STYLE_ZH) CHECK(nzh >= 20 && nen == 0, "zh has %d Chinese frames (>= 20)", nzh);
        else CHECK(nen >= 20 && nzh >= 10, "%s has %d English and %d Chinese frames (>= 20, >= 10)", task_styles[s], nen, nzh);
        bool seen_en[64] = {0}, seen_zh[64] = {0};
        int distinct = 0;
        json_t *texts = json_object();
        for (uint64_t seed = 0; seed < 3000; seed++) {
            json_t *t = tasks[seed % 2];
            pg_buf b = {0}, b2 = {0};
            char id[48] = "";
            synth_desc_render_framed(&f, t, s, seed * 0x9E3779B97F4A7C15ull + 1, &b, id, sizeof id);
            synth_desc_render(&f, t, s, seed * 0x9E3779B97F4A7C15ull + 1, &b2);
            CHECK(b.data && b2.data && !strcmp(b.data, b2.data), "%s: render and render_framed agree (seed %llu)", task_styles[s],
                  (unsigned long long)seed);
            check_text("full facts", s, b.data, t);
            char want[16];
            snprintf(want, sizeof want, "%s.", task_styles[s]);
            CHECK(!strncmp(id, want, strlen(want)), "frame id %s names style %s", id, task_styles[s]);
            const char *k = id + strlen(want);
            int num = atoi(k + 2);
            if (!strncmp(k, "en", 2) && num < 64) seen_en[num] = true;
            else if (!strncmp(k, "zh", 2) && num < 64) seen_zh[num] = true;
            else CHECK(0, "unexpected frame id %s", id);
            if (b.data && !json_object_get(texts, b.data)) { json_object_set_new(texts, b.data, json_true()); distinct++; }
            pg_buf_free(&b);
            pg_buf_free(&b2);
        }
        int ren = 0, rzh = 0;
        for (int i = 0; i < 64; i++) { ren += seen_en[i]; rzh += seen_zh[i]; }
        CHECK(ren == nen, "%s: %d of %d English frames reached", task_styles[s], ren, nen);
        CHECK(rzh == nzh, "%s: %d of %d Chinese frames reached", task_styles[s], rzh, nzh);
        int want_distinct = s == TASK_STYLE_CARD ? 300 : 1000;   /* a card is mostly its fields */
        CHECK(distinct > want_distinct, "%s: %d distinct texts in 3000 renderings", task_styles[s], distinct);
        printf("  %-8s frames en %d zh %d, %d distinct texts of 3000\n", task_styles[s], ren, rzh, distinct);
        json_decref(texts);
    }
    json_decref(tasks[0]);
    json_decref(tasks[1]);
}

/* Sparse facts: only names (or nothing at all). */
static void test_sparse(void) {
    json_t *t = task_1d();
    desc_facts only_name = {.name_en = NAMES};
    desc_facts none;
    memset(&none, 0, sizeof none);
    for (int s = 0; s < TASK_NSTYLES; s++)
        for (uint64_t seed = 0; seed < 200; seed++) {
            pg_buf b = {0};
            synth_desc_render(&only_name, t, s, seed, &b);
            check_text("names only", s, b.data, t);
            pg_buf_free(&b);
            synth_desc_render(&none, t, s, seed, &b);
            check_text("no facts", s, b.data, t);
            pg_buf_free(&b);
        }
    json_decref(t);
}

/* No hint without its fact; with the fact, the hint shows up sometimes. */
static void test_hints_true(void) {
    json_t *t = task_1d();
    desc_facts plain = full_facts(), smem = full_facts();
    plain.how_en = plain.how_zh = NULL;
    plain.hints = 0;
    plain.elems_per_thread = 0;
    plain.vec_width = 0;
    smem.how_en = smem.how_zh = NULL;
    smem.hints = DESC_HINT_SMEM;
    smem.elems_per_thread = 0;
    smem.vec_width = 0;
    static const char *const claims[] = {"shared memory", "共享内存", "coalesced", "合并", "grid-stride", "grid stride", "跨步", "vector",
                                         "向量化", "per thread", "each thread", "每个线程", "in place", "原地", "shuffle", "atomic",
                                         "原子", "memory-bound", "bandwidth", "warp"};
    int said_smem = 0, n = 0;
    for (int s = 0; s < TASK_NSTYLES; s++)
        for (uint64_t seed = 0; seed < 600; seed++, n++) {
            pg_buf b = {0};
            synth_desc_render(&plain, t, s, seed, &b);
            for (size_t k = 0; k < sizeof claims / sizeof claims[0]; k++)
                CHECK(!strstr(b.data, claims[k]), "no fact, yet '%s' is said: %s", claims[k], b.data);
            pg_buf_free(&b);
            synth_desc_render(&smem, t, s, seed, &b);
            said_smem += strstr(b.data, "shared memory") || strstr(b.data, "共享内存");
            CHECK(!strstr(b.data, "coalesced") && !strstr(b.data, "grid-stride"), "only the shared-memory fact is said: %s", b.data);
            pg_buf_free(&b);
        }
    CHECK(said_smem > n / 20, "the shared-memory hint is said in %d of %d renderings", said_smem, n);
    json_decref(t);
}

/* terse/prose/zh state the formula or the explanation in a good share. */
static void test_semantics_share(void) {
    json_t *t = task_1d();
    desc_facts f = full_facts();
    int styles[3] = {TASK_STYLE_TERSE, TASK_STYLE_PROSE, TASK_STYLE_ZH}, minpct[3] = {30, 90, 75};
    for (int i = 0; i < 3; i++) {
        int sem = 0, zh = 0, lower = 0;
        for (uint64_t seed = 0; seed < 1000; seed++) {
            pg_buf b = {0};
            synth_desc_render(&f, t, styles[i], seed, &b);
            bool has = strstr(b.data, "exp(x[r][c]") != NULL;
            for (int k = 0; EXPL[k]; k++) has |= strstr(b.data, EXPL[k] + 1) != NULL;
            for (int k = 0; EXPL_ZH[k]; k++) has |= strstr(b.data, EXPL_ZH[k]) != NULL;
            sem += has;
            bool cjk = false;
            for (const unsigned char *p = (const unsigned char *)b.data; *p; p++) cjk |= *p >= 0xE4 && *p <= 0xE9;
            zh += cjk;
            lower += b.data[0] >= 'a' && b.data[0] <= 'z';
            pg_buf_free(&b);
        }
        printf("  %-8s semantics in %d/1000, Chinese in %d/1000, lower-case start %d/1000\n", task_styles[styles[i]], sem, zh, lower);
        CHECK(sem * 100 >= minpct[i] * 1000, "%s: semantics in %d of 1000 (>= %d%%)", task_styles[styles[i]], sem, minpct[i]);
        if (styles[i] != TASK_STYLE_ZH) CHECK(zh > 30 && zh < 400, "%s: Chinese mixed into %d of 1000", task_styles[styles[i]], zh);
        else CHECK(zh == 1000, "zh is always Chinese (%d)", zh);
        if (styles[i] != TASK_STYLE_ZH) CHECK(lower > 30, "%s: some renderings start in lower case (%d)", task_styles[styles[i]], lower);
    }
    json_decref(t);
}

/* synth_desc_render_all: the five styles and their frames. */
static void test_render_all(void) {
    json_t *t = task_2d();
    desc_facts f = full_facts();
    json_t *d = synth_desc_render_all(&f, t, 42), *d2 = synth_desc_render_all(&f, t, 42), *d3 = synth_desc_render_all(&f, t, 43);
    char *a = json_dumps(d, JSON_SORT_KEYS), *b = json_dumps(d2, JSON_SORT_KEYS), *c = json_dumps(d3, JSON_SORT_KEYS);
    CHECK(a && b && !strcmp(a, b), "synth_desc_render_all is deterministic");
    CHECK(a && c && strcmp(a, c), "another seed, other descriptions");
    json_t *fr = json_object_get(d, "frames");
    for (int s = 0; s < TASK_NSTYLES; s++) {
        CHECK(json_is_string(json_object_get(d, task_styles[s])), "style %s present", task_styles[s]);
        const char *id = json_string_value(json_object_get(fr, task_styles[s]));
        CHECK(id && !strncmp(id, task_styles[s], strlen(task_styles[s])), "frame of %s recorded (%s)", task_styles[s],
              id ? id : "none");
    }
    free(a); free(b); free(c);
    json_decref(d); json_decref(d2); json_decref(d3);
    /* the 2D launch and dynamic shared memory reach the card */
    int launch = 0;
    for (uint64_t seed = 0; seed < 100; seed++) {
        pg_buf o = {0};
        synth_desc_render(&f, t, TASK_STYLE_CARD, seed, &o);
        launch += strstr(o.data, "cdiv(W,16)") && strstr(o.data, "1024 bytes");
        pg_buf_free(&o);
    }
    CHECK(launch > 80, "the card states the 2D grid and the dynamic shared memory (%d of 100)", launch);
    json_decref(t);
}

/* Every registered family's descriptions: the five styles, well-formed, the
 * outputs named in detailed and card. */
typedef pg_status (*gen_fn)(uint64_t, synth_family_sample *);
static const struct { const char *name; gen_fn fn; } FAMS[] = {
#define SYNTH_FAMILY(name, fn, ref, nvcc) {name, fn},
#include "synth/families_all.def"
#undef SYNTH_FAMILY
};
static void test_families(void) {
    for (size_t k = 0; k < sizeof FAMS / sizeof FAMS[0]; k++) {
        json_t *frames = json_object(), *texts = json_object();
        int with_frames = 0;
        for (uint64_t seed = 0; seed < 60; seed++) {
            synth_family_sample s;
            memset(&s, 0, sizeof s);
            if (FAMS[k].fn(seed * 1000003 + 7, &s) != PG_OK) { CHECK(0, "%s: seed %llu fails", FAMS[k].name, (unsigned long long)seed); continue; }
            json_t *t = json_loads(s.task_json.data, 0, NULL);
            json_t *d = json_object_get(t, "descriptions");
            CHECK(json_is_object(d), "%s: descriptions", FAMS[k].name);
            bool grammar = json_object_get(d, "frames") != NULL;   /* else prose is optional (task_load) */
            for (int st = 0; st < TASK_NSTYLES; st++) {
                const char *txt = json_string_value(json_object_get(d, task_styles[st]));
                if (txt || grammar || st != TASK_STYLE_PROSE) check_text(FAMS[k].name, st, txt, t);
                if (txt) json_object_set_new(texts, txt, json_true());
                const char *id = json_string_value(json_object_get(json_object_get(d, "frames"), task_styles[st]));
                if (id) json_object_set_new(frames, id, json_true());
            }
            with_frames += json_object_get(d, "frames") != NULL;
            json_decref(t);
            synth_family_sample_free(&s);
        }
        printf("  family %-12s %2d of 60 samples with frames, %3zu frames, %3zu distinct texts\n", FAMS[k].name, with_frames,
               json_object_size(frames), json_object_size(texts));
        json_decref(frames);
        json_decref(texts);
    }
}

/* The expression family: random trees render well-formed descriptions, and
 * the plain words of a known tree are exact (parenthesised where an operand
 * is not a leaf), in English and Chinese. */
static void test_expr(void) {
    int n = 0;
    for (uint64_t seed = 0; seed < 150; seed++) {
        int nin = 1 + (int)(seed % 4);
        expr_tree *e = synth_expr_random(seed * 77 + 5, nin, 1 + (int)(seed % 5), NULL);
        if (!e) continue;
        char name[32];
        snprintf(name, sizeof name, "expr_t%llu", (unsigned long long)seed);
        pg_buf js = {0};
        CHECK(synth_expr_kernel(e, name, nin, NULL, 256, seed % 2 ? 4 : 1, NULL, NULL, &js, NULL) == PG_OK, "%s", name);
        json_t *t = json_loads(js.data ? js.data : "", 0, NULL), *d = json_object_get(t, "descriptions");
        for (int st = 0; st < TASK_NSTYLES; st++) check_text(name, st, json_string_value(json_object_get(d, task_styles[st])), t);
        CHECK(json_object_get(d, "frames") != NULL, "%s: frames recorded", name);
        n += t != NULL;
        json_decref(t);
        pg_buf_free(&js);
        expr_free(e);
    }
    CHECK(n > 100, "%d random expressions described", n);
    char err[128];
    expr_tree *e = expr_parse("(sqrt (add (abs a) 1.5))", err, sizeof err);
    CHECK(e != NULL, "parse: %s", err);
    static const char *const want[] = {"the square root of ((the absolute value of a[i]) plus 1.5)",
                                       "（（a[i]的绝对值） 加 1.5）的平方根", "out[i] = sqrt(abs(a[i]) + 1.5)",
                                       "sqrt(|a[i]| + 1.5)", "out = sqrt(|a| + 1.5)"};
    enum { NW = sizeof want / sizeof want[0] };
    bool found[NW] = {0};
    for (int k = 0; e && k < 40; k++) {
        char name[32];
        snprintf(name, sizeof name, "sq%d", k);
        pg_buf js = {0};
        synth_expr_kernel(e, name, 1, NULL, 256, 1, NULL, NULL, &js, NULL);
        json_t *t = json_loads(js.data ? js.data : "", 0, NULL), *d = json_object_get(t, "descriptions");
        for (int st = 0; st < TASK_NSTYLES; st++) {
            const char *txt = json_string_value(json_object_get(d, task_styles[st]));
            for (int w = 0; w < NW && txt; w++) found[w] |= strstr(txt, want[w]) != NULL;
        }
        json_decref(t);
        pg_buf_free(&js);
    }
    for (int w = 0; w < NW; w++) CHECK(found[w], "the descriptions say '%s'", want[w]);
    expr_free(e);
}

/* The formula's notation (synth_expr_notation): about half of the styles in the
 * notation people write, every form drawn, "squared" only in prose, deterministic;
 * a description states the formula in one notation, and a human one has no fma()
 * and no note defining it. */
static void test_expr_notation(void) {
    int human = 0, total = 0, per_style[TASK_NSTYLES] = {0}, fl_seen[5] = {0}, squared_off_prose = 0;
    for (uint64_t seed = 0; seed < 2000; seed++)
        for (int st = 0; st < TASK_NSTYLES; st++) {
            unsigned fl = 99, fl2 = 98;
            bool h = synth_expr_notation(seed * 0x9E3779B97F4A7C15ull, st, &fl);
            CHECK(h == synth_expr_notation(seed * 0x9E3779B97F4A7C15ull, st, &fl2) && fl == fl2, "deterministic");
            CHECK(h || fl == 0, "the function-call text has no flags");
            human += h;
            per_style[st] += h;
            total++;
            for (int k = 0; k < 5; k++) fl_seen[k] += (fl >> k) & 1;
            squared_off_prose += st != TASK_STYLE_PROSE && (fl & EXPR_MATH_SQUARED);
        }
    printf("  notation: human in %d of %d styles\n", human, total);
    CHECK(human * 10 > total * 4 && human * 10 < total * 6, "human notation in %d of %d", human, total);
    for (int st = 0; st < TASK_NSTYLES; st++) CHECK(per_style[st] > 700 && per_style[st] < 1300, "%s: %d of 2000", task_styles[st], per_style[st]);
    for (int k = 0; k < 5; k++) CHECK(fl_seen[k] > 100, "flag %d drawn %d times", k, fl_seen[k]);
    CHECK(squared_off_prose == 0, "'squared' only in prose (%d)", squared_off_prose);

    /* the suite's ew_rsqrt_scale shape: fma(b, b, c) reads b^2 + c or b² + c */
    char err[128];
    expr_tree *e = expr_parse("(mul a (rsqrt (add (abs (fma b b c)) 0.5)))", err, sizeof err);
    CHECK(e != NULL, "parse: %s", err);
    int nh = 0, nplain = 0, sup = 0;
    for (int k = 0; e && k < 60; k++) {
        char name[32];
        snprintf(name, sizeof name, "rs%d", k);
        pg_buf js = {0}, js2 = {0};
        synth_expr_kernel(e, name, 3, NULL, 256, 1, NULL, NULL, &js, NULL);
        synth_expr_kernel(e, name, 3, NULL, 256, 1, NULL, NULL, &js2, NULL);
        CHECK(js.data && js2.data && !strcmp(js.data, js2.data), "%s: deterministic", name);
        json_t *t = json_loads(js.data ? js.data : "", 0, NULL), *d = json_object_get(t, "descriptions");
        for (int st = 0; st < TASK_NSTYLES; st++) {
            const char *txt = json_string_value(json_object_get(d, task_styles[st]));
            if (!txt) continue;
            bool h = strstr(txt, "^2 + c") || strstr(txt, "\xc2\xb2 + c");
            bool p = strstr(txt, "fma(b") != NULL;
            CHECK(!(h && p), "%s %s: one notation: %s", name, task_styles[st], txt);
            if (h) CHECK(!strstr(txt, "fma(") && !strstr(txt, "abs("), "%s %s: no fma()/abs() in the human notation: %s", name, task_styles[st], txt);
            nh += h;
            nplain += p;
            sup += strstr(txt, "\xc2\xb2") != NULL;
        }
        json_decref(t);
        pg_buf_free(&js);
        pg_buf_free(&js2);
    }
    printf("  rsqrt(|b*b + c| + 0.5): %d human, %d function-call formulas, %d with a superscript\n", nh, nplain, sup);
    CHECK(nh > 20 && nplain > 20 && sup > 0, "both notations: %d human, %d function-call, %d superscript", nh, nplain, sup);
    expr_free(e);
}


/* ---- the recipe (synth_expr_recipe): read back by a parser of its own --------------- */
/* A noun phrase of the recipe: an input by position, a constant (digits or words), a
 * scalar.  False when the text is none of them. */
static bool rp_np(const char *t, int ninputs, const double *in, const double *sc, double *v) {
    static const char *const ORD[] = {"first", "second", "third", "fourth"};
    static const char *const FORMS[] = {"the %s input", "the %s operand", "the element of the %s array", "the %s array's element"};
    char buf[96];
    if (ninputs == 1 && (!strcmp(t, "the input value") || !strcmp(t, "the value") || !strcmp(t, "the input element"))) {
        *v = in[0];
        return true;
    }
    for (int k = 0; k < ninputs; k++)
        for (int f = 0; f < 4; f++) {
            snprintf(buf, sizeof buf, FORMS[f], ORD[k]);
            if (ninputs > 1 && !strcmp(t, buf)) { *v = in[k]; return true; }
        }
    if (!strcmp(t, "alpha")) { *v = sc[0]; return true; }
    if (!strcmp(t, "beta")) { *v = sc[1]; return true; }
    double sign = 1;
    if (!strncmp(t, "minus ", 6)) { sign = -1; t += 6; }
    static const struct { const char *w; double v; } W[] = {{"zero", 0}, {"a quarter", 0.25}, {"one half", 0.5}, {"three quarters", 0.75},
                                                            {"one", 1}, {"two", 2}, {"three", 3}, {"four", 4}, {"ten", 10}};
    for (size_t k = 0; k < sizeof W / sizeof W[0]; k++)
        if (!strcmp(t, W[k].w)) { *v = sign * W[k].v; return true; }
    char *end;
    double d = strtod(t, &end);
    if (end != t && !*end) { *v = sign * d; return true; }
    return false;
}
/* Apply one step to *v; false when the step is not one of the recipe's. */
static bool rp_step(const char *s, int ni, const double *in, const double *sc, double *v) {
    double x, y;
    const char *p;
#define AFTER(pre) (!strncmp(s, pre, strlen(pre)) ? s + strlen(pre) : NULL)
    if (!strcmp(s, "square it") || !strcmp(s, "multiply it by itself")) { *v = *v * *v; return true; }
    if (!strcmp(s, "take the absolute value") || !strcmp(s, "take its magnitude")) { *v = fabs(*v); return true; }
    if (!strcmp(s, "raise e to that power") || !strcmp(s, "take the exponential")) { *v = exp(*v); return true; }
    if (!strcmp(s, "take the natural logarithm") || !strcmp(s, "apply the natural logarithm")) { *v = log(*v); return true; }
    if (!strcmp(s, "take the square root")) { *v = sqrt(*v); return true; }
    if (!strcmp(s, "take one over the square root") || !strcmp(s, "take the reciprocal square root")) { *v = 1 / sqrt(*v); return true; }
    if (!strcmp(s, "apply tanh") || !strcmp(s, "take the hyperbolic tangent")) { *v = tanh(*v); return true; }
    if (!strcmp(s, "apply the sigmoid") || !strcmp(s, "pass it through the logistic function")) { *v = 1 / (1 + exp(-*v)); return true; }
    if (!strcmp(s, "apply ReLU") || !strcmp(s, "replace it by zero if it is negative") || !strcmp(s, "clamp negatives to zero")) {
        *v = *v > 0 ? *v : 0;
        return true;
    }
    if ((p = AFTER("add the product of ")) || (p = AFTER("add "))) {   /* "add X times Y", "add the product of X and Y", "add X" */
        const char *sep = strstr(p, s[4] == 't' && !strncmp(s, "add the product of ", 19) ? " and " : " times ");
        if (sep) {
            char a[96];
            snprintf(a, sizeof a, "%.*s", (int)(sep - p), p);
            if (rp_np(a, ni, in, sc, &x) && rp_np(sep + (strncmp(sep, " and ", 5) ? 7 : 5), ni, in, sc, &y)) { *v += x * y; return true; }
        }
        if (rp_np(p, ni, in, sc, &x)) { *v += x; return true; }
        return false;
    }
    if ((p = AFTER("subtract it from "))) { if (!rp_np(p, ni, in, sc, &x)) return false; *v = x - *v; return true; }
    if ((p = AFTER("subtract "))) { if (!rp_np(p, ni, in, sc, &x)) return false; *v -= x; return true; }
    if ((p = AFTER("multiply by ")) || (p = AFTER("multiply it by "))) {
        const char *sep = strstr(p, " and add ");
        if (sep) {
            char a[96];
            snprintf(a, sizeof a, "%.*s", (int)(sep - p), p);
            if (!rp_np(a, ni, in, sc, &x) || !rp_np(sep + 9, ni, in, sc, &y)) return false;
            *v = *v * x + y;
            return true;
        }
        if (!rp_np(p, ni, in, sc, &x)) return false;
        *v *= x;
        return true;
    }
    if ((p = AFTER("divide by ")) || (p = AFTER("divide it by "))) { if (!rp_np(p, ni, in, sc, &x)) return false; *v /= x; return true; }
    if ((p = AFTER("divide "))) {   /* "divide X by it", "divide X by the result" */
        char a[96];
        size_t n = strlen(p);
        const char *tails[] = {" by it", " by the result"};
        for (int k = 0; k < 2; k++) {
            size_t tn = strlen(tails[k]);
            if (n > tn && !strcmp(p + n - tn, tails[k])) {
                snprintf(a, sizeof a, "%.*s", (int)(n - tn), p);
                if (!rp_np(a, ni, in, sc, &x)) return false;
                *v = x / *v;
                return true;
            }
        }
        return false;
    }
    if ((p = AFTER("take the smaller of it and ")) || (p = AFTER("cap it at "))) {
        if (!rp_np(p, ni, in, sc, &x)) return false;
        *v = *v < x ? *v : x;
        return true;
    }
    if ((p = AFTER("take the larger of it and ")) || (p = AFTER("clamp it from below at "))) {
        if (!rp_np(p, ni, in, sc, &x)) return false;
        *v = *v > x ? *v : x;
        return true;
    }
#undef AFTER
    return false;
}
/* The value a recipe computes, NAN with *ok false when a part does not parse. */
static double rp_eval(const char *text, int ni, const double *in, const double *sc, bool *ok) {
    char t[2048];
    snprintf(t, sizeof t, "%s", text);
    *ok = false;
    static const char *const POST[] = {" (for every index)", ", one index at a time", ", element by element"};
    for (int k = 0; k < 3; k++) {
        size_t n = strlen(t), pn = strlen(POST[k]);
        if (n > pn && !strcmp(t + n - pn, POST[k])) t[n - pn] = 0;
    }
    static const char *const END[] = {", and write the result to the output array", ", and store it in the output array",
                                      ", and put the result in the output array", ", and write that to the output"};
    bool ended = false;
    for (int k = 0; k < 4 && !ended; k++) {
        size_t n = strlen(t), en = strlen(END[k]);
        if (n > en && !strcmp(t + n - en, END[k])) { t[n - en] = 0; ended = true; }
    }
    if (!ended) return NAN;
    double v = 0;
    int i = 0;
    for (char *part = t, *next; part; part = next, i++) {
        next = strstr(part, ", ");
        if (next) { *next = 0; next += 2; }
        if (i == 0) {
            const char *np = !strncmp(part, "take ", 5) ? part + 5 : !strncmp(part, "start from ", 11) ? part + 11
                           : !strncmp(part, "begin with ", 11) ? part + 11 : NULL;
            if (!np || !rp_np(np, ni, in, sc, &v)) return NAN;
            continue;
        }
        if (!strncmp(part, "then ", 5)) part += 5;
        if (!rp_step(part, ni, in, sc, &v)) return NAN;
    }
    *ok = i >= 2;
    return v;
}
static bool same_value(double a, double b) {
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
    if (isinf(a) || isinf(b)) return a == b;
    return fabs(a - b) <= 1e-9 * (1 + fabs(a) + fabs(b));
}
/* A parameter name as a word: "b", "c", "d", "out", "a[" (the article "a" is fine). */
static bool names_a_param(const char *t) {
    for (const char *p = t; *p; p++) {
        bool l = p == t || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
        if (!l) continue;
        if ((*p == 'b' || *p == 'c' || *p == 'd') && !(isalnum((unsigned char)p[1]) || p[1] == '_')) return true;
        if (*p == 'a' && (p[1] == '[' || p[1] == ')' || p[1] == ',' || p[1] == 0)) return true;
        if (!strncmp(p, "out", 3) && !isalnum((unsigned char)p[3]) && p[3] != '_') return true;
        if (strstr(p, "[i]") == p + 1) return true;
    }
    return false;
}

/* The recipe computes what the tree does (random inputs and scalars, read back by the
 * parser above), names no array, states every input it uses by position; chains are a
 * good share of the generator's trees; the nested words by position name no array
 * either; and the expr family's prose uses both for a share of its tasks, without a
 * formula, an index or an array's name, while the other styles keep naming them. */
static void test_expr_recipe(void) {
    static const char *const ORD[] = {"first", "second", "third", "fourth"};
    int trees = 0, chains = 0, checked = 0, bad_parse = 0, bad_value = 0, named = 0, ord_missing = 0, nested = 0, nested_bad = 0;
    uint64_t s = 12345;
    for (int k = 0; k < 3000; k++) {
        int ni = 1 + k % 4, depth = 2 + (k / 4) % 4;
        expr_tree *e = synth_expr_random(0xabcdef1234ull * (uint64_t)(k + 1), ni, depth, NULL);
        if (!e) continue;
        trees++;
        pg_buf r = {0}, r2 = {0}, w = {0};
        bool chain = synth_expr_recipe(e, ni, (uint64_t)k * 0x9E3779B97F4A7C15ull, &r);
        CHECK(chain == synth_expr_recipe(e, ni, (uint64_t)k * 0x9E3779B97F4A7C15ull, &r2) && (!chain || !strcmp(r.data, r2.data)),
              "recipe deterministic");
        unsigned used = expr_inputs_used(e);
        if (chain) {
            chains++;
            for (int rep = 0; rep < 4; rep++) {
                double in[4], sc[2] = {urand_d(&s, -4, 4), urand_d(&s, -4, 4)};
                for (int i = 0; i < 4; i++) in[i] = urand_d(&s, -3, 3);
                bool ok;
                double got = rp_eval(r.data, ni, in, sc, &ok), want = expr_eval(e, in, sc);
                if (!ok) { if (bad_parse++ < 3) fprintf(stderr, "  recipe does not parse: %s\n", r.data); break; }
                checked++;
                if (!same_value(got, want) && bad_value++ < 3) {
                    pg_buf pre = {0};
                    expr_to_prefix(e, &pre);
                    fprintf(stderr, "  recipe %s: %.17g, tree %s: %.17g\n", r.data, got, pre.data, want);
                    pg_buf_free(&pre);
                }
            }
            if (names_a_param(r.data) && named++ < 3) fprintf(stderr, "  recipe names a parameter: %s\n", r.data);
            for (int i = 0; i < ni && ni > 1; i++)
                if ((used >> i & 1) && !strstr(r.data, ORD[i]) && ord_missing++ < 3) fprintf(stderr, "  input %d not stated: %s\n", i, r.data);
        }
        CHECK(synth_expr_words_by_position(e, ni, (uint64_t)k, &w) && w.len, "nested words by position for every compound tree");
        nested++;
        if (w.data && (names_a_param(w.data) || !strstr(w.data, "output array")) && nested_bad++ < 3) fprintf(stderr, "  nested: %s\n", w.data);
        for (int i = 0; i < ni && ni > 1 && w.data; i++)
            if ((used >> i & 1) && !strstr(w.data, ORD[i])) { if (nested_bad++ < 3) fprintf(stderr, "  nested, input %d missing: %s\n", i, w.data); }
        pg_buf_free(&r);
        pg_buf_free(&r2);
        pg_buf_free(&w);
        expr_free(e);
    }
    printf("  recipe: %d chains of %d trees, %d values checked; nested words for %d\n", chains, trees, checked, nested);
    CHECK(chains * 4 > trees, "chains (trees a recipe states): %d of %d", chains, trees);
    CHECK(bad_parse == 0 && bad_value == 0, "recipes that do not parse: %d, that compute another value: %d", bad_parse, bad_value);
    CHECK(named == 0 && ord_missing == 0, "recipes naming a parameter: %d, leaving out an input: %d", named, ord_missing);
    CHECK(nested_bad == 0, "nested words by position with a name or an input left out: %d", nested_bad);
    CHECK(!synth_expr_recipe(NULL, 1, 0, NULL) && !synth_expr_words_by_position(NULL, 1, 0, NULL), "NULL tree: false");

    /* in the family's task.json */
    int prose_by_pos = 0, tasks = 0, other_named = 0, terse_sem = 0;
    for (int k = 0; k < 400; k++) {
        int ni = 1 + k % 4;
        expr_tree *e = synth_expr_random(0x5151ull * (uint64_t)(k + 7), ni, 2 + k % 4, NULL);
        if (!e) continue;
        char name[32];
        snprintf(name, sizeof name, "rc%d", k);
        pg_buf js = {0};
        synth_expr_kernel(e, name, ni, NULL, 256, 1, NULL, NULL, &js, NULL);
        json_t *t = json_loads(js.data ? js.data : "", 0, NULL), *d = json_object_get(t, "descriptions");
        const char *pr = json_string_value(json_object_get(d, "prose"));
        tasks++;
        if (pr && !strstr(pr, "out[i]") && !strstr(pr, "写入 out")) {   /* every named explanation writes out[i] (zh: 写入 out) */
            prose_by_pos++;
            CHECK(!strstr(pr, " = ") && !strstr(pr, "[i]") && !names_a_param(pr), "%s: prose by position with a formula or a name: %s", name, pr);
        }
        const char *det = json_string_value(json_object_get(d, "detailed"));
        other_named += det && strstr(det, "out") != NULL;
        const char *te = json_string_value(json_object_get(d, "terse"));
        bool te_sem = te && (strstr(te, "out[i]") || strstr(te, "out = ") || strstr(te, "写入 out"));
        CHECK(te_sem, "%s: the terse description states no formula nor what out gets: %s", name, te ? te : "(none)");
        terse_sem += te_sem;
        json_decref(t);
        pg_buf_free(&js);
        expr_free(e);
    }
    printf("  expr prose by position: %d of %d tasks; terse with the semantics: %d\n", prose_by_pos, tasks, terse_sem);
    CHECK(prose_by_pos * 10 > tasks * 3 && prose_by_pos * 10 < tasks * 8, "prose by position in %d of %d tasks", prose_by_pos, tasks);
    CHECK(other_named == tasks, "detailed names out in %d of %d", other_named, tasks);

    /* one chain, word by word: c * tanh(a*a + b) is one; (a - b) / (|c| + 2) is none */
    char err[128];
    expr_tree *e = expr_parse("(mul c (tanh (add (mul a a) b)))", err, sizeof err);
    CHECK(e != NULL, "parse: %s", err);
    pg_buf r = {0};
    CHECK(e && synth_expr_recipe(e, 3, 7, &r), "c * tanh(a*a + b) is a chain");
    if (r.data) {
        double in[3] = {1.5, -0.75, 2}, sc[2] = {0, 0};
        bool ok;
        double v = rp_eval(r.data, 3, in, sc, &ok);
        CHECK(ok && same_value(v, 2 * tanh(1.5)), "%s: %g", r.data, v);
        CHECK(strstr(r.data, "second") && strstr(r.data, "third") && strstr(r.data, "first"), "all three inputs by position: %s", r.data);
    }
    pg_buf_free(&r);
    expr_free(e);
    e = expr_parse("(div (sub a b) (add (abs c) 2))", err, sizeof err);
    CHECK(e && !synth_expr_recipe(e, 3, 7, &r) && r.len == 0, "two compound operands: no recipe");
    CHECK(e && synth_expr_words_by_position(e, 3, 7, &r) && strstr(r.data, "the absolute value of"), "nested words: %s", r.data ? r.data : "");
    pg_buf_free(&r);
    expr_free(e);
}

int main(void) {
    test_frames_reachable();
    test_sparse();
    test_hints_true();
    test_semantics_share();
    test_render_all();
    test_families();
    test_expr();
    test_expr_notation();
    test_expr_recipe();
    return TEST_DONE();
}
