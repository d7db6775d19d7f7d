/* test_synth_bits.c — the bits family (src/synth/family_elem_bits.c), without a GPU:
 *
 *  - over seeds 1..2000 every operation class is drawn (hamming popc parity clz ffs brev bswap
 *    bfe bfi rot unpack hash), each hash kind (mxs xorshift pcg), unpack from bytes (2 values)
 *    and from words (8 nibbles, or 4 bytes), signed and unsigned, scaled and integer; the counts of each class and
 *    the distinct identities are printed (bench/results/2026-12-07-bits-family-h110-cpu.md);
 *  - every description (all five styles, terse too) states the constants the class draws: the
 *    field of bfe/bfi, the rotation, every multiplier / shift triple of a hash;
 *  - each class's plan uses the CUDA it teaches (__popc, __clz, __ffs, __brev, __byte_perm,
 *    __funnelshift_l/r or a shift pair, shift-and-mask, 32-bit multiplies);
 *  - for the first 4 samples of each class the C reference (fam_elem_bits, bit loops) agrees
 *    with a second computation written here with compiler builtins and other formulas
 *    (__builtin_popcount, __builtin_clz, __builtin_ffs, __builtin_bswap32, a swap-halves bit
 *    reversal, rotation through 64 bits, nibbles by division, hash products in 64 bits) on
 *    n = 777 and n = 1 for all three input distributions, bit for bit.
 * Whether the kernels are correct on a GPU is tests/gpu/families.sh's job. */
#include "common/test.h"
#include "ptxgen/synth_family.h"
#include "ptxgen/task.h"
#include "synth/family_internal.h"

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { NSEEDS = 2000, NCHECK = 4 };
static const char *const OPS[] = {"hamming", "popc", "parity", "clz", "ffs", "brev", "bswap", "bfe", "bfi", "rot", "unpack", "hash"};
enum { NOPS = (int)(sizeof OPS / sizeof OPS[0]) };

static int pidx(const task_spec *t, const char *name) {
    for (int p = 0; p < t->nparams; p++)
        if (!strcmp(t->params[p].name, name)) return p;
    return -1;
}

static uint32_t brev_swap(uint32_t x) {   /* swap halves, bytes, nibbles, pairs, bits */
    x = (x >> 16) | (x << 16);
    x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);
    x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    return ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
}
static uint32_t mul32(uint32_t a, uint64_t c) { return (uint32_t)(((uint64_t)a * c) & 0xffffffffull); }

/* The second computation of output element j (word or value) of a sample. */
static uint64_t expect(json_t *fp, const char *op, const task_inst *in, int px, int px2, int psd, size_t j, bool *is_float, float *fv) {
    *is_float = false;
    int W = (int)json_integer_value(json_object_get(fp, "w")), P = (int)json_integer_value(json_object_get(fp, "p"));
    int K = (int)json_integer_value(json_object_get(fp, "k")), F = (int)json_integer_value(json_object_get(fp, "pack"));
    if (!strcmp(op, "unpack")) {
        size_t i = j / (size_t)F, k = j % (size_t)F;
        uint64_t a = in->spec->params[px].dtype == TASK_T_U8 ? ((const uint8_t *)in->args[px].data)[i] : ((const uint32_t *)in->args[px].data)[i];
        uint64_t base = json_integer_value(json_object_get(fp, "ubits")) == 8 ? 256 : 16;
        for (size_t d = 0; d < k; d++) a /= base;
        int q = (int)(a % base) - (json_is_true(json_object_get(fp, "signed")) ? (int)base / 2 : 0);
        const char *sc = json_string_value(json_object_get(fp, "scale"));
        if (sc) {
            *is_float = true;
            *fv = (float)((double)q * (double)(float)in->args[pidx(in->spec, sc)].scalar.f);
            return 0;
        }
        return (uint32_t)q;
    }
    uint32_t a = ((const uint32_t *)in->args[px].data)[j], b = px2 >= 0 ? ((const uint32_t *)in->args[px2].data)[j] : 0;
    if (!strcmp(op, "hamming")) return (uint32_t)__builtin_popcount(a ^ b);
    if (!strcmp(op, "popc")) return (uint32_t)__builtin_popcount(a);
    if (!strcmp(op, "parity")) return (uint32_t)__builtin_parity(a);
    if (!strcmp(op, "clz")) return a ? (uint32_t)__builtin_clz(a) : 32u;
    if (!strcmp(op, "ffs")) return (uint32_t)__builtin_ffs((int)a);
    if (!strcmp(op, "brev")) return brev_swap(a);
    if (!strcmp(op, "bswap")) return __builtin_bswap32(a);
    if (!strcmp(op, "bfe")) return (uint32_t)(((uint64_t)a << (64 - P - W)) >> (64 - W));   /* field to the top, then down */
    if (!strcmp(op, "bfi")) {
        uint32_t r = a;
        for (int bit = 0; bit < W; bit++) r = (r & ~(1u << (P + bit))) | (((b >> bit) & 1u) << (P + bit));
        return r;
    }
    if (!strcmp(op, "rot")) {
        uint64_t d = (uint64_t)a | (uint64_t)a << 32;   /* the word twice: rotation is a window */
        bool left = json_is_true(json_object_get(fp, "left"));
        return (uint32_t)(left ? d >> (32 - K) : d >> K);
    }
    /* hash */
    const char *hash = json_string_value(json_object_get(fp, "hash"));
    uint32_t h = a ^ (psd >= 0 ? (uint32_t)in->args[psd].scalar.u : 0u);
    if (!strcmp(hash, "mxs")) {
        json_t *rd = json_object_get(fp, "rounds");
        for (size_t q = 0; q < json_array_size(rd); q++) {
            h ^= h >> json_integer_value(json_array_get(json_array_get(rd, q), 0));
            h = mul32(h, (uint64_t)json_integer_value(json_array_get(json_array_get(rd, q), 1)));
        }
        return h ^ (h >> json_integer_value(json_object_get(fp, "final")));
    }
    if (!strcmp(hash, "xorshift")) {
        json_t *tr = json_object_get(fp, "triple");
        h ^= (uint32_t)((uint64_t)h << json_integer_value(json_array_get(tr, 0)));
        h ^= h >> json_integer_value(json_array_get(tr, 1));
        return h ^ (uint32_t)((uint64_t)h << json_integer_value(json_array_get(tr, 2)));
    }
    uint32_t st = (uint32_t)(((uint64_t)h * 747796405ull + 2891336453ull) & 0xffffffffull);
    uint32_t w = mul32((st >> ((st >> 28) + 4)) ^ st, 277803737ull);
    return (w >> 22) ^ w;
}

/* Does every style's description state the sample's constants (field, rotation, hash steps)?
 * Each key is a list of alternatives separated by '|'. */
static bool states(json_t *descs, const char *const *keys, int nk, char *why, size_t whyn) {
    for (int st = 0; st < TASK_NSTYLES; st++) {
        const char *txt = json_string_value(json_object_get(descs, task_styles[st]));
        for (int k = 0; k < nk; k++) {
            bool any = false;
            char alt[200];
            for (const char *p = keys[k]; *p && !any;) {
                size_t l = strcspn(p, "|");
                snprintf(alt, sizeof alt, "%.*s", (int)l, p);
                any = txt && strstr(txt, alt);
                p += l + (p[l] ? 1 : 0);
            }
            if (!any) { snprintf(why, whyn, "%s lacks %s: %s", task_styles[st], keys[k], txt ? txt : "(none)"); return false; }
        }
    }
    return true;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }
static bool has(const char *cu, const char *w) { return strstr(cu, w) != NULL; }

int main(void) {
    int count[NOPS] = {0}, checked[NOPS] = {0}, hk[3] = {0}, unp[2][2][2] = {{{0}}}, unp_bytes = 0;
    char **ids = calloc(NSEEDS, sizeof *ids);
    int nid = 0;
    for (uint64_t seed = 1; seed <= NSEEDS; seed++) {
        synth_family_sample s;
        memset(&s, 0, sizeof s);
        if (synth_fam_draw("bits", seed, &s) != PG_OK || !s.task_json.len) {
            CHECK(0, "seed %llu: the generator fails", (unsigned long long)seed);
            continue;
        }
        ids[nid++] = strdup(s.identity);
        json_t *root = json_loads(s.task_json.data, 0, NULL), *fp = json_object_get(root, "family_params");
        const char *op = json_string_value(json_object_get(fp, "op"));
        int o = 0;
        while (o < NOPS && strcmp(OPS[o], op ? op : "")) o++;
        CHECK(o < NOPS, "seed %llu: op '%s' is a class", (unsigned long long)seed, op ? op : "(none)");
        if (o >= NOPS) { json_decref(root); synth_family_sample_free(&s); continue; }
        count[o]++;
        const char *cu = s.cu.data ? s.cu.data : "", *hash = json_string_value(json_object_get(fp, "hash"));
        if (!strcmp(op, "hash")) hk[!strcmp(hash, "mxs") ? 0 : !strcmp(hash, "xorshift") ? 1 : 2]++;
        if (!strcmp(op, "unpack") && json_integer_value(json_object_get(fp, "ubits")) == 8) unp_bytes++;
        if (!strcmp(op, "unpack"))
            unp[json_integer_value(json_object_get(fp, "pack")) == 8][json_is_true(json_object_get(fp, "signed"))][json_is_true(json_object_get(fp, "scaled"))]++;
        /* the plan uses what the class teaches */
        bool uses = !strcmp(op, "hamming") ? has(cu, "__popc(") && has(cu, " ^ ")
                  : !strcmp(op, "popc") ? has(cu, "__popc(")
                  : !strcmp(op, "parity") ? has(cu, "__popc(") && has(cu, ") & 1;")
                  : !strcmp(op, "clz") ? has(cu, "__clz(")
                  : !strcmp(op, "ffs") ? has(cu, "__ffs(")
                  : !strcmp(op, "brev") ? has(cu, "__brev(")
                  : !strcmp(op, "bswap") ? has(cu, "__byte_perm(")
                  : !strcmp(op, "bfe") || !strcmp(op, "bfi") ? has(cu, " & 0x") && (!strcmp(op, "bfe") || has(cu, " << "))
                  : !strcmp(op, "rot") ? has(cu, "__funnelshift_") || (has(cu, " << ") && has(cu, " >> "))
                  : !strcmp(op, "unpack") ? (has(cu, "& 15") || has(cu, "& 255u")) && (has(cu, "[2 * i") || has(cu, "[4 * i") || has(cu, "[8 * i"))
                  : has(cu, "unsigned int h = ");
        CHECK(uses, "seed %llu (%s): the plan uses the class's CUDA:\n%s", (unsigned long long)seed, s.identity, cu);
        /* every style states the constants the class draws (terse included: the names carry them) */
        char kb[6][200], why[900] = "";
        const char *keys[6];
        int nk = 0;
        int P = (int)json_integer_value(json_object_get(fp, "p")), W = (int)json_integer_value(json_object_get(fp, "w"));
        if (!strcmp(op, "bfe") || !strcmp(op, "bfi")) {
            unsigned m = (1u << W) - 1u;
            snprintf(kb[nk], 200, "%d..%d|bits %d to %d|第 %d 到第 %d 位|0x%x) << %d|>> %d) & 0x%x|at bit %d|第 %d 位", P, P + W - 1, P, P + W - 1, P, P + W - 1, m, P, P, m, P, P);
            nk++;
        } else if (!strcmp(op, "rot")) {
            snprintf(kb[nk++], 200, "by %d|%d 位|, %d)", (int)json_integer_value(json_object_get(fp, "k")), (int)json_integer_value(json_object_get(fp, "k")),
                     (int)json_integer_value(json_object_get(fp, "k")));
        } else if (!strcmp(op, "hash") && !strcmp(hash, "mxs")) {
            json_t *rd = json_object_get(fp, "rounds");
            for (size_t q = 0; q < json_array_size(rd) && nk < 5; q++) snprintf(kb[nk++], 200, "%08llx", (unsigned long long)json_integer_value(json_array_get(json_array_get(rd, q), 1)));
        } else if (!strcmp(op, "hash") && !strcmp(hash, "xorshift")) {
            json_t *tr = json_object_get(fp, "triple");
            for (size_t q = 0; q < 3; q++) {
                int a = (int)json_integer_value(json_array_get(tr, q));
                snprintf(kb[nk++], 200, "%s %d|%s%d", q == 1 ? ">>" : "<<", a, q == 1 ? ">>" : "<<", a);
            }
        } else if (!strcmp(op, "hash")) snprintf(kb[nk++], 200, "277803737");
        for (int k = 0; k < nk; k++) keys[k] = kb[k];
        CHECK(states(json_object_get(root, "descriptions"), keys, nk, why, sizeof why), "seed %llu (%s): %s", (unsigned long long)seed, s.identity, why);
        /* the reference against the second computation */
        if (checked[o] < NCHECK) {
            checked[o]++;
            task_spec *t = NULL;
            pg_diag_sink q = {0};
            /* the reference reads family_params from the task's file */
            char path[128];
            snprintf(path, sizeof path, "/tmp/ptxgen-bitstest-%d.json", (int)getpid());
            FILE *tf = fopen(path, "wb");
            bool wrote = tf && fwrite(s.task_json.data, 1, s.task_json.len, tf) == s.task_json.len;
            if (tf) wrote = fclose(tf) == 0 && wrote;
            CHECK(wrote && task_load(path, &t, &q) == PG_OK, "seed %llu: task loads", (unsigned long long)seed);
            for (int si = 3; t && si < t->nsizes; si++)
                for (int di = 0; di < t->ndists; di++) {
                    task_inst in, ref;
                    bool ok = task_inst_make(t, si, di, 5, &in, &q) == PG_OK && task_reference_run(&in, &ref, &q) == PG_OK;
                    CHECK(ok, "seed %llu: the reference runs", (unsigned long long)seed);
                    if (!ok) { task_inst_free(&in); continue; }
                    int px = pidx(t, json_string_value(json_object_get(fp, "x"))), py = pidx(t, json_string_value(json_object_get(fp, "y")));
                    const char *x2 = json_string_value(json_object_get(fp, "x2")), *sd = json_string_value(json_object_get(fp, "seed"));
                    int px2 = x2 ? pidx(t, x2) : -1, psd = sd ? pidx(t, sd) : -1;
                    size_t bad = 0, first = 0;
                    for (size_t j = 0; j < ref.args[py].count; j++) {
                        bool isf;
                        float fv = 0;
                        uint64_t want = expect(fp, op, &in, px, px2, psd, j, &isf, &fv);
                        bool same = isf ? !memcmp(&fv, (const float *)ref.args[py].data + j, 4) : ((const uint32_t *)ref.args[py].data)[j] == (uint32_t)want;
                        if (!same && !bad++) first = j;
                    }
                    CHECK(bad == 0 && ref.args[py].count > 0, "seed %llu (%s) size %d dist %d: %zu of %zu outputs differ from the second computation (first %zu)",
                          (unsigned long long)seed, s.identity, si, di, bad, ref.args[py].count, first);
                    task_inst_free(&in);
                    task_inst_free(&ref);
                }
            task_free(t);
            unlink(path);
        }
        json_decref(root);
        synth_family_sample_free(&s);
    }
    for (int o = 0; o < NOPS; o++) {
        CHECK(count[o] > 0 && checked[o] == NCHECK, "class %s drawn (%d) and checked (%d)", OPS[o], count[o], checked[o]);
        printf("bits %-8s %4d of %d seeds\n", OPS[o], count[o], NSEEDS);
    }
    CHECK(hk[0] && hk[1] && hk[2], "every hash kind drawn: mxs %d, xorshift %d, pcg %d", hk[0], hk[1], hk[2]);
    printf("bits hash kinds: mxs %d, xorshift %d, pcg %d\n", hk[0], hk[1], hk[2]);
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++)
            for (int c = 0; c < 2; c++) {
                CHECK(unp[a][b][c] > 0, "unpack %s %s %s drawn", a ? "u32" : "u8", b ? "signed" : "unsigned", c ? "scaled" : "int");
                printf("bits unpack %s %s %s: %d\n", a ? "u32" : "u8", b ? "signed" : "unsigned", c ? "scaled" : "int", unp[a][b][c]);
            }
    CHECK(unp_bytes > 0, "unpack of the 4 bytes of a word drawn (%d)", unp_bytes);
    printf("bits unpack u32 of them 4 bytes per word: %d\n", unp_bytes);
    int distinct = 0;
    qsort(ids, (size_t)nid, sizeof *ids, cmp_str);
    for (int k = 0; k < nid; k++) distinct += k == 0 || strcmp(ids[k], ids[k - 1]);
    printf("bits: %d distinct identities in %d seeds\n", distinct, NSEEDS);
    CHECK(distinct > NSEEDS / 2, "distinct identities %d of %d", distinct, NSEEDS);
    for (int k = 0; k < nid; k++) free(ids[k]);
    free(ids);
    return TEST_DONE();
}
