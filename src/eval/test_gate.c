/* test_gate.c — the CI performance gate's decisions on crafted pairs in
 * tests/gate/ (base.ptx vs cand_*.ptx): identical -> neutral; fewer
 * instructions -> improved; fewer instructions but more registers -> passes,
 * not an improvement; +8% instructions -> fail, +4% -> pass; f32 silently
 * turned into f64 -> fail with the precision reason; missing kernel -> fail;
 * invalid candidate -> fail naming E201; reports (Markdown, JSON); options.
 * Every pair runs with libptx estimates (deterministic) and again with ptxas
 * when it is installed.  Run from the repository root. */
#include "common/test.h"
#include "ptxgen/eval.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool have_ptxas;

static const eval_gate_kernel *row(const eval_gate_result *r, const char *name) {
    for (int i = 0; i < r->nkernels; i++) if (!strcmp(r->kernels[i].name, name)) return &r->kernels[i];
    return NULL;
}

/* Compare tests/gate/base.ptx with tests/gate/cand_NAME.ptx. */
static pg_status gate(const char *cand, bool ptxas, eval_gate_opts *o_in, eval_gate_result *r) {
    eval_gate_opts o;
    if (o_in) o = *o_in;
    else eval_gate_opts_default(&o);
    o.no_ptxas = !ptxas;
    char path[256];
    snprintf(path, sizeof path, "tests/gate/cand_%s.ptx", cand);
    pg_diag_sink sink = {0};
    return eval_gate_compare_files("tests/gate/base.ptx", path, &o, r, &sink);
}

/* The decision rule must hold whatever the numbers (used on ptxas figures). */
static void check_rule(const eval_gate_kernel *k, const char *what) {
    if (k->verdict == EVAL_GATE_IMPROVED)
        CHECK(k->inst_ratio <= 0.95 && k->reg_ratio <= 1.05, "%s: improved with ratios %.3f/%.3f", what, k->inst_ratio, k->reg_ratio);
    if (k->in_baseline && k->in_candidate && k->inst_ratio > 1.05)
        CHECK(k->verdict == EVAL_GATE_FAILED, "%s: +%.1f%% instructions did not fail", what, (k->inst_ratio - 1) * 100);
    if (k->verdict != EVAL_GATE_FAILED && k->reg_ratio > 1.05)
        CHECK(k->verdict == EVAL_GATE_REGRESSED, "%s: registers x%.2f not flagged", what, k->reg_ratio);
}

static void test_pairs(bool ptxas) {
    const char *mode = ptxas ? "ptxas" : "libptx";
    eval_gate_result r;

    CHECK(gate("same", ptxas, NULL, &r) == PG_OK, "[%s] same: compare failed", mode);
    CHECK(r.pass && r.nkernels == 2 && r.nneutral == 2, "[%s] identical: pass=%d neutral=%d", mode, r.pass, r.nneutral);
    CHECK(r.ptxas_used == ptxas, "[%s] ptxas_used=%d", mode, r.ptxas_used);
    if (!ptxas) CHECK(strstr(r.ptxas_note, "disabled") != NULL, "note: '%s'", r.ptxas_note);
    eval_gate_result_free(&r);

    CHECK(gate("improved", ptxas, NULL, &r) == PG_OK, "[%s] improved: compare failed", mode);
    const eval_gate_kernel *k = row(&r, "poly");
    CHECK(r.pass && k && k->verdict == EVAL_GATE_IMPROVED, "[%s] improved: verdict %s", mode, k ? eval_gate_verdict_name(k->verdict) : "-");
    CHECK(k && k->insts_base == 24 && k->insts_cand == 21, "[%s] improved: %d -> %d instructions", mode, k ? k->insts_base : -1, k ? k->insts_cand : -1);
    CHECK(k && strstr(k->reasons, "dropped 12.5%") != NULL, "[%s] improved reason: %s", mode, k ? k->reasons : "");
    CHECK(row(&r, "fill") && row(&r, "fill")->verdict == EVAL_GATE_NEUTRAL, "[%s] fill not neutral", mode);
    eval_gate_result_free(&r);

    CHECK(gate("regs_up", ptxas, NULL, &r) == PG_OK, "[%s] regs_up: compare failed", mode);
    k = row(&r, "poly");
    CHECK(r.pass && k && k->inst_ratio <= 0.95, "[%s] regs_up: pass=%d ratio %.3f", mode, r.pass, k ? k->inst_ratio : 0);
    if (!ptxas) {
        /* libptx's estimate: 10 -> 11 live 32-bit registers (+10%) */
        CHECK(k && k->reg_ratio > 1.05 && k->verdict == EVAL_GATE_REGRESSED, "regs_up: verdict %s, reg ratio %.3f",
              k ? eval_gate_verdict_name(k->verdict) : "-", k ? k->reg_ratio : 0);
        CHECK(k && strstr(k->reasons, "not an improvement") != NULL, "regs_up reason: %s", k ? k->reasons : "");
    } else if (k) {
        check_rule(k, "regs_up (ptxas)");   /* ptxas re-allocates: report what it says, rule must still hold */
    }
    eval_gate_result_free(&r);

    CHECK(gate("worse", ptxas, NULL, &r) == PG_OK, "[%s] worse: compare failed", mode);
    k = row(&r, "poly");
    CHECK(!r.pass && k && k->verdict == EVAL_GATE_FAILED && strstr(k->reasons, "instructions rose +8.3%"),
          "[%s] worse: pass=%d reasons %s", mode, r.pass, k ? k->reasons : "");
    eval_gate_result_free(&r);

    CHECK(gate("slight", ptxas, NULL, &r) == PG_OK, "[%s] slight: compare failed", mode);
    k = row(&r, "poly");
    CHECK(r.pass && k && k->verdict != EVAL_GATE_FAILED && k->inst_ratio > 1.0, "[%s] +4%%: pass=%d", mode, r.pass);
    eval_gate_result_free(&r);
    /* the same pair fails with a tighter limit */
    eval_gate_opts tight;
    eval_gate_opts_default(&tight);
    tight.fail_inst_ratio = 1.02;
    CHECK(gate("slight", ptxas, &tight, &r) == PG_OK && !r.pass, "[%s] +4%% passed with --fail-inst-ratio 1.02", mode);
    eval_gate_result_free(&r);

    CHECK(gate("f64", ptxas, NULL, &r) == PG_OK, "[%s] f64: compare failed", mode);
    k = row(&r, "poly");
    CHECK(!r.pass && k && k->verdict == EVAL_GATE_FAILED, "[%s] f64 passed", mode);
    CHECK(k && strstr(k->reasons, "precision changed: kernel now does f64 arithmetic"), "[%s] f64 reason: %s", mode, k ? k->reasons : "");
    CHECK(k && strstr(k->reasons, "cvt.f64.f32"), "[%s] f64 reason lacks the instruction: %s", mode, k ? k->reasons : "");
    CHECK(k && k->inst_ratio <= 1.05, "[%s] the f64 pair should pass on instruction count alone (ratio %.3f)", mode, k ? k->inst_ratio : 0);
    CHECK(k && k->float_base[EVAL_FW_F64] == 0 && k->float_cand[EVAL_FW_F64] == 6, "[%s] f64 counts %d/%d", mode,
          k ? k->float_base[EVAL_FW_F64] : -1, k ? k->float_cand[EVAL_FW_F64] : -1);
    eval_gate_result_free(&r);
    eval_gate_opts allow;
    eval_gate_opts_default(&allow);
    allow.allow_precision_change = true;
    CHECK(gate("f64", ptxas, &allow, &r) == PG_OK, "[%s] f64 allow: compare failed", mode);
    k = row(&r, "poly");
    CHECK(k && k->verdict != EVAL_GATE_FAILED && strstr(k->reasons, "allowed"), "[%s] --allow-precision-change: %s", mode, k ? k->reasons : "");
    eval_gate_result_free(&r);

    CHECK(gate("missing", ptxas, NULL, &r) == PG_OK, "[%s] missing: compare failed", mode);
    k = row(&r, "fill");
    CHECK(!r.pass && k && k->verdict == EVAL_GATE_FAILED && strstr(k->reasons, "missing from the candidate"),
          "[%s] missing kernel: pass=%d", mode, r.pass);
    eval_gate_result_free(&r);
    /* swapped: a kernel only in the candidate also fails */
    {
        eval_gate_opts o;
        eval_gate_opts_default(&o);
        o.no_ptxas = !ptxas;
        pg_diag_sink sink = {0};
        CHECK(eval_gate_compare_files("tests/gate/cand_missing.ptx", "tests/gate/base.ptx", &o, &r, &sink) == PG_OK, "swap");
        k = row(&r, "fill");
        CHECK(!r.pass && k && !k->in_baseline && strstr(k->reasons, "not in the baseline"), "[%s] extra kernel passed", mode);
        eval_gate_result_free(&r);
    }

    CHECK(gate("invalid", ptxas, NULL, &r) == PG_OK, "[%s] invalid: compare failed", mode);
    CHECK(!r.pass && r.nfailed == 2 && strstr(r.error, "E201") && strstr(r.error, "cand_invalid.ptx:35"),
          "[%s] invalid candidate: pass=%d error '%s'", mode, r.pass, r.error);
    eval_gate_result_free(&r);
}

static void test_reports(void) {
    eval_gate_result r;
    CHECK(gate("f64", false, NULL, &r) == PG_OK, "f64");
    pg_buf md = {0}, js = {0};
    eval_gate_markdown(&r, &md);
    CHECK(md.data && strstr(md.data, "FAIL") && strstr(md.data, "| `poly` | failed | 24 → 25 |"), "markdown:\n%s", md.data);
    CHECK(md.data && strstr(md.data, "libptx's estimate") && strstr(md.data, "precision changed"), "markdown lacks notes");
    eval_gate_json(&r, &js);
    CHECK(js.data && strstr(js.data, "\"pass\": false") && strstr(js.data, "\"verdict\": \"failed\"") &&
          strstr(js.data, "\"f64\": [\n"), "json:\n%s", js.data);
    pg_buf_free(&md);
    pg_buf_free(&js);
    eval_gate_result_free(&r);
    CHECK(gate("improved", false, NULL, &r) == PG_OK, "improved");
    eval_gate_markdown(&r, &md);
    CHECK(md.data && strstr(md.data, "PASS") && strstr(md.data, "1 improved, 1 neutral"), "markdown:\n%s", md.data);
    pg_buf_free(&md);
    eval_gate_result_free(&r);
}

static void test_errors(void) {
    eval_gate_result r;
    pg_diag_sink sink = {0};
    eval_gate_opts o;
    eval_gate_opts_default(&o);
    o.no_ptxas = true;
    /* an unusable baseline is an error, not a verdict */
    CHECK(eval_gate_compare_files("tests/gate/cand_invalid.ptx", "tests/gate/base.ptx", &o, &r, &sink) == PG_ERR_INVALID,
          "invalid baseline not an error");
    CHECK(sink.nerrors == 1 && strstr(r.error, "E201"), "baseline error: '%s'", r.error);
    eval_gate_result_free(&r);
    CHECK(eval_gate_compare_files("tests/gate/nope.ptx", "tests/gate/base.ptx", &o, &r, &sink) == PG_ERR_IO, "missing file");
    eval_gate_result_free(&r);
    o.max_inst_ratio = 1.2;   /* above the fail ratio */
    CHECK(eval_gate_compare_files("tests/gate/base.ptx", "tests/gate/base.ptx", &o, &r, &sink) == PG_ERR_USAGE, "bad ratios");
    eval_gate_result_free(&r);
    /* texts in memory, no kernels at all */
    const char *empty = ".version 8.0\n.target sm_80\n.address_size 64\n";
    eval_gate_opts_default(&o);
    o.no_ptxas = true;
    CHECK(eval_gate_compare(empty, strlen(empty), empty, strlen(empty), &o, &r, &sink) == PG_OK && !r.pass,
          "no kernels passed");
    eval_gate_result_free(&r);
}

/* Pairing: --pair A=B, the only kernel of each side whatever its name, and
 * only_paired; many kernels are matched by sorted lookup (every one found). */
static char *read_text(const char *path) {
    char *t = NULL;
    size_t n;
    pg_diag_sink q = {0};
    return pg_read_file(path, 1 << 20, &t, &n, &q) == PG_OK ? t : NULL;
}
static char *renamed(const char *text, const char *from, const char *to) {
    char pat[128], rep[128];
    snprintf(pat, sizeof pat, ".entry %s(", from);
    snprintf(rep, sizeof rep, ".entry %s(", to);
    return test_replace(text, pat, rep);
}

static void test_pairing(void) {
    char *base = read_text("tests/gate/base.ptx");
    if (!base) { CHECK(false, "tests/gate/base.ptx"); return; }
    eval_gate_opts o;
    eval_gate_opts_default(&o);
    o.no_ptxas = true;
    pg_diag_sink sink = {0};
    eval_gate_result r;
    char *cand = renamed(base, "poly", "poly_v2");
    /* by name, poly_v2 is "missing" and "not in the baseline" */
    CHECK(eval_gate_compare(base, strlen(base), cand, strlen(cand), &o, &r, &sink) == PG_OK && !r.pass && r.nfailed == 2,
          "a renamed kernel fails by name (%d failed)", r.nfailed);
    eval_gate_result_free(&r);
    const char *pairs[] = {"poly=poly_v2"};
    o.pairs = pairs;
    o.npairs = 1;
    CHECK(eval_gate_compare(base, strlen(base), cand, strlen(cand), &o, &r, &sink) == PG_OK && r.pass && r.nkernels == 2 &&
          r.nneutral == 2, "--pair poly=poly_v2: pass=%d rows=%d neutral=%d", r.pass, r.nkernels, r.nneutral);
    const eval_gate_kernel *k = row(&r, "poly");
    CHECK(k && !strcmp(k->candidate, "poly_v2") && strstr(k->reasons, "compared with the candidate's poly_v2"),
          "the pair is named: '%s'", k ? k->reasons : "");
    pg_buf md = {0};
    eval_gate_markdown(&r, &md);
    CHECK(md.data && strstr(md.data, "`poly` vs `poly_v2`"), "Markdown names both kernels");
    pg_buf_free(&md);
    eval_gate_result_free(&r);
    /* a pair naming a kernel that does not exist is a usage error */
    const char *bad[] = {"poly=nope"};
    o.pairs = bad;
    CHECK(eval_gate_compare(base, strlen(base), cand, strlen(cand), &o, &r, &sink) == PG_ERR_USAGE, "--pair with a missing kernel");
    eval_gate_result_free(&r);
    const char *malformed[] = {"poly"};
    o.pairs = malformed;
    CHECK(eval_gate_compare(base, strlen(base), cand, strlen(cand), &o, &r, &sink) == PG_ERR_USAGE, "--pair without '='");
    eval_gate_result_free(&r);
    /* only_paired: the baseline's other kernel is not part of the comparison */
    o.pairs = pairs;
    o.only_paired = true;
    CHECK(eval_gate_compare(base, strlen(base), cand, strlen(cand), &o, &r, &sink) == PG_OK && r.pass && r.nkernels == 1,
          "only_paired: %d rows", r.nkernels);
    eval_gate_result_free(&r);
    o.only_paired = false;
    o.pairs = NULL;
    o.npairs = 0;
    free(cand);
    /* one kernel on each side: compared whatever the names (two generated files) */
    char *one_b = read_text("tests/gate/cand_missing.ptx");   /* poly only */
    char *one_c = one_b ? renamed(one_b, "poly", "my_kernel") : NULL;
    if (one_b && one_c) {
        CHECK(eval_gate_compare(one_b, strlen(one_b), one_c, strlen(one_c), &o, &r, &sink) == PG_OK && r.pass && r.nkernels == 1 &&
              strstr(r.kernels[0].reasons, "the only kernel on each side"), "paired by position: pass=%d rows=%d '%s'", r.pass,
              r.nkernels, r.nkernels ? r.kernels[0].reasons : "");
        eval_gate_result_free(&r);
    } else {
        CHECK(false, "tests/gate/cand_missing.ptx has one kernel named poly");
    }
    free(one_b);
    free(one_c);
    /* many kernels, candidate in reverse order: every one is found by name */
    enum { NK = 3000 };
    pg_buf a = {0}, b = {0};
    const char *hdr = ".version 8.0\n.target sm_80\n.address_size 64\n";
    pg_buf_puts(&a, hdr);
    pg_buf_puts(&b, hdr);
    for (int i = 0; i < NK; i++) {
        pg_buf_printf(&a, ".visible .entry k%d(.param .u64 p)\n{\n\t.reg .b64 %%rd<2>;\n\tld.param.u64 %%rd1, [p];\n\tret;\n}\n", i);
        pg_buf_printf(&b, ".visible .entry k%d(.param .u64 p)\n{\n\t.reg .b64 %%rd<2>;\n\tld.param.u64 %%rd1, [p];\n\tret;\n}\n", NK - 1 - i);
    }
    CHECK(eval_gate_compare(a.data, a.len, b.data, b.len, &o, &r, &sink) == PG_OK && r.pass && r.nkernels == NK && r.nneutral == NK,
          "%d kernels matched by name: pass=%d rows=%d neutral=%d", NK, r.pass, r.nkernels, r.nneutral);
    eval_gate_result_free(&r);
    pg_buf_free(&a);
    pg_buf_free(&b);
    free(base);
}

int main(void) {
    pg_diag_sink sink = {0};
    CHECK(isa_init(&sink) == PG_OK, "isa_init");
    char p[512];
    have_ptxas = ptx_ptxas_find(p, sizeof p);
    test_pairs(false);
    if (have_ptxas) test_pairs(true);
    else printf("SKIPPED: gate pairs with ptxas (ptxas not found); libptx estimates tested\n");
    test_reports();
    test_errors();
    test_pairing();
    return TEST_DONE();
}
