/* test_decode.c — the PTX constraint: random constrained generations must all
 * pass the libptx validator and ptxas; corpus kernels are accepted; specific
 * invalid continuations are rejected; masks agree with dec_accepts and with
 * the plain trie walk (dec_mask_reference); clones and rollbacks behave.  Uses a fake vocabulary (single bytes plus a few
 * hundred multi-byte PTX pieces), so it does not need a trained tokenizer. */
#include "common/test.h"
#include "decode/dec_internal.h"
#include "ptxgen/ptx.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const MULTI[] = {
    "\t", "\n", ";\n", ";\n\t", ", ", "\n\t", "%r", "%rd", "%f", "%fd", "%p", "%rs", "%h", "%r1", "%r2", "%rd1", "%rd2",
    "%f1", "%f2", "%p1", "%tid.x", "%ctaid.x", "%ntid.x", ".reg .b32 %r<", ".reg .b64 %rd<", ".reg .f32 %f<",
    ".reg .pred %p<", ".reg .f64 %fd<", ".reg .b16 %rs<", ".reg", " .pred", " .b32", " .b64", " .f32", ">;\n",
    ".shared .align 16 .f32 ", ".shared .align 4 .b32 ", ".local .align 8 .b64 ", "ld.param.u64 ", "ld.param.u32 ",
    "ld.param.f32 ", "ld.global.f32 ", "ld.global.nc.f32 ", "ld.global.nc.v4.f32 ", "ld.shared.f32 ", "st.global.f32 ",
    "st.shared.f32 ", "st.global.u32 ", "ld.global.u32 ", "cvta.to.global.u64 ", "mov.u32 ", "mov.f32 ", "mov.b32 ",
    "mov.u64 ", "add.s32 ", "add.u32 ", "add.s64 ", "add.f32 ", "sub.f32 ", "mul.f32 ", "mul.wide.u32 ", "mul.lo.s32 ",
    "mad.lo.s32 ", "fma.rn.f32 ", "setp.lt.u32 ", "setp.ge.s32 ", "setp.ne.and.u32 ", "selp.f32 ", "shl.b32 ", "shr.u32 ",
    "and.b32 ", "or.pred ", "cvt.rn.f32.s32 ", "cvt.rzi.s32.f32 ", "cvt.u64.u32 ", "bra ", "bra.uni ", "ret;", "exit;",
    "bar.sync 0;", "shfl.sync.bfly.b32 ", "shfl.sync.down.b32 ", "atom.global.add.f32 ", "red.shared.add.u32 ",
    "rcp.approx.ftz.f32 ", "ex2.approx.ftz.f32 ", "max.f32 ", "min.s32 ", "div.rn.f32 ", "neg.f32 ", "abs.f32 ",
    "sqrt.rn.f32 ", "vote.sync.ballot.b32 ", "popc.b32 ", "@%p", "@!%p", "[%rd", "[%r", "+4]", "+16]", "]", "],", "[",
    "{%f", "}, ", "0f00000000", "0f3F800000", "0d3FF0000000000000", "-1", "31", "16", "256", "1024", "4", "8", "0",
    ".visible .entry ", "(\n\t", ".param .u64 ", ".param .u32 ", ".param .f32 ", ",\n\t", "\n)\n", ")\n", ".maxntid ",
    ", 1, 1\n", "{\n", "}\n", "LOOP", "DONE", "$L__BB0_", "L1", "x", "y", "n", "out", "tile", "sdata", ":\n", "ld", "st",
    ".global", ".shared", ".f32", ".u32", ".s32", ".b32", ".u64", ".rn", ".approx", ".ftz", ".lt", ".ge", ".eq", ".ne",
};

static dec_vocab *fake_vocab(int *n_out) {
    enum { NS = 3 };
    const char *specials[NS] = {GEN_TOK_END, GEN_TOK_TASK, GEN_TOK_PTX};
    int nm = (int)(sizeof MULTI / sizeof MULTI[0]);
    int n = 128 + nm + NS;
    const char **p = calloc((size_t)n, sizeof *p);
    bool *sp = calloc((size_t)n, sizeof *sp);
    static char singles[128][2];
    for (int i = 0; i < 128; i++) {
        singles[i][0] = (char)(i ? i : 1);
        singles[i][1] = 0;
        p[i] = singles[i];
    }
    for (int i = 0; i < nm; i++) p[128 + i] = MULTI[i];
    for (int i = 0; i < NS; i++) { p[128 + nm + i] = specials[i]; sp[128 + nm + i] = true; }
    dec_vocab *v = NULL;
    pg_diag_sink d = {0};
    dec_vocab_from_pieces(p, NULL, sp, n, &v, &d);
    free(p);
    free(sp);
    *n_out = n;
    return v;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static int pick(const uint32_t *bits, int n) {
    int cnt = 0;
    for (int i = 0; i < n; i++) cnt += bits[i >> 5] >> (i & 31) & 1;
    if (!cnt) return -1;
    int k = (int)(rnd() % (uint64_t)cnt);
    for (int i = 0; i < n; i++)
        if (bits[i >> 5] >> (i & 31) & 1 && k-- == 0) return i;
    return -1;
}

/* dec_allowed must list exactly the mask's tokens when there are at most max
 * of them, else say -1. */
static int allowed_mismatches, allowed_lists;
static void check_allowed(const dec_state *s, const uint32_t *bits, int n, int nv, int max) {
    int32_t *ids = malloc(sizeof(int32_t) * (size_t)(max > 0 ? max : 1));
    int k = dec_allowed(s, ids, max);
    bool ok = n > max ? k == -1 : k == n;
    uint32_t *seen = calloc((size_t)(nv + 31) / 32, 4);
    for (int i = 0; ok && i < k; i++) {
        ok = ids[i] >= 0 && ids[i] < nv && (bits[ids[i] >> 5] >> (ids[i] & 31) & 1) && !(seen[ids[i] >> 5] >> (ids[i] & 31) & 1);
        if (ok) seen[ids[i] >> 5] |= 1u << (ids[i] & 31);
    }
    if (!ok && allowed_mismatches++ < 3) {
        size_t len;
        const char *txt = dec_text(s, &len);
        fprintf(stderr, "dec_allowed(max %d) = %d, mask has %d, after: ...%s\n", max, k, n, txt + (len > 100 ? len - 100 : 0));
    }
    allowed_lists += k >= 0;
    free(seen);
    free(ids);
}

/* dec_mask's fast paths must give exactly the plain walk's mask. */
static int mask_mismatches;
static int mask_checked(const dec_state *s, uint32_t *bits, int nv) {
    int n = dec_mask(s, bits);
    uint32_t *ref = calloc((size_t)(nv + 31) / 32, 4);
    if (dec_mask_reference(s, ref) != n || memcmp(ref, bits, (size_t)(nv + 31) / 32 * 4)) {
        size_t len;
        const char *txt = dec_text(s, &len);
        if (mask_mismatches++ < 3) fprintf(stderr, "mask differs from the reference after: ...%s\n", txt + (len > 100 ? len - 100 : 0));
    }
    free(ref);
    check_allowed(s, bits, n, nv, n);              /* exactly enough room */
    check_allowed(s, bits, n, nv, n > 0 ? n - 1 : 0);   /* one short */
    check_allowed(s, bits, n, nv, 16);
    return n;
}

static void first_diag(void *user, const pg_diag *d) {
    char *buf = user;
    if (!buf[0]) pg_diag_format(d, buf, 512);
}

static bool validate_verbose(const char *txt, size_t len, char *why) {
    ptx_module *m = NULL;
    why[0] = 0;
    pg_diag_sink d = {first_diag, why, 0, 0, 0};
    pg_status st = ptx_parse(txt, len, "gen.ptx", &m, &d);
    if (st == PG_OK) st = ptx_validate(m, &d);
    ptx_module_free(m);
    return st == PG_OK;
}

/* dec_end_bytes' running count against a full recount, after every step of the walks; `owing`: steps at
 * which something was owed (a label or an open block), so that the walks are known to exercise it. */
static int end_bytes_checked, end_bytes_mismatches, end_bytes_owing;
static void check_end_bytes(const dec_state *s) {
    size_t run = dec_end_bytes(s), full = dec_end_bytes_recount(s);
    end_bytes_checked++;
    end_bytes_owing += full > 8;
    if (run != full && end_bytes_mismatches++ < 3) {
        size_t len;
        const char *txt = dec_text(s, &len);
        fprintf(stderr, "dec_end_bytes %zu, recount %zu after: ...%s\n", run, full, txt + (len > 200 ? len - 200 : 0));
    }
}

/* One random constrained generation (after `prefix`, if any); returns the module text (malloc'd). */
static char *random_walk_from(const dec_vocab *v, int nv, const dec_opts *o, const char *prefix, int *steps, bool *ok_end, int *dead) {
    dec_state *s = NULL;
    pg_diag_sink d = {0};
    if (dec_new(v, o, &s, &d) != PG_OK) return NULL;
    if (prefix && dec_advance_text(s, prefix, strlen(prefix), &d) != PG_OK) { (*dead)++; dec_free(s); return NULL; }
    uint32_t *bits = calloc((size_t)(nv + 31) / 32, 4);
    pg_buf forced = {0};
    *ok_end = false;
    *steps = 0;
    for (int step = 0; step < 20000 && !dec_done(s); step++) {
        /* feed forced text now and then, as gen does */
        if (rnd() % 4 == 0) {
            forced.len = 0;
            if (dec_forced_text(s, &forced) && dec_advance_text(s, forced.data, forced.len, &d) != PG_OK) {
                size_t len;
                const char *txt = dec_text(s, &len);
                fprintf(stderr, "forced text '%s' refused after: ...%s\n", forced.data, txt + (len > 300 ? len - 300 : 0));
                (*dead)++;
                break;
            }
            check_end_bytes(s);
            if (dec_done(s)) break;
        }
        int n = mask_checked(s, bits, nv);
        if (n == 0) {
            size_t len;
            const char *txt = dec_text(s, &len);
            fprintf(stderr, "dead state after: ...%s\n", txt + (len > 300 ? len - 300 : 0));
            (*dead)++;
            break;
        }
        int t = pick(bits, nv);
        if (dec_advance(s, t, &d) != PG_OK) { (*dead)++; break; }
        check_end_bytes(s);
        (*steps)++;
    }
    if (dec_done(s)) {
        int n = dec_mask(s, bits);
        int e = pick(bits, nv);
        *ok_end = n == 1 && e >= 0 && dec_advance(s, e, &d) == PG_OK && dec_mask(s, bits) == 0;
    }
    size_t len;
    const char *txt = dec_text(s, &len);
    char *out = malloc(len + 1);
    memcpy(out, txt, len + 1);
    free(bits);
    pg_buf_free(&forced);
    dec_free(s);
    return out;
}
static char *random_walk(const dec_vocab *v, int nv, const dec_opts *o, int *steps, bool *ok_end, int *dead) {
    return random_walk_from(v, nv, o, NULL, steps, ok_end, dead);
}

/* named: dec_opts.regs_named, so the walks declare named registers with random names (docs/LITERATE.md). */
/* ---- read before write (dec_opts.reads_unwritten) ------------------------------------ */
/* The declared type of register `name` in `text` (its `.reg .T %x<N>;` or `.reg .T %x;` line, the
 * last one), or "" if none. */
static void reg_type_of(const char *text, const char *name, char *type, size_t tn) {
    type[0] = 0;
    size_t nl = strlen(name), np = nl;
    while (np > 2 && name[np - 1] >= '0' && name[np - 1] <= '9') np--;
    for (const char *p = strstr(text, ".reg ."); p; p = strstr(p + 1, ".reg .")) {
        const char *t = p + 5, *sp = strchr(t, ' ');
        if (!sp || sp[1] != '%') continue;
        const char *r = sp + 1, *e = r;
        while (*e && *e != '<' && *e != ';') e++;
        size_t rl = (size_t)(e - r);
        bool match = *e == '<' ? rl == np && np < nl && !strncmp(r, name, np) : rl == nl && !strncmp(r, name, nl);
        if (match && (size_t)(sp - t) < tn) { memcpy(type, t, (size_t)(sp - t)); type[sp - t] = 0; }
    }
}

/* h79-data/to.c's text-order check on a walk: the first register an instruction reads that no
 * earlier instruction wrote although one of its declared type was written by then (the rule's
 * fallback only lets an unwritten one through when none of the slot's types is written), or 0. */
static int read_before_write(const char *text, char *why, size_t wn) {
    ptx_module *m = NULL;
    ptx_parse(text, strlen(text), "walk", &m, NULL);
    int bad = 0;
    for (int fi = 0; m && fi < m->nfuncs && !bad; fi++) {
        const ptx_func *f = &m->funcs[fi];
        const char *def[4096];
        int nd = 0;
        char wtypes[64][8];
        int nwt = 0;
        for (int st = 0; st < f->nbody && !bad; st++) {
            if (f->body[st].kind != PTX_ST_INSN) continue;
            const ptx_insn *in = &f->body[st].u.insn;
            const char *nm[64];
            int n = ptx_insn_uses(in, nm, 64);
            for (int k = 0; k < n && !bad; k++) {
                bool found = false;
                for (int d = 0; d < nd && !found; d++) found = !strcmp(def[d], nm[k]);
                if (found) continue;
                char ty[16];
                reg_type_of(text, nm[k], ty, sizeof ty);
                for (int w = 0; w < nwt && !bad; w++)
                    if (!strcmp(wtypes[w], ty)) {
                        bad = 1;
                        snprintf(why, wn, "%s (%s) read before any write while a %s register was written", nm[k], ty, ty);
                    }
            }
            n = ptx_insn_defs(in, nm, 64);
            for (int k = 0; k < n; k++) {
                if (nd < 4096) def[nd++] = nm[k];
                char ty[16];
                reg_type_of(text, nm[k], ty, sizeof ty);
                bool seen = false;
                for (int w = 0; w < nwt; w++) seen = seen || !strcmp(wtypes[w], ty);
                if (!seen && nwt < 64 && strlen(ty) < 8) strcpy(wtypes[nwt++], ty);
            }
        }
    }
    ptx_module_free(m);
    return bad;
}

static void test_random_walks(const dec_vocab *v, int nv, bool named) {
    const int NGEN = named ? 100 : 200;
    char dir[] = "/tmp/ptxgen_decode_XXXXXX";
    bool have_dir = mkdtemp(dir) != NULL;
    int valid = 0, finished = 0, dead = 0, total_steps = 0, plan_walk_comments = 0, rbw = 0;
    char **texts = calloc(NGEN, sizeof *texts);
    for (int g = 0; g < NGEN; g++) {
        dec_opts o = {0};
        o.arch = g % 3 == 0 ? "sm_90" : "sm_80";
        o.max_statements = 10 + (int)(rnd() % 60);
        o.max_regs_per_decl = 1 + (int)(rnd() % 64);
        if (g % 5 == 0) o.signature = ".visible .entry k(\n\t.param .u64 a,\n\t.param .u32 n\n)";
        if (g % 2 == 0) o.comment_max = 1 + (int)(rnd() % 40);   /* literate PTX: plan comments may stand anywhere */
        if (g % 4 == 0) o.plan = "extern \"C\" __global__ void k(float* a, unsigned n)\n{\n    unsigned i = blockIdx.x;\n"
                                 "    if (i < n) a[i] = 0.0f; // store\n    unsigned i = blockIdx.x * 2;\n}\n";   /* ... quoting these lines */
        o.regs_named = named;
        o.regs_grow = g % 3 == 1;   /* indices past a declared count, raised afterwards as gen_sample does */
        int steps = 0;
        bool ok_end;
        texts[g] = random_walk(v, nv, &o, &steps, &ok_end, &dead);
        total_steps += steps;
        if (!texts[g]) continue;
        if (o.regs_grow) {
            pg_buf t = {0};
            if (ptx_regs_tighten_text(texts[g], strlen(texts[g]), &t)) { free(texts[g]); texts[g] = t.data; }
            else pg_buf_free(&t);
        }
        if (o.plan) {   /* every comment is one of the plan's lines, cut at comment_max */
            static const char *const lines[] = {" unsigned i = blockIdx.x;", " if (i < n) a[i] = 0.0f; // store",
                                                " unsigned i = blockIdx.x * 2;"};
            for (const char *p = strstr(texts[g], "\t//"); p; p = strstr(p + 1, "\t//")) {
                const char *t = p + 3, *e = strchr(t, '\n');
                size_t k = e ? (size_t)(e - t) : strlen(t);
                bool ok = false;
                for (int i = 0; i < 3; i++) {
                    size_t want = strlen(lines[i]) < (size_t)o.comment_max ? strlen(lines[i]) : (size_t)o.comment_max;
                    ok = ok || (k == want && !strncmp(t, lines[i], k));
                }
                plan_walk_comments++;
                CHECK(ok, "walk %d: the comment '%.*s' quotes the plan", g, (int)k, t);
            }
        }
        finished += ok_end;
        char why[512];
        if (read_before_write(texts[g], why, sizeof why)) {
            rbw++;
            if (rbw <= 3) fprintf(stderr, "walk %d: %s\n%s\n", g, why, texts[g]);
        }
        if (validate_verbose(texts[g], strlen(texts[g]), why)) valid++;
        else if (valid + 3 > g) fprintf(stderr, "generation %d invalid: %s\n%s\n", g, why, texts[g]);
    }
    CHECK(dead == 0, "%d random walks hit a dead state", dead);
    CHECK(end_bytes_mismatches == 0, "dec_end_bytes differs from a recount at %d of %d walk steps", end_bytes_mismatches, end_bytes_checked);
    CHECK(end_bytes_owing > end_bytes_checked / 10, "the walks owed labels or blocks at %d of %d steps", end_bytes_owing, end_bytes_checked);
    CHECK(rbw == 0, "%d walks read a register before writing it while one of its type was written", rbw);
    CHECK(plan_walk_comments > 0, "the walks under a plan wrote comments (%d)", plan_walk_comments);
    CHECK(mask_mismatches == 0, "%d masks of the random walks differ from dec_mask_reference", mask_mismatches);
    CHECK(finished == NGEN, "%d/%d generations reached the end", finished, NGEN);
    CHECK(valid == NGEN, "%d/%d generations pass ptxgen check", valid, NGEN);
    printf("random walks%s: %d generations, %d valid, %d finished, %.0f tokens on average\n", named ? " (named registers)" : "", NGEN, valid, finished,
           (double)total_steps / NGEN);
    /* ptxas, batched: write every module, then compile each */
    char ptxas[512];
    if (!ptx_ptxas_find(ptxas, sizeof ptxas) || !have_dir) {
        printf("SKIPPED: ptxas not found; random walks checked by the validator only\n");
    } else {
        int pass = 0, ran = 0;
        for (int g = 0; g < NGEN; g++) {
            if (!texts[g]) continue;
            char path[600];
            snprintf(path, sizeof path, "%s/g%03d.ptx", dir, g);
            pg_diag_sink d = {0};
            if (pg_write_file_atomic(path, texts[g], strlen(texts[g]), &d) != PG_OK) continue;
            ptxas_report r;
            memset(&r, 0, sizeof r);
            pg_status st = ptx_ptxas_run(path, NULL, false, &r, &d);
            ran++;
            if (st == PG_OK && r.ok) pass++;
            else if (ran - pass <= 3) fprintf(stderr, "ptxas rejects generation %d:\n%s\n--- log:\n%s\n", g, texts[g], r.log ? r.log : "");
            ptx_ptxas_report_free(&r);
            unlink(path);
        }
        CHECK(pass == ran && ran == NGEN, "ptxas accepted %d/%d", pass, ran);
        printf("ptxas: %d/%d generations accepted\n", pass, ran);
        /* how often the walks meet mov pack/unpack {..} and block registers (test_target_walks makes sure of them) */
        int fills = 0, packs_imm = 0, inner_regs = 0;
        for (int g = 0; g < NGEN; g++)
            for (const char *p = texts[g] ? texts[g] : ""; (p = strstr(p, "\tmov.b")); p++) {
                const char *e = strchr(p, '\n'), *br = strchr(p, '{');
                if (!e || !br || br > e) continue;
                fills++;
                for (const char *q = br + 1; q < e && *q != '}'; q++) if ((q[-1] == '{' || q[-1] == ' ') && (*q == '-' || (*q >= '0' && *q <= '9'))) { packs_imm++; break; }
            }
        for (int g = 0; g < NGEN; g++)
            for (const char *p = texts[g] ? texts[g] : ""; (p = strstr(p, "\t\t.reg .")); p++) inner_regs++;
        printf("walks: %d mov pack/unpack {..} (%d with an immediate element), %d registers declared in blocks\n", fills, packs_imm,
               inner_regs);
        if (named) {   /* the walks did declare named registers */
            int nnamed = 0;
            for (int g = 0; g < NGEN; g++)
                for (const char *p = texts[g] ? texts[g] : ""; (p = strstr(p, "\t.reg .")); p++) {
                    const char *e = strchr(p, '\n');
                    nnamed += e && e[-1] == ';' && e[-2] != '>';
                }
            int blocks = 0, inner = 0;   /* nested blocks, and registers declared inside them (two tabs or more) */
            for (int g = 0; g < NGEN; g++) {
                for (const char *p = texts[g] ? texts[g] : ""; (p = strstr(p, "\t{\n")); p++) blocks++;
                for (const char *p = texts[g] ? texts[g] : ""; (p = strstr(p, "\t\t.reg .")); p++) inner++;
            }
            printf("named registers declared by the walks: %d; nested blocks %d, registers declared inside them %d\n", nnamed, blocks,
                   inner);
            CHECK(nnamed >= NGEN / 10, "the named walks declared %d named registers", nnamed);
            CHECK(blocks >= NGEN / 10, "the named walks opened %d blocks", blocks);
        }
    }
    for (int g = 0; g < NGEN; g++) free(texts[g]);
    free(texts);
    if (have_dir) rmdir(dir);
}

/* Feed text byte by byte (single-byte tokens are ids 1..127). */
static size_t feed_text(dec_state *s, const char *t, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (dec_advance(s, (unsigned char)t[i], NULL) != PG_OK) return i;
    return n;
}

static void test_corpus(const dec_vocab *v) {
    DIR *dd = opendir("corpus");
    if (!dd) { printf("SKIPPED: no corpus/ directory (run from the repository root)\n"); return; }
    int total = 0, ok = 0;
    struct dirent *e;
    while ((e = readdir(dd))) {
        if (e->d_name[0] == '.') continue;
        char path[600];
        snprintf(path, sizeof path, "corpus/%s/kernel.ptx", e->d_name);
        ptx_module *m = NULL;
        pg_diag_sink d = {0};
        if (ptx_parse_file(path, &m, &d) != PG_OK) { ptx_module_free(m); continue; }
        pg_buf b = {0};
        ptx_print(m, &b);
        ptx_module_free(m);
        dec_opts o = {0};
        o.arch = "sm_80";
        o.max_statements = 5000;
        o.comment_max = PTX_LITERATE_LINE_MAX;   /* the kernels' own full-line comments print as comment lines */
        dec_state *s = NULL;
        if (dec_new(v, &o, &s, &d) != PG_OK) { pg_buf_free(&b); continue; }
        total++;
        size_t at = feed_text(s, b.data, b.len);
        if (at == b.len && dec_done(s)) ok++;
        else {
            size_t ls = at, le = at;
            while (ls > 0 && b.data[ls - 1] != '\n') ls--;
            while (le < b.len && b.data[le] != '\n') le++;
            printf("  corpus %s: outside the subset at '%.*s'\n", e->d_name, (int)(le - ls), b.data + ls);
        }
        dec_free(s);
        pg_buf_free(&b);
    }
    closedir(dd);
    printf("corpus kernels accepted in full: %d/%d (%.0f%%)\n", ok, total, total ? 100.0 * ok / total : 0.0);
    CHECK(total > 0 && ok * 10 >= total * 9, "corpus acceptance %d/%d is below 90%%", ok, total);
}

#define HEAD_TEXT ".version 8.0\n.target sm_80\n.address_size 64\n\n.visible .entry k(\n\t.param .u64 a,\n\t.param .u32 n\n)\n{\n" \
                  "\t.reg .pred %p<3>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n\t.reg .f32 %f<4>;\n"
static const char *HEAD = HEAD_TEXT;
#define HEAD_RBW ".version 8.0\n.target sm_80\n.address_size 64\n\n.visible .entry k(\n\t.param .u64 x,\n\t.param .u32 n\n)\n{\n" \
                 "\t.reg .pred %p<3>;\n\t.reg .b32 %r<5>;\n\t.reg .b64 %rd<20>;\n\t.reg .f32 %f<5>;\n"

static dec_state *at_body(const dec_vocab *v) {
    dec_opts o = {0};
    dec_state *s = NULL;
    pg_diag_sink d = {0};
    dec_new(v, &o, &s, &d);
    size_t n = strlen(HEAD);
    if (s && feed_text(s, HEAD, n) != n) { dec_free(s); return NULL; }
    return s;
}

/* Does the recognizer accept `line` (appended after HEAD) in full? */
static bool accepts_line(const dec_vocab *v, const char *line) {
    dec_state *s = at_body(v);
    if (!s) return false;
    pg_diag_sink d = {0};
    bool ok = dec_advance_text(s, line, strlen(line), &d) == PG_OK;
    dec_free(s);
    return ok;
}

/* dec_opts.regs_grow: a numbered register's index may pass its declared count, up to 2N + 32 (N = 8
 * in HEAD: %r47 is the last), never with a leading zero; without it only indices below N.  The
 * text then validates once ptx_regs_tighten_text has raised the count. */
static void test_regs_grow(const dec_vocab *v) {
    static const struct { const char *line; bool strict, grow; } cases[] = {
        {"\tmov.u32 %r7, 0;\n", true, true},   {"\tmov.u32 %r8, 0;\n", false, true},
        {"\tmov.u32 %r47, 0;\n", false, true}, {"\tmov.u32 %r48, 0;\n", false, false},
        {"\tmov.u32 %r08, 0;\n", false, false}, {"\tadd.s32 %r1, %r30, %r9;\n", false, true},
        {"\tsetp.eq.s32 %p9, %r1, 0;\n", false, true},   /* %p<3>: up to %p37 */
    };
    pg_diag_sink d = {0};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (int grow = 0; grow < 2; grow++) {
            dec_opts o = {0};
            o.regs_grow = grow;
            dec_state *s = NULL;
            CHECK(dec_new(v, &o, &s, &d) == PG_OK, "dec_new");
            if (!s) return;
            bool ok = feed_text(s, HEAD, strlen(HEAD)) == strlen(HEAD) &&
                      dec_advance_text(s, cases[i].line, strlen(cases[i].line), &d) == PG_OK;
            CHECK(ok == (grow ? cases[i].grow : cases[i].strict), "regs_grow %d: '%.*s' %s", grow,
                  (int)strlen(cases[i].line) - 1, cases[i].line, ok ? "accepted" : "refused");
            dec_free(s);
        }
    /* a grown body validates after tightening, not before */
    const char *grown = HEAD_TEXT "\tmov.u32 %r30, 1;\n\tld.param.u64 %rd9, [a];\n\tst.global.u32 [%rd9], %r30;\n\tret;\n}\n";
    char why[512];
    CHECK(!validate_verbose(grown, strlen(grown), why), "indices past the counts do not validate as written");
    pg_buf t = {0};
    CHECK(ptx_regs_tighten_text(grown, strlen(grown), &t) && t.data && strstr(t.data, "%r<31>;") && strstr(t.data, "%rd<10>;") &&
              validate_verbose(t.data, t.len, why),
          "tightened: %s", t.data ? t.data : "(null)");
    pg_buf_free(&t);
}

/* Plan comments (docs/LITERATE.md): `\t//TEXT\n` before any body statement when
 * comment_max allows it, never otherwise; bounded, printable ASCII, not empty, none in
 * the closing mode. */
static void test_comments(const dec_vocab *v) {
    pg_diag_sink d = {0};
    for (int allow = 0; allow < 2; allow++) {
        dec_opts o = {0};
        o.comment_max = allow ? 20 : 0;
        dec_state *s = NULL;
        CHECK(dec_new(v, &o, &s, &d) == PG_OK, "dec_new");
        size_t n = strlen(HEAD);
        CHECK(feed_text(s, HEAD, n) == n, "head accepted");
        const char *c1 = "\t// i = blockIdx.x;\n";
        dec_state *t = NULL;
        dec_clone(s, &t);
        CHECK((dec_advance_text(t, c1, strlen(c1), &d) == PG_OK) == (allow == 1), "a comment line is accepted iff comment_max > 0 (%d)", allow);
        if (allow) {
            const char *rest = "\tmov.u32 %r1, %ctaid.x;\n\t// done\n\tret;\n}\n";
            CHECK(dec_advance_text(t, rest, strlen(rest), &d) == PG_OK && dec_done(t), "comments between and before ret, then the end");
            size_t len;
            const char *txt = dec_text(t, &len);
            char why[256];
            CHECK(validate_verbose(txt, len, why), "the literate module validates: %s", why);
        }
        dec_free(t);
        if (allow) {
            const char *bad[] = {"\t//\n", "\t// 12345678901234567890\n", "\t// a\tb\n", "\t// \xe4\xb8\xad\n", "\t/ x\n", NULL};
            for (int i = 0; bad[i]; i++) {
                dec_clone(s, &t);
                CHECK(dec_advance_text(t, bad[i], strlen(bad[i]), &d) != PG_OK, "rejected comment %d", i);
                dec_free(t);
            }
            /* the longest allowed: exactly comment_max bytes after the slashes */
            dec_clone(s, &t);
            const char *longest = "\t// 3456789012345678901\n";   /* 20 bytes after the slashes */
            CHECK(dec_advance_text(t, longest, strlen(longest), &d) == PG_OK, "comment_max bytes are allowed");
            dec_free(t);
            /* closing mode: no comment, only the shortest end */
            dec_clone(s, &t);
            dec_force_end(t);   /* one more statement, then the closing mode */
            CHECK(dec_advance_text(t, "\tmov.u32 %r1, %ctaid.x;\n", 24, &d) == PG_OK, "the statement the closing mode leaves");
            CHECK(dec_advance_text(t, "\t// x\n", 6, &d) != PG_OK, "no comment in the closing mode");
            dec_free(t);
        }
        dec_free(s);
    }
}

/* The end of both prefix-exhaustion tests: t stands after a prefix whose every completion by 'm'
 * is taken, so 'm' is refused, `other` (another byte and the rest of a declaration) is accepted,
 * and the mask has no 'm' token (checked against the reference walk when `reference`). */
static void exhausted_tail(const dec_state *t, const char *other, const char *nth, bool reference, int nv) {
    pg_diag_sink d = {0};
    dec_state *u = NULL;
    dec_clone(t, &u);
    CHECK(dec_advance_text(u, "m", 1, &d) != PG_OK, "the %s m leads nowhere: refused", nth);
    dec_free(u);
    dec_clone(t, &u);
    CHECK(dec_advance_text(u, other, strlen(other), &d) == PG_OK, "another %s byte is fine", nth);
    dec_free(u);
    uint32_t *bits = calloc((size_t)(nv + 31) / 32, sizeof *bits);
    CHECK(dec_mask(t, bits) > 0 && !(bits['m' >> 5] >> ('m' & 31) & 1), "the mask agrees: no 'm' token");
    if (reference) {
        int before = mask_mismatches;
        mask_checked(t, bits, nv);
        CHECK(mask_mismatches == before, "the mask is the reference's");
    }
    free(bits);
}

/* Found by the Qwen base on a suite task (2026-12-04): 27 registers named %mmmmmmmmmmm and its 26
 * twelve-letter extensions, then the 11-letter name typed again, left no legal byte (E901).  Typing
 * that 11th letter must be refused while it can still be; dec_mask agrees with feed. */
static void test_exhausted_prefix(const dec_vocab *v, int nv) {
    dec_state *s = at_body(v);
    CHECK(s != NULL, "body");
    if (!s) return;
    pg_diag_sink d = {0};
    char line[64];
    bool ok = true;
    snprintf(line, sizeof line, "\t.reg .b32 %%mmmmmmmmmmm<1>;\n");
    ok = ok && dec_advance_text(s, line, strlen(line), &d) == PG_OK;
    for (char x = 'a'; x <= 'z' && ok; x++) {
        snprintf(line, sizeof line, "\t.reg .b32 %%mmmmmmmmmmm%c<1>;\n", x);
        ok = dec_advance_text(s, line, strlen(line), &d) == PG_OK;
    }
    CHECK(ok, "27 declarations are accepted");
    dec_state *t = NULL;
    dec_clone(s, &t);
    const char *ten = "\t.reg .b32 %mmmmmmmmmm";
    CHECK(dec_advance_text(t, ten, strlen(ten), &d) == PG_OK, "ten letters of the prefix are fine");
    exhausted_tail(t, "n<2>;\n", "eleventh", false, nv);
    dec_free(t);
    dec_free(s);
}

/* dec_end_bytes: what the shortest end still has to write, owed labels included, so that gen's reserve for
 * dec_force_end covers it (2026-12-06: a kernel owing a dozen long labels ran out of tokens while paying
 * them and was cut, unclosed). */
static void test_end_bytes(const dec_vocab *v) {
    dec_state *s = at_body(v);
    CHECK(s != NULL, "body");
    if (!s) return;
    pg_diag_sink d = {0};
    size_t base = dec_end_bytes(s);
    CHECK(base == 8, "nothing owed: ret and the brace, 8 bytes (%zu)", base);
    const char *br = "\tbra.uni LOOP_DONE_AT_END;\n";
    bool ok = dec_advance_text(s, br, strlen(br), &d) == PG_OK;
    CHECK(ok && dec_end_bytes(s) == base + strlen("LOOP_DONE_AT_END:\n"), "an owed label adds its definition (%zu)", dec_end_bytes(s));
    const char *def = "LOOP_DONE_AT_END:\n";
    ok = ok && dec_advance_text(s, def, strlen(def), &d) == PG_OK;
    CHECK(ok && dec_end_bytes(s) == base, "a paid label costs nothing more (%zu)", dec_end_bytes(s));
    dec_free(s);
}

/* Feed a module byte by byte with dec_opts (mask checks every `every` bytes, 0: none); true when
 * accepted in full.  On failure prints where. */
static bool walk_module(const dec_vocab *v, int nv, const dec_opts *o, const char *what, const char *t, size_t n, int every) {
    dec_state *s = NULL;
    pg_diag_sink d = {0};
    if (dec_new(v, o, &s, &d) != PG_OK) return false;
    uint32_t *bits = every ? calloc((size_t)(nv + 31) / 32, 4) : NULL;
    /* the header is the one the constraint forces for its arch (the files' .version may differ) */
    const char *body = strstr(t, ".address_size 64\n\n");
    if (body) {
        pg_buf h = {0};
        dec_forced_text(s, &h);
        bool hok = dec_advance_text(s, h.data, h.len, &d) == PG_OK;
        pg_buf_free(&h);
        if (!hok) { free(bits); dec_free(s); return false; }
        body += strlen(".address_size 64\n\n");
        n -= (size_t)(body - t);
        t = body;
    }
    size_t at = 0;
    for (; at < n; at++) {
        if (every && at % (size_t)every == 0) mask_checked(s, bits, nv);
        if (dec_advance(s, (unsigned char)t[at], NULL) != PG_OK) break;
    }
    bool ok = at == n && dec_done(s);
    if (!ok) {
        size_t ls = at, le = at;
        while (ls > 0 && t[ls - 1] != '\n') ls--;
        while (le < n && t[le] != '\n') le++;
        printf("  %s: stops at '%.*s'\n", what, (int)(le - ls), t + ls);
    }
    free(bits);
    dec_free(s);
    return ok;
}

static bool print_file(const char *path, bool named, const char *plan_path, pg_buf *out) {
    ptx_module *m = NULL;
    pg_diag_sink d = {0};
    if (ptx_parse_file(path, &m, &d) != PG_OK) { ptx_module_free(m); return false; }
    if (named) {
        char *plan = NULL;
        size_t plen = 0;
        if (!plan_path || pg_read_file(plan_path, 1 << 20, &plan, &plen, NULL) != PG_OK) plan = NULL;
        pg_status st = ptx_regs_name(m, plan, plen, &d);
        free(plan);
        if (st != PG_OK) { ptx_module_free(m); return false; }
    }
    ptx_print(m, out);
    ptx_module_free(m);
    return true;
}

/* Comments that quote the plan (dec_opts.plan): a comment is a whole plan line as the literate
 * format writes it (" " + the line, blanks collapsed), never a prefix of one or other text; a line
 * that is also the prefix of another may end there; once one line is left the constraint forces
 * the rest of it; a plan without such lines admits no comment.  Then every corpus kernel (its
 * comments are lines of its plan.cu) is accepted with its own plan exactly when it is without one,
 * the masks agree with the reference walk, and another kernel's plan refuses its comments. */
static void test_plan_comments(const dec_vocab *v, int nv) {
    pg_diag_sink d = {0};
    const char *plan = "// k: a test plan\nextern \"C\" __global__ void k(float* a, unsigned n)\n{\n"
                       "    unsigned i = blockIdx.x;\n    if (i < n)   a[i] = 0.0f;\n    unsigned i = blockIdx.x * 2;\n}\n";
    dec_opts o = {0};
    o.comment_max = PTX_LITERATE_LINE_MAX;
    o.plan = plan;
    dec_state *s = NULL, *t = NULL;
    CHECK(dec_new(v, &o, &s, &d) == PG_OK, "dec_new with a plan");
    size_t n = strlen(HEAD);
    CHECK(feed_text(s, HEAD, n) == n, "head accepted");
    const char *good[] = {"\t// unsigned i = blockIdx.x;\n", "\t// unsigned i = blockIdx.x * 2;\n",
                          "\t// if (i < n) a[i] = 0.0f;\n", "\t// // k: a test plan\n", NULL};
    for (int i = 0; good[i]; i++) {
        dec_clone(s, &t);
        CHECK(dec_advance_text(t, good[i], strlen(good[i]), &d) == PG_OK, "plan line %d accepted", i);
        dec_free(t);
    }
    const char *bad[] = {"\t// unsigned i\n", "\t// foo\n", "\t//unsigned i = blockIdx.x;\n", "\t// if (i < n)   a[i] = 0.0f;\n",
                         "\t// unsigned i = blockIdx.x; \n", "\t// }\n", "\t// extern \"C\" __global__ void k(float* a, unsigned n)\n", NULL};
    for (int i = 0; bad[i]; i++) {
        dec_clone(s, &t);
        CHECK(dec_advance_text(t, bad[i], strlen(bad[i]), &d) != PG_OK, "not a plan line: %d refused", i);
        dec_free(t);
    }
    dec_clone(s, &t);
    pg_buf f = {0};
    CHECK(dec_advance_text(t, "\t// if", 6, &d) == PG_OK && dec_forced_text(t, &f) > 0 && f.data &&
          !strcmp(f.data, " (i < n) a[i] = 0.0f;\n"), "the only line left is forced (got '%s')", f.data ? f.data : "");
    pg_buf_free(&f);
    dec_free(t);
    dec_free(s);
    o.plan = "extern \"C\" __global__ void k()\n{\n}\n";
    CHECK(dec_new(v, &o, &s, &d) == PG_OK && feed_text(s, HEAD, n) == n, "a plan without statements");
    dec_clone(s, &t);
    CHECK(dec_advance_text(t, "\t/", 2, &d) != PG_OK, "no comment when the plan has no line to quote");
    dec_free(t);
    dec_free(s);

    DIR *dd = opendir("corpus");
    if (!dd) { printf("SKIPPED: no corpus/ directory (run from the repository root)\n"); return; }
    int total = 0, same = 0, ok = 0, refused = 0, commented = 0, capped = 0, before = mask_mismatches;
    char *other = test_slurp("corpus/vecadd/plan.cu");
    struct dirent *e;
    while ((e = readdir(dd))) {
        if (e->d_name[0] == '.') continue;
        char path[600], pp[600];
        snprintf(path, sizeof path, "corpus/%s/kernel.ptx", e->d_name);
        snprintf(pp, sizeof pp, "corpus/%s/plan.cu", e->d_name);
        char *pl = test_slurp(pp);
        pg_buf b = {0};
        if (pl && other && print_file(path, false, NULL, &b)) {
            dec_opts q = {0};
            q.arch = "sm_80";
            q.max_statements = 5000;
            q.comment_max = PTX_LITERATE_LINE_MAX;
            bool a = walk_module(v, nv, &q, e->d_name, b.data, b.len, 0);
            q.plan = pl;
            bool c = walk_module(v, nv, &q, e->d_name, b.data, b.len, 13);
            q.plan_repeat_max = 4;   /* the targets head a straight line at most 4 times: nothing changes */
            capped += walk_module(v, nv, &q, e->d_name, b.data, b.len, 17) == c;
            total++;
            same += a == c;
            ok += c;
            if (a && strcmp(e->d_name, "vecadd") && strstr(b.data, "\t// ")) {   /* its comments are not vecadd's lines */
                commented++;
                q.plan = other;
                refused += !walk_module(v, nv, &q, "another plan", b.data, b.len, 0);
            }
        }
        pg_buf_free(&b);
        free(pl);
    }
    closedir(dd);
    free(other);
    printf("corpus kernels accepted with their plan's lines as the only comments: %d/%d (the same as without: %d/%d); "
           "with vecadd's plan %d/%d refused\n", ok, total, same, total, refused, commented);
    CHECK(total == 50 && same == total && ok * 10 >= total * 9, "plan comments: %d/%d accepted, %d/%d as without a plan", ok, total, same, total);
    CHECK(commented > 0 && refused == commented, "another kernel's plan refuses the comments (%d/%d)", refused, commented);
    CHECK(capped == total, "plan_repeat_max 4 keeps every corpus kernel's verdict (%d/%d)", capped, total);
    CHECK(mask_mismatches == before, "%d masks under a plan differ from the reference", mask_mismatches - before);
}

/* dec_opts.plan_repeat_max: a straight plan line (kernel body, outside loops) heads at most N
 * comments, counted across the kernel; a loop body's line and a __device__ function's are not
 * capped; when every line is used up no comment may start, and the masks say so; dec_new refuses
 * 16.  (test_plan_comments: every corpus kernel keeps its verdict under N = 4.) */
static void test_plan_repeat_max(const dec_vocab *v, int nv) {
    pg_diag_sink d = {0};
    const char *plan = "__device__ float f(float x)\n{\n    return x * 2.0f;\n}\n"
                       "extern \"C\" __global__ void k(float* a, unsigned n)\n{\n    unsigned i = blockIdx.x;\n"
                       "    for (unsigned j = 0; j < n; j++) {\n        a[j] = f(a[j]);\n    }\n}\n";
    dec_opts o = {0};
    o.comment_max = PTX_LITERATE_LINE_MAX;
    o.plan = plan;
    o.plan_repeat_max = 2;
    dec_state *s = NULL, *t = NULL;
    CHECK(dec_new(v, &o, &s, &d) == PG_OK, "dec_new with a plan and plan_repeat_max 2");
    size_t n = strlen(HEAD);
    CHECK(feed_text(s, HEAD, n) == n, "head accepted");
    const char *straight = "\t// unsigned i = blockIdx.x;\n", *loop = "\t// a[j] = f(a[j]);\n", *dev = "\t// return x * 2.0f;\n";
    dec_clone(s, &t);
    CHECK(dec_advance_text(t, straight, strlen(straight), &d) == PG_OK, "a straight line, once");
    CHECK(dec_advance_text(t, straight, strlen(straight), &d) == PG_OK, "a straight line, twice");
    CHECK(dec_advance_text(t, straight, strlen(straight), &d) != PG_OK, "a straight line, a third time: refused");
    CHECK(dec_advance_text(t, "\t// u", 6, &d) != PG_OK, "not even its first bytes");
    for (int i = 0; i < 20; i++)
        CHECK(dec_advance_text(t, loop, strlen(loop), &d) == PG_OK && dec_advance_text(t, dev, strlen(dev), &d) == PG_OK,
              "a loop's line and a device function's line: no limit (%d)", i);
    dec_free(t);
    dec_free(s);
    /* one straight line only: used up, no comment may start, and the mask agrees */
    o.plan = "extern \"C\" __global__ void k(float* a)\n{\n    a[0] = 1.0f;\n}\n";
    o.plan_repeat_max = 1;
    CHECK(dec_new(v, &o, &s, &d) == PG_OK && feed_text(s, HEAD, n) == n, "a one-line plan");
    const char *only = "\t// a[0] = 1.0f;\n";
    CHECK(dec_advance_text(s, only, strlen(only), &d) == PG_OK, "its line once");
    dec_clone(s, &t);
    CHECK(dec_advance_text(t, "\t/", 2, &d) != PG_OK, "no comment once every line is used up");
    dec_free(t);
    uint32_t *bits = calloc((size_t)(nv + 31) / 32, 4);
    CHECK(dec_advance_text(s, "\t", 1, &d) == PG_OK, "a statement may start");
    dec_mask(s, bits);
    CHECK(!(bits['/' >> 5] >> ('/' & 31) & 1), "the mask refuses '/' too");
    mask_checked(s, bits, nv);
    free(bits);
    dec_free(s);
    o.plan_repeat_max = 16;
    CHECK(dec_new(v, &o, &s, &d) == PG_ERR_USAGE && !s, "plan_repeat_max 16 is refused");
}

/* The named register style (docs/LITERATE.md): every corpus kernel as `ptxgen fmt --regs named --plan`
 * prints it is accepted with dec_opts.regs_named exactly when its numbered form is accepted without
 * it (and with it: the numbered style stays admitted); so are named synth samples
 * (tests/golden/decode/named/, `ptxgen synth --regs named`).  Masks of the named walks agree
 * with the reference walk. */
static void test_named_kernels(const dec_vocab *v, int nv) {
    DIR *dd = opendir("corpus");
    if (!dd) { printf("SKIPPED: no corpus/ directory (run from the repository root)\n"); return; }
    int total = 0, same = 0, named_ok = 0, before = mask_mismatches;
    struct dirent *e;
    while ((e = readdir(dd))) {
        if (e->d_name[0] == '.') continue;
        char path[600], plan[600];
        snprintf(path, sizeof path, "corpus/%s/kernel.ptx", e->d_name);
        snprintf(plan, sizeof plan, "corpus/%s/plan.cu", e->d_name);
        pg_buf num = {0}, nam = {0};
        if (print_file(path, false, NULL, &num) && print_file(path, true, plan, &nam)) {
            dec_opts o = {0};
            o.arch = "sm_80";
            o.max_statements = 5000;
            o.comment_max = PTX_LITERATE_LINE_MAX;
            bool a = walk_module(v, nv, &o, e->d_name, num.data, num.len, 0);
            o.regs_named = 1;
            bool b = walk_module(v, nv, &o, e->d_name, nam.data, nam.len, 29);
            bool c = walk_module(v, nv, &o, e->d_name, num.data, num.len, 0);
            total++;
            same += a == b && a == c;
            named_ok += b;
            if (a != b || a != c) printf("  corpus %s: numbered %d, named %d, numbered with regs_named %d\n", e->d_name, a, b, c);
        }
        pg_buf_free(&num);
        pg_buf_free(&nam);
    }
    closedir(dd);
    printf("named corpus kernels accepted in full: %d/%d (the numbered ones: the same kernels in %d/%d)\n", named_ok, total, same, total);
    CHECK(total == 50 && same == total && named_ok * 10 >= total * 9, "named corpus: %d/%d accepted, %d/%d agree with numbered",
          named_ok, total, same, total);
    /* the golden named kernel and the named synth samples */
    const char *files[] = {"tests/golden/decode/named/synth_reduce.ptx", "tests/golden/decode/named/synth_scan.ptx",
                           "tests/golden/decode/named/synth_smallmat.ptx", "tests/golden/decode/named/synth_stencil2d.ptx",
                           "tests/golden/decode/named/blocks.ptx", NULL};
    for (int i = 0; files[i]; i++) {
        pg_buf b = {0};
        bool parsed = print_file(files[i], false, NULL, &b);
        dec_opts o = {0};
        o.arch = "sm_80";
        o.max_statements = 5000;
        o.comment_max = PTX_LITERATE_LINE_MAX;
        o.regs_named = 1;
        CHECK(parsed && strstr(b.data, ";\n") && walk_module(v, nv, &o, files[i], b.data, b.len, 7), "%s accepted with named registers", files[i]);
        o.regs_named = 0;
        CHECK(!walk_module(v, nv, &o, files[i], b.data, b.len, 0), "%s refused without regs_named", files[i]);
        pg_buf_free(&b);
    }
    CHECK(mask_mismatches == before, "%d masks of named kernels differ from the reference", mask_mismatches - before);
}

#define HEADN_TEXT ".version 8.0\n.target sm_80\n.address_size 64\n\n.visible .entry k(\n\t.param .u64 a,\n\t.param .u32 n\n)\n{\n" \
                   "\t.reg .b32 %acc;\n\t.reg .pred %p<3>;\n\t.reg .b64 %rd<4>;\n\t.reg .f32 %x_g;\n"

static bool named_accepts(const dec_vocab *v, const char *line) {
    dec_opts o = {0};
    o.regs_named = 1;
    dec_state *s = NULL;
    pg_diag_sink d = {0};
    if (dec_new(v, &o, &s, &d) != PG_OK) return false;
    const char *h = HEADN_TEXT;
    bool ok = dec_advance_text(s, h, strlen(h), &d) == PG_OK && dec_advance_text(s, line, strlen(line), &d) == PG_OK;
    dec_free(s);
    return ok;
}

/* A named-style state (dec_opts.regs_named, max_statements) after `text`; false when dec_new fails or
 * the text is refused.  *s is set either way (NULL when dec_new failed; the caller frees it). */
static bool named_state(const dec_vocab *v, int max_statements, const char *text, dec_state **s, pg_diag_sink *d) {
    dec_opts o = {0};
    o.regs_named = 1;
    o.max_statements = max_statements;
    *s = NULL;
    CHECK(dec_new(v, &o, s, d) == PG_OK, "dec_new");
    return *s && dec_advance_text(*s, text, strlen(text), d) == PG_OK;
}

/* What the named style admits and what it refuses. */
static void test_named_rules(const dec_vocab *v, int nv) {
    (void)nv;
    CHECK(named_accepts(v, ""), "the named test header");
    CHECK(!accepts_line(v, "\t.reg .b32 %acc;"), "no named declaration without regs_named");
    CHECK(named_accepts(v, "\tmov.u32 %acc, %tid.x;\n\tmov.f32 %x_g, 0f00000000;\n\tadd.f32 %x_g, %x_g, %x_g;\n"), "named operands of their types");
    /* read before write applies to named registers too: %x_g unwritten while %acc (a .b32 the .f32 slot takes) is */
    CHECK(!named_accepts(v, "\tmov.u32 %acc, %tid.x;\n\tadd.f32 %x_g, %x_g, %x_g;\n"), "a named register read before any write");
    CHECK(named_accepts(v, "\tmov.u32 %acc, 1;\n\t.reg .b32 %v2;\n\tadd.s32 %v2, %acc, 1;\n"), "a declaration mid-body, digits in a name");
    CHECK(named_accepts(v, "\t.reg .b32 %laneid_;\n\tmov.u32 %laneid_, %laneid;\n"), "%%laneid_ beside %%laneid");
    CHECK(named_accepts(v, "\t.reg .u32 %r1;\n\t.reg .b64 %p_A;\n\t.reg .f32 %S3;\n\t.reg .b32 %add_;\n\t.reg .b32 %rdx;\n"),
          "%%r1 without %%r<N>, upper case, '_', %%add_, %%rdx beside %%rd<4>");
    CHECK(named_accepts(v, "\t.reg .f32 %a;\n\t.reg .f32 %b;\n\tld.global.v2.f32 {%a, %b}, [%rd1];\n"), "a vector of named registers");
    CHECK(named_accepts(v, "\t.reg .pred %done;\n\tsetp.ge.u32 %done, %acc, 4;\n\t@%done bra L;\n\t@!%done ret;\nL:\n\tret;\n}\n"),
          "a named predicate as guard");
    CHECK(named_accepts(v, "\t.reg .b64 %acc_g;\n\tld.param.u64 %acc_g, [a];\n\tld.global.u32 %acc, [%acc_g+4];\n"),
          "a named address register");
    CHECK(named_accepts(v, "\t.reg .b32 %r<4>;\n\tadd.s32 %r3, %acc, %r1;\n"), "numbered and named together");
    /* operands */
    CHECK(!named_accepts(v, "\tmov.u32 %acc, %nope"), "undeclared name");
    CHECK(!named_accepts(v, "\tmov.u32 %acc, %ac;"), "a prefix of a name is no register");
    CHECK(!named_accepts(v, "\tmov.u32 %acc, %acc1"), "a name and a digit is no register");
    CHECK(!named_accepts(v, "\tadd.s32 %x_g"), "a named register of the wrong type");
    CHECK(!named_accepts(v, "\t@%acc bra"), "a .b32 register as guard");
    CHECK(!named_accepts(v, "\t.reg .f32 %c;\n\tld.global.v2.f32 {%x_g, %acc"), "vector elements of two types");
    /* declarations */
    CHECK(!named_accepts(v, "\t.reg .b32 %acc;"), "a name declared twice");
    CHECK(!named_accepts(v, "\t.reg .f32 %acc;"), "a name declared twice, another type");
    CHECK(!named_accepts(v, "\t.reg .b32 %acc<2>"), "a numbered prefix equal to a name");
    CHECK(!named_accepts(v, "\t.reg .b64 %rd1"), "%%rd1 against %%rd<4>");
    CHECK(!named_accepts(v, "\t.reg .b64 %rd12x"), "%%rd12x against %%rd<4>");
    CHECK(!named_accepts(v, "\t.reg .b32 %v1;\n\t.reg .b32 %v<"), "%%v<N> against %%v1");
    CHECK(!named_accepts(v, "\t.reg .b32 %v1x;\n\t.reg .b32 %v<"), "%%v<N> against %%v1x");
    CHECK(named_accepts(v, "\t.reg .b32 %vx1;\n\t.reg .b32 %v<4>;\n"), "%%v<N> beside %%vx1");
    const char *sregs[] = {"tid", "ntid", "ctaid", "laneid", "clock", "pm", "smid", "warpid", NULL};
    for (int i = 0; sregs[i]; i++) {
        char line[64];
        snprintf(line, sizeof line, "\t.reg .b32 %%%s;", sregs[i]);
        CHECK(!named_accepts(v, line), "the special register name %%%s", sregs[i]);
    }
    CHECK(!named_accepts(v, "\t.reg .b32 %add;"), "an opcode as a name");
    CHECK(!named_accepts(v, "\t.reg .b32 %1x"), "a name starts with a letter");
    CHECK(!named_accepts(v, "\t.reg .b32 %_x"), "a name starts with a letter (not '_')");
    CHECK(!named_accepts(v, "\t.reg .b32 %;"), "an empty name");
    CHECK(!named_accepts(v, "\t.reg .b32 %a$"), "no '$' in names");
    CHECK(named_accepts(v, "\t.reg .b32 %abcdefghijklmnopqrstuvwxyzABCDE;\n"), "a 31-byte name");
    CHECK(!named_accepts(v, "\t.reg .b32 %abcdefghijklmnopqrstuvwxyzABCDEF"), "a 32-byte name");
    /* the cap: 256 declarations in all */
    dec_state *s = NULL;
    pg_diag_sink d = {0};
    bool ok = named_state(v, 1000, HEADN_TEXT "\tmov.f32 %x_g, 0f00000000;\n", &s, &d);
    for (int i = 4; i < 256 && ok; i++) {
        char line[64];
        snprintf(line, sizeof line, "\t.reg .f32 %%t%d;\n\tmov.f32 %%t%d, %%x_g;\n", i, i);
        ok = dec_advance_text(s, line, strlen(line), &d) == PG_OK;
    }
    CHECK(ok, "256 declarations, each register used");
    CHECK(dec_advance_text(s, "\tmov.f32 %t255, %t4;\n", 21, &d) == PG_OK, "the 256th register is an operand");
    CHECK(dec_advance_text(s, "\t.", 2, &d) == PG_OK && dec_advance_text(s, "r", 1, &d) != PG_OK, "no 257th .reg");
    dec_free(s);
}

/* test_exhausted_prefix for named registers: a (REGNAME_MAX - 1)-byte prefix has 64 completions (itself
 * and 63 one-byte extensions [0-9A-Za-z_]); with all 64 declared its last byte must be refused. */
static void test_named_exhausted_prefix(const dec_vocab *v, int nv) {
    dec_state *s = NULL;
    pg_diag_sink d = {0};
    bool ok = named_state(v, 1000, HEADN_TEXT, &s, &d);
    char p30[31];
    memset(p30, 'm', 30);
    p30[30] = 0;
    char line[96];
    snprintf(line, sizeof line, "\t.reg .b32 %%%s;\n", p30);
    ok = ok && dec_advance_text(s, line, strlen(line), &d) == PG_OK;
    int declared = 1;
    for (int x = '0'; x <= 'z' && ok; x++) {
        if (!((x >= '0' && x <= '9') || (x >= 'A' && x <= 'Z') || (x >= 'a' && x <= 'z') || x == '_')) continue;
        snprintf(line, sizeof line, "\t.reg .b32 %%%s%c;\n", p30, x);
        ok = dec_advance_text(s, line, strlen(line), &d) == PG_OK;
        declared++;
    }
    CHECK(ok && declared == 64, "64 declarations of the prefix are accepted (%d)", declared);
    dec_state *t = NULL;
    dec_clone(s, &t);
    snprintf(line, sizeof line, "\t.reg .b32 %%%.29s", p30);
    CHECK(dec_advance_text(t, line, strlen(line), &d) == PG_OK, "29 bytes of the prefix are fine");
    exhausted_tail(t, "n;\n", "30th", true, nv);
    dec_free(t);
    dec_free(s);
}

/* Nested `{ }` blocks: a block's declarations are its own, go out of scope at its '}' and may shadow an
 * outer block's named registers (PTX scoping, docs/LITERATE.md); in the numbered style too, as nvcc's
 * fp16/bf16 helpers declare `%temp` in theirs. */
static void test_named_blocks(const dec_vocab *v, int nv) {
    (void)nv;
    CHECK(named_accepts(v, "\t{\n\t\t.reg .b32 %t;\n\t\tmov.u32 %t, %acc;\n\t\tadd.s32 %acc, %t, 1;\n\t}\n"), "a block with its own register");
    /* numbered: blocks as nvcc's fp16/bf16 helpers write them, declaring nothing or their own registers */
    CHECK(accepts_line(v, "\t{\n\t\tadd.s32 %r1, %r2, 1;\n\t}\n\tmov.u32 %r3, %r1;\n"), "a numbered block of instructions");
    CHECK(accepts_line(v, "\t{\n\t\t.reg .b32 %temp;\n\t\tmov.b64 {%r7, %temp}, %rd1;\n\t}\n\t{\n\t\t.reg .b32 %temp;\n\t}\n"),
          "numbered: a block declares its own named register (nvcc's __double2loint), a sibling block the same name");
    CHECK(accepts_line(v, "\t{\n\t\t.reg .b32 %t<2>;\n\t\tmov.u32 %t1, %r1;\n\t}\n"), "and a numbered one");
    CHECK(!accepts_line(v, "\t{\n\t\t.reg .b32 %temp;\n\t}\n\tmov.u32 %temp"), "numbered: the block's register is gone after its '}'");
    CHECK(!accepts_line(v, "\t.reg .b32 %temp;") && !accepts_line(v, "\t{\n\t\t.reg .b32 %r1;") && !accepts_line(v, "\t{\n\t\t.reg .b32 %r<"),
          "numbered: no named register outside a block; none clashing with a numbered one");
    CHECK(named_accepts(v, "\t{\n\t}\n\t{\n\t\tmov.u32 %acc, 1;\n\t}\n"), "an empty block");
    CHECK(!named_accepts(v, "\t{\n\t\t.reg .b32 %t;\n\t}\n\tmov.u32 %t"), "a block's register is gone after its '}'");
    CHECK(named_accepts(v, "\t{\n\t\t.reg .b32 %t;\n\t}\n\t.reg .f32 %t;\n\tmov.f32 %t, %x_g;\n"), "its name is free again after the '}'");
    CHECK(named_accepts(v, "\t{\n\t\t.reg .b32 %t;\n\t\tmov.u32 %t, 1;\n\t}\n\t{\n\t\t.reg .pred %t;\n\t\tsetp.eq.u32 %t, %acc, 1;\n\t}\n"),
          "sibling blocks declare one name");
    CHECK(!named_accepts(v, "\t{\n\t\t.reg .b32 %t;\n\t\t.reg .b32 %t;"), "a name declared twice in one block");
    CHECK(named_accepts(v, "\t{\n\t\t.reg .f32 %acc;\n\t\tmov.f32 %acc, %x_g;\n\t}\n\tadd.s32 %acc, %acc, 1;\n"),
          "an inner %%acc of another type shadows, the outer comes back at '}'");
    CHECK(!named_accepts(v, "\t{\n\t\t.reg .f32 %acc;\n\t\tadd.s32 %acc"), "the shadowed register's type is not the name's inside");
    CHECK(!named_accepts(v, "\t{\n\t\t.reg .b32 %rd;"), "a numbered declaration's name is never shadowed");
    CHECK(!named_accepts(v, "\t{\n\t\t.reg .b32 %p<"), "nor redeclared as numbered");
    CHECK(named_accepts(v, "\t{\n\t\t.reg .b32 %u;\n\t\t{\n\t\t\t.reg .b32 %u;\n\t\t\tmov.u32 %u, 2;\n\t\t}\n\t\tmov.u32 %u, 1;\n\t}\n"),
          "blocks nest (a shadow inside a shadow)");
    CHECK(named_accepts(v, "\t{\n\t\t{\n\t\t\t{\n\t\t\t\t{\n\t\t\t\t\tret;\n\t\t\t\t}\n\t\t\t}\n\t\t}\n\t}\n"), "4 blocks open at once");
    CHECK(!named_accepts(v, "\t{\n\t\t{\n\t\t\t{\n\t\t\t\t{\n\t\t\t\t\t{"), "not 5");
    CHECK(!named_accepts(v, "\t{\nL:"), "no label inside a block");
    CHECK(!named_accepts(v, "\t{\n\t\t.s"), "no variable inside a block");
    CHECK(named_accepts(v, "\t{\n\t\t@%p1 bra L;\n\t}\nL:\n\tret;\n}\n"), "a branch from a block to the function's label");
    CHECK(!named_accepts(v, "\t{\n\tret;"), "a block's statement has depth + 1 tabs");
    CHECK(!named_accepts(v, "\t{\n\t\tret;\n}"), "the function's '}' with a block open");
    CHECK(!named_accepts(v, "\t{\n\t\tret;\n\t}\n}"), "a block's '}' is no terminator: ret before the function's '}'");
    /* the ending mode closes the open blocks, then ends the function */
    dec_state *s = NULL;
    pg_diag_sink d = {0};
    bool ok = named_state(v, 7, HEADN_TEXT "\t{\n\t\t{\n\t\t\tmov.u32 %acc, 1;\n", &s, &d);
    pg_buf f = {0};
    if (ok) dec_forced_text(s, &f);
    CHECK(ok && f.data && !strcmp(f.data, "\t\t}\n\t}\n\tret;\n}\n"), "the ending mode: '%s'", f.data ? f.data : "");
    pg_buf_free(&f);
    dec_free(s);
}

/* The named register's name has a fast mask path (free_run's DV_NAME run): every prefix of these
 * scripts, over a vocabulary rich in name pieces (letters, digits, '_', '$', names ending in ';' or
 * '<', 29- to 33-byte runs), must have the plain walk's mask, also at a 30-byte prefix whose
 * completions are all declared (test_named_exhausted_prefix) and with a numbered declaration. */
static void test_named_mask_fast_path(void) {
    static const char *const pieces[] = {
        "row", "Row_", "acc1", "_x", "x$", "9a", "a9", "tx", "ntx", "v2", "A", "Z_9", "m", "mm", "mmmm", "mmmmmmmm",
        "mmmmmmmmmmmmmmmm", "mmmmmmmmmmmmmmmmmmmmmmmmmmmmm", "mmmmmmmmmmmmmmmmmmmmmmmmmmmmmm",
        "mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm", "mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm", "mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm",
        "abcdefghijklmnopqrstuvwxyzABCDE", "row;", "row;\n", "row;\n\t", "r<", "rd<", "n;\n", "m;", "m<", "acc;\n\t",
        "add", "tid", "pm", "laneid", "r1", "rd1", "x_g", ";", "<", ";\n", ".reg .b32 %", ".reg .f32 %", ".reg .pred %", "\t.reg .b32 %",
        " %", "%row", "%", "{\n", "\t}\n", "\t{\n", "\t\t", "mov.u32 ", ", ", "%acc", "%tid.x", ";\n\t", "\n\t",
    };
    int nm = (int)(sizeof pieces / sizeof pieces[0]), n = 128 + nm + 1;
    const char **p = calloc((size_t)n, sizeof *p);
    bool *sp = calloc((size_t)n, sizeof *sp);
    static char singles[128][2];
    for (int i = 0; i < 128; i++) { singles[i][0] = (char)(i ? i : 1); p[i] = singles[i]; }
    for (int i = 0; i < nm; i++) p[128 + i] = pieces[i];
    p[n - 1] = GEN_TOK_END;
    sp[n - 1] = true;
    dec_vocab *v = NULL;
    pg_diag_sink d = {0};
    CHECK(dec_vocab_from_pieces(p, NULL, sp, n, &v, &d) == PG_OK, "name-rich vocabulary");
    if (!v) { free(p); free(sp); return; }
    char m30[31], decls[64 * 48] = "";
    memset(m30, 'm', 30);
    m30[30] = 0;
    size_t dl = 0;
    dl += (size_t)snprintf(decls + dl, sizeof decls - dl, "\t.reg .b32 %%%s;\n", m30);
    for (int x = '0'; x <= 'z'; x++)
        if ((x >= '0' && x <= '9') || (x >= 'A' && x <= 'Z') || (x >= 'a' && x <= 'z') || x == '_')
            dl += (size_t)snprintf(decls + dl, sizeof decls - dl, "\t.reg .b32 %%%s%c;\n", m30, x);
    pg_buf exhausted = {0};
    pg_buf_printf(&exhausted, "%s%s\t.reg .b32 %%%.29sn;\n\t.reg .b32 %%%.29s_x;\n", HEADN_TEXT, decls, m30, m30);
    const char *scripts[] = {
        HEADN_TEXT "\t.reg .b32 %row;\n\t.reg .f32 %Row_9;\n\t.reg .b32 %abcdefghijklmnopqrstuvwxyzABCDE;\n\tmov.u32 %row, %acc;\n",
        HEADN_TEXT "\t.reg .b32 %mmmmmmmmmmmmmmmmmmmmmmmmmmmmmm;\n\t.reg .b32 %mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm;\n\t.reg .b32 %mmmm_1;\n",
        HEADN_TEXT "\t{\n\t\t.reg .b32 %acc;\n\t\t.reg .pred %t;\n\t}\n\t.reg .b32 %t;\n\t.reg .b32 %r<4>;\n\t.reg .b32 %rx1;\n",
        exhausted.data,
    };
    uint32_t *bits = calloc((size_t)(n + 31) / 32, 4);
    int before = mask_mismatches, steps = 0, in_name = 0;
    for (size_t i = 0; i < sizeof scripts / sizeof scripts[0]; i++) {
        dec_opts o = {0};
        o.regs_named = 1;
        o.max_statements = 1000;
        dec_state *s = NULL;
        if (dec_new(v, &o, &s, &d) != PG_OK) continue;
        const char *t = scripts[i];
        for (size_t k = 0; t[k] && !dec_done(s); k++, steps++) {
            mask_checked(s, bits, n);
            in_name += k > 0 && (t[k - 1] == '%' || (dv_is_id1((unsigned char)t[k - 1]) && strchr(t + k, ';') &&
                                                      strncmp(t + k, "\n", 1)));
            if (dec_advance(s, (unsigned char)t[k], NULL) != PG_OK) {
                CHECK(false, "script %zu refused at byte %zu", i, k);
                break;
            }
        }
        dec_free(s);
    }
    /* and random named walks over this vocabulary (they declare names from its pieces) */
    int dead = 0, valid = 0;
    for (int g = 0; g < 30; g++) {
        dec_opts o = {0};
        o.regs_named = 1;
        o.max_statements = 20 + g;
        o.comment_max = g % 2 ? 20 : 0;
        int st = 0;
        bool end;
        char *txt = random_walk(v, n, &o, &st, &end, &dead);
        char why[512];
        valid += txt && end && validate_verbose(txt, strlen(txt), why);
        steps += st;
        free(txt);
    }
    printf("named mask fast path: %d prefixes and walk steps checked against the plain walk\n", steps);
    CHECK(steps > 2000 && in_name > 100, "fast-path scripts ran %d steps, %d in names", steps, in_name);
    CHECK(dead == 0 && valid == 30, "name-rich walks: %d dead, %d/30 valid", dead, valid);
    CHECK(mask_mismatches == before, "%d masks in named registers' names differ from dec_mask_reference", mask_mismatches - before);
    free(bits);
    pg_buf_free(&exhausted);
    free(p);
    free(sp);
    dec_vocab_free(v);
}

/* Read before write: a register operand that is read names a register an earlier, completed
 * instruction wrote, unless none of the slot's types is written (the fallback); byte by byte, a
 * dec_mask in between changes nothing (its trial paths log writes past the length only). */
static bool rbw_accepts(const dec_vocab *v, int nv, const char *body, const char *line, int reads_unwritten, bool mask_between) {
    dec_opts o = {0};
    o.reads_unwritten = reads_unwritten;
    dec_state *s = NULL;
    pg_diag_sink d = {0};
    if (dec_new(v, &o, &s, &d) != PG_OK) return false;
    uint32_t *bits = calloc((size_t)(nv + 31) / 32, 4);
    const char *parts[2] = {HEAD_RBW, body};
    bool ok = true;
    for (int k = 0; k < 2 && ok; k++) ok = feed_text(s, parts[k], strlen(parts[k])) == strlen(parts[k]);
    for (size_t i = 0; ok && line[i]; i++) {
        if (mask_between) dec_mask(s, bits);
        ok = dec_accepts(s, (unsigned char)line[i]) && dec_advance(s, (unsigned char)line[i], NULL) == PG_OK;
    }
    free(bits);
    dec_free(s);
    return ok;
}

/* Where `line` is first refused after body (its byte offset), or -1 if accepted. */
static int rbw_refused_at(const dec_vocab *v, const char *body, const char *line) {
    dec_opts o = {0};
    dec_state *s = NULL;
    pg_diag_sink d = {0};
    if (dec_new(v, &o, &s, &d) != PG_OK) return -2;
    int at = -3;
    if (feed_text(s, HEAD_RBW, strlen(HEAD_RBW)) == strlen(HEAD_RBW) && feed_text(s, body, strlen(body)) == strlen(body)) {
        size_t n = feed_text(s, line, strlen(line));
        at = n == strlen(line) ? -1 : (int)n;
    }
    dec_free(s);
    return at;
}

static pg_status adv_text(dec_state *s, const char *t, pg_diag_sink *d) { return dec_advance_text(s, t, strlen(t), d); }

static void test_reads_unwritten(const dec_vocab *v, int nv) {
    const char *ld = "\tld.param.u64 %rd1, [x];\n";
    for (int mb = 0; mb < 2; mb++) {   /* with and without a dec_mask before each byte */
        CHECK(!rbw_accepts(v, nv, ld, "\tadd.s64 %rd2, %rd1, %rd3;", 0, mb), "%%rd3 is read before any write (mask %d)", mb);
        CHECK(rbw_accepts(v, nv, ld, "\tadd.s64 %rd2, %rd1, %rd3;", 1, mb), "reads_unwritten=1: any declared register (mask %d)", mb);
        CHECK(rbw_accepts(v, nv, ld, "\tadd.s64 %rd2, %rd1, %rd1;", 0, mb), "%%rd1 was written (mask %d)", mb);
        CHECK(rbw_accepts(v, nv, ld, "\tadd.s64 %rd1, %rd1, 1;", 0, mb), "the destination may be read (mask %d)", mb);
        CHECK(!rbw_accepts(v, nv, ld, "\tadd.s64 %rd2, %rd2, 1;", 0, mb), "an instruction reads the state before it (mask %d)", mb);
        /* a guard: refused before any setp writes %p1 once another predicate is written, else the fallback */
        CHECK(!rbw_accepts(v, nv, "\tld.param.u32 %r1, [n];\n\tsetp.ge.u32 %p2, %r1, 4;\n", "\t@%p1 bra L;", 0, mb),
              "a guard on an unwritten predicate while %%p2 is written (mask %d)", mb);
        CHECK(rbw_accepts(v, nv, "\tld.param.u32 %r1, [n];\n\tsetp.ge.u32 %p2, %r1, 4;\n", "\t@%p2 bra L;", 0, mb),
              "a guard on a written predicate (mask %d)", mb);
        CHECK(rbw_accepts(v, nv, ld, "\t@%p1 bra L;", 0, mb), "no predicate written: the fallback takes any (mask %d)", mb);
        /* pairs and vectors write each of their registers; a store reads its address and value */
        CHECK(rbw_accepts(v, nv, "\tld.param.u32 %r1, [n];\n\tsetp.ge.u32 %p1|%p2, %r1, 4;\n", "\t@%p2 bra L;", 0, mb),
              "setp's pair writes its second predicate (mask %d)", mb);
        CHECK(rbw_accepts(v, nv, "\tld.param.u64 %rd1, [x];\n\tld.global.v2.f32 {%f1, %f2}, [%rd1];\n",
                          "\tst.global.v2.f32 [%rd1], {%f2, %f1};", 0, mb), "ld.v2 writes its vector (mask %d)", mb);
        CHECK(!rbw_accepts(v, nv, "\tld.param.u64 %rd1, [x];\n\tld.global.v2.f32 {%f1, %f2}, [%rd1];\n",
                           "\tst.global.v2.f32 [%rd1], {%f2, %f3};", 0, mb), "a source vector's unwritten element (mask %d)", mb);
        CHECK(!rbw_accepts(v, nv, "\tld.param.u64 %rd1, [x];\n\tld.global.f32 %f1, [%rd1];\n", "\tst.global.f32 [%rd2], %f1;", 0, mb),
              "a store's address register is read (mask %d)", mb);
        /* digit by digit: %rd1 written, %rd10 not; %rd12 written: %rd1 then '2' */
        CHECK(rbw_accepts(v, nv, "\tld.param.u64 %rd12, [x];\n", "\tadd.s64 %rd2, %rd12, %rd12;", 0, mb), "a two-digit written index (mask %d)", mb);
        CHECK(!rbw_accepts(v, nv, "\tld.param.u64 %rd12, [x];\n", "\tadd.s64 %rd2, %rd1,", 0, mb), "%%rd1 is only a prefix of a written index (mask %d)", mb);
        CHECK(!rbw_accepts(v, nv, "\tld.param.u64 %rd12, [x];\n", "\tadd.s64 %rd2, %rd13", 0, mb), "%%rd13 is no written index (mask %d)", mb);
    }
    /* where: at the '3' of %rd3 */
    const char *line = "\tadd.s64 %rd2, %rd1, %rd3;";
    CHECK(rbw_refused_at(v, ld, line) == (int)(strstr(line, "%rd3") - line) + 3, "refused at %%rd3's digit (%d)", rbw_refused_at(v, ld, line));
    /* clones and copies carry the writes: dec_copy onto a state whose own history wrote %rd3 */
    {
        dec_opts oc = {0};
        pg_diag_sink dc = {0};
        dec_state *a = NULL, *b = NULL, *c2 = NULL, *c3 = NULL;
        const char *ld3 = "\tld.param.u64 %rd3, [x];\n\tadd.s64 %rd4, %rd3, %rd3;\n";
        if (dec_new(v, &oc, &a, &dc) == PG_OK && dec_new(v, &oc, &c2, &dc) == PG_OK) {
            feed_text(a, HEAD_RBW, strlen(HEAD_RBW));
            feed_text(a, ld, strlen(ld));
            feed_text(c2, HEAD_RBW, strlen(HEAD_RBW));
            feed_text(c2, ld3, strlen(ld3));
            CHECK(dec_clone(a, &b) == PG_OK && dec_clone(a, &c3) == PG_OK, "clones");
            CHECK(b && adv_text(b, "\tadd.s64 %rd2, %rd1, %rd1;", &dc) == PG_OK, "a clone knows %%rd1 is written");
            CHECK(c3 && adv_text(c3, "\tadd.s64 %rd2, %rd1, %rd3;", &dc) != PG_OK, "a clone knows %%rd3 is not");
            dec_copy(c2, a);
            CHECK(adv_text(c2, "\tadd.s64 %rd2, %rd3", &dc) != PG_OK, "a copy forgets its own history's %%rd3");
            dec_copy(c2, a);
            CHECK(adv_text(c2, "\tadd.s64 %rd2, %rd1, %rd1;\n\tadd.s64 %rd3, %rd2, %rd2;", &dc) == PG_OK,
                  "a copy logs its own writes");
        }
        dec_free(a), dec_free(b), dec_free(c2), dec_free(c3);
    }
    /* a walk-like check: the mask after "add.s64 %rd2, %rd1, %rd" offers '1' only (%rd1 is the one written .b64) */
    dec_opts o = {0};
    dec_state *s = NULL;
    pg_diag_sink d = {0};
    uint32_t *bits = calloc((size_t)(nv + 31) / 32, 4);
    if (dec_new(v, &o, &s, &d) == PG_OK) {
        feed_text(s, HEAD_RBW, strlen(HEAD_RBW));
        feed_text(s, ld, strlen(ld));
        feed_text(s, "\tadd.s64 %rd2, %rd1, %rd", 24);
        dec_mask(s, bits);
        int digits = 0;
        for (int c = '0'; c <= '9'; c++) digits += bits[c >> 5] >> (c & 31) & 1;
        CHECK(digits == 1 && (bits['1' >> 5] >> ('1' & 31) & 1), "only %%rd1's digit is offered (%d digits)", digits);
        dec_free(s);
    }
    free(bits);
}

static void test_rejections(const dec_vocab *v, int nv) {
    dec_state *h = at_body(v);
    CHECK(h != NULL, "the test header is accepted");
    dec_free(h);
    CHECK(accepts_line(v, "\tld.param.u64 %rd1, [a];\n"), "ld.param");
    CHECK(accepts_line(v, "\tadd.s32 %r1, %r2, 7;\n"), "add.s32");
    CHECK(accepts_line(v, "\t@!%p1 bra L;\nL:\n\tret;\n}\n"), "forward label then end");
    CHECK(!accepts_line(v, "\tadd.s32 %q1"), "undeclared register");
    CHECK(!accepts_line(v, "\tadd.s32 %r8"), "register index out of range");
    CHECK(!accepts_line(v, "\tadd.s32 %f1"), "wrong register type in a slot");
    CHECK(!accepts_line(v, "\tadd.s32 %r1, %r2, 0f3F"), "float literal for an integer slot");
    CHECK(!accepts_line(v, "\tadd.s32 %r1, %r2, %r3, "), "too many operands");
    CHECK(!accepts_line(v, "\tadd.s32 %r1, %r2;"), "too few operands");
    CHECK(!accepts_line(v, "\tadd.rn.s32"), "illegal modifier combination");
    CHECK(!accepts_line(v, "\tmul.s32"), "mul needs .lo/.hi/.wide for integers");
    CHECK(!accepts_line(v, "\tld.global.nc.f32 %f1, [%r1]"), "32-bit global address");
    CHECK(!accepts_line(v, "\tld.param.u64 %rd1, [n]"), "param of the wrong size");
    CHECK(!accepts_line(v, "\tbar.sync 16"), "barrier id out of range");
    CHECK(!accepts_line(v, "\t.reg .b32 %r<4>;"), "register declared twice");
    CHECK(!accepts_line(v, "\tbra L;\n}"), "closing brace with an owed label");
    CHECK(!accepts_line(v, "\tadd.s32 %r1, %r2, %r3;\n}"), "closing brace after a non-terminating statement");
    CHECK(!accepts_line(v, "\t@%p1 ret;\n}"), "closing brace after a guarded ret");
    CHECK(!accepts_line(v, "L:\n\tret;\nL:"), "label defined twice");
    CHECK(!accepts_line(v, "\tadd.s32  %r1"), "non-canonical spacing");
    CHECK(accepts_line(v, "\tret;\n}\n"), "ret then close");
    /* special tokens: only <|end|> and only at the end */
    dec_state *s = at_body(v);
    uint32_t *bits = calloc((size_t)(nv + 31) / 32, 4);
    int end_id = nv - 3;
    CHECK(!dec_accepts(s, end_id) && !dec_accepts(s, nv - 2), "special tokens are rejected mid-module");
    dec_mask(s, bits);
    CHECK(!(bits[end_id >> 5] >> (end_id & 31) & 1), "mask excludes <|end|> mid-module");
    feed_text(s, "\tret;\n}\n", 8);
    CHECK(dec_done(s), "done after the closing brace");
    CHECK(dec_mask(s, bits) == 1 && (bits[end_id >> 5] >> (end_id & 31) & 1), "only <|end|> when done");
    CHECK(!dec_accepts(s, '\n'), "nothing after the module");
    free(bits);
    dec_free(s);
    /* a signature outside the subset is a usage error, not a silent pass */
    dec_opts o = {0};
    o.signature = ".entry k(.param .u64 a)";
    pg_diag_sink d = {0};
    dec_state *bad = NULL;
    CHECK(dec_new(v, &o, &bad, &d) == PG_ERR_USAGE && !bad && d.nerrors == 1, "bad signature rejected");
    /* a name longer than the constraint takes (PG_NAME_MAX, 32 bytes; the synth's family names
     * were up to 62 before synth_fam_fit_name) is a usage error that says so */
    o.signature = ".visible .entry bias_hardtanh_residual_colbias_inplace_bf16_v1_gs(\n\t.param .u64 a,\n\t.param .u32 n\n)";
    pg_diag_sink d2 = test_sink();
    CHECK(dec_new(v, &o, &bad, &d2) == PG_ERR_USAGE && !bad && strstr(test_diag_log(), "is 49 bytes; the constraint takes names of at most 32"),
          "a 49-byte kernel name: %s", test_diag_log());
}

/* The opening a sampler feeds: the forced header, `.visible` (the model's choice at module scope), then the
 * forced rest of the signature (dec_forcing).  False when a part is refused. */
static bool feed_opening(dec_state *s) {
    pg_buf f = {0};
    pg_diag_sink d = {0};
    dec_forced_text(s, &f);
    bool ok = dec_advance_text(s, f.data ? f.data : "", f.len, &d) == PG_OK && feed_text(s, ".visible", 8) == 8 && dec_forcing(s);
    f.len = 0;
    if (ok) dec_forced_text(s, &f);
    ok = ok && f.len && dec_advance_text(s, f.data, f.len, &d) == PG_OK && !dec_forcing(s);
    pg_buf_free(&f);
    return ok;
}

static void test_forced(const dec_vocab *v) {
    dec_opts o = {0};
    o.arch = "sm_90";
    o.signature = ".visible .entry vecadd(\n\t.param .u64 a,\n\t.param .u32 n\n)";
    dec_state *s = NULL;
    pg_diag_sink d = {0};
    CHECK(dec_new(v, &o, &s, &d) == PG_OK, "dec_new with a signature");
    pg_buf f = {0};
    CHECK(dec_forcing(s), "the header is due");
    dec_forced_text(s, &f);
    /* the forcing pauses after the header: module-scope declarations may come before the entry */
    CHECK(f.data && !strcmp(f.data, ".version 8.0\n.target sm_90\n.address_size 64\n\n"), "forced header: '%s'", f.data ? f.data : "");
    CHECK(!dec_accepts(s, 'x'), "a byte other than the forced one is rejected");
    CHECK(dec_advance_text(s, f.data, f.len, &d) == PG_OK, "forced text is accepted");
    f.len = 0;
    CHECK(dec_forced_text(s, &f) == 0 && !dec_forcing(s), "at module scope the model chooses: a declaration or the entry");
    CHECK(feed_text(s, ".v", 2) == 2 && dec_forcing(s), "`.v` begins the entry: its signature is due");
    dec_forced_text(s, &f);
    const char *want = "isible .entry vecadd(\n\t.param .u64 a,\n\t.param .u32 n\n)\n";
    CHECK(f.data && !strcmp(f.data, want), "the rest of the signature is forced: '%s'", f.data ? f.data : "");
    CHECK(dec_advance_text(s, f.data, f.len, &d) == PG_OK && !dec_forcing(s), "forced signature accepted");
    f.len = 0;
    CHECK(dec_forced_text(s, &f) == 0, "a choice is open after the signature (perf directive or body)");
    const char *body = "{\n\t.reg .b64 %rd<2>;\n\tld.param.u64";
    CHECK(feed_text(s, body, strlen(body)) == strlen(body), "body start");
    f.len = 0;
    dec_forced_text(s, &f);
    CHECK(f.len == 4 && !memcmp(f.data, " %rd", 4), "single continuation forced: '%.*s'", (int)f.len, f.data ? f.data : "");
    pg_buf_free(&f);
    dec_free(s);
}

/* With the task's block known, .maxntid/.reqntid cannot declare fewer threads
 * than the launch (a 256-thread launch of a `.maxntid 128` kernel fails), and
 * a name without a signature is forced as given. */
static bool perf_line_ok(const char *sig_end, const int block[3]) {
    const char *p = strstr(sig_end, ")\n.");
    if (!p) return true;                        /* no directive */
    int x, y, z;
    char kw[16];
    if (sscanf(p + 3, "%15[a-z] %d, %d, %d", kw, &x, &y, &z) != 4) return false;
    if (x * y * z > 1024) return false;
    if (!strcmp(kw, "reqntid")) return x == block[0] && y == block[1] && z == block[2];
    return x >= block[0] && y >= block[1] && z >= block[2];
}

static void test_launch_block(const dec_vocab *v, int nv) {
    const char *sig = ".visible .entry k(\n\t.param .u64 a,\n\t.param .u32 n\n)";
    struct { int block[3]; const char *text; bool ok; } cases[] = {
        {{256, 1, 1}, ".maxntid 128, 1, 1\n", false},
        {{256, 1, 1}, ".maxntid 256, 1, 1\n", true},
        {{256, 1, 1}, ".maxntid 1024, 1, 1\n", true},
        {{256, 1, 1}, ".maxntid 300, 2, 1\n", true},
        {{256, 1, 1}, ".maxntid 256, 5, 1\n", false},   /* 1280 threads */
        {{256, 1, 1}, ".reqntid 128, 1, 1\n", false},
        {{256, 1, 1}, ".reqntid 256, 1, 1\n", true},
        {{256, 1, 1}, ".reqntid 256, 2, 1\n", false},
        {{16, 16, 1}, ".maxntid 100, ", false},          /* 100 x >=16 > 1024: no Y could follow */
        {{16, 16, 1}, ".maxntid 64, 16, 1\n", true},
        {{16, 16, 1}, ".maxntid 64, 8, 1\n", false},
        {{16, 16, 1}, ".reqntid 16, 16, 1\n", true},
        {{0, 0, 0}, ".maxntid 128, 1, 1\n", true},       /* no task: any legal directive */
        {{0, 0, 0}, ".reqntid 32, 32, 1\n", true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        dec_opts o = {0};
        o.signature = sig;
        memcpy(o.block, cases[i].block, sizeof o.block);
        dec_state *s = NULL;
        pg_diag_sink d = {0};
        if (dec_new(v, &o, &s, &d) != PG_OK) { CHECK(false, "dec_new with block %d", cases[i].block[0]); continue; }
        bool ok = feed_opening(s) && feed_text(s, cases[i].text, strlen(cases[i].text)) == strlen(cases[i].text);
        CHECK(ok == cases[i].ok, "block (%d,%d,%d): '%s' %s", cases[i].block[0], cases[i].block[1], cases[i].block[2],
              cases[i].text, cases[i].ok ? "must be accepted" : "must be rejected");
        dec_free(s);
    }
    /* random walks with a known block: never a dead state, never a directive the launch breaks */
    int blocks[3][3] = {{256, 1, 1}, {16, 16, 1}, {8, 8, 4}};
    int dead = 0, bad = 0, with_dir = 0;
    for (int g = 0; g < 90; g++) {
        dec_opts o = {0};
        o.signature = sig;
        o.max_statements = 3;
        memcpy(o.block, blocks[g % 3], sizeof o.block);
        int steps;
        bool ok_end;
        char *t = random_walk(v, nv, &o, &steps, &ok_end, &dead);
        if (!t) { bad++; continue; }
        const char *after = strstr(t, "\t.param .u32 n\n");
        with_dir += after && strstr(after, ")\n.") != NULL;
        if (!after || !perf_line_ok(after, blocks[g % 3])) { bad++; fprintf(stderr, "bad directive for block %d:\n%.400s\n", g % 3, t); }
        free(t);
    }
    CHECK(dead == 0 && bad == 0, "walks with a task block: %d dead, %d bad directives", dead, bad);
    printf("launch block: 90 walks, %d with .maxntid/.reqntid, all admit the launch\n", with_dir);
    /* a name without a signature */
    dec_opts o = {0};
    o.entry_name = "vector_add";
    dec_state *s = NULL;
    pg_diag_sink d = {0};
    CHECK(dec_new(v, &o, &s, &d) == PG_OK, "dec_new with an entry name");
    pg_buf f = {0};
    if (s && feed_text(s, ".version 8.0\n.target sm_80\n.address_size 64\n\n.visible .entry ", 61) == 61) dec_forced_text(s, &f);
    CHECK(f.data && !strcmp(f.data, "vector_add(\n"), "the name is forced: '%s'", f.data ? f.data : "");
    pg_buf_free(&f);
    dec_free(s);
    /* ... and the end forced before the first token (gen with a small --max-tokens): the forced text, whose
     * last byte is the '\n' after '(', is taken whole, and the walk closes the shortest kernel (2026-12-06:
     * the ending rule refused that '\n' once force_pos had passed it, a dead state at byte 53) */
    for (int g = 0; g < 8; g++) {
        s = NULL;
        CHECK(dec_new(v, &o, &s, &d) == PG_OK, "dec_new with an entry name");
        if (!s) break;
        dec_force_end(s);
        uint32_t *bits = calloc((size_t)(nv + 31) / 32, 4);
        bool stuck = false;
        for (int step = 0; step < 4000 && !dec_done(s) && !stuck; step++) {
            f.len = 0;
            if (dec_forced_text(s, &f) && dec_advance_text(s, f.data, f.len, &d) != PG_OK) stuck = true;
            else if (!dec_done(s)) {
                int t = dec_mask(s, bits) > 0 ? pick(bits, nv) : -1;
                stuck = t < 0 || dec_advance(s, t, &d) != PG_OK;
            }
        }
        size_t len;
        char why[256] = "";
        const char *txt = dec_text(s, &len);
        CHECK(!stuck && dec_done(s) && strstr(txt, ".visible .entry vector_add(") && validate_verbose(txt, len, why),
              "an ending forced at once closes a valid kernel (walk %d, %s): ...%s", g, why, txt + (len > 200 ? len - 200 : 0));
        free(bits);
        pg_buf_free(&f);
        dec_free(s);
    }
    o.entry_name = "9lives";
    s = NULL;
    CHECK(dec_new(v, &o, &s, &d) == PG_ERR_USAGE && !s, "a name that is not an identifier is a usage error");
}

/* dec_accepts agrees with dec_mask; clones and rollbacks are exact. */
static void test_consistency(const dec_vocab *v, int nv) {
    uint32_t *bits = calloc((size_t)(nv + 31) / 32, 4), *bits2 = calloc((size_t)(nv + 31) / 32, 4);
    int disagreements = 0, checked_states = 0, clone_bad = 0;
    for (int g = 0; g < 10; g++) {
        dec_opts o = {0};
        o.max_statements = 30;
        dec_state *s = NULL;
        pg_diag_sink d = {0};
        dec_new(v, &o, &s, &d);
        dec_state *snap = NULL;
        for (int step = 0; step < 3000 && !dec_done(s); step++) {
            int n = mask_checked(s, bits, nv);
            if (!n) break;
            if (step % 7 == 0) {
                checked_states++;
                for (int t = 0; t < nv; t++)
                    if (dec_accepts(s, t) != (bool)(bits[t >> 5] >> (t & 31) & 1)) disagreements++;
            }
            if (step % 50 == 10) {
                /* snapshot, wander off, roll back: same mask as before */
                dec_free(snap);
                dec_clone(s, &snap);
                dec_state *w = NULL;
                dec_clone(s, &w);
                for (int k = 0; k < 20 && !dec_done(w); k++) {
                    if (!dec_mask(w, bits2)) break;
                    dec_advance(w, pick(bits2, nv), &d);
                }
                dec_copy(w, snap);
                dec_mask(w, bits2);
                size_t l1, l2;
                const char *t1 = dec_text(w, &l1), *t2 = dec_text(s, &l2);
                if (memcmp(bits, bits2, (size_t)(nv + 31) / 32 * 4) || l1 != l2 || memcmp(t1, t2, l1)) clone_bad++;
                dec_free(w);
            }
            dec_advance(s, pick(bits, nv), &d);
        }
        dec_free(snap);
        dec_free(s);
    }
    CHECK(disagreements == 0, "dec_accepts disagrees with dec_mask %d times", disagreements);
    CHECK(mask_mismatches == 0, "%d masks differ from dec_mask_reference", mask_mismatches);
    CHECK(clone_bad == 0, "%d rollbacks differ from their snapshot", clone_bad);
    CHECK(checked_states > 50, "checked %d states", checked_states);
    free(bits);
    free(bits2);
}

/* Names at and near their length limits, where the fast path must feed:
 * a 32-byte label or name that could clash with an existing one, 12-letter
 * register names, owed labels in the ending mode.  Every prefix of each
 * script has the plain walk's mask. */
static void test_mask_fast_path(const dec_vocab *v, int nv) {
#define L32 "abcdefghijklmnopqrstuvwxyzABCDEF"
    static const char *const scripts[] = {
        HEAD_TEXT L32 ":\n\tbra " L32 ";\n\tbra abcdefghijklmnopqrstuvwxyzABCDEG;\n" L32 "x",
        HEAD_TEXT "abcdefghijklmnopqrstuvwxyzABCDEG:\n" L32 ":\n\tret;\n}\n",
        HEAD_TEXT "\t.reg .b32 %abcdefghijkl<2>;\n\t.reg .b32 %abcdefghijkm<2>;\n\tmov.b32 %abcdefghijkl1, 0;\n",
        HEAD_TEXT "\t.shared .align 4 .b32 " L32 "[32];\n\tmov.u64 %rd1, " L32 ";\n\tbra " L32 "x",
        ".version 8.0\n.target sm_80\n.address_size 64\n\n.visible .entry " L32 "(\n\t.param .u64 "
        "abcdefghijklmnopqrstuvwxyzABCDEG,\n\t.param .u32 $n_\n)\n{\n\tret;\n}\n",
    };
    uint32_t *bits = calloc((size_t)(nv + 31) / 32, 4);
    int before = mask_mismatches, steps = 0;
    for (size_t i = 0; i < sizeof scripts / sizeof scripts[0]; i++) {
        for (int ending = 0; ending < 2; ending++) {
            dec_opts o = {0};
            o.max_statements = ending ? 7 : 0;   /* 7: the ending mode starts inside the scripts' bodies */
            dec_state *s = NULL;
            pg_diag_sink d = {0};
            if (dec_new(v, &o, &s, &d) != PG_OK) continue;
            const char *t = scripts[i];
            for (size_t k = 0; t[k] && !dec_done(s); k++, steps++) {
                mask_checked(s, bits, nv);
                if (dec_advance(s, (unsigned char)t[k], NULL) != PG_OK) break;
            }
            dec_free(s);
        }
    }
    CHECK(steps > 500, "fast-path scripts ran %d steps", steps);
    CHECK(mask_mismatches == before, "%d masks near name limits differ from dec_mask_reference", mask_mismatches - before);
    free(bits);
#undef L32
}

/* The bias touches only tokens the constraint allows and prefers fma at a statement start. */
static void test_bias(const dec_vocab *v, int nv) {
    dec_bias *b = NULL;
    pg_diag_sink d = {0};
    CHECK(dec_bias_default(v, &b, &d) == PG_OK && b, "built-in bias table");
    dec_state *s = at_body(v);
    float *lg = calloc((size_t)nv, sizeof *lg);
    int touched_illegal = 0, fma = -1;
    for (int i = 128; i < nv; i++)
        if (!strcmp(MULTI[i - 128 < (int)(sizeof MULTI / sizeof MULTI[0]) ? i - 128 : 0], "fma.rn.f32 ")) fma = i;
    feed_text(s, "\t", 1);
    dec_bias_apply(b, s, lg);
    for (int i = 0; i < nv; i++)
        if (lg[i] != 0.0f && !dec_accepts(s, i)) touched_illegal++;
    CHECK(touched_illegal == 0, "bias touched %d disallowed tokens", touched_illegal);
    CHECK(fma >= 0 && lg[fma] > 0.0f && lg['f'] > 0.0f, "fma.rn.f32 preferred at a statement start");
    free(lg);
    dec_free(s);
    dec_bias_free(b);
    /* a table with an unknown context is rejected with the rule's place */
    char path[] = "/tmp/ptxgen_bias_XXXXXX";
    int fd = mkstemp(path);
    if (fd >= 0) {
        const char *j = "{\"version\": 1, \"rules\": [{\"context\": \"sometimes\", \"pattern\": \"add\", \"delta\": 1}]}";
        CHECK(write(fd, j, strlen(j)) == (ssize_t)strlen(j), "write temp bias file");
        close(fd);
        dec_bias *bad = NULL;
        pg_diag_sink d2 = {0};
        CHECK(dec_bias_load(path, v, &bad, &d2) == PG_ERR_PARSE && !bad && d2.nerrors == 1, "bad bias context rejected");
        unlink(path);
    }
    dec_bias *ok = NULL;
    pg_diag_sink d3 = {0};
    if (access("bench/bias_default.json", R_OK) == 0) {
        CHECK(dec_bias_load("bench/bias_default.json", v, &ok, &d3) == PG_OK && ok, "bench/bias_default.json loads");
        dec_bias_free(ok);
    }
}

/* A byte-level vocabulary like Qwen's: every byte value (0 and >= 0x80
 * included) alone, multi-byte UTF-8 pieces, pieces mixing PTX and non-ASCII
 * bytes, and PTX pieces.  Nothing may assume ASCII: the fast paths must agree
 * with the plain walk, no token with a byte outside the language is ever
 * allowed, and random walks end in valid modules. */
static void test_byte_vocab(void) {
    static const char *const utf8[] = {"\xe4\xb8\xad", "\xe4\xb8", "\xc4\xa0", "\xc4\xa0ld", "ld\xff", "\t\xe4\xb8\xad",
                                       "%r\xc3\xa9", "\xf0\x9f\x9a\x80", "\x80", "\xef\xbc\x8c", " \xe2\x80\x94", "x\0y"};
    static const size_t ulen[] = {3, 2, 2, 4, 3, 4, 4, 4, 1, 3, 4, 3};
    int nm = (int)(sizeof MULTI / sizeof MULTI[0]), nu = (int)(sizeof utf8 / sizeof utf8[0]);
    int n = 256 + nu + nm + 2;
    const char **p = calloc((size_t)n, sizeof *p);
    size_t *lens = calloc((size_t)n, sizeof *lens);
    bool *sp = calloc((size_t)n, sizeof *sp);
    static char singles[256];
    for (int i = 0; i < 256; i++) { singles[i] = (char)i; p[i] = &singles[i]; lens[i] = 1; }
    for (int i = 0; i < nu; i++) { p[256 + i] = utf8[i]; lens[256 + i] = ulen[i]; }
    for (int i = 0; i < nm; i++) { p[256 + nu + i] = MULTI[i]; lens[256 + nu + i] = strlen(MULTI[i]); }
    p[n - 2] = GEN_TOK_IM_END; lens[n - 2] = strlen(GEN_TOK_IM_END); sp[n - 2] = true;
    p[n - 1] = "<|im_start|>"; lens[n - 1] = 12; sp[n - 1] = true;
    dec_vocab *v = NULL;
    pg_diag_sink d = {0};
    CHECK(dec_vocab_from_pieces(p, lens, sp, n, &v, &d) == PG_OK, "byte vocabulary");
    if (!v) return;
    int before = mask_mismatches, bad_bytes = 0, dead = 0, valid = 0, finished = 0;
    uint32_t *bits = calloc((size_t)(n + 31) / 32, 4);
    for (int g = 0; g < 12; g++) {
        dec_opts o = {0};
        o.max_statements = 10 + g * 3;
        o.max_regs_per_decl = 16;
        dec_state *s = NULL;
        if (dec_new(v, &o, &s, &d) != PG_OK) { dead++; continue; }
        for (int step = 0; step < 6000 && !dec_done(s); step++) {
            int k = mask_checked(s, bits, n);
            for (int i = 0; i < n; i++) {
                if (!(bits[i >> 5] >> (i & 31) & 1) || sp[i]) continue;
                for (size_t j = 0; j < lens[i]; j++)
                    if ((unsigned char)p[i][j] >= 0x80 || p[i][j] == 0) { bad_bytes++; break; }
            }
            int t = k ? pick(bits, n) : -1;
            if (t < 0 || dec_advance(s, t, &d) != PG_OK) { dead++; break; }
        }
        if (dec_done(s)) {
            finished += dec_mask(s, bits) == 1 && (bits[(n - 2) >> 5] >> ((n - 2) & 31) & 1);   /* <|im_end|> ends it */
            size_t len;
            const char *txt = dec_text(s, &len);
            char why[512];
            valid += validate_verbose(txt, len, why);
        }
        dec_free(s);
    }
    CHECK(mask_mismatches == before, "%d masks over the byte vocabulary differ from the reference", mask_mismatches - before);
    CHECK(bad_bytes == 0, "%d allowed tokens hold a byte outside PTX's ASCII", bad_bytes);
    CHECK(dead == 0 && finished == 12 && valid == 12, "byte vocabulary walks: %d dead, %d finished, %d valid of 12", dead, finished,
          valid);
    free(bits);
    free(p);
    free(lens);
    free(sp);
    dec_vocab_free(v);
}

/* What nvcc writes into the literate training targets and the constraint refused until
 * 2026-12-05 (bench/results/2026-12-05-plan-round4-h100/FAILURES.md): a rolled loop's
 * `.pragma "nounroll";` (the model wrote `popc.b32 %rN, %rN;` in its place), expf's
 * `cvt.sat.f32.f32` (written without .sat) and a __shared__ array named like an opcode (`red`,
 * every row-reduction plan's).  The golden file is `ptxgen synth --literate-of` of the suite's
 * softmax_row_b128 reference, which has all three, fed under its plan. */
static void test_nvcc_targets(const dec_vocab *v, int nv) {
    CHECK(accepts_line(v, "$L1:\n\t.pragma \"nounroll\";\n\tadd.s32 %r1, %r1, 1;\n"), "a loop head's .pragma \"nounroll\"");
    CHECK(!accepts_line(v, "\t.pragma \"unroll\";\n") && !accepts_line(v, "\t.pragma;\n") &&
          !accepts_line(v, "\t.pragma \"nounroll\"\n"), "no other pragma, none without its ';'");
    CHECK(accepts_line(v, "\tcvt.sat.f32.f32 %f1, %f2;\n"), "expf's cvt.sat.f32.f32");
    CHECK(!accepts_line(v, "\tcvt.sat.u32.f32 %r1, %f2;\n") && !accepts_line(v, "\tcvt.rn.sat.f32.s32 %f1, %r1;\n"),
          ".sat on cvt only from f32 to f32");
    CHECK(accepts_line(v, "\t.shared .align 4 .b8 red[16];\n\tld.shared.f32 %f1, [red+4];\n\tmov.u32 %r1, red;\n"),
          "a shared array named like an opcode, and its uses");
    CHECK(!accepts_line(v, "red:\n") && !accepts_line(v, "\t.shared .align 4 .b8 red[16];\n\t.shared .align 4 .b8 red[16];\n"),
          "a label is no opcode; a variable is declared once");
    {   /* closing the kernel: no pragma (dec_force_end's mode takes the shortest way to `ret`) */
        dec_state *s = at_body(v);
        pg_diag_sink d = {0};
        CHECK(s != NULL, "at the body");
        if (s) {
            dec_force_end(s);   /* the statement under way may finish (here: the next one), then the kernel closes */
            const char *one = "\tadd.s32 %r1, %r1, 1;\n", *pr = "\t.pragma \"nounroll\";\n";
            CHECK(dec_advance_text(s, one, strlen(one), &d) == PG_OK && dec_advance_text(s, pr, strlen(pr), &d) != PG_OK,
                  "no pragma while closing");
            dec_free(s);
        }
    }
    /* mov pack/unpack (isa.def's `+` arity): 2 or 4 registers of one type filling the value, immediates in a source */
    const char *R16 = "\t.reg .b16 %rs<4>;\n\t.reg .f64 %fd<4>;\n\t.reg .u16 %us<2>;\n";
    static const struct { const char *line; bool ok; const char *why; } fills[] = {
        {"\tmov.b32 %f1, {0, %rs1};\n", true, "bf16 -> f32 as nvcc writes it at sm_80"},
        {"\tmov.b32 %f1, {%rs2, %rs1};\n\tmov.b32 {%rs1, %rs2}, %f1;\n", true, "pack and unpack halves"},
        {"\tmov.b64 {%r1, %r2}, %fd1;\n\tmov.b64 %fd2, {%r2, %r1};\n", true, "f64 through two 32-bit halves (warp shuffles)"},
        {"\tmov.b64 %rd1, {%rs1, 0, %rs2, 65535};\n\tmov.b64 %rd1, {0, 0};\n\tmov.b32 %r1, {-32768, %rs1};\n", true,
         "four quarters; immediates of 16 bits"},
        {"\tmov.b64 %rd1, {%f1, 0};\n", false, "no immediate beside a float (ptxas: elements of different types)"},
        {"\tmov.b64 %rd1, {0, %f1};\n", false, "nor a float after an immediate"},
        {"\tmov.b32 %r1, {%rs1, %us1};\n", false, "one register type"},
        {"\tmov.b64 %rd1, {%rs1, %r1};\n", false, "one element size"},
        {"\tmov.b64 %rd1, {0, 0, 0};\n", false, "2 or 4 elements"},
        {"\tmov.b64 %rd1, {%r1, %r2, %r3};\n", false, "elements that fill the value exactly"},
        {"\tmov.b32 %r1, {%rs1};\n", false, "not one"},
        {"\tmov.b16 %rs1, {%rs2, %rs3};\n", false, "no 8-bit elements"},
        {"\tmov.b32 %r1, {70000, %rs1};\n", false, "an immediate fits 16 bits"},
        {"\tmov.b32 {%rs1, 0}, %r1;\n", false, "a destination's elements are registers"},
        {"\tmov.u32 %r1, {%rs1, %rs2};\n", false, "pack only with .b types"},
        {"\tmov.pred %p1, -1;\n\tmov.pred %p2, 0;\n\tmov.pred %p1, 1;\n", true, "a predicate from an immediate (nvcc's mov.pred %p, -1)"},
        {"\tmov.pred %p1, 2;\n", false, "a predicate immediate is -1, 0 or 1"},
        {"\tmov.f32 %f1, 0f3F800000;\n\tmov.f32 %f2, %f1;\n\tcvt.rn.f16x2.f32 %r1, %f1, %f2;\n\tcvt.rn.bf16x2.f32 %r1, %f2, %f1;\n", true, "two f32 into packed halves"},
        {"\tcvt.f16x2.f32 %r1, %f1, %f2;\n", false, "packing rounds"},
        {"\tcvt.rn.f16x2.f32 %f3, %f1, %f2;\n", false, "packed halves in a .b32 register"},
        {"\tadd.f16x2 %r1, %r2, %r3;\n", false, "packed halves in cvt only"},
        {"\tcvt.f32.bf16 %f1, %rs1;\n", true, "bf16 widens into f32 (__bfloat162float)"},
        {"\tcvt.f64.bf16 %fd1, %rs1;\n", false, "into f32 only"},
        {"\trcp.approx.ftz.f64 %fd1, %fd2;\n", true, "rcp.approx.ftz.f64 (nvcc's double exp and division)"},
        {"\tadd.ftz.f64 %fd1, %fd2, %fd3;\n", false, ".ftz on f64 in rcp only"},
        {"\t.shared .align 4 .f32 carry_s;\n\tld.shared.f32 %f1, [carry_s];\n\tst.shared.f32 [carry_s], %f1;\n\tmov.u32 %r1, carry_s;\n", true,
         "a scalar .shared variable (a __shared__ float)"},
        {"\t.shared .align 4 .f32 carry_s;\n\tld.shared.f32 %f1, [carry_s+4];\n", false, "its offsets stay inside it"},
    };
    for (size_t i = 0; i < sizeof fills / sizeof fills[0]; i++) {
        char line[600];
        snprintf(line, sizeof line, "%s%s", R16, fills[i].line);
        CHECK(accepts_line(v, line) == fills[i].ok, "%s: %s", fills[i].ok ? "accepted" : "refused", fills[i].why);
    }
    /* nvcc's literate targets, walked in full under their plans with the mask checks: the suite's softmax reference
     * (.pragma "nounroll", cvt.sat.f32.f32, a shared array `red`) and `ptxgen synth --format literate --arch sm_80`
     * targets (seed 10, FAILURES.md's arguments) with the constructs above */
    static const struct { const char *ptx, *plan, *has[3]; } golden[] = {
        {"tests/golden/decode/literate/softmax_row_b128.ptx", "bench/suite/softmax_row_b128/reference.cu",
         {".pragma \"nounroll\";", "cvt.sat.f32.f32", " red["}},
        {"tests/golden/decode/literate/rows_sum_bf16_t64.ptx", NULL, {"\t{\n\t\tmov.b32 %f6, {0, %rs1};\n\t}\n", NULL, NULL}},
        {"tests/golden/decode/literate/bf16_axpy.ptx", "corpus/bf16_axpy/plan.cu", {"mov.b32 %f2, {%h3, %h1};", NULL, NULL}},
        {"tests/golden/decode/literate/bce_logits_none_f64_b128_gs.ptx", NULL,
         {"\t{\n\t\t.reg .b32 %temp;\n\t\tmov.b64 {%r1, %temp}, %fd25;\n\t}\n", "rcp.approx.ftz.f64", NULL}},
        {"tests/golden/decode/literate/normalize_rows_f64_b1024_ip.ptx", NULL, {"mov.b64 {%r9, %r10}, %fd36;", "mov.b64 %fd", NULL}},
        {"tests/golden/decode/literate/pack_f16x2_pairs.ptx", NULL, {"cvt.rn.f16x2.f32", NULL, NULL}},
        {"tests/golden/decode/literate/pack_bf16x2_x0_x1_v1_gs.ptx", NULL, {"cvt.rn.bf16x2.f32", NULL, NULL}},
        {"tests/golden/decode/literate/inclusive_scan_f32_rows_b256.ptx", NULL, {".shared .align 4 .f32 carry_s;", NULL, NULL}},
    };
    for (size_t i = 0; i < sizeof golden / sizeof golden[0]; i++) {
        const char *path = golden[i].ptx;
        char plan_path[300];
        if (golden[i].plan) snprintf(plan_path, sizeof plan_path, "%s", golden[i].plan);
        else snprintf(plan_path, sizeof plan_path, "%.*s.cu", (int)(strlen(path) - 4), path);   /* X.ptx's plan is X.cu */
        char *plan = NULL;
        size_t plen = 0;
        pg_buf b = {0};
        if (pg_read_file(plan_path, 1 << 20, &plan, &plen, NULL) != PG_OK || !print_file(path, false, NULL, &b)) {
            CHECK(false, "%s and its plan %s read", path, plan_path);
        } else {
            bool has = true;
            for (int k = 0; k < 3 && golden[i].has[k]; k++) has = has && strstr(b.data, golden[i].has[k]);
            CHECK(has, "%s has its constructs", path);
            dec_opts o = {0};
            o.arch = "sm_80";
            o.max_statements = 5000;
            o.comment_max = PTX_LITERATE_LINE_MAX + 1;   /* " " + a line of up to PTX_LITERATE_LINE_MAX bytes */
            o.plan = plan;
            CHECK(walk_module(v, nv, &o, path, b.data, b.len, 5), "%s accepted in full under its plan", path);
            o.arch = "sm_90";
            CHECK(walk_module(v, nv, &o, path, b.data, b.len, 0), "%s accepted at sm_90 too", path);
        }
        free(plan);
        pg_buf_free(&b);
    }
}

/* Random walks that start inside the constructs of nvcc's targets (mov pack/unpack, a numbered block's own
 * register, mov.pred of an immediate, packed cvt, a scalar .shared): every one ends, passes the validator
 * and ptxas, and its masks agree with the reference walk. */
static void test_target_walks(const dec_vocab *v, int nv) {
    static const char *const starts[] = {"\tmov.b32 %f1, {", "\tmov.b64 %rd1, {", "\tmov.b64 {", "\tmov.b32 {", "\t{\n\t\t.reg .",
                                         "\tmov.pred %p1, ", "\tcvt.rn.", "\t.shared .align 4 .f", "\tmov.b64 %fd1, {%r"};
    enum { NW = 72 };
    int valid = 0, finished = 0, dead = 0, pass = 0, ran = 0, imm_elems = 0, inner = 0;
    char dir[] = "/tmp/ptxgen_decode_tw_XXXXXX", ptxas[512];
    bool have = mkdtemp(dir) != NULL && ptx_ptxas_find(ptxas, sizeof ptxas);
    for (int g = 0; g < NW; g++) {
        dec_opts o = {0};
        o.arch = "sm_80";   /* HEAD's target */
        o.max_statements = 14 + (int)(rnd() % 20);
        o.max_regs_per_decl = 8 + (int)(rnd() % 16);   /* HEAD declares %r<8> */
        char prefix[1024];
        snprintf(prefix, sizeof prefix, "%s\t.reg .b16 %%rs<4>;\n\t.reg .f64 %%fd<4>;\n\t.reg .u16 %%us<2>;\n%s", HEAD,
                 starts[g % (int)(sizeof starts / sizeof starts[0])]);
        int steps;
        bool ok_end;
        char *t = random_walk_from(v, nv, &o, prefix, &steps, &ok_end, &dead);
        if (!t) continue;
        finished += ok_end;
        for (const char *p = strstr(t, "\tmov.b"); p; p = strstr(p + 1, "\tmov.b")) {   /* {.., 7, ..} */
            const char *e = strchr(p, '\n'), *q = strchr(p, '{');
            for (; q && e && q < e && *q != '}'; q++)
                if ((q[0] == '{' || q[0] == ' ') && (q[1] == '-' || (q[1] >= '0' && q[1] <= '9'))) { imm_elems++; break; }
        }
        inner += strstr(t, "\t\t.reg .") != NULL;
        char why[512];
        if (validate_verbose(t, strlen(t), why)) valid++;
        else fprintf(stderr, "target walk %d invalid: %s\n%s\n", g, why, t);
        if (have) {
            char path[600];
            snprintf(path, sizeof path, "%s/w%03d.ptx", dir, g);
            pg_diag_sink d = {0};
            ptxas_report r;
            memset(&r, 0, sizeof r);
            if (pg_write_file_atomic(path, t, strlen(t), &d) == PG_OK) {
                ran++;
                if (ptx_ptxas_run(path, NULL, false, &r, &d) == PG_OK && r.ok) pass++;
                else fprintf(stderr, "ptxas rejects target walk %d:\n%s\n--- log:\n%s\n", g, t, r.log ? r.log : "");
                ptx_ptxas_report_free(&r);
                unlink(path);
            }
        }
        free(t);
    }
    if (have) rmdir(dir);
    CHECK(dead == 0 && finished == NW && valid == NW, "target walks: %d dead, %d/%d finished, %d valid", dead, finished, NW, valid);
    CHECK(mask_mismatches == 0, "%d masks of the target walks differ from dec_mask_reference", mask_mismatches);
    if (have) CHECK(pass == ran && ran == NW, "ptxas accepted %d/%d target walks", pass, ran);
    else printf("SKIPPED: ptxas not found; target walks checked by the validator only\n");
    printf("target walks: %d, %d valid, ptxas %d/%d; %d with a {..} immediate element, %d with a block register\n", NW, valid, pass,
           ran, imm_elems, inner);
    CHECK(imm_elems > 0 && inner > 0, "the target walks wrote immediate elements (%d) and block registers (%d)", imm_elems, inner);
}

/* ---- h69: what the literate targets hold that the constraint refused (2026-12-06) ---------------------------- */
/* The text accepted byte by byte by a fresh state with `o` (the forced text is not fed for it: it must match). */
static bool takes(const dec_vocab *v, const dec_opts *o, const char *text) {
    dec_state *s = NULL;
    pg_diag_sink d = {0};
    if (dec_new(v, o, &s, &d) != PG_OK) return false;
    bool ok = feed_text(s, text, strlen(text)) == strlen(text);
    dec_free(s);
    return ok;
}

/* validator + ptxas (when found) on a module; the module written to a temporary file */
static bool ptxas_takes(const char *t, const char *tag) {
    char why[512];
    if (!validate_verbose(t, strlen(t), why)) { fprintf(stderr, "%s: the validator refuses: %s\n%s\n", tag, why, t); return false; }
    char ptxas[512], dir[] = "/tmp/ptxgen_decode_h69_XXXXXX";
    if (!ptx_ptxas_find(ptxas, sizeof ptxas) || !mkdtemp(dir)) return true;
    char path[600];
    snprintf(path, sizeof path, "%s/m.ptx", dir);
    pg_diag_sink d = {0};
    ptxas_report r;
    memset(&r, 0, sizeof r);
    bool ok = pg_write_file_atomic(path, t, strlen(t), &d) == PG_OK && ptx_ptxas_run(path, NULL, false, &r, &d) == PG_OK && r.ok;
    if (!ok) fprintf(stderr, "%s: ptxas refuses:\n%s\n--- log:\n%s\n", tag, t, r.log ? r.log : "");
    ptx_ptxas_report_free(&r);
    unlink(path);
    rmdir(dir);
    return ok;
}

#define H69_HDR ".version 8.0\n.target sm_80\n.address_size 64\n\n"
#define H69_SIG ".visible .entry conv(\n\t.param .u64 x,\n\t.param .u32 n\n)"

/* Module-scope declarations before a forced signature: the hand corpus's conv1d (.extern .shared), conv2d_3x3,
 * layernorm_row, lj_*, nbody_accel (.shared arrays) declare their tiles there. */
static void test_module_scope(const dec_vocab *v) {
    dec_opts o = {0};
    o.signature = H69_SIG;
    const char *mod = H69_HDR ".extern .shared .align 16 .b8 dyn[];\n\n.shared .align 4 .f32 part_a[8];\n\n"
                      ".shared .align 4 .f32 part_b[8];\n\n" H69_SIG "\n{\n\t.reg .b32 %r<4>;\n\t.reg .f32 %f<2>;\n"
                      "\tmov.u32 %r1, %tid.x;\n\tst.shared.u32 [dyn+4092], %r1;\n\tld.shared.f32 %f1, [part_a+28];\n"
                      "\tst.shared.f32 [part_b], %f1;\n\tret;\n}\n";
    CHECK(takes(v, &o, mod), "module-scope .extern/.shared declarations before the forced signature");
    CHECK(ptxas_takes(mod, "module scope"), "the module-scope kernel passes the validator and ptxas");
    CHECK(takes(v, &o, H69_HDR H69_SIG "\n{\n\tret;\n}\n"), "no declarations: the signature right after the header");
    static const struct { const char *text; const char *why; } bad[] = {
        {H69_HDR ".visible .entry other(", "the forced entry name resumes after `.visible .entry `"},
        {H69_HDR ".shared .align 4 .f32 n[8];", "a variable named like a forced parameter"},
        {H69_HDR ".shared .align 4 .f32 conv;", "a variable named like the forced entry"},
        {H69_HDR ".extern .shared .align 4 .f32 d;", "an .extern array has []"},
        {H69_HDR ".extern .shared .align 4 .f32 d[8];", "an .extern array has no size"},
        {H69_HDR ".extern .shared .align 4 .f32 d[];\n\n.extern .shared .align 4 .f32 e[];", "one dynamic array"},
        {H69_HDR ".shared .align 4 .f32 t[8];\n\n" H69_SIG "\n{\n\t.reg .f32 %f<2>;\n\tld.shared.f32 %f1, [t+32];",
         "an offset past a module-scope array"},
        {H69_HDR H69_SIG "\n{\n\t.extern", "no .extern in the body (ptxas: syntax error)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) CHECK(!takes(v, &o, bad[i].text), "refused: %s", bad[i].why);
    /* the forced text pauses at the gap; dec_forcing after `.visible` */
    dec_state *s = NULL;
    pg_diag_sink d = {0};
    CHECK(dec_new(v, &o, &s, &d) == PG_OK, "dec_new");
    pg_buf f = {0};
    dec_forced_text(s, &f);
    CHECK(f.data && !strcmp(f.data, H69_HDR), "the forced text stops after the header: '%s'", f.data ? f.data : "");
    dec_advance_text(s, f.data, f.len, &d);
    const char *decl = ".shared .align 4 .f32 tile[8];\n\n";
    CHECK(feed_text(s, decl, strlen(decl)) == strlen(decl) && !dec_forcing(s), "a declaration; nothing forced after it");
    CHECK(feed_text(s, ".visible", 8) == 8 && dec_forcing(s), "`.visible`: the signature is due");
    f.len = 0;
    dec_forced_text(s, &f);
    CHECK(f.data && !strcmp(f.data, " .entry conv(\n\t.param .u64 x,\n\t.param .u32 n\n)\n"), "forced: '%s'", f.data ? f.data : "");
    dec_free(s);
    /* the token budget's end (dec_force_end) at module scope: no more declarations, the entry is forced */
    s = NULL;
    CHECK(dec_new(v, &o, &s, &d) == PG_OK, "dec_new");
    const char *pre = H69_HDR ".shared .align 4 .f32 tile[8];\n\n";
    CHECK(s && feed_text(s, pre, strlen(pre)) == strlen(pre), "a module-scope declaration");
    if (s) dec_force_end(s);
    f.len = 0;
    if (s) dec_forced_text(s, &f);
    CHECK(f.data && !strcmp(f.data, ".visible .entry conv(\n\t.param .u64 x,\n\t.param .u32 n\n)\n"), "the entry is forced: '%s'",
          f.data ? f.data : "");
    CHECK(s && feed_text(s, ".s", 2) == 1, "after dec_force_end no declaration starts");
    pg_buf_free(&f);
    dec_free(s);
}

/* Limits sized by the targets: 819 statements, %f<601>, 81 labels (forward references each paid in place). */
static void test_target_limits(const dec_vocab *v) {
    dec_opts o = {0};
    pg_buf b = {0};
    pg_buf_puts(&b, HEAD_TEXT "\t.reg .f32 %fx<601>;\n");
    for (int i = 0; i < 900; i++) pg_buf_puts(&b, "\tadd.s32 %r1, %r1, 1;\n");
    pg_buf_puts(&b, "\tmov.f32 %fx600, 0f3F800000;\n\tret;\n}\n");
    CHECK(takes(v, &o, b.data), "900 statements and %%fx<601> under the defaults");
    CHECK(ptxas_takes(b.data, "long kernel"), "the long kernel passes the validator and ptxas");
    o.max_statements = 400;
    CHECK(!takes(v, &o, b.data), "an explicit max_statements still ends the kernel");
    o.max_statements = 0;
    CHECK(!takes(v, &o, HEAD_TEXT "\t.reg .f32 %fx<4097>;"), "a declaration past max_regs_per_decl's default 4096");
    /* 100 forward-referenced labels beside 2 params and the entry: 103 symbols of 128 (two entries each: 203) */
    b.len = 0;
    pg_buf_puts(&b, HEAD_TEXT);
    pg_buf_puts(&b, "\tsetp.eq.s32 %p1, %r1, 0;\n");
    for (int i = 0; i < 100; i++) pg_buf_printf(&b, "\t@%%p1 bra L%d;\n", i);
    for (int i = 0; i < 100; i++) pg_buf_printf(&b, "L%d:\n\tadd.s32 %%r1, %%r1, 1;\n", i);
    pg_buf_puts(&b, "\tret;\n}\n");
    CHECK(takes(v, &o, b.data), "100 forward-referenced labels (103 symbols)");
    CHECK(ptxas_takes(b.data, "labels"), "the label-rich kernel passes the validator and ptxas");
    CHECK(!takes(v, &o, HEAD_TEXT "\t@%p1 bra L0;\nL0:\n\tadd.s32 %r1, %r1, 1;\nL0:"), "a paid label is not defined twice");
    pg_buf_free(&b);
}

/* nvcc's local-array depot (smallmat's tridiagonal solvers): `.reg .b64 %SP;` and `%SPL;` in the numbered style. */
static void test_depot(const dec_vocab *v) {
    dec_opts o = {0};
    const char *ok = HEAD_TEXT "\t.local .align 16 .b8 __local_depot0[256];\n\t.reg .b64 %SP;\n\t.reg .b64 %SPL;\n"
                     "\tmov.u64 %SPL, __local_depot0;\n\tadd.u64 %rd1, %SPL, 0;\n\tmov.u32 %r1, 0;\n\tst.local.u32 [%rd1], %r1;\n\tret;\n}\n";
    CHECK(takes(v, &o, ok), "the depot's %%SP/%%SPL declarations and uses");
    CHECK(ptxas_takes(ok, "depot"), "the depot kernel passes the validator and ptxas");
    static const char *const bad[] = {"\t.reg .b32 %SP;", "\t.reg .b64 %SQ", "\t.reg .b64 %SPLX", "\t.reg .b64 %SP<",
                                      "\t.reg .b64 %SP;\n\t.reg .b64 %SP;", "\t.reg .b64 %Spl"};
    char t[1024];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(t, sizeof t, "%s%s", HEAD, bad[i]);
        CHECK(!takes(v, &o, t), "refused: '%s'", bad[i]);
    }
}

/* mma.sync.aligned from the table's rows: the corpus's gemm_mma_f16 line and its refused neighbours; every mma
 * opcode string the sm_80 grammar holds, with its operands, passes the validator and ptxas. */
static void test_mma(const dec_vocab *v) {
    dec_opts o = {0};
    const char *head = HEAD_TEXT "\t.reg .f32 %acc<8>;\n\t.reg .b32 %fa<4>;\n\t.reg .f64 %fd<8>;\n";
    char t[1024];
    snprintf(t, sizeof t, "%s\tmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%%acc0, %%acc1, %%acc2, %%acc3}, "
             "{%%fa0, %%fa1, %%fa2, %%fa3}, {%%r0, %%r1}, {%%acc0, %%acc1, %%acc2, %%acc3};\n\tret;\n}\n", head);
    CHECK(takes(v, &o, t), "gemm_mma_f16's mma line");
    CHECK(ptxas_takes(t, "mma"), "the mma kernel passes the validator and ptxas");
    static const char *const bad[] = {
        "\tmma.sync.m16n8k16",                                                     /* .aligned is required */
        "\tmma.sp.",                                                               /* no sparse mma */
        "\tmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%acc0, %acc1, %acc2}",   /* D has 4 elements */
        "\tmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%acc0, %acc1, %acc2, %acc3}, {%acc0",   /* f16x2 in .b32 */
        "\tmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%fd0",                /* f32 fragments, not f64 */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(t, sizeof t, "%s%s", head, bad[i]);
        CHECK(!takes(v, &o, t), "refused: '%s'", bad[i]);
    }
    /* every mma string of the trie, one instance each */
    dg_grammar *g = NULL;
    pg_diag_sink d = {0};
    CHECK(dec_dg_build("sm_80", &g, &d) == PG_OK, "grammar for sm_80");
    if (!g) return;
    int node = dec_dg_child(g, dec_dg_child(g, dec_dg_child(g, 0, 'm'), 'm'), 'a');
    pg_buf b = {0};
    pg_buf_puts(&b, H69_HDR ".visible .entry k(\n\t.param .u64 a\n)\n{\n");
    for (int i = 0; i < RS_NREGT; i++)   /* one declaration per register type: %ra<16>, %rb<16>, ... */
        pg_buf_printf(&b, "\t.reg %s %%r%c<16>;\n", ptx_type_get(dec_dg_regtypes[i])->name, 'a' + i);
    int nstr = 0;
    char name[64];
    /* depth-first over the trie below "mma" (each node's string rebuilt from its parents) */
    PG_VEC(int) todo = {0};
    if (node >= 0) pg_vec_push(todo, node);
    while (todo.n) {
        int nd = todo.v[--todo.n];
        for (int k = g->nodes.v[nd].first_child; k >= 0; k = g->nodes.v[k].next_sibling) pg_vec_push(todo, k);
        if (g->nodes.v[nd].leaf < 0) continue;
        int n = 0;
        for (int p = nd; p > 0 && n < 63; p = g->nodes.v[p].parent) name[n++] = g->nodes.v[p].c;
        for (int i = 0; i < n / 2; i++) { char c = name[i]; name[i] = name[n - 1 - i]; name[n - 1 - i] = c; }
        name[n] = 0;
        const dg_leaf *lf = &g->leaves.v[g->nodes.v[nd].leaf];
        const dg_cand *cd = &g->cands.v[lf->cand0];
        pg_buf_printf(&b, "\t%s", name);
        for (int i = 0; i < cd->nops; i++) {
            const dg_slot *sl = &cd->slot[i];
            int ty = 0;
            while (ty < RS_NREGT && !dec_dg_slot_reg_ok(sl, dec_dg_regtypes[ty])) ty++;
            CHECK(ty < RS_NREGT && (sl->kinds & SK_REG), "%s: operand %d takes a register", name, i);
            pg_buf_puts(&b, i ? ", " : " ");
            if (sl->arity > 1) pg_buf_putc(&b, '{');
            for (int e = 0; e < sl->arity; e++) pg_buf_printf(&b, "%s%%r%c%d", e ? ", " : "", 'a' + ty, e);
            if (sl->arity > 1) pg_buf_putc(&b, '}');
        }
        pg_buf_puts(&b, ";\n");
        nstr++;
    }
    pg_buf_puts(&b, "\tret;\n}\n");
    pg_vec_free(todo);
    dec_dg_release(g);
    printf("mma: %d opcode strings at sm_80\n", nstr);
    CHECK(nstr >= 8, "the sm_80 grammar holds mma strings (%d)", nstr);
    o.max_statements = 5000;
    o.reads_unwritten = 1;   /* every instance reads %ra0.. that nothing wrote: which strings are taken, not data flow */
    CHECK(takes(v, &o, b.data), "the constraint takes every mma instance");
    o.reads_unwritten = 0;
    CHECK(ptxas_takes(b.data, "every mma"), "every mma instance passes the validator and ptxas");
    pg_buf_free(&b);
}

/* Random walks that start inside the new constructs (module scope before a forced signature, mma, %SP): every one
 * ends, passes the validator and ptxas, and its masks agree with the reference walk. */
static void test_h69_walks(const dec_vocab *v, int nv) {
    static const char *const starts[] = {H69_HDR ".", H69_HDR ".extern .shared .align ", H69_HDR ".shared .align 8 .",
                                         "\tmma.sync.aligned.m", "\t.reg .b64 %S"};
    enum { NW = 40 };
    int finished = 0, dead = 0, pass = 0, module_vars = 0, mma = 0;
    for (int g = 0; g < NW; g++) {
        dec_opts o = {0};
        o.arch = "sm_80";
        o.max_statements = 14 + (int)(rnd() % 20);
        o.max_regs_per_decl = 8 + (int)(rnd() % 16);
        const char *st = starts[g % 5];
        char prefix[1024];
        if (g % 5 < 3) {
            o.signature = H69_SIG;
            snprintf(prefix, sizeof prefix, "%s", st);
        } else {
            snprintf(prefix, sizeof prefix, "%s\t.reg .f32 %%fy<8>;\n\t.reg .b32 %%ry<8>;\n%s", HEAD, st);
        }
        int steps;
        bool ok_end;
        char *t = random_walk_from(v, nv, &o, prefix, &steps, &ok_end, &dead);
        if (!t) continue;
        finished += ok_end;
        module_vars += strstr(t, "\n.shared") != NULL || strstr(t, "\n.extern") != NULL;
        mma += strstr(t, "\tmma.") != NULL;
        pass += ptxas_takes(t, "h69 walk");
        free(t);
    }
    CHECK(dead == 0 && finished == NW && pass == NW, "h69 walks: %d dead, %d/%d finished, %d pass the validator and ptxas",
          dead, finished, NW, pass);
    CHECK(mask_mismatches == 0, "%d masks of the h69 walks differ from dec_mask_reference", mask_mismatches);
    CHECK(module_vars >= 2 * NW / 5 && mma > 0, "the walks wrote module-scope variables (%d) and mma (%d)", module_vars, mma);
    printf("h69 walks: %d, %d with module-scope variables, %d with mma, all pass\n", NW, module_vars, mma);
}

int main(void) {
    int nv;
    const char *seed = getenv("PTXGEN_TEST_SEED");   /* other seeds for longer soak runs */
    if (seed && *seed) rng_state ^= strtoull(seed, NULL, 10) * 0x2545F4914F6CDD1Dull;
    dec_vocab *v = fake_vocab(&nv);
    CHECK(v && dec_vocab_size(v) == nv, "fake vocabulary of %d tokens", nv);
    test_rejections(v, nv);
    test_reads_unwritten(v, nv);
    test_forced(v);
    test_launch_block(v, nv);
    test_corpus(v);
    test_nvcc_targets(v, nv);
    test_comments(v);
    test_regs_grow(v);
    test_plan_comments(v, nv);
    test_plan_repeat_max(v, nv);
    test_exhausted_prefix(v, nv);
    test_end_bytes(v);
    test_consistency(v, nv);
    test_mask_fast_path(v, nv);
    test_bias(v, nv);
    test_random_walks(v, nv, false);
    test_target_walks(v, nv);
    test_module_scope(v);
    test_target_limits(v);
    test_mma(v);
    test_depot(v);
    test_h69_walks(v, nv);
    test_named_kernels(v, nv);
    test_named_rules(v, nv);
    test_named_exhausted_prefix(v, nv);
    test_named_blocks(v, nv);
    test_named_mask_fast_path();
    test_random_walks(v, nv, true);
    test_byte_vocab();
    CHECK(allowed_mismatches == 0, "%d dec_allowed results differ from the mask", allowed_mismatches);
    CHECK(allowed_lists > 0, "dec_allowed listed ids at least once (%d)", allowed_lists);
    dec_vocab_free(v);
    return TEST_DONE();
}
