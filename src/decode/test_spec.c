/* test_spec.c — speculative decoding and jump-forward against plain decoding: byte-identical
 * modules, token counts and end state, for greedy and seeded sampling (top-k 5 at T 0.3, gen's
 * defaults, and T 1 without top-k), with and without the performance bias, with an n-gram
 * table of corpus kernels and without, on corpus and bench/suite prompts (task descriptions and
 * signatures), and on the raw model.  The model is tests/gen/tiny (random weights, the project
 * tokenizer): its choices are arbitrary, so any step the speculative path took differently (a
 * wrong row, a missed or extra random draw, a cache not rewound) changes the module.  Also
 * checked: drafts were made and accepted and tokens jumped (else the comparison proves
 * nothing), and no run needs more model steps than plain decoding (fewer over all of them).
 * Run from the repository root. */
#include "common/test.h"
#include "ptxgen/decode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static model_model *m;
static tok_tokenizer *t;
static dec_vocab *v;
static long drafted, accepted, jumped, fallbacks, cases, tokens, forwards, plain_forwards;
static long free_drafted, free_accepted, free_forwards, free_plain_forwards;
static long fix_drafted[2], fix_forwards[2];   /* draft_max 12 with a verify step's fixed cost 2 and 8 rows */

static bool same_result(const gen_result *a, const gen_result *b) {
    return a->ptx && b->ptx && !strcmp(a->ptx, b->ptx) && a->gen_tokens == b->gen_tokens && a->forced_tokens == b->forced_tokens &&
           a->finished == b->finished && a->prompt_tokens == b->prompt_tokens && a->mask_calls == b->mask_calls && a->jumped == b->jumped;
}

/* plain vs draft_max 4 and 12, and 12 at a verify step's fixed cost of 2 and of 8 rows, on one prompt */
static void compare(const char *desc, const gen_opts *o, const char *label) {
    gen_result plain, spec;
    pg_diag_sink d = test_sink();
    gen_opts po = *o;
    po.draft_max = 0;
    CHECK(gen_sample(m, t, v, desc, &po, &plain, &d) == PG_OK, "%s: plain: %s", label, test_diag_log());
    /* draft_max 4 and 12 at the engine's fixed cost of a verify step, 12 at 2 and at 8 rows (AVX2's, AVX-512's) */
    static const int dm[] = {4, 12, 12, 12};
    static const double fix[] = {0, 0, 2, 8};
    for (size_t k = 0; k < sizeof dm / sizeof *dm; k++) {
        gen_opts so = *o;
        so.draft_max = dm[k];
        so.draft_fixed = fix[k];
        d = test_sink();
        CHECK(gen_sample(m, t, v, desc, &so, &spec, &d) == PG_OK, "%s: speculative: %s", label, test_diag_log());
        CHECK(same_result(&plain, &spec), "%s draft_max %d: differs from plain (%d vs %d tokens, finished %d vs %d)\n--- plain\n%.600s\n--- speculative\n%.600s",
              label, dm[k], plain.gen_tokens, spec.gen_tokens, plain.finished, spec.finished, plain.ptx ? plain.ptx : "(none)",
              spec.ptx ? spec.ptx : "(none)");
        CHECK(spec.accepted <= spec.drafted && spec.forwards <= plain.forwards, "%s: counts (%d accepted of %d drafted, %d vs %d steps)", label,
              spec.accepted, spec.drafted, spec.forwards, plain.forwards);
        if (fix[k] > 0) {
            fix_drafted[k - 2] += spec.drafted;
            fix_forwards[k - 2] += spec.forwards;
        }
        drafted += spec.drafted;
        accepted += spec.accepted;
        fallbacks += spec.draft_fallbacks;
        forwards += spec.forwards;
        tokens += spec.gen_tokens;
        gen_result_free(&spec);
    }
    jumped += plain.jumped;
    plain_forwards += 4 * plain.forwards;   /* against each speculative run */
    cases++;
    gen_result_free(&plain);
}

/* The text with every register number %<class><n> made n + by: a reference that numbers its
 * registers otherwise than the model (as nvcc's does), so drafts come from renames (gen_regmap). */
static void shift_regs(const char *in, int by, pg_buf *out) {
    out->len = 0;
    for (const char *p = in; *p;) {
        const char *q = p;
        if (*q == '%') {
            q++;
            while (*q >= 'a' && *q <= 'z') q++;
            if (q > p + 1 && *q >= '0' && *q <= '9') {
                long num = strtol(q, (char **)&q, 10);
                pg_buf_putn(out, p, (size_t)(q - p) - (size_t)snprintf(NULL, 0, "%ld", num));
                pg_buf_printf(out, "%ld", num + by);
                p = q;
                continue;
            }
        }
        pg_buf_putc(out, *p++);
    }
}

/* Reference drafts (gen_opts.draft_ref): plain vs draft_max 8 drafting from the plain output itself
 * (the reference the output follows: many reference drafts kept), from it with its registers
 * renumbered (renamed drafts) and from another kernel (most refused).  Byte-identical each way. */
static long ref_drafted, ref_accepted, renamed;
static void compare_ref(const char *desc, const gen_opts *o, const char *other, const char *label) {
    gen_result plain, spec;
    pg_diag_sink d = test_sink();
    gen_opts po = *o;
    po.draft_max = 0;
    po.draft_ref = "ignored without drafts";
    CHECK(gen_sample(m, t, v, desc, &po, &plain, &d) == PG_OK, "%s: plain: %s", label, test_diag_log());
    pg_buf shifted = {0};
    shift_regs(plain.ptx ? plain.ptx : "", 3, &shifted);
    const char *refs[] = {plain.ptx ? plain.ptx : "", shifted.data ? shifted.data : "", other};
    for (int k = 0; k < 3; k++) {
        gen_opts so = *o;
        so.draft_max = 8;
        so.draft_ref = refs[k];
        d = test_sink();
        CHECK(gen_sample(m, t, v, desc, &so, &spec, &d) == PG_OK, "%s: speculative: %s", label, test_diag_log());
        CHECK(same_result(&plain, &spec), "%s reference %d: differs from plain (%d vs %d tokens)\n--- plain\n%.600s\n--- speculative\n%.600s",
              label, k, plain.gen_tokens, spec.gen_tokens, plain.ptx ? plain.ptx : "(none)", spec.ptx ? spec.ptx : "(none)");
        CHECK(spec.accepted_by[GEN_DRAFT_REF] <= spec.drafted_by[GEN_DRAFT_REF], "%s: reference counts", label);
        ref_drafted += spec.drafted_by[GEN_DRAFT_REF];
        fallbacks += spec.draft_fallbacks;
        ref_accepted += spec.accepted_by[GEN_DRAFT_REF];
        renamed += spec.draft_renamed;
        CHECK(spec.draft_renamed <= spec.drafted_by[GEN_DRAFT_REGISTER], "%s: renamed drafts are register drafts", label);
        gen_result_free(&spec);
    }
    pg_buf_free(&shifted);
    gen_result_free(&plain);
}

static long free_looped;   /* free-turn runs ended at a loop (gen_opts.loop_stop) */

/* gen_free_sample (the plan and twin turns): plain vs draft_max 4 and 12, and 12 at a verify step's fixed cost of
 * 2 and of 8 rows, on one prompt */
static void compare_free(const char *prompt, const gen_opts *o, const char *label) {
    gen_result plain, spec;
    pg_diag_sink d = test_sink();
    gen_opts po = *o;
    po.draft_max = 0;
    CHECK(gen_free_sample(m, t, prompt, &po, &plain, &d) == PG_OK, "%s: plain: %s", label, test_diag_log());
    /* o->ngram set: a table of the plain text itself (twice: the drafter wants a count of 2), so
     * drafts come true even with random weights */
    pg_buf tb = {0};
    gen_ngram *own = NULL;
    if (o->ngram && plain.ptx) {
        const char *texts[2] = {plain.ptx, plain.ptx};
        CHECK(gen_ngram_build(t, texts, 2, 4, 1, &tb, &d) == PG_OK && gen_ngram_parse(tb.data, tb.len, "own", t, &own, &d) == PG_OK,
              "%s: table of the plain text: %s", label, test_diag_log());
    }
    /* draft_max 4 and 12 at the engine's fixed cost of a verify step, 12 at 2 and at 8 rows (AVX2's, AVX-512's) */
    static const int dm[] = {4, 12, 12, 12};
    static const double fix[] = {0, 0, 2, 8};
    for (size_t k = 0; k < sizeof dm / sizeof *dm; k++) {
        gen_opts so = *o;
        so.draft_max = dm[k];
        so.draft_fixed = fix[k];
        if (own) so.ngram = own;
        d = test_sink();
        CHECK(gen_free_sample(m, t, prompt, &so, &spec, &d) == PG_OK, "%s: speculative: %s", label, test_diag_log());
        CHECK(plain.ptx && spec.ptx && !strcmp(plain.ptx, spec.ptx) && plain.gen_tokens == spec.gen_tokens &&
                  plain.finished == spec.finished && plain.prompt_tokens == spec.prompt_tokens,
              "%s draft_max %d: differs from plain (%d vs %d tokens)\n--- plain\n%.400s\n--- speculative\n%.400s", label, dm[k],
              plain.gen_tokens, spec.gen_tokens, plain.ptx ? plain.ptx : "(none)", spec.ptx ? spec.ptx : "(none)");
        CHECK(spec.accepted <= spec.drafted && spec.forwards <= plain.forwards, "%s: counts (%d accepted of %d drafted, %d vs %d steps)", label,
              spec.accepted, spec.drafted, spec.forwards, plain.forwards);
        free_drafted += spec.drafted;
        free_accepted += spec.accepted;
        if (getenv("TEST_SPEC_VERBOSE")) printf("%s draft %d: %d drafted, %d accepted, %d steps (plain %d)\n", label, dm[k], spec.drafted, spec.accepted, spec.forwards, plain.forwards);
        free_forwards += spec.forwards;
        gen_result_free(&spec);
    }
    free_plain_forwards += 4 * plain.forwards;   /* against each speculative run */
    /* the loop stop (the plan turn's gen_opts.loop_stop): the text up to the first newline where
     * gen_text_loops fires, looped and unfinished; else the same text; plain and speculative alike */
    size_t cut = 0;
    for (size_t at = 0; plain.ptx && plain.ptx[at] && !cut; at++)
        if (plain.ptx[at] == '\n' && gen_text_loops(plain.ptx, at + 1, NULL, 0)) cut = at + 1;
    for (int dmax = 0; dmax <= 4; dmax += 4) {
        gen_opts lo = *o;
        lo.draft_max = dmax;
        lo.loop_stop = true;
        d = test_sink();
        CHECK(gen_free_sample(m, t, prompt, &lo, &spec, &d) == PG_OK, "%s: loop stop: %s", label, test_diag_log());
        bool same = plain.ptx && spec.ptx && (cut ? strlen(spec.ptx) == cut && !strncmp(spec.ptx, plain.ptx, cut) && spec.looped &&
                                                        !spec.finished && spec.gen_tokens < plain.gen_tokens
                                                  : !strcmp(spec.ptx, plain.ptx) && !spec.looped && spec.finished == plain.finished);
        CHECK(same, "%s draft_max %d loop stop: %s at byte %zu\n--- stopped\n%.400s", label, dmax, cut ? "should stop" : "no loop",
              cut, spec.ptx ? spec.ptx : "(none)");
        free_looped += spec.looped;
        gen_result_free(&spec);
    }
    gen_result_free(&plain);
    gen_ngram_free(own);
    pg_buf_free(&tb);
}

/* A task's description (style s) and signature from a task.json. */
static bool task_prompt(const char *path, int style, char **desc, pg_buf *sig, int block[3]) {
    task_spec *ts = NULL;
    pg_diag_sink q = {0};
    if (task_load(path, &ts, &q) != PG_OK) return false;
    const char *dd = ts->desc[style] ? ts->desc[style] : ts->desc[0];
    *desc = strdup(dd ? dd : ts->name);
    sig->len = 0;
    gen_signature_from_task(ts, sig);
    block[0] = block[1] = block[2] = 0;
    task_free(ts);
    return true;
}

int main(void) {
    pg_diag_sink d = test_sink();
    model_load_opts lo = {NULL, 2, NULL, false, false, NULL, false};
    CHECK(tok_load("tests/gen/tiny/tokenizer.json", &t, &d) == PG_OK, "tokenizer: %s", test_diag_log());
    CHECK(model_load("tests/gen/tiny", &lo, &m, &d) == PG_OK, "tiny model: %s", test_diag_log());
    CHECK(t && dec_vocab_new(t, &v, &d) == PG_OK, "vocabulary trie");
    dec_bias *bias = NULL;
    CHECK(v && dec_bias_default(v, &bias, &d) == PG_OK, "default bias: %s", test_diag_log());
    if (!t || !m || !v || !bias) return TEST_DONE();

    /* an n-gram table of a few corpus kernels (canonical text, as pairs hold it) */
    const char *kern[] = {"corpus/axpby_relu/kernel.ptx", "corpus/argmax_f32/kernel.ptx", "corpus/batched_dot/kernel.ptx"};
    char *texts[3];
    int nt = 0;
    for (int i = 0; i < 3; i++) {
        char *s = NULL;
        size_t n = 0;
        if (pg_read_file(kern[i], 1 << 20, &s, &n, &d) == PG_OK) texts[nt++] = s;
    }
    pg_buf tb = {0};
    gen_ngram *table = NULL;
    CHECK(nt == 3 && gen_ngram_build(t, (const char *const *)texts, nt, 4, 1, &tb, &d) == PG_OK &&
              gen_ngram_parse(tb.data, tb.len, "corpus table", t, &table, &d) == PG_OK,
          "n-gram table of corpus kernels: %s", test_diag_log());

    gen_opts o;
    gen_opts_default(&o);
    o.format = gen_prompt_fmt_of(t);
    o.max_tokens = 200;
    const char *tasks[] = {"corpus/axpby_relu/task.json", "corpus/argmax_f32/task.json", "bench/suite/adam_step/task.json",
                           "bench/suite/complex_mul/task.json", "bench/suite/cross_entropy_row/task.json"};
    struct { float temp; int top_k; uint64_t seed; const char *name; } samplers[] = {
        {0, 0, 1, "greedy"}, {0.3f, 5, 11, "T0.3 top-k 5"}, {1.0f, 0, 3, "T1"}};
    pg_buf sig = {0};
    for (size_t i = 0; i < sizeof tasks / sizeof *tasks; i++) {
        char *desc = NULL;
        int block[3];
        if (!task_prompt(tasks[i], (int)i % TASK_NSTYLES, &desc, &sig, block)) { CHECK(0, "task %s", tasks[i]); continue; }
        for (size_t s = 0; s < sizeof samplers / sizeof *samplers; s++) {
            char label[160];
            o.sampler.temperature = samplers[s].temp;
            o.sampler.top_k = samplers[s].top_k;
            o.sampler.seed = samplers[s].seed + i;
            o.signature = i % 2 ? NULL : sig.data;   /* forced signature, or the model writes it */
            o.bias = s == 1 ? bias : NULL;
            o.ngram = s == 2 ? NULL : table;
            snprintf(label, sizeof label, "%s %s%s%s", tasks[i], samplers[s].name, o.bias ? " +bias" : "", o.ngram ? " +table" : "");
            compare(desc, &o, label);
            if (i < 3) compare_ref(desc, &o, nt == 3 ? texts[(i + 1) % 3] : "", label);
        }
        free(desc);
    }
    /* the raw model: drafts from the history and the table only */
    o.constrained = false;
    o.signature = NULL;
    o.bias = NULL;
    o.max_tokens = 80;
    o.sampler = (model_sampler_opts){0.3f, 5, 1, 9};
    compare("vector add: c[i] = a[i] + b[i]", &o, "raw model T0.3");
    o.sampler.temperature = 0;
    compare("vector add: c[i] = a[i] + b[i]", &o, "raw model greedy");
    /* the free turn (the plan, the twin: gen_free_sample, no constraint), plain against speculative */
    o.max_tokens = 160;   /* long enough for the random model's greedy text to repeat itself (history drafts kept) */
    const char *free_prompts[] = {"vector add: c[i] = a[i] + b[i]", "y[i] = relu(x[i]) for i < n; y[i] = relu(x[i]) again"};
    for (size_t i = 0; i < sizeof free_prompts / sizeof *free_prompts; i++)
        for (size_t s = 0; s < sizeof samplers / sizeof *samplers; s++) {
            char label[160];
            o.sampler = (model_sampler_opts){samplers[s].temp, samplers[s].top_k, 1.0f, samplers[s].seed + 40 + i};
            o.ngram = s == 1 ? NULL : table;
            snprintf(label, sizeof label, "free turn %zu %s%s", i, samplers[s].name, o.ngram ? " +table" : "");
            compare_free(free_prompts[i], &o, label);
        }
    /* near the token budget: the forced end (fed text) in the middle of a verify step */
    o.constrained = true;
    o.max_tokens = 140;
    o.ngram = table;
    o.sampler = (model_sampler_opts){1.0f, 0, 1, 77};
    compare("relu", &o, "token budget T1");
    printf("%ld cases: %ld drafted, %ld accepted; %ld tokens in %ld speculative steps (plain: %ld); %ld jumped\n", cases, drafted,
           accepted, tokens, forwards, plain_forwards, jumped);
    CHECK(drafted > 100 && accepted > 20 && jumped > 20, "the speculative path was exercised (drafts made and kept, tokens jumped)");
    CHECK(forwards < plain_forwards, "fewer model steps than plain decoding over all runs");
    /* a dearer step (gen_opts.draft_fixed 8) pays for longer drafts than a cheap one (2) */
    printf("draft_max 12, fixed cost 2 rows: %.2f drafts a step; 8 rows: %.2f\n", (double)fix_drafted[0] / (double)(fix_forwards[0] ? fix_forwards[0] : 1),
           (double)fix_drafted[1] / (double)(fix_forwards[1] ? fix_forwards[1] : 1));
    CHECK(fix_forwards[0] > 0 && fix_forwards[1] > 0 && fix_drafted[0] * fix_forwards[1] < fix_drafted[1] * fix_forwards[0],
          "fewer drafts a step at a verify step's fixed cost of 2 rows than at 8");
    printf("reference drafts: %ld drafted, %ld accepted\n", ref_drafted, ref_accepted);
    CHECK(ref_drafted > 50 && ref_accepted > 20, "the reference drafts were exercised (made and kept)");
    /* (the tiny model's random text holds no register numbers, so none are renamed here: test_draft
     * checks the renames, and the shifted reference checks only that its drafts move no output) */
    printf("renamed register drafts: %ld\n", renamed);
    /* a guess the constraint refuses gives way to the next source's (make_drafts): identical output still */
    printf("drafts after a refused guess: %ld\n", fallbacks);
    CHECK(fallbacks > 0, "drafts fell back past a refused guess (%ld)", fallbacks);
    printf("free turn: %ld drafted, %ld accepted; %ld speculative steps (plain: %ld)\n", free_drafted, free_accepted, free_forwards,
           free_plain_forwards);
    CHECK(free_drafted > 20 && free_accepted > 5 && free_forwards < free_plain_forwards, "the free turn's speculative path was exercised");
    printf("free turn: %ld runs ended at a loop (loop_stop)\n", free_looped);
    for (int i = 0; i < nt; i++) free(texts[i]);
    gen_ngram_free(table);
    pg_buf_free(&tb);
    pg_buf_free(&sig);
    dec_bias_free(bias);
    dec_vocab_free(v);
    tok_free(t);
    model_free(m);
    return TEST_DONE();
}
