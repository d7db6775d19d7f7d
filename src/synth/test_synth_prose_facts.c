/* test_synth_prose_facts.c — facts the prose style must state (h114), read back from the prose
 * and checked against the CUDA each sample compiles or the task's parameters, not against
 * the generator's own flags:
 *
 *  - quantize (float -> int8/uint8): the prose says multiply or divide as the plan does
 *    (`float p = x_e * s` / `/ s`) and never the other; the tie rule (`__float2int_rn`: to even,
 *    `roundf`: away from zero) and never the other; every integer range it writes ("lo..hi",
 *    "[lo, hi]", "lo to hi") is the plan's `min(max(v, lo), hi)`, and there is one; dequantize
 *    prose says multiply, and states the zero point when the plan subtracts one;
 *  - nbody: the prose says how positions are stored, and only that: four values per particle
 *    when an input has 4*N values, xyz triples when one has 3*N, three arrays otherwise;
 *    it names every input array; LJ prose states the (sigma/2)^2 clamp when the plan has
 *    `rmin2 = 0.25 * sig2`, and the shift exactly when the plan subtracts `ec`;
 *  - rownorm: the prose says 16-bit storage (fp16 / half / bf16 ...) exactly when the
 *    normalised output's parameter is f16* or bf16*;
 *  - complex: no description in any style holds the placeholder "NAME"; the prose names every
 *    array and says interleaved (2k / 2n / back to back) or separate re/im arrays as the
 *    parameters are.
 * The shares are printed (bench/results/2026-12-08-prose-facts-h114-cpu.md). */
#include "common/test.h"
#include "ptxgen/synth_family.h"
#include "synth/family_internal.h"

#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NSEEDS = 2000 };

static bool has(const char *s, const char *w) { return s && w && strstr(s, w) != NULL; }
static bool any(const char *s, const char *const *w) {
    for (int i = 0; w[i]; i++)
        if (has(s, w[i])) return true;
    return false;
}
/* w occurs in s as a word (identifier characters do not continue it) */
static bool has_word(const char *s, const char *w) {
    size_t n = strlen(w);
    for (const char *p = s; (p = strstr(p, w)); p++) {
        bool l = p == s || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
        bool r = !(isalnum((unsigned char)p[n]) || p[n] == '_');
        if (l && r) return true;
    }
    return false;
}

typedef struct {
    json_t *root, *descs, *params;
    const char *prose, *cu;
} drawn;
static bool draw(const char *fam, uint64_t seed, synth_family_sample *s, drawn *d) {
    memset(d, 0, sizeof *d);
    if (synth_fam_draw(fam, seed, s) != PG_OK || !s->task_json.len) return false;
    d->root = json_loads(s->task_json.data, 0, NULL);
    d->descs = json_object_get(d->root, "descriptions");
    d->params = json_object_get(d->root, "params");
    d->prose = json_string_value(json_object_get(d->descs, "prose"));
    d->cu = s->cu.data;
    return d->root && d->prose && d->cu;
}
static const char *ptype(json_t *params, const char *name) {
    for (size_t i = 0; i < json_array_size(params); i++) {
        json_t *p = json_array_get(params, i);
        if (!strcmp(json_string_value(json_object_get(p, "name")), name)) return json_string_value(json_object_get(p, "type"));
    }
    return NULL;
}

/* Every integer pair the prose writes as a range: "lo..hi", "[lo, hi]", "lo to hi". */
static int ranges(const char *s, int lo[8], int hi[8]) {
    int n = 0;
    for (const char *p = s; *p && n < 8; p++) {
        if (!(isdigit((unsigned char)*p) || (*p == '-' && isdigit((unsigned char)p[1])))) continue;
        if (p > s && (isdigit((unsigned char)p[-1]) || p[-1] == '.' || isalpha((unsigned char)p[-1]) || p[-1] == '_')) continue;
        char *e;
        long a = strtol(p, &e, 10);
        const char *q = NULL;
        if (!strncmp(e, "..", 2)) q = e + 2;
        else if (!strncmp(e, " to ", 4)) q = e + 4;
        else if (!strncmp(e, ", ", 2) && p > s && p[-1] == '[') q = e + 2;
        if (q && (isdigit((unsigned char)*q) || (*q == '-' && isdigit((unsigned char)q[1])))) {
            char *e2;
            long b = strtol(q, &e2, 10);
            if (*e2 != '.' || !isdigit((unsigned char)e2[1])) { lo[n] = (int)a; hi[n] = (int)b; n++; }
            p = e2 - 1;
        } else p = e - 1;
    }
    return n;
}

/* a lower-case copy (the prose's first word may be capitalised: "Multiplies ...") */
static char *lower(const char *s) {
    char *t = strdup(s ? s : "");
    for (char *p = t; *p; p++) *p = (char)tolower((unsigned char)*p);
    return t;
}

static void t_quantize(void) {
    int n = 0, stated[3] = {0}, ndq = 0, dzp = 0, dzp_ok = 0;
    for (uint64_t seed = 1; seed <= NSEEDS; seed++) {
        synth_family_sample s = {0};
        drawn d;
        CHECK(draw("quantize", seed, &s, &d), "quantize seed %llu draws", (unsigned long long)seed);
        const char *pl = d.cu ? strstr(d.cu, "float p = ") : NULL;
        if (pl) {
            n++;
            /* the operator after the element: "x_e * s[i / cols]" multiplies */
            const char *ms = strstr(pl, " * "), *ds = strstr(pl, " / "), *eol = strchr(pl, ';');
            bool mult = ms && ms < eol && (!ds || ms < ds), div = ds && ds < eol && (!ms || ds < ms);
            bool away = has(d.cu, "roundf(p)"), even = has(d.cu, "__float2int_rn(p)");
            int clo = 0, chi = 0;
            const char *mm = strstr(d.cu, "min(max(v, ");
            bool range = mm && sscanf(mm, "min(max(v, %d), %d)", &clo, &chi) == 2;
            CHECK(mult != div && away != even && range, "quantize seed %llu: the plan reads (p line, rounding, clamp)", (unsigned long long)seed);
            static const char *const MULW[] = {"multipl", " times ", " * ", "乘以", NULL}, *const DIVW[] = {"divid", " over ", " / ", "除以", NULL};
            static const char *const NOTMUL[] = {"divid", "除以", NULL}, *const NOTDIV[] = {"multipl", "乘以", NULL};
            char *lp = lower(d.prose);
            bool dir = mult ? any(lp, MULW) && !any(lp, NOTMUL) : any(lp, DIVW) && !any(lp, NOTDIV);
            free(lp);
            static const char *const AW[] = {"away", "远离", NULL}, *const EV[] = {"even", "偶", NULL};
            bool tie = away ? any(d.prose, AW) && !any(d.prose, EV) : any(d.prose, EV) && !any(d.prose, AW);
            int lo[8], hi[8], k = ranges(d.prose, lo, hi);
            bool rng = k > 0;
            for (int i = 0; i < k; i++) rng &= lo[i] == clo && hi[i] == chi;
            stated[0] += dir, stated[1] += tie, stated[2] += rng;
            CHECK(dir, "quantize seed %llu: the prose says %s: %s", (unsigned long long)seed, mult ? "multiply" : "divide", d.prose);
            CHECK(tie, "quantize seed %llu: the prose says ties %s: %s", (unsigned long long)seed, away ? "away from zero" : "to even", d.prose);
            CHECK(rng, "quantize seed %llu: the prose's range is [%d, %d] (%d ranges read): %s", (unsigned long long)seed, clo, chi, k, d.prose);
        }
        /* dequantize: the multiply, and the zero point when the plan subtracts one ("(q_e - zp) * s") */
        const char *dl = d.cu ? strstr(d.cu, "_e = (float)") : NULL;
        if (!pl && dl) {
            ndq++;
            const char *eol = strchr(dl, ';');
            const char *zs = strstr(dl, "_e - ");
            bool zp = zs && zs < eol;
            char *lp = lower(d.prose);
            static const char *const MULW[] = {"multipl", " times ", " * ", "乘以", NULL};
            bool mul = any(lp, MULW);
            free(lp);
            CHECK(mul, "quantize seed %llu: dequantize prose says multiply: %s", (unsigned long long)seed, d.prose);
            if (zp) {
                char zn[64] = "";
                sscanf(zs + 5, "%63[A-Za-z0-9_]", zn);
                bool says = has(d.prose, "zero point") || has(d.prose, "零点") || (zn[0] && has_word(d.prose, zn));
                dzp++, dzp_ok += says;
                CHECK(says, "quantize seed %llu: dequantize prose states the zero point %s: %s", (unsigned long long)seed, zn, d.prose);
            }
        }
        json_decref(d.root);
        synth_family_sample_free(&s);
    }
    CHECK(n > NSEEDS / 3 && ndq > NSEEDS / 6 && dzp > 0, "quantize: %d float -> int samples, %d dequantize (%d with a zero point)", n, ndq, dzp);
    printf("quantize: %d dequantize samples, %d with a zero point, %d of them state it\n", ndq, dzp, dzp_ok);
    printf("quantize: %d samples; direction %d, tie rule %d, range %d stated right\n", n, stated[0], stated[1], stated[2]);
}

static void t_nbody(void) {
    int n[3] = {0}, lj = 0, shifted = 0, ok[3] = {0};
    static const char *const A4[] = {"four numbers", "[4i]", "4 consecutive", "groups of four", "4 个值", "4i", NULL};
    static const char *const A3[] = {"three numbers", "[3i+1] and", "xyz triples", "interleaved xyz", "三元组", "三个值", NULL};
    static const char *const S3[] = {"separate arrays", "own array", "one array per axis", "(three arrays)", "三个数组", NULL};
    static const char *const CLAMP[] = {"(sigma/2)^2", "sigma^2/4", "(sigma/2)²", NULL}, *const SHIFT[] = {"shift", "平移", "value at the cutoff", NULL};
    for (uint64_t seed = 1; seed <= NSEEDS; seed++) {
        synth_family_sample s = {0};
        drawn d;
        CHECK(draw("nbody", seed, &s, &d), "nbody seed %llu draws", (unsigned long long)seed);
        if (d.prose) {
            int lay = 2;   /* from the parameters: positions in one array of 4*N or 3*N values, else three of N */
            for (size_t i = 0; i < json_array_size(d.params); i++) {
                const char *len = json_string_value(json_object_get(json_array_get(d.params, i), "len"));
                const char *role = json_string_value(json_object_get(json_array_get(d.params, i), "role"));
                if (len && role && !strcmp(role, "in") && !strcmp(len, "4*N")) lay = 0;
                if (len && role && !strcmp(role, "in") && !strcmp(len, "3*N")) lay = 1;
            }
            n[lay]++;
            bool says[3] = {any(d.prose, A4), any(d.prose, A3), any(d.prose, S3)};
            bool right = says[lay] && !says[(lay + 1) % 3] && !says[(lay + 2) % 3];
            ok[lay] += right;
            CHECK(right, "nbody seed %llu: the prose states layout %s and no other: %s", (unsigned long long)seed, lay == 0 ? "aos4" : lay == 1 ? "aos3" : "soa", d.prose);
            for (size_t i = 0; i < json_array_size(d.params); i++) {
                json_t *p = json_array_get(d.params, i);
                const char *role = json_string_value(json_object_get(p, "role")), *nm = json_string_value(json_object_get(p, "name"));
                if (role && !strcmp(role, "in"))
                    CHECK(has_word(d.prose, nm), "nbody seed %llu: the prose names input %s: %s", (unsigned long long)seed, nm, d.prose);
            }
            if (has(d.cu, "rmin2 = 0.25")) {
                lj++;
                CHECK(any(d.prose, CLAMP), "nbody seed %llu: LJ prose states the (sigma/2)^2 clamp: %s", (unsigned long long)seed, d.prose);
                bool sh = has(d.cu, " - ec;");
                shifted += sh;
                CHECK(sh == any(d.prose, SHIFT), "nbody seed %llu: the prose says shifted iff the plan subtracts ec (%d): %s", (unsigned long long)seed, sh, d.prose);
            }
        }
        json_decref(d.root);
        synth_family_sample_free(&s);
    }
    CHECK(n[0] && n[1] && n[2] && lj && shifted, "nbody: every layout drawn (%d %d %d), LJ %d, shifted %d", n[0], n[1], n[2], lj, shifted);
    printf("nbody: layout stated right aos4 %d/%d, aos3 %d/%d, soa %d/%d; LJ %d (shifted %d)\n", ok[0], n[0], ok[1], n[1], ok[2], n[2], lj, shifted);
}

static void t_rownorm(void) {
    int n16 = 0, n32 = 0, ok16 = 0;
    static const char *const H[] = {"half", "fp16", "f16", "bf16", "bfloat16", "16-bit", "半精度", NULL};
    for (uint64_t seed = 1; seed <= NSEEDS; seed++) {
        synth_family_sample s = {0};
        drawn d;
        CHECK(draw("rownorm", seed, &s, &d), "rownorm seed %llu draws", (unsigned long long)seed);
        const char *y = json_string_value(json_object_get(json_object_get(d.root, "family_params"), "y"));
        const char *ty = y ? ptype(d.params, y) : NULL;
        CHECK(ty != NULL, "rownorm seed %llu: the output parameter has a type", (unsigned long long)seed);
        if (ty && d.prose) {
            bool h16 = !strcmp(ty, "f16*") || !strcmp(ty, "bf16*"), says = any(d.prose, H);
            if (h16) n16++, ok16 += says;
            else n32++;
            CHECK(says == h16, "rownorm seed %llu: the prose says 16-bit storage iff %s is %s: %s", (unsigned long long)seed, y, ty, d.prose);
        }
        json_decref(d.root);
        synth_family_sample_free(&s);
    }
    CHECK(n16 > 0 && n32 > 0, "rownorm: both storage widths drawn (%d, %d)", n16, n32);
    printf("rownorm: 16-bit storage stated in %d of %d 16-bit samples, in none of %d others\n", ok16, n16, n32);
}

static void t_complex(void) {
    int nsplit = 0, ninter = 0;
    static const char *const IL[] = {"2k", "2n", "back to back", "交错", NULL}, *const SP[] = {"separate", "分开", NULL};
    for (uint64_t seed = 1; seed <= NSEEDS; seed++) {
        synth_family_sample s = {0};
        drawn d;
        CHECK(draw("complex", seed, &s, &d), "complex seed %llu draws", (unsigned long long)seed);
        const char *k;
        json_t *v;
        json_object_foreach(d.descs, k, v) {
            if (json_is_string(v)) CHECK(!has(json_string_value(v), "NAME"), "complex seed %llu: %s has no placeholder: %s", (unsigned long long)seed, k, json_string_value(v));
        }
        bool split = false;
        for (size_t i = 0; i < json_array_size(d.params); i++) {
            json_t *p = json_array_get(d.params, i);
            const char *nm = json_string_value(json_object_get(p, "name")), *ty = json_string_value(json_object_get(p, "type"));
            size_t l = strlen(nm);
            bool ptr = ty[strlen(ty) - 1] == '*';
            if (ptr && l > 3 && !strcmp(nm + l - 3, "_re")) split = true;
            if (ptr) CHECK(has_word(d.prose, nm), "complex seed %llu: the prose names %s: %s", (unsigned long long)seed, nm, d.prose);
        }
        if (split) nsplit++;
        else ninter++;
        CHECK(split ? any(d.prose, SP) : any(d.prose, IL), "complex seed %llu: the prose says %s: %s", (unsigned long long)seed, split ? "separate re/im arrays" : "interleaved",
              d.prose);
        json_decref(d.root);
        synth_family_sample_free(&s);
    }
    CHECK(nsplit > 0 && ninter > 0, "complex: both storages drawn (%d split, %d interleaved)", nsplit, ninter);
    printf("complex: %d split, %d interleaved\n", nsplit, ninter);
}

int main(void) {
    t_quantize();
    t_nbody();
    t_rownorm();
    t_complex();
    return TEST_DONE();
}
