/* bench_decode.c — latency of the PTX constraint per token.
 *
 *   build/bench_decode [--tokenizer models/default/tokenizer.json] [--gens N] [--seed S] [--out FILE.json]
 *                      [--dump FILE] [--check]
 *
 * Walks N random constrained generations (uniform over the allowed tokens,
 * which visits far more unusual states than a trained model would) and times,
 * at every step: the full mask (dec_mask), the fast path of sample-then-verify
 * (dec_accepts of one allowed token), dec_accepts of a random vocabulary token
 * (mostly rejections), and dec_advance.  Prints and writes p50/p90/p99/max in
 * microseconds.  Targets: mask p50 <= 10 us, p99 <= 100 us.
 * --dump writes one line per mask (allowed count and a 64-bit hash of the
 * bits), so two builds of the constraint can be compared for identical masks;
 * --check compares every mask with dec_mask_reference (the plain trie walk). */
#include "decode/dec_internal.h"

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
static void stats_json(pg_buf *o, const char *name, dvec *v, bool last) {
    qsort(v->v, (size_t)v->n, sizeof(double), cmpd);
    double sum = 0;
    for (int i = 0; i < v->n; i++) sum += v->v[i];
    pg_buf_printf(o, "    \"%s\": {\"n\": %d, \"mean_us\": %.2f, \"p50_us\": %.2f, \"p90_us\": %.2f, \"p99_us\": %.2f, \"max_us\": %.2f}%s\n",
                  name, v->n, v->n ? sum / v->n : 0, pct(v, 0.5), pct(v, 0.9), pct(v, 0.99), v->n ? v->v[v->n - 1] : 0,
                  last ? "" : ",");
}

int main(int argc, char **argv) {
    const char *tokpath = "models/default/tokenizer.json", *out = NULL, *dumpath = NULL;
    int gens = 30;
    bool check = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--tokenizer") && i + 1 < argc) tokpath = argv[++i];
        else if (!strcmp(argv[i], "--gens") && i + 1 < argc) gens = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) rng ^= strtoull(argv[++i], NULL, 10) * 0x9E3779B97F4A7C15ull;
        else if (!strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
        else if (!strcmp(argv[i], "--dump") && i + 1 < argc) dumpath = argv[++i];
        else if (!strcmp(argv[i], "--check")) check = true;
        else { fprintf(stderr, "usage: %s [--tokenizer F] [--gens N] [--seed S] [--out F.json] [--dump F] [--check]\n", argv[0]); return 2; }
    }
    pg_diag_sink diag = {0};
    FILE *dump = dumpath ? fopen(dumpath, "w") : NULL;
    if (dumpath && !dump) { fprintf(stderr, "bench_decode: cannot write %s\n", dumpath); return 2; }
    tok_tokenizer *tok = NULL;
    if (tok_load(tokpath, &tok, &diag) != PG_OK) {
        fprintf(stderr, "bench_decode: cannot load %s\n", tokpath);
        return 2;
    }
    dec_vocab *v = NULL;
    double t0 = now_us();
    if (dec_vocab_new(tok, &v, &diag) != PG_OK) { fprintf(stderr, "bench_decode: vocabulary failed\n"); return 1; }
    double vocab_ms = (now_us() - t0) / 1e3;
    int nv = dec_vocab_size(v);
    uint32_t *bits = calloc((size_t)(nv + 31) / 32, 4);
    uint32_t *ref = calloc((size_t)(nv + 31) / 32, 4);
    int *allowed = malloc(sizeof(int) * (size_t)nv);
    long mismatches = 0;
    dvec mask = {0}, acc_ok = {0}, acc_rand = {0}, adv = {0}, newt = {0};
    long tokens = 0, dead = 0, finished = 0;
    double allowed_sum = 0;
    for (int g = 0; g < gens; g++) {
        dec_opts o = {0};
        o.arch = g % 2 ? "sm_90" : "sm_80";
        o.max_statements = 80;
        o.max_regs_per_decl = 64;
        if (g % 3 == 0) o.signature = ".visible .entry k(\n\t.param .u64 x,\n\t.param .u64 y,\n\t.param .u32 n\n)";
        dec_state *s = NULL;
        t0 = now_us();
        if (dec_new(v, &o, &s, &diag) != PG_OK) return 1;
        double tn = now_us() - t0;
        pg_vec_push(newt, tn);
        pg_buf forced = {0};
        dec_forced_text(s, &forced);
        dec_advance_text(s, forced.data, forced.len, &diag);
        pg_buf_free(&forced);
        for (int step = 0; step < 4000 && !dec_done(s); step++) {
            t0 = now_us();
            int n = dec_mask(s, bits);
            double tm = now_us() - t0;
            pg_vec_push(mask, tm);
            if (check && (dec_mask_reference(s, ref) != n || memcmp(ref, bits, sizeof(uint32_t) * (size_t)((nv + 31) / 32)))) {
                size_t len;
                const char *txt = dec_text(s, &len);
                if (mismatches++ < 5) fprintf(stderr, "bench_decode: mask differs from the reference after: ...%s\n", txt + (len > 80 ? len - 80 : 0));
            }
            if (dump) {
                uint64_t h = 1469598103934665603ull;   /* FNV-1a over the mask words */
                for (int i = 0; i < (nv + 31) / 32; i++) h = (h ^ bits[i]) * 1099511628211ull;
                fprintf(dump, "%d %d %016llx\n", g, n, (unsigned long long)h);
            }
            if (!n) { dead++; break; }
            allowed_sum += n;
            int na = 0;
            for (int i = 0; i < nv; i++)
                if (bits[i >> 5] >> (i & 31) & 1) allowed[na++] = i;
            int t = allowed[rnd() % (uint64_t)na];
            int r = (int)(rnd() % (uint64_t)nv);
            t0 = now_us();
            bool a1 = dec_accepts(s, t);
            double ta = now_us() - t0;
            t0 = now_us();
            bool a2 = dec_accepts(s, r);
            double tr = now_us() - t0;
            (void)a2;
            if (!a1) { dead++; break; }
            pg_vec_push(acc_ok, ta);
            pg_vec_push(acc_rand, tr);
            t0 = now_us();
            dec_advance(s, t, &diag);
            pg_vec_push(adv, now_us() - t0);
            tokens++;
        }
        finished += dec_done(s);
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
    pg_buf_printf(&o, "{\n  \"benchmark\": \"PTX constraint latency per token (random constrained walks)\",\n");
    pg_buf_printf(&o, "  \"date\": \"%s\",\n  \"device\": \"CPU: %s (one thread), %s %s\",\n", date, cpu, un.sysname, un.machine);
    pg_buf_printf(&o, "  \"vocabulary\": {\"file\": \"%s\", \"tokens\": %d, \"trie_nodes\": %d, \"build_ms\": %.1f},\n", tokpath, nv,
                  v->nodes.n, vocab_ms);
    pg_buf_printf(&o, "  \"walks\": {\"generations\": %d, \"finished\": %ld, \"dead_states\": %ld, \"tokens\": %ld, \"mean_allowed\": %.1f},\n",
                  gens, finished, dead, tokens, tokens ? allowed_sum / (double)tokens : 0);
    pg_buf_printf(&o, "  \"targets\": {\"mask_p50_us\": 10, \"mask_p99_us\": 100},\n  \"latency\": {\n");
    stats_json(&o, "dec_mask", &mask, false);
    stats_json(&o, "dec_accepts_allowed", &acc_ok, false);
    stats_json(&o, "dec_accepts_random", &acc_rand, false);
    stats_json(&o, "dec_advance", &adv, false);
    stats_json(&o, "dec_new", &newt, true);
    pg_buf_printf(&o, "  }\n}\n");
    fputs(o.data, stdout);
    if (out && pg_write_file_atomic(out, o.data, o.len, &diag) != PG_OK) fprintf(stderr, "bench_decode: cannot write %s\n", out);
    pg_buf_free(&o);
    if (dump) fclose(dump);
    pg_vec_free(mask);
    pg_vec_free(acc_ok);
    pg_vec_free(acc_rand);
    pg_vec_free(adv);
    pg_vec_free(newt);
    free(bits);
    free(ref);
    free(allowed);
    if (check) fprintf(stderr, "bench_decode: %ld masks differ from the reference\n", mismatches);
    dec_vocab_free(v);
    tok_free(tok);
    return dead || mismatches ? 1 : 0;
}
