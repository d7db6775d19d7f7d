/* bench_decode.c — latency of the PTX constraint per token.
 *
 *   build/bench_decode [--tokenizer models/default/tokenizer.json | MODEL.gguf] [--gens N] [--seed S]
 *                      [--corpus DIR] [--allowed-max K] [--out FILE.json] [--dump FILE] [--check] [--comments N]
 *
 * The tokenizer is a tokenizer.json or a GGUF model file (tok_load reads its
 * tokenizer.ggml.* metadata).  Two kinds of states:
 *  - random walks (default): N random constrained generations (uniform over
 *    the allowed tokens, which visits far more unusual states than a trained
 *    model would);
 *  - --corpus DIR: realistic states: each DIR/NAME/kernel.ptx as `ptxgen fmt`
 *    prints it, tokenized by the tokenizer and fed token by token after the
 *    forced header (up to the first token outside the generated subset).
 * At every step it times the full mask (dec_mask), dec_allowed with room for
 * K ids (default 256; the engine's small-mask path), the fast path of
 * sample-then-verify (dec_accepts of one allowed token), dec_accepts of a
 * random vocabulary token (mostly rejections), and dec_advance.  Times are the
 * thread's CPU time (CLOCK_THREAD_CPUTIME_ID), so a busy machine that
 * preempts the thread does not inflate them; "wall" repeats dec_mask in wall
 * time.  Also reported: tok_load and dec_vocab_new time (wall and process
 * CPU) and heap bytes, and in
 * corpus mode tokens per line.  Prints and writes p50/p90/p99/max in
 * microseconds.  Targets: mask p50 <= 10 us, p99 <= 100 us (4k vocabulary).
 * --dump writes one line per mask (allowed count and a 64-bit hash of the
 * bits), so two builds of the constraint can be compared for identical masks;
 * --check compares every mask with dec_mask_reference (the plain trie walk);
 * --slow US prints the text before every mask that took longer than US.
 * --comments N: plan comments of up to N bytes allowed (dec_opts.comment_max; default
 * PTX_LITERATE_LINE_MAX with --corpus, whose kernels are literate, else 0).
 * --regs-named: the named register style (dec_opts.regs_named): corpus kernels go through
 * ptx_regs_name with DIR/NAME/plan.cu (`ptxgen fmt --regs named --plan`), and the random walks may
 * declare named registers.  "dec_mask_in_regname" repeats dec_mask's times for the states inside a
 * `.reg` declaration's name (after its '%', before ';' or '<').
 * --plan-comments: in corpus mode, the comments may only quote DIR/NAME/plan.cu's lines (dec_opts.plan);
 * "dec_mask_in_comment" repeats dec_mask's times for the states inside a comment (after its `//`). */
#include "decode/dec_internal.h"
#include "ptxgen/ptx.h"

#include <dirent.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}
static double cpu_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}
static double proc_cpu_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
static size_t heap_bytes(void) { return mallinfo2().uordblks + mallinfo2().hblkhd; }

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

typedef PG_VEC(double) dvec;
static int cmpd(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static double pct(dvec *v, double p) {
    if (!v->n) return 0;
    return v->v[(int)(p * (v->n - 1) + 0.5)];
}
static int cmps(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }
static void stats_json(pg_buf *o, const char *name, dvec *v, bool last) {
    qsort(v->v, (size_t)v->n, sizeof(double), cmpd);
    double sum = 0;
    for (int i = 0; i < v->n; i++) sum += v->v[i];
    pg_buf_printf(o, "    \"%s\": {\"n\": %d, \"mean_us\": %.2f, \"p50_us\": %.2f, \"p90_us\": %.2f, \"p99_us\": %.2f, \"max_us\": %.2f}%s\n",
                  name, v->n, v->n ? sum / v->n : 0, pct(v, 0.5), pct(v, 0.9), pct(v, 0.99), v->n ? v->v[v->n - 1] : 0,
                  last ? "" : ",");
}

typedef struct {
    dvec mask, mask_wall, allowed, acc_ok, acc_rand, adv, newt;
    dvec mask_regname;   /* dec_mask in a `.reg` declaration's name (after its '%', before ';' or '<') */
    dvec mask_comment;   /* dec_mask inside a plan comment (after its `//`) */
    long tokens, dead, finished, allowed_small, mismatches;
    double allowed_sum;
} bench;

/* One step at state s: time the mask, dec_allowed and the accepts; returns the
 * token to advance with (`want` if >= 0 and allowed, else a random allowed
 * one), or -1 at a dead state / when `want` is not allowed. */
static double slow_us;   /* --slow: print the states whose mask takes longer */
static int comments = -1;   /* --comments: dec_opts.comment_max (-1: the mode's default) */
static bool regs_named;     /* --regs-named */
static bool plan_comments;  /* --plan-comments */

/* Is the text's last line a comment being typed (`\t// ...`)? */
static bool in_comment(const dec_state *s) {
    size_t len;
    const char *txt = dec_text(s, &len), *p = txt + len;
    while (p > txt && p[-1] != '\n') p--;
    while (*p == '\t') p++;
    return !strncmp(p, "//", 2) && p + 2 <= txt + len;
}

/* Is the text's last line a register declaration's name being typed (`\t.reg .T %na`)? */
static bool in_regname(const dec_state *s) {
    size_t len;
    const char *txt = dec_text(s, &len), *p = txt + len;
    while (p > txt && p[-1] != '\n') p--;
    while (*p == '\t') p++;
    if (strncmp(p, ".reg .", 6)) return false;
    const char *pc = memchr(p, '%', (size_t)(txt + len - p));
    return pc && !memchr(pc, ';', (size_t)(txt + len - pc)) && !memchr(pc, '<', (size_t)(txt + len - pc));
}

static int step(bench *B, dec_state *s, int want, uint32_t *bits, uint32_t *ref, int32_t *ids, int kmax, int nv, bool check,
                FILE *dump, int g) {
    double w0 = now_us(), t0 = cpu_us();
    int n = dec_mask(s, bits);
    double tm = cpu_us() - t0, tw = now_us() - w0;
    pg_vec_push(B->mask, tm);
    if (in_regname(s)) pg_vec_push(B->mask_regname, tm);
    if (in_comment(s)) pg_vec_push(B->mask_comment, tm);
    if (slow_us > 0 && tm > slow_us) {
        size_t len;
        const char *txt = dec_text(s, &len);
        fprintf(stderr, "slow %.0f us, %d allowed, after: [%s]\n", tm, n, txt + (len > 60 ? len - 60 : 0));
    }
    pg_vec_push(B->mask_wall, tw);
    t0 = cpu_us();
    int k = dec_allowed(s, ids, kmax);
    pg_vec_push(B->allowed, cpu_us() - t0);
    B->allowed_small += k >= 0;
    if (check && (dec_mask_reference(s, ref) != n || memcmp(ref, bits, sizeof(uint32_t) * (size_t)((nv + 31) / 32)) ||
                  (k >= 0) != (n <= kmax))) {
        size_t len;
        const char *txt = dec_text(s, &len);
        if (B->mismatches++ < 5) fprintf(stderr, "bench_decode: mask differs from the reference after: ...%s\n", txt + (len > 80 ? len - 80 : 0));
    }
    if (dump) {
        uint64_t h = PG_HASH64_INIT_SHORT;   /* FNV-1a over the mask words, a step per 32-bit word (not pg_hash64's bytes) */
        for (int i = 0; i < (nv + 31) / 32; i++) h = (h ^ bits[i]) * 1099511628211ull;
        fprintf(dump, "%d %d %016llx\n", g, n, (unsigned long long)h);
    }
    if (!n) { B->dead++; return -1; }
    B->allowed_sum += n;
    int t = want;
    if (t < 0) {
        int pick = (int)(rnd() % (uint64_t)n);
        for (int i = 0; i < (nv + 31) / 32 && t < 0; i++) {
            int c = __builtin_popcount(bits[i]);
            if (pick >= c) { pick -= c; continue; }
            for (uint32_t w = bits[i]; w; w &= w - 1)
                if (pick-- == 0) { t = 32 * i + __builtin_ctz(w); break; }
        }
    } else if (!(bits[t >> 5] >> (t & 31) & 1)) {
        return -1;
    }
    int r = (int)(rnd() % (uint64_t)nv);
    t0 = cpu_us();
    bool a1 = dec_accepts(s, t);
    double ta = cpu_us() - t0;
    t0 = cpu_us();
    bool a2 = dec_accepts(s, r);
    double tr = cpu_us() - t0;
    (void)a2;
    if (!a1) { B->dead++; return -1; }
    pg_vec_push(B->acc_ok, ta);
    pg_vec_push(B->acc_rand, tr);
    return t;
}

static void advance(bench *B, dec_state *s, int t, pg_diag_sink *diag) {
    double t0 = cpu_us();
    dec_advance(s, t, diag);
    pg_vec_push(B->adv, cpu_us() - t0);
    B->tokens++;
}

int main(int argc, char **argv) {
    const char *tokpath = "models/default/tokenizer.json", *out = NULL, *dumpath = NULL, *corpus = NULL;
    int gens = 30, kmax = 256;
    bool check = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--tokenizer") && i + 1 < argc) tokpath = argv[++i];
        else if (!strcmp(argv[i], "--gens") && i + 1 < argc) gens = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) rng ^= strtoull(argv[++i], NULL, 10) * 0x9E3779B97F4A7C15ull;
        else if (!strcmp(argv[i], "--corpus") && i + 1 < argc) corpus = argv[++i];
        else if (!strcmp(argv[i], "--allowed-max") && i + 1 < argc) kmax = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
        else if (!strcmp(argv[i], "--dump") && i + 1 < argc) dumpath = argv[++i];
        else if (!strcmp(argv[i], "--check")) check = true;
        else if (!strcmp(argv[i], "--slow") && i + 1 < argc) slow_us = atof(argv[++i]);
        else if (!strcmp(argv[i], "--comments") && i + 1 < argc) comments = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--regs-named")) regs_named = true;
        else if (!strcmp(argv[i], "--plan-comments")) plan_comments = true;
        else {
            fprintf(stderr, "usage: %s [--tokenizer F.json|F.gguf] [--gens N] [--seed S] [--corpus DIR] [--allowed-max K] [--comments N] [--regs-named] [--plan-comments] [--out F.json] "
                            "[--dump F] [--check] [--slow US]\n", argv[0]);
            return 2;
        }
    }
    if (kmax < 1) kmax = 1;
    pg_diag_sink diag = {0};
    FILE *dump = dumpath ? fopen(dumpath, "w") : NULL;
    if (dumpath && !dump) { fprintf(stderr, "bench_decode: cannot write %s\n", dumpath); return 2; }
    tok_tokenizer *tok = NULL;
    size_t h0 = heap_bytes();
    double t0 = now_us(), c0 = proc_cpu_ms();
    if (tok_load(tokpath, &tok, &diag) != PG_OK) {
        fprintf(stderr, "bench_decode: cannot load %s\n", tokpath);
        return 2;
    }
    double tok_ms = (now_us() - t0) / 1e3, tok_cpu = proc_cpu_ms() - c0;
    size_t tok_bytes = heap_bytes() - h0;
    dec_vocab *v = NULL;
    h0 = heap_bytes();
    t0 = now_us();
    c0 = proc_cpu_ms();
    if (dec_vocab_new(tok, &v, &diag) != PG_OK) { fprintf(stderr, "bench_decode: vocabulary failed\n"); return 1; }
    double vocab_ms = (now_us() - t0) / 1e3, vocab_cpu = proc_cpu_ms() - c0;
    size_t vocab_bytes = heap_bytes() - h0;
    int nv = dec_vocab_size(v);
    uint32_t *bits = calloc((size_t)(nv + 31) / 32, 4);
    uint32_t *ref = calloc((size_t)(nv + 31) / 32, 4);
    int32_t *ids = malloc(sizeof(int32_t) * (size_t)kmax);
    bench B;
    memset(&B, 0, sizeof B);
    long kernels = 0, kernels_full = 0, ptx_lines = 0, ptx_bytes = 0, ptx_tokens = 0;
    if (corpus) {
        /* realistic states: corpus kernels in canonical form, token by token */
        DIR *dd = opendir(corpus);
        if (!dd) { fprintf(stderr, "bench_decode: cannot open %s\n", corpus); return 2; }
        PG_VEC(char *) names = {0};
        struct dirent *e;
        while ((e = readdir(dd)))
            if (e->d_name[0] != '.') pg_vec_push(names, strdup(e->d_name));
        closedir(dd);
        qsort(names.v, (size_t)names.n, sizeof *names.v, cmps);
        for (int g = 0; g < names.n; g++) {
            char path[1024];
            snprintf(path, sizeof path, "%s/%s/kernel.ptx", corpus, names.v[g]);
            ptx_module *m = NULL;
            if (ptx_parse_file(path, &m, &diag) != PG_OK) { ptx_module_free(m); continue; }
            char *plan = NULL;
            size_t plen = 0;
            snprintf(path, sizeof path, "%s/%s/plan.cu", corpus, names.v[g]);
            if ((regs_named || plan_comments) && pg_read_file(path, 1 << 20, &plan, &plen, NULL) != PG_OK) plan = NULL;
            if (regs_named && ptx_regs_name(m, plan, plen, &diag) != PG_OK) { free(plan); ptx_module_free(m); continue; }
            pg_buf text = {0};
            ptx_print(m, &text);
            ptx_module_free(m);
            int32_t *tk = NULL;
            size_t ntk = 0;
            if (tok_encode(tok, text.data, text.len, &tk, &ntk) != PG_OK) { pg_buf_free(&text); free(plan); continue; }
            kernels++;
            ptx_tokens += (long)ntk;
            ptx_bytes += (long)text.len;
            for (size_t i = 0; i < text.len; i++) ptx_lines += text.data[i] == '\n';
            dec_opts o = {0};
            o.arch = "sm_80";
            o.max_statements = 5000;
            o.comment_max = comments >= 0 ? comments : PTX_LITERATE_LINE_MAX;
            o.regs_named = regs_named;
            o.plan = plan_comments ? plan : NULL;   /* comments quote DIR/NAME/plan.cu (dec_opts.plan) */
            dec_state *s = NULL;
            t0 = cpu_us();
            if (dec_new(v, &o, &s, &diag) != PG_OK) return 1;
            free(plan);   /* dec_new keeps its own lines */
            pg_vec_push(B.newt, cpu_us() - t0);
            size_t i = 0;
            for (; i < ntk && !dec_done(s); i++) {
                int t = step(&B, s, tk[i], bits, ref, ids, kmax, nv, check, dump, g);
                if (t < 0) break;   /* outside the generated subset (or the header differs) */
                advance(&B, s, t, &diag);
            }
            kernels_full += dec_done(s) && i == ntk;
            B.finished += dec_done(s);
            dec_free(s);
            free(tk);
            pg_buf_free(&text);
        }
        for (int g = 0; g < names.n; g++) free(names.v[g]);
        pg_vec_free(names);
    }
    for (int g = 0; !corpus && g < gens; g++) {
        dec_opts o = {0};
        o.arch = g % 2 ? "sm_90" : "sm_80";
        o.max_statements = 80;
        o.max_regs_per_decl = 64;
        o.comment_max = comments > 0 ? comments : 0;
        o.regs_named = regs_named;
        if (g % 3 == 0) o.signature = ".visible .entry k(\n\t.param .u64 x,\n\t.param .u64 y,\n\t.param .u32 n\n)";
        dec_state *s = NULL;
        t0 = cpu_us();
        if (dec_new(v, &o, &s, &diag) != PG_OK) return 1;
        pg_vec_push(B.newt, cpu_us() - t0);
        pg_buf forced = {0};
        dec_forced_text(s, &forced);
        dec_advance_text(s, forced.data, forced.len, &diag);
        pg_buf_free(&forced);
        for (int st = 0; st < 4000 && !dec_done(s); st++) {
            int t = step(&B, s, -1, bits, ref, ids, kmax, nv, check, dump, g);
            if (t < 0) break;
            advance(&B, s, t, &diag);
        }
        B.finished += dec_done(s);
        dec_free(s);
    }
    pg_buf o = {0};
    struct utsname un;
    uname(&un);
    char cpu[600] = "unknown";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f))
            if (!strncmp(line, "model name", 10)) {
                const char *c = strchr(line, ':');
                snprintf(cpu, sizeof cpu, "%s", c ? c + 2 : line);
                cpu[strcspn(cpu, "\n")] = 0;
                break;
            }
        fclose(f);
    }
    time_t tt = time(NULL);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%d", gmtime(&tt));
    pg_buf_printf(&o, "{\n  \"benchmark\": \"PTX constraint latency per token (%s%s%s)\",\n",
                  corpus ? "corpus kernels fed token by token" : "random constrained walks",
                  regs_named ? ", named registers: dec_opts.regs_named" : "",
                  plan_comments ? ", comments quote the plan: dec_opts.plan" : "");
    pg_buf_printf(&o, "  \"date\": \"%s\",\n  \"device\": \"CPU: %s (one thread), %s %s\",\n", date, cpu, un.sysname, un.machine);
    pg_buf_printf(&o, "  \"tokenizer\": {\"file\": \"%s\", \"tokens\": %d, \"load_ms\": %.1f, \"load_cpu_ms\": %.1f, \"heap_mb\": %.1f},\n",
                  tokpath, nv, tok_ms, tok_cpu, tok_bytes / 1048576.0);
    pg_buf_printf(&o, "  \"vocabulary\": {\"trie_nodes\": %d, \"build_ms\": %.1f, \"build_cpu_ms\": %.1f, \"heap_mb\": %.1f},\n", v->nodes.n,
                  vocab_ms, vocab_cpu, vocab_bytes / 1048576.0);
    if (corpus)
        pg_buf_printf(&o, "  \"corpus\": {\"dir\": \"%s\", \"kernels\": %ld, \"accepted_in_full\": %ld, \"lines\": %ld, \"bytes\": %ld, "
                          "\"tokens\": %ld, \"tokens_per_line\": %.2f, \"bytes_per_token\": %.2f},\n",
                      corpus, kernels, kernels_full, ptx_lines, ptx_bytes, ptx_tokens, ptx_lines ? (double)ptx_tokens / ptx_lines : 0,
                      ptx_tokens ? (double)ptx_bytes / ptx_tokens : 0);
    pg_buf_printf(&o, "  \"walks\": {\"generations\": %d, \"finished\": %ld, \"dead_states\": %ld, \"tokens\": %ld, \"mean_allowed\": %.1f, "
                      "\"allowed_at_most_%d\": %.3f},\n",
                  corpus ? (int)kernels : gens, B.finished, B.dead, B.tokens, B.mask.n ? B.allowed_sum / (double)B.mask.n : 0, kmax,
                  B.mask.n ? (double)B.allowed_small / B.mask.n : 0);
    /* what one clock read adds to every sample (the median of back-to-back reads) */
    dvec ck = {0};
    for (int i = 0; i < 2001; i++) {
        double a = cpu_us(), b = cpu_us();
        pg_vec_push(ck, b - a);
    }
    qsort(ck.v, (size_t)ck.n, sizeof(double), cmpd);
    pg_buf_printf(&o, "  \"clock\": {\"latency_cpu\": \"CLOCK_THREAD_CPUTIME_ID\", \"read_overhead_us\": %.2f, "
                      "\"note\": \"every latency_cpu sample includes one read's overhead\"},\n", pct(&ck, 0.5));
    pg_vec_free(ck);
    pg_buf_printf(&o, "  \"targets\": {\"mask_p50_us\": 10, \"mask_p99_us\": 100},\n  \"latency_cpu\": {\n");
    stats_json(&o, "dec_mask", &B.mask, false);
    stats_json(&o, "dec_mask_in_regname", &B.mask_regname, false);
    stats_json(&o, "dec_mask_in_comment", &B.mask_comment, false);
    stats_json(&o, "dec_allowed", &B.allowed, false);
    stats_json(&o, "dec_accepts_allowed", &B.acc_ok, false);
    stats_json(&o, "dec_accepts_random", &B.acc_rand, false);
    stats_json(&o, "dec_advance", &B.adv, false);
    stats_json(&o, "dec_new", &B.newt, true);
    pg_buf_printf(&o, "  },\n  \"latency_wall\": {\n");
    stats_json(&o, "dec_mask", &B.mask_wall, true);
    pg_buf_printf(&o, "  }\n}\n");
    fputs(o.data, stdout);
    if (out && pg_write_file_atomic(out, o.data, o.len, &diag) != PG_OK) fprintf(stderr, "bench_decode: cannot write %s\n", out);
    pg_buf_free(&o);
    if (dump) fclose(dump);
    dvec *all[] = {&B.mask, &B.mask_regname, &B.mask_comment, &B.mask_wall, &B.allowed, &B.acc_ok, &B.acc_rand, &B.adv, &B.newt};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) pg_vec_free(*all[i]);
    free(bits);
    free(ref);
    free(ids);
    if (check) fprintf(stderr, "bench_decode: %ld masks differ from the reference\n", B.mismatches);
    dec_vocab_free(v);
    tok_free(tok);
    return B.dead || B.mismatches ? 1 : 0;
}
