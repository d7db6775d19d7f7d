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
 * text or (about half of the styles) the notation people write, never both.
 * Last line: "N passed, N failed". */
#include "ptxgen/synth_expr.h"
#include "synth/family_internal.h"   /* the per-family generators */
#include "synth/describe.h"

#include "common/test.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

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

int main(void) {
    test_frames_reachable();
    test_sparse();
    test_hints_true();
    test_semantics_share();
    test_render_all();
    test_families();
    test_expr();
    test_expr_notation();
    return TEST_DONE();
}
