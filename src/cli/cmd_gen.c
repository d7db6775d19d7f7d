/* cmd_gen.c — `ptxgen gen` (generate PTX with the model under the constraint)
 * and `ptxgen prompts` (a synth dataset in the training format). */
#include "cli.h"
#include "ptxgen/decode.h"
#include "ptxgen/eval.h"
#include "ptxgen/gpu.h"
#include "ptxgen/isa.h"
#include "ptxgen/ptx.h"
#include "ptxgen/task.h"
#include "ptxgen/twin.h"
#include "ptxgen/pipeline.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- ptxgen prompts ----------------------------------------------------------- */

static const char *prompts_usage =
    "usage: ptxgen prompts --in SYNTH.jsonl --out PAIRS.jsonl [--format ptxgen|chatml] [--no-signature-pct P]\n"
    "                      [--arch sm_90] [--widen-regs N]\n"
    "  One line per sample: {id, family, source, split, description_style, prompt, completion}.  The\n"
    "  prompt is gen_prompt_build_fmt(format, description, arch, signature) (ptxgen: the from-scratch\n"
    "  model's tokens; chatml: the chat template of pretrained chat models); the completion is the\n"
    "  module as `ptxgen fmt` prints it with the forced header for the arch, then the format's end\n"
    "  token (<|end|> or <|im_end|>).  P%% of the\n"
    "  samples (chosen by a hash of the id; default 25) leave the signature line empty so the\n"
    "  model also learns to write the signature itself.  Samples whose PTX does not parse and\n"
    "  validate after the rewrite are counted and dropped, never passed through.\n"
    "  --twin: pairs for the twin turn instead (gen --twin): the prompt is the PTX pair's prompt, the\n"
    "  module and the end token, then the request for the CUDA C twin (gen_prompt_build_twin_fmt); the\n"
    "  completion is the sample's \"cuda_c\" (the CUDA C of nvcc families and the corpus's reference.cu,\n"
    "  which `ptxgen synth` records), then the end token.  Samples without CUDA C are skipped and counted.\n"
    "  Held-out suite tasks stay out exactly as in the synth file (make it with --exclude).\n"
    "  --widen-regs N (1..512): every `.reg .T %x<K>;` with K < N declares N registers, so the\n"
    "  declarations written before the body no longer tell the model how long the body is\n"
    "  (`ptxgen fmt --tighten-regs` undoes it on a generated kernel).\n"
    "  --stage plan|ptx|both (chatml only; docs/LITERATE.md): pairs of the two-stage model instead.  plan:\n"
    "  request (+ the task's CUDA C signature, except for P%% of the samples) -> the sample's cuda_c;\n"
    "  ptx: request + cuda_c as the plan + the PTX signature -> the module (literate samples keep their\n"
    "  plan comments); both: the two pairs of every sample, each line with \"turn\": \"plan\" or \"ptx\".\n"
    "  Samples without cuda_c are skipped and counted.  Without --stage, plain samples' comments are\n"
    "  dropped and literate samples keep theirs; --plain drops every comment (the single-stage arm of\n"
    "  the A/B: the same kernels without their plan).\n";

static uint64_t fnv1a(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* Canonical text with the forced header for `arch` (with the kept comments, or
 * without them); false when it does not validate. */
static bool canonical_ptx(const char *src, const char *arch, int widen_regs, bool comments, pg_buf *out, char *why, size_t whyn) {
    ptx_module *m = NULL;
    pg_diag_sink q = {0};
    if (ptx_parse(src, strlen(src), "sample", &m, &q) != PG_OK || ptx_validate(m, &q) != PG_OK || q.nerrors) {
        snprintf(why, whyn, "does not parse/validate as given");
        ptx_module_free(m);
        return false;
    }
    if (!comments) ptx_comments_strip(m);
    if (widen_regs > 0) ptx_regs_widen(m, widen_regs);
    pg_buf printed = {0};
    ptx_print(m, &printed);
    ptx_module_free(m);
    const char *body = strstr(printed.data, ".address_size 64\n");
    if (!body) { snprintf(why, whyn, "no .address_size 64 line"); pg_buf_free(&printed); return false; }
    body += strlen(".address_size 64\n");
    while (*body == '\n') body++;
    gen_header_text(arch, out);
    pg_buf_puts(out, body);
    pg_buf_free(&printed);
    /* the rewritten header must still be valid (a kernel may need a newer .version) */
    m = NULL;
    pg_diag_sink q2 = {0};
    bool ok = ptx_parse(out->data, out->len, "sample", &m, &q2) == PG_OK && ptx_validate(m, &q2) == PG_OK && !q2.nerrors;
    ptx_module_free(m);
    if (!ok) snprintf(why, whyn, "invalid with the forced header for %s", arch);
    return ok;
}

static bool signature_of(const char *canon, const char *kernel, pg_buf *out);

/* ---- super-optimization pairs -------------------------------------------------------- */
/* Rename the entry's parameters of canonical text `t` to `names` (the
 * baseline's), in the signature and in [name] / [name+off] operands. */
static void rename_params(const char *t, const char *const *from, const char *const *to, int n, pg_buf *out) {
    const char *body = strstr(t, "\n{\n");
    int pi = 0;
    /* the signature: "\t.param .TYPE NAME" lines, in order */
    for (const char *p = t; *p && (!body || p < body);) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (!strncmp(p, "\t.param ", 8) && pi < n) {
            const char *sp = p + len;
            while (sp > p && sp[-1] != ' ') sp--;                 /* the last word: "x," or "x" */
            pg_buf_putn(out, p, (size_t)(sp - p));
            pg_buf_puts(out, to[pi++]);
            if (p[len - 1] == ',') pg_buf_putc(out, ',');
        } else {
            pg_buf_putn(out, p, len);
        }
        if (!nl) return;
        pg_buf_putc(out, '\n');
        p = nl + 1;
        if (body && p > body) { body = p; break; }
    }
    /* the body: [name] and [name+offset] operands */
    for (const char *p = body ? body + 0 : t + strlen(t); *p;) {
        bool done = false;
        for (int k = 0; k < n && !done && *p == '['; k++) {
            size_t fl = strlen(from[k]);
            if (!strncmp(p + 1, from[k], fl) && (p[1 + fl] == ']' || p[1 + fl] == '+')) {
                pg_buf_printf(out, "[%s", to[k]);
                p += 1 + fl;
                done = true;
            }
        }
        if (!done) pg_buf_putc(out, *p++);
    }
}

static const char *superopt_usage =
    "usage: ptxgen prompts --superopt CORPUS_DIR --results RESULTS.json --out PAIRS.jsonl [--arch sm_90]\n"
    "  Training pairs for the super-optimization mode (`gen --baseline`): for every corpus task whose\n"
    "  hand-written kernel measured faster than nvcc's PTX of its reference.cu on the GPU (RESULTS.json\n"
    "  from `ptxgen run --suite corpus`), the prompt carries nvcc's PTX (<|baseline|>) and the\n"
    "  completion is the faster kernel, with the baseline's parameter names and signature.\n";

static int superopt_pairs(const char *corpus, const char *results, const char *arch, const char *outp) {
    pg_diag_sink sink = {cli_print_diag, NULL, 0, 0, 20};
    json_error_t e;
    json_t *res = json_load_file(results, 0, &e);
    if (!res || !json_is_array(json_object_get(res, "tasks"))) {
        fprintf(stderr, "%s:%d:%d: %s\n", results, e.line, e.column, res ? "no tasks array" : e.text);
        json_decref(res);
        return 2;
    }
    pg_buf all = {0};
    int kept = 0, skipped = 0;
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(res, "tasks"), i, r) {
        const char *name = json_string_value(json_object_get(r, "task"));
        double k = json_number_value(json_object_get(json_object_get(r, "kernel"), "ms_median"));
        double b = json_number_value(json_object_get(json_object_get(r, "baseline_nvcc"), "ms_median"));
        bool ok = json_is_true(json_object_get(json_object_get(r, "kernel"), "correct"));
        if (!name || !ok || k <= 0 || b <= 0 || b / k <= 1.0) { skipped++; continue; }   /* only faster rewrites */
        char tp[4096], kp[4096];
        snprintf(tp, sizeof tp, "%s/%s/task.json", corpus, name);
        snprintf(kp, sizeof kp, "%s/%s/kernel.ptx", corpus, name);
        task_spec *t = NULL;
        char *base = NULL, *hand = NULL;
        size_t hn = 0;
        pg_buf bc = {0}, hc = {0}, bsig = {0}, renamed = {0}, prompt = {0};
        ptx_module *bm = NULL, *hm = NULL;
        bool good = task_load(tp, &t, &sink) == PG_OK && gpu_nvcc_ptx(t, arch, &base, &sink) == PG_OK &&
                    pg_read_file(kp, 16 << 20, &hand, &hn, &sink) == PG_OK;
        char why[128] = "";
        if (good) {
            pg_diag_sink q = {0};
            good = ptx_parse(base, strlen(base), "baseline", &bm, &q) == PG_OK;
            if (good) ptx_print(bm, &bc);
            good = good && canonical_ptx(hand, arch, 0, false, &hc, why, sizeof why) && signature_of(bc.data, t->kernel, &bsig);
        }
        if (good) {
            /* the hand kernel's parameter names -> nvcc's (same order and types: the harness checked both) */
            pg_diag_sink q = {0};
            good = ptx_parse(hc.data, hc.len, "hand", &hm, &q) == PG_OK;
            const ptx_func *hf = NULL, *bf = NULL;
            for (int f = 0; good && f < hm->nfuncs; f++) if (hm->funcs[f].is_entry) hf = &hm->funcs[f];
            for (int f = 0; good && f < bm->nfuncs; f++)
                if (bm->funcs[f].is_entry && !strcmp(bm->funcs[f].name, t->kernel)) bf = &bm->funcs[f];
            good = good && hf && bf && hf->nparams == bf->nparams && hf->nparams <= 32;
            if (good) {
                const char *from[32], *to[32];
                for (int k2 = 0; k2 < hf->nparams; k2++) { from[k2] = hf->params[k2].name; to[k2] = bf->params[k2].name; }
                rename_params(hc.data, from, to, hf->nparams, &renamed);
            }
        }
        if (good) {
            gen_prompt_build_superopt(bc.data, arch, bsig.data, &prompt);
            pg_buf completion = {0};
            pg_buf_puts(&completion, renamed.data);
            pg_buf_puts(&completion, GEN_TOK_END);
            json_t *j = json_pack("{s:s+, s:s?, s:s, s:s, s:s, s:s, s:f}", "id", "superopt-", name, "family", t->family, "source",
                                  "superopt", "split", "train", "prompt", prompt.data, "completion", completion.data,
                                  "measured_speedup", b / k);
            char *txt = json_dumps(j, JSON_COMPACT | JSON_ENSURE_ASCII);
            pg_buf_printf(&all, "%s\n", txt);
            free(txt);
            json_decref(j);
            pg_buf_free(&completion);
            kept++;
        } else {
            fprintf(stderr, "prompts: %s skipped%s%s\n", name, why[0] ? ": " : "", why);
            skipped++;
        }
        ptx_module_free(bm); ptx_module_free(hm);
        task_free(t); free(base); free(hand);
        pg_buf_free(&bc); pg_buf_free(&hc); pg_buf_free(&bsig); pg_buf_free(&renamed); pg_buf_free(&prompt);
    }
    json_decref(res);
    pg_status st = pg_write_file_atomic(outp, all.data ? all.data : "", all.len, &sink);
    pg_buf_free(&all);
    fprintf(stderr, "prompts: %d super-optimization pairs -> %s (%d tasks not faster than nvcc or unusable)\n", kept, outp, skipped);
    return st == PG_OK ? 0 : 2;
}

/* The C signature of a synth sample's task (its "task" object), or "" when it does not load. */
static void sample_c_signature(json_t *r, pg_buf *out) {
    char *text = json_dumps(json_object_get(r, "task"), JSON_COMPACT);
    task_spec *t = NULL;
    if (text && task_load_text(text, strlen(text), "sample-task.json", &t, NULL) == PG_OK) gen_c_signature_from_task(t, out);
    task_free(t);
    free(text);
}

static void put_pair(FILE *o, json_t *r, const char *id, const char *turn, const pg_buf *prompt, const pg_buf *completion) {
    json_t *j = json_pack("{s:s, s:s?, s:s?, s:s?, s:s?, s:s, s:s, s:s}", "id", id,
                          "family", json_string_value(json_object_get(r, "family")),
                          "source", json_string_value(json_object_get(r, "source")),
                          "split", json_string_value(json_object_get(r, "split")),
                          "description_style", json_string_value(json_object_get(r, "description_style")),
                          "turn", turn, "prompt", prompt->data, "completion", completion->data);
    char *s = json_dumps(j, JSON_COMPACT | JSON_ENSURE_ASCII);
    fprintf(o, "%s\n", s);
    free(s);
    json_decref(j);
}

/* The two-stage pairs of one sample (docs/LITERATE.md); returns how many were written. */
static long stage_pairs(FILE *o, json_t *r, const char *id, const char *desc, const char *arch, const char *cuda_c, const char *sig,
                        const char *module, bool with_sig, int stage, const char *in, long lineno) {
    long n = 0;
    pg_buf plan = {0};
    pg_buf_puts(&plan, cuda_c);
    while (plan.len && (plan.data[plan.len - 1] == '\n' || plan.data[plan.len - 1] == ' ')) plan.data[--plan.len] = 0;
    if (stage & 1) {
        pg_buf csig = {0}, prompt = {0}, completion = {0};
        if (with_sig) sample_c_signature(r, &csig);
        if (with_sig && !csig.len) fprintf(stderr, "%s:%ld: sample %s: its task does not load; plan pair without a signature\n", in, lineno, id);
        gen_prompt_build_plan(desc, arch, csig.data, &prompt);
        pg_buf_printf(&completion, "%s\n%s", plan.data ? plan.data : "", gen_end_token(GEN_FMT_CHATML));
        put_pair(o, r, id, "plan", &prompt, &completion);
        n++;
        pg_buf_free(&csig); pg_buf_free(&prompt); pg_buf_free(&completion);
    }
    if (stage & 2) {
        pg_buf prompt = {0}, completion = {0};
        gen_prompt_build_ptx_plan(desc, arch, plan.data, sig, &prompt);
        pg_buf_printf(&completion, "%s%s", module, gen_end_token(GEN_FMT_CHATML));
        put_pair(o, r, id, "ptx", &prompt, &completion);
        n++;
        pg_buf_free(&prompt); pg_buf_free(&completion);
    }
    pg_buf_free(&plan);
    return n;
}

int cmd_prompts(int argc, char **argv) {
    const char *in = NULL, *outp = NULL, *arch_override = NULL, *superopt = NULL, *results = NULL;
    int nosig_pct = 25, widen_regs = 0;
    bool twin = false;
    long no_twin = 0;
    int stage = 0;   /* 0: the single-stage pair; 1 plan, 2 ptx, 3 both */
    bool plain = false;
    gen_prompt_fmt fmt = GEN_FMT_PTXGEN;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--format") && i + 1 < argc) {
            if (!gen_prompt_fmt_parse(argv[++i], &fmt)) {
                fprintf(stderr, "ptxgen prompts: --format '%s': expected ptxgen or chatml\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(argv[i], "--superopt") && i + 1 < argc) superopt = argv[++i];
        else if (!strcmp(argv[i], "--results") && i + 1 < argc) results = argv[++i];
        else if (!strcmp(argv[i], "--twin")) twin = true;
        else if (!strcmp(argv[i], "--plain")) plain = true;
        else if (!strcmp(argv[i], "--stage") && i + 1 < argc) {
            const char *v = argv[++i];
            stage = !strcmp(v, "plan") ? 1 : !strcmp(v, "ptx") ? 2 : !strcmp(v, "both") ? 3 : -1;
            if (stage < 0) { fprintf(stderr, "ptxgen prompts: --stage '%s': expected plan, ptx or both\n", v); return 2; }
        }
        else if (!strcmp(argv[i], "--in") && i + 1 < argc) in = argv[++i];
        else if (!strcmp(argv[i], "--out") && i + 1 < argc) outp = argv[++i];
        else if (!strcmp(argv[i], "--arch") && i + 1 < argc) arch_override = argv[++i];
        else if (!strcmp(argv[i], "--no-signature-pct") && i + 1 < argc) nosig_pct = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--widen-regs") && i + 1 < argc) {
            if (!cli_int_arg("prompts", "--widen-regs", argv[++i], 1, 512, &widen_regs)) return 2;
        }
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) { printf("%s%s", prompts_usage, superopt_usage); return 0; }
        else { cli_usage_error("prompts", "unknown or incomplete option '%s'", argv[i]); return 2; }
    }
    int sm;
    bool as, fam;
    if (arch_override && !isa_parse_target(arch_override, &sm, &as, &fam)) {   /* it would be written into every prompt */
        fprintf(stderr, "ptxgen prompts: --arch %s is not a known target (sm_50 ... sm_120a)\n", arch_override);
        return 2;
    }
    if (superopt) {
        if (!results || !outp) { cli_usage_error("prompts", "--superopt needs --results R.json and --out F.jsonl"); return 2; }
        return superopt_pairs(superopt, results, arch_override ? arch_override : "sm_90", outp);
    }
    if (!in || !outp) { cli_usage_error("prompts", "need --in SYNTH.jsonl and --out PAIRS.jsonl"); return 2; }
    if (nosig_pct < 0 || nosig_pct > 100) { cli_usage_error("prompts", "--no-signature-pct wants 0 to 100, not %d", nosig_pct); return 2; }
    if (stage && (twin || fmt != GEN_FMT_CHATML)) {
        cli_usage_error("prompts", "--stage needs --format chatml (the two-stage model is a chat model) and no --twin");
        return 2;
    }
    FILE *f = fopen(in, "r");
    if (!f) { fprintf(stderr, "ptxgen prompts: %s: %s\n", in, strerror(errno)); return 2; }
    struct stat si, so;
    if (fstat(fileno(f), &si) == 0 && stat(outp, &so) == 0 && si.st_dev == so.st_dev && si.st_ino == so.st_ino) {
        fprintf(stderr, "ptxgen prompts: --out %s is the input file: it would be overwritten; name another file\n", outp);
        fclose(f);
        return 2;
    }
    pg_buf tmp = {0};
    pg_buf_printf(&tmp, "%s.tmp.%d", outp, (int)getpid());
    FILE *o = fopen(tmp.data, "w");
    if (!o) { fprintf(stderr, "ptxgen prompts: %s: %s\n", tmp.data, strerror(errno)); fclose(f); pg_buf_free(&tmp); return 2; }
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0, kept = 0, dropped = 0, bad = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, f)) > 0) {
        lineno++;
        if (n <= 1) continue;
        json_error_t e;
        json_t *r = json_loads(line, 0, &e);
        const char *id = r ? json_string_value(json_object_get(r, "id")) : NULL;
        const char *desc = r ? json_string_value(json_object_get(r, "description")) : NULL;
        const char *ptx = r ? json_string_value(json_object_get(r, "ptx_code")) : NULL;
        const char *arch = arch_override ? arch_override : r ? json_string_value(json_object_get(r, "arch")) : NULL;
        if (!id || !desc || !ptx) {
            fprintf(stderr, "%s:%ld: %s\n", in, lineno, r ? "missing id, description or ptx_code" : e.text);
            bad++;
            json_decref(r);
            continue;
        }
        if (!arch) arch = "sm_80";
        const char *cuda_c = json_string_value(json_object_get(r, "cuda_c"));
        if ((twin || stage) && !cuda_c) { no_twin++; json_decref(r); continue; }
        const char *sfmt = json_string_value(json_object_get(r, "format"));
        bool literate = sfmt && !strcmp(sfmt, "literate") && !plain;
        pg_buf canon = {0}, sig = {0}, prompt = {0}, completion = {0};
        char why[128];
        if (!canonical_ptx(ptx, arch, widen_regs, literate, &canon, why, sizeof why)) {
            fprintf(stderr, "%s:%ld: sample %s dropped: %s\n", in, lineno, id, why);
            dropped++;
        } else if (stage) {
            bool with_sig = (int)(fnv1a(id) % 100) >= nosig_pct;
            if (!gen_signature_from_module(canon.data, &sig)) {
                fprintf(stderr, "%s:%ld: sample %s dropped: no entry signature\n", in, lineno, id);
                dropped++;
            } else {
                kept += stage_pairs(o, r, id, desc, arch, cuda_c, sig.data, canon.data, with_sig, stage, in, lineno);
            }
        } else {
            bool with_sig = (int)(fnv1a(id) % 100) >= nosig_pct;
            if (with_sig && !gen_signature_from_module(canon.data, &sig)) with_sig = false;
            if (twin) {   /* description + PTX -> the CUDA C twin */
                gen_prompt_build_twin_fmt(fmt, desc, arch, with_sig ? sig.data : "", canon.data, &prompt);
                pg_buf_puts(&completion, cuda_c);
                while (completion.len && (completion.data[completion.len - 1] == '\n' || completion.data[completion.len - 1] == ' '))
                    completion.data[--completion.len] = 0;
                pg_buf_puts(&completion, "\n");
            } else {
                gen_prompt_build_fmt(fmt, desc, arch, with_sig ? sig.data : "", &prompt);
                pg_buf_puts(&completion, canon.data);
            }
            pg_buf_puts(&completion, gen_end_token(fmt));
            json_t *j = json_pack("{s:s, s:s?, s:s?, s:s?, s:s?, s:s, s:s}", "id", id,
                                  "family", json_string_value(json_object_get(r, "family")),
                                  "source", json_string_value(json_object_get(r, "source")),
                                  "split", json_string_value(json_object_get(r, "split")),
                                  "description_style", json_string_value(json_object_get(r, "description_style")),
                                  "prompt", prompt.data, "completion", completion.data);
            if (twin) json_object_set_new(j, "turn", json_string("twin"));
            char *s = json_dumps(j, JSON_COMPACT | JSON_ENSURE_ASCII);
            fprintf(o, "%s\n", s);
            free(s);
            json_decref(j);
            kept++;
        }
        pg_buf_free(&canon); pg_buf_free(&sig); pg_buf_free(&prompt); pg_buf_free(&completion);
        json_decref(r);
    }
    free(line);
    fclose(f);
    bool werr = ferror(o) != 0;
    if (fclose(o) != 0 || werr || rename(tmp.data, outp) != 0) {
        fprintf(stderr, "ptxgen prompts: cannot write %s: %s\n", outp, strerror(errno));
        unlink(tmp.data);
        pg_buf_free(&tmp);
        return 2;
    }
    pg_buf_free(&tmp);
    if (twin || stage)
        fprintf(stderr, "prompts: %ld %s pairs -> %s (%ld samples without CUDA C skipped, %ld dropped, %ld malformed lines)\n",
                kept, twin ? "twin" : stage == 1 ? "plan" : stage == 2 ? "ptx" : "plan+ptx", outp, no_twin, dropped, bad);
    else
        fprintf(stderr, "prompts: %ld pairs -> %s (%ld dropped, %ld malformed lines)\n", kept, outp, dropped, bad);
    return bad ? 1 : 0;
}


/* ---- ptxgen gen ------------------------------------------------------------------ */

static const char *gen_usage =
    "usage: ptxgen gen \"DESCRIPTION\" [-f FILE] [--task spec.json] [--model DIR] [--adapter DIR] [--name NAME]\n"
    "                  [--arch sm_80] [-o out.ptx] [--samples N] [--verify check|ptxas|gpu] [--explain]\n"
    "                  [--no-constraint] [--no-bias] [--bias FILE] [--seed S] [--temperature T] [--top-k K]\n"
    "                  [--max-tokens N] [--threads N] [--draft N] [--ngram FILE] [--json] [--twin | --twin-file TWIN.cu]\n"
    "                  [--plan PLAN.cu] [--plain] [--single-stage]\n"
    "       ptxgen gen --baseline BASE.ptx [--kernel NAME] [--no-adapter] ...  (super-optimization mode:\n"
    "                  the default model loads models/superopt, or $PTXGEN_SUPEROPT_ADAPTER, when present)\n"
    "  Decodes under the PTX constraint (valid by construction), checks the result with libptx and\n"
    "  ptxas (when installed), and with --verify gpu --task runs it against the task's reference.\n"
    "  A failed check resamples with the next seed, up to --samples attempts (default 4).\n"
    "  --verify gpu --task: verified best-of-k; all --samples candidates are drawn (together, up to 8\n"
    "  per forward step, each with its own seed as in the sequential loop), each runs the\n"
    "  harness (and a correct one is timed against nvcc), and the fastest correct one is kept\n"
    "  (\"best_of\" in --json).  Without a GPU the candidates are checked up to ptxas, the best is\n"
    "  written, the verdict says \"semantics not verified\" and the exit status is 3.\n"
    "  DESCRIPTION may be a Markdown kernel card (## name, - Input: float* x (n), - Output: ...),\n"
    "  which then gives the kernel name and signature.  Model: --model, else $PTXGEN_MODEL, else\n"
    "  models/default (in the working directory, then next to the binary).  --arch defaults to sm_80\n"
    "  (the PTX loads on sm_80 and every newer GPU).  The kernel is named by the card, the task, --name,\n"
    "  or else after the words of the description.  Only --verify gpu with --task checks what the\n"
    "  kernel computes; the summary line and --json say which checks ran (\"semantics not verified\").\n"
    "  Exit: 0 when an attempt passed the requested verification, 1 when none did, 2 usage/IO,\n"
    "  3 --verify gpu without a GPU (semantics not verified).\n"
    "  Two-stage models (base.json \"pipeline\": \"plan-literate\", docs/LITERATE.md) first write the kernel's\n"
    "  plan in CUDA C (up to --samples plans, until nvcc compiles one), then literate PTX that follows it:\n"
    "  each block of instructions starts with a // line holding the plan statement it implements.  The plan\n"
    "  is written beside the kernel as <out>.cu (it is the kernel's twin; for a free-form request it also\n"
    "  gives the kernel its name and parameters).  --plan PLAN.cu: your plan instead of the model's (checked\n"
    "  by nvcc the same way); --plain: the kernel without its plan lines; --single-stage: the PTX turn alone.\n"
    "  --draft N: speculative decoding, up to N drafted tokens checked per model step (default 0: one\n"
    "  token per step; 8 cuts the steps ~5x, bench/results/2026-12-04-gen-cpu.json); drafts come from\n"
    "  the prompt, the output so far and the n-gram table of training\n"
    "  kernels (--ngram FILE, else ngram.bin of the model directory when present; `ptxgen ngram`).  The\n"
    "  output is byte-identical to --draft 0, for greedy and seeded sampling alike.\n"
    "  --twin: the model also writes the kernel's CUDA C twin (a second turn: extern \"C\" __global__, same\n"
    "  name and parameters) to <out>.cu; --twin-file X.cu uses your twin instead (its signature is forced\n"
    "  when no card or task gives one).  The twin is compiled with nvcc (-ptx and a cubin).  Without --task a\n"
    "  task is inferred from the request and the twin (roles, element counts, launch rule, sizes) and\n"
    "  written to <out>.task.json (edit it and rerun with --task); with a GPU the PTX runs against the twin\n"
    "  on every input set of that task, a difference draws the next candidate (within --samples) and the\n"
    "  first difference is reported.  Verdicts: \"agrees with its CUDA twin on N input sets\", \"differs\n"
    "  from its CUDA twin: ...\" (exit 1), \"twin compiles; not run\", \"twin written; nvcc not found; not\n"
    "  compiled\".  The twin is another implementation, not a reference: agreement is not correctness.\n";

/* A kernel name from the words of a free-text request: "tiled 16x16 SGEMM with
 * shared memory" -> "tiled_16x16_sgemm".  ASCII words of 2+ characters, filler
 * words dropped, at most 3 words and 32 bytes (the constraint's name limit);
 * "kernel" when nothing is left (a description only in Chinese, say). */
static void name_from_description(const char *d, char *out, size_t n) {
    static const char *const skip[] = {"a", "an", "the", "of", "with", "for", "to", "and", "in", "on", "by", "each",
                                       "every", "kernel", "compute", "computes", "calculate", "using", "use", "that",
                                       "which", "is", "are", "into", "from", "as", "at", "write", "writes", "please",
                                       "ptx", "cuda", "gpu", "one", "thread", "threads", "per", "element", "where", NULL};
    size_t len = 0;
    int words = 0;
    out[0] = 0;
    for (const char *p = d; *p && words < 3;) {
        while (*p && !isalnum((unsigned char)*p)) p++;
        const char *w = p;
        while (isalnum((unsigned char)*p)) p++;
        size_t wl = (size_t)(p - w);
        if (wl < 2) continue;
        bool filler = false;
        for (int k = 0; skip[k] && !filler; k++) filler = strlen(skip[k]) == wl && !strncasecmp(skip[k], w, wl);
        if (filler || (words == 0 && isdigit((unsigned char)*w))) continue;
        if (len + (len ? 1 : 0) + wl > 32 || len + 1 + wl >= n) break;
        if (len) out[len++] = '_';
        for (size_t k = 0; k < wl; k++) out[len++] = (char)tolower((unsigned char)w[k]);
        out[len] = 0;
        words++;
    }
    if (!len) snprintf(out, n, "kernel");
}

/* A kernel name the constraint accepts: an identifier of at most 32 bytes. */
static bool name_ok(const char *s) {
    if (!*s || strlen(s) > 32 || !(isalpha((unsigned char)*s) || *s == '_')) return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_') return false;
    return true;
}

bool cli_near_exe(const char *rel, char *out, size_t n) {
    char exe[4096];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k <= 0) return false;
    exe[k] = 0;
    for (int up = 1; up <= 2; up++) {   /* build/ptxgen and build/san/ptxgen; PREFIX/bin/ptxgen (make install) */
        char *slash = strrchr(exe, '/');
        if (!slash) return false;
        *slash = 0;
        snprintf(out, n, "%s/../%s", exe, rel);
        if (access(out, R_OK) == 0) return true;
        snprintf(out, n, "%s/../share/ptxgen/%s", exe, rel);
        if (access(out, R_OK) == 0) return true;
    }
    return false;
}

/* models/default in the cwd, else next to the executable (build/ptxgen -> ../models/default). */
bool cli_default_model(char *out, size_t n) {
    const char *env = getenv("PTXGEN_MODEL");
    if (env && *env) { snprintf(out, n, "%s", env); return true; }
    /* a shipped adapter over a GGUF base (base.json) or a Hugging Face directory (config.json) */
    static const char *marks[] = {"base.json", "config.json"};
    for (int i = 0; i < 2; i++) {
        char rel[64];
        snprintf(rel, sizeof rel, "models/default/%s", marks[i]);
        if (access(rel, R_OK) == 0) { snprintf(out, n, "models/default"); return true; }
    }
    for (int i = 0; i < 2; i++) {
        char rel[64];
        snprintf(rel, sizeof rel, "models/default/%s", marks[i]);
        if (cli_near_exe(rel, out, n)) { out[strlen(out) - strlen(marks[i]) - 1] = 0; return true; }
    }
    return false;
}

typedef struct {
    const char *check, *ptxas, *gpu;   /* "pass" | "fail" | "not run" */
    int registers;
    char why[600];
    eval_funnel_result fr;             /* the whole funnel verdict (best-of-k compares these) */
} gen_verdict;

/* One attempt through eval's funnel (validator + the task's signature -> ptxas -> the
 * GPU at level 2), reduced to gen's three verdicts and one reason. */
static void verify_sample(const char *ptx, const char *path, const char *arch, const task_spec *task, int level,
                          bool time_it, gen_verdict *v) {
    memset(v, 0, sizeof *v);
    char ptxas_path[512], whyg[256] = "";
    bool have_ptxas = ptx_ptxas_find(ptxas_path, sizeof ptxas_path);   /* run whenever present: a rejection never passes */
    bool want_gpu = level >= 2 && task;
    bool have_gpu = want_gpu && gpu_available(whyg, sizeof whyg);
    eval_funnel_opts fo = {.arch = arch, .ptxas = have_ptxas, .gpu = have_gpu, .time_it = time_it && have_gpu};
    eval_funnel_in fi = {ptx, NULL, path, NULL};
    eval_funnel_result fr;
    eval_funnel(&fi, task, &fo, &fr);
    v->fr = fr;   /* the verdict fields only: the module and the ptxas report stay with fr (freed below) */
    v->fr.module = NULL;
    memset(&v->fr.ptxas, 0, sizeof v->fr.ptxas);
    v->check = fr.check ? "pass" : "fail";
    v->ptxas = fr.ptxas_ran ? (fr.ptxas_ok ? "pass" : "fail") : "not run";
    v->gpu = fr.gpu_ran ? (fr.correct ? "pass" : "fail") : "not run";
    v->registers = fr.registers;
    if (!fr.check) snprintf(v->why, sizeof v->why, "check: %.580s", fr.detail);
    else if (fr.ptxas_ran && !fr.ptxas_ok) snprintf(v->why, sizeof v->why, "%.590s", fr.detail);   /* "ptxas: ..." */
    else if (!have_ptxas && level >= 1) snprintf(v->why, sizeof v->why, "ptxas: not found (install the CUDA toolkit or set $PTXAS)");
    else if (want_gpu && !have_gpu) snprintf(v->why, sizeof v->why, "gpu: not run (%s)", whyg);
    else if (fr.gpu_ran && !fr.correct) snprintf(v->why, sizeof v->why, "gpu: %s: %.560s", fr.stage, fr.detail);
    eval_funnel_result_free(&fr);
}

static bool passed(const gen_verdict *v, int level) {
    if (strcmp(v->check, "pass")) return false;
    if (level >= 1 && strcmp(v->ptxas, "pass")) return false;
    if (!strcmp(v->ptxas, "fail")) return false;   /* ptxas ran and rejected it: never a pass */
    if (level >= 2 && strcmp(v->gpu, "pass")) return false;
    return true;
}

/* The header of entry `kernel` in canonical text. */
static bool signature_of(const char *canon, const char *kernel, pg_buf *out) {
    if (!kernel) return gen_signature_from_module(canon, out);
    pg_buf pat = {0};
    pg_buf_printf(&pat, ".entry %s(", kernel);
    const char *p = strstr(canon, pat.data);
    pg_buf_free(&pat);
    if (!p) return false;
    while (p > canon && p[-1] != '\n') p--;
    return gen_signature_from_module(p, out);
}

/* ---- gen --twin: the CUDA C twin and the differential verdict -------------------------- */
typedef struct {
    twin_verdict verdict;
    int sets;                  /* input sets compared (agrees) */
    int attempts;              /* PTX candidates compared with the twin */
    char detail[700];          /* the first difference, or why it was not run */
    char cu_path[4200], task_path[4200];
    bool task_written;
    char nvcc[1024];
    bool generated;            /* the model wrote the twin (else --twin-file) */
} twin_outcome;

/* Bytes that are not UTF-8 (a model's noise quoted back by nvcc) become '?', so the text can go into JSON. */
static void utf8_clean(char *s) {
    unsigned char *p = (unsigned char *)s;
    while (p && *p) {
        int n = *p < 0x80 ? 1 : (*p >> 5) == 6 ? 2 : (*p >> 4) == 14 ? 3 : (*p >> 3) == 30 ? 4 : 0;
        bool ok = n > 0;
        for (int k = 1; ok && k < n; k++) ok = (p[k] & 0xc0) == 0x80;
        if (!ok) { *p++ = '?'; continue; }
        p += n;
    }
}

/* "dir/base.ptx" -> "dir/base" + ext */
static void sibling(const char *ptx_path, const char *ext, char *out, size_t n) {
    size_t l = strlen(ptx_path);
    if (l > 4 && !strcmp(ptx_path + l - 4, ".ptx")) l -= 4;
    snprintf(out, n, "%.*s%s", (int)l, ptx_path, ext);
}

static bool same_file(const char *a, const char *b) {
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static void verify_sample(const char *ptx, const char *path, const char *arch, const task_spec *task, int level,
                          bool time_it, gen_verdict *v);

/* After <cu_path> is written: compile it, read its kernel, and (no task given)
 * infer <task_path> from the request, the twin and a PTX, load it and show it.
 * Sets to->verdict for the static outcomes; *inferred is the loaded task or NULL. */
static void twin_prepare(const char *desc, const char *cu_text, const char *ptx, const char *arch, int block_hint,
                         const task_spec *given, twin_outcome *to, task_spec **inferred, pg_diag_sink *sink) {
    *inferred = NULL;
    to->verdict = TWIN_V_NOT_COMPARED;
    twin_build b;
    if (twin_compile(to->cu_path, arch, &b, sink) != PG_OK) {
        snprintf(to->detail, sizeof to->detail, "cannot compile %.600s (temp files)", to->cu_path);
        return;
    }
    snprintf(to->nvcc, sizeof to->nvcc, "%s", b.nvcc);
    twin_kernel k;
    bool parsed = twin_parse(cu_text, to->cu_path, NULL, &k, sink) == PG_OK;
    char entry[128] = "";
    const char *ep = strstr(ptx, ".entry ");
    if (ep) snprintf(entry, sizeof entry, "%.*s", (int)strcspn(ep + 7, "( \n"), ep + 7);
    if (b.status == TWIN_BUILD_NO_NVCC) to->verdict = TWIN_V_NO_NVCC;
    else if (b.status == TWIN_BUILD_FAILED) {
        to->verdict = TWIN_V_NVCC_FAILED;
        twin_log_first_error(b.log, to->detail, sizeof to->detail);
    }
    if (parsed && strcmp(k.kernel, entry)) {
        snprintf(to->detail, sizeof to->detail, "the twin's kernel is '%.100s', the PTX's entry '%.100s': they must have one name",
                 k.kernel, entry);
    } else if (parsed && !given) {
        /* the task: inferred from the request, the twin and a PTX (nvcc's of the twin when it compiled) */
        const char *slash = strrchr(to->cu_path, '/');
        twin_infer_in in = {desc, &k, slash ? slash + 1 : to->cu_path, b.status == TWIN_BUILD_OK ? b.ptx : ptx, block_hint};
        pg_buf tj = {0};
        if (twin_infer_task(&in, &tj, sink) == PG_OK && pg_write_file_atomic(to->task_path, tj.data, tj.len, sink) == PG_OK) {
            to->task_written = true;
            if (task_load(to->task_path, inferred, sink) == PG_OK) {   /* its "must_write": see task_ref */
                pg_buf sum = {0};
                twin_task_summary(*inferred, &sum);
                fprintf(stderr, "twin: inferred task (%s; check it, edit it, rerun with --task %s):\n%s", to->task_path,
                        to->task_path, sum.data);
                pg_buf_free(&sum);
            } else {
                snprintf(to->detail, sizeof to->detail, "the inferred task %.600s does not load (see above); edit it", to->task_path);
            }
        }
        pg_buf_free(&tj);
    } else if (!parsed && !to->detail[0]) {
        snprintf(to->detail, sizeof to->detail, "the twin has no extern \"C\" __global__ kernel ptxgen can read (see above)");
    } else if (given) {
        snprintf(to->detail, sizeof to->detail, "--task given: its reference decides; the twin is for reading");
        if (to->verdict == TWIN_V_NOT_COMPARED && b.status == TWIN_BUILD_OK) to->verdict = TWIN_V_NOT_RUN;
    }
    if (b.status != TWIN_BUILD_OK && *inferred) { task_free(*inferred); *inferred = NULL; }
    if (parsed) twin_kernel_free(&k);
    twin_build_free(&b);
}

/* Is the GPU comparison possible for this PTX (check and ptxas passed, a GPU)?  Else sets the verdict. */
static bool twin_can_run(const gen_verdict *v, twin_outcome *to) {
    char why[256];
    if (strcmp(v->check, "pass") || !strcmp(v->ptxas, "fail")) {
        to->verdict = TWIN_V_NOT_RUN;
        snprintf(to->detail, sizeof to->detail, "the PTX did not pass %s", strcmp(v->check, "pass") ? "the validator" : "ptxas");
        return false;
    }
    if (!gpu_available(why, sizeof why)) {
        to->verdict = TWIN_V_NOT_RUN;
        snprintf(to->detail, sizeof to->detail, "no GPU: %.240s", why);
        return false;
    }
    return true;
}

/* One PTX against the twin (the inferred task's reference) on the GPU.  true when
 * the comparison is settled: it agrees, or the twin/task cannot run (more
 * candidates would not help). */
static bool twin_judge(const char *ptx, const char *arch, const task_spec *inferred, const char *tmpdir, int at,
                       twin_outcome *to, gen_verdict *v, pg_diag_sink *sink) {
    pg_buf path = {0};
    pg_buf_printf(&path, "%s/twin%d.ptx", tmpdir, at);
    memset(v, 0, sizeof *v);
    v->check = v->ptxas = v->gpu = "not run";
    bool wrote = pg_write_file_atomic(path.data, ptx, strlen(ptx), sink) == PG_OK;
    if (wrote) verify_sample(ptx, path.data, arch, inferred, 2, false, v);
    unlink(path.data);
    pg_buf_free(&path);
    if (!wrote) { snprintf(to->detail, sizeof to->detail, "cannot write a temp file in %.500s", tmpdir); return true; }
    to->attempts++;
    if (!strcmp(v->gpu, "pass")) {
        to->verdict = TWIN_V_AGREES;
        to->sets = v->fr.gpu_sets;
        return true;
    }
    if (v->fr.gpu_status && !strcmp(v->fr.gpu_status, "setup-error")) {
        to->verdict = TWIN_V_NOT_COMPARED;
        snprintf(to->detail, sizeof to->detail, "%.600s", v->fr.detail);
        return true;
    }
    if (!strcmp(v->check, "pass") && strcmp(v->ptxas, "fail")) {
        if (to->verdict != TWIN_V_DIFFERS)   /* report the first difference */
            snprintf(to->detail, sizeof to->detail, "attempt %d: %s: %.560s", at, v->fr.stage, v->fr.detail);
        to->verdict = TWIN_V_DIFFERS;
    }
    return false;
}

/* Writes <base>.cu (the user's twin or the model's second turn), compiles it,
 * infers <base>.task.json when no task was given, and with a GPU runs the PTX
 * against the twin; a difference draws the next candidates (within `samples`)
 * until one agrees.  *best may be replaced by an agreeing candidate. */
static void twin_phase(model_model *model, const tok_tokenizer *tok, const dec_vocab *vocab, const char *desc, gen_opts *o,
                       uint64_t seed0, int samples, int *best_attempt, gen_result *best, gen_verdict *bestv, const char *outp,
                       const char *twin_src, const char *twin_file, const task_spec *given, const char *tmpdir,
                       twin_outcome *to, pg_diag_sink *sink) {
    memset(to, 0, sizeof *to);
    to->verdict = TWIN_V_NOT_COMPARED;
    sibling(outp, ".cu", to->cu_path, sizeof to->cu_path);
    sibling(outp, ".task.json", to->task_path, sizeof to->task_path);
    pg_buf cu = {0};
    if (twin_src) {
        pg_buf_puts(&cu, twin_src);
    } else {
        gen_result tr;
        to->generated = true;
        pg_status st = gen_twin_sample(model, tok, desc, best->ptx, o, &tr, sink);
        if (st != PG_OK) {
            snprintf(to->detail, sizeof to->detail, "the model could not write a twin (%s)", pg_status_str(st));
            gen_result_free(&tr);
            return;
        }
        pg_buf_printf(&cu, "// GENERATED_BY: ptxgen %s (CUDA C twin, the model's second turn; review it before relying on it)\n",
                      model_get_config(model)->model_id);
        twin_strip_fence(tr.ptx, &cu);   /* the C inside a ``` fence, when the model fenced it */
        if (!tr.finished) fprintf(stderr, "gen: the twin stopped at the token limit (%d tokens)\n", tr.gen_tokens);
        gen_result_free(&tr);
    }
    if (!(twin_file && same_file(twin_file, to->cu_path)) &&
        pg_write_file_atomic(to->cu_path, cu.data ? cu.data : "", cu.len, sink) != PG_OK) {
        snprintf(to->detail, sizeof to->detail, "cannot write %.600s", to->cu_path);
        pg_buf_free(&cu);
        return;
    }
    task_spec *inferred = NULL;
    twin_prepare(desc, cu.data ? cu.data : "", best->ptx, o->arch, o->block[0], given, to, &inferred, sink);
    if (inferred && twin_can_run(bestv, to)) {
        for (int at = *best_attempt; at <= samples; at++) {
            gen_result r = {0};
            gen_result *cand = best;
            if (at > *best_attempt) {   /* a difference: the next candidate */
                o->sampler.seed = seed0 + (uint64_t)(at - 1);
                if (gen_sample(model, tok, vocab, desc, o, &r, sink) != PG_OK) { gen_result_free(&r); break; }
                cand = &r;
            }
            gen_verdict v;
            bool settled = twin_judge(cand->ptx, o->arch, inferred, tmpdir, at, to, &v, sink);
            if (to->verdict == TWIN_V_AGREES && cand != best) {
                gen_result_free(best);
                *best = r;
                *bestv = v;
                bestv->gpu = "not run";   /* it ran against the twin, not a task's reference: the twin line says so */
                *best_attempt = at;
                r.ptx = NULL;
            }
            if (!settled)
                fprintf(stderr, "gen: attempt %d/%d %s its twin (%s)%s\n", at, samples,
                        strcmp(v.check, "pass") || !strcmp(v.ptxas, "fail") ? "failed before meeting" : "differs from",
                        v.why[0] ? v.why : v.fr.detail, at < samples ? "; resampling with the next seed" : "");
            gen_result_free(&r);
            if (settled) break;
        }
    }
    task_free(inferred);
    pg_buf_free(&cu);
}

/* ---- ptxgen twin: a PTX file against its CUDA C twin, no model ------------------------ */
static const char *twin_usage =
    "usage: ptxgen twin KERNEL.ptx TWIN.cu [--request TEXT] [--task-out F.task.json] [--arch sm_80] [--no-gpu] [--json]\n"
    "  The verdict path of `gen --twin` on a kernel you have: TWIN.cu (extern \"C\" __global__, the entry's\n"
    "  name and parameters) is compiled with nvcc (-ptx and a cubin), a task is inferred from it and the\n"
    "  request (written to --task-out, default KERNEL.task.json beside the PTX, with the twin copied to\n"
    "  KERNEL.cu when it lives elsewhere), and with a GPU the PTX runs against the twin on every input set.\n"
    "  --no-gpu: compile and infer only (the verdict is \"not run\").\n"
    "  Exit: 0 agrees (or could not be run: the line says why), 1 differs or the PTX fails its checks,\n"
    "  2 usage/IO or a twin ptxgen cannot read.\n";

int cmd_twin(int argc, char **argv) {
    const char *ptxp = NULL, *cup = NULL, *request = NULL, *task_out = NULL, *arch = "sm_80";
    bool json = false, no_gpu = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--no-gpu")) no_gpu = true;
        else if (!strcmp(a, "--request") && i + 1 < argc) request = argv[++i];
        else if (!strcmp(a, "--task-out") && i + 1 < argc) task_out = argv[++i];
        else if (!strcmp(a, "--arch") && i + 1 < argc) arch = argv[++i];
        else if (!strcmp(a, "--json")) json = true;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) { printf("%s", twin_usage); return 0; }
        else if (a[0] == '-' && a[1]) { cli_usage_error("twin", "unknown or incomplete option '%s'", a); return 2; }
        else if (!ptxp) ptxp = a;
        else if (!cup) cup = a;
        else { cli_usage_error("twin", "one PTX file and one twin"); return 2; }
    }
    if (!ptxp || !cup) { cli_usage_error("twin", "need KERNEL.ptx and TWIN.cu"); return 2; }
    int sm_;
    bool as_, fam_;
    if (!isa_parse_target(arch, &sm_, &as_, &fam_)) { fprintf(stderr, "ptxgen twin: --arch %s is not a known target\n", arch); return 2; }
    pg_diag_sink sink = {cli_print_diag, NULL, 0, 0, 20};
    char *ptx = NULL, *cu = NULL;
    size_t n;
    int rc = 2;
    twin_outcome to;
    memset(&to, 0, sizeof to);
    task_spec *inferred = NULL;
    char tmpdir[600] = "";
    if (pg_read_file(ptxp, 64 << 20, &ptx, &n, &sink) != PG_OK || pg_read_file(cup, 4 << 20, &cu, &n, &sink) != PG_OK) goto out;
    sibling(ptxp, ".cu", to.cu_path, sizeof to.cu_path);
    if (task_out) snprintf(to.task_path, sizeof to.task_path, "%s", task_out);
    else sibling(ptxp, ".task.json", to.task_path, sizeof to.task_path);
    /* the twin must sit beside the task.json (the reference is a plain file name there) */
    {
        char tdir[4200], cdir[4200];
        const char *ts = strrchr(to.task_path, '/'), *cs = strrchr(to.cu_path, '/');
        snprintf(tdir, sizeof tdir, "%.*s", ts ? (int)(ts - to.task_path) : 1, ts ? to.task_path : ".");
        snprintf(cdir, sizeof cdir, "%.*s", cs ? (int)(cs - to.cu_path) : 1, cs ? to.cu_path : ".");
        if (!same_file(tdir, cdir)) {
            fprintf(stderr, "ptxgen twin: --task-out %s: put the task.json in the PTX's folder (%s), where the twin's copy is\n",
                    to.task_path, cdir);
            goto out;
        }
    }
    char *existing = NULL;
    size_t en = 0;
    pg_diag_sink quiet = {0};
    bool identical = access(to.cu_path, F_OK) == 0 && pg_read_file(to.cu_path, 4 << 20, &existing, &en, &quiet) == PG_OK &&
                     !strcmp(existing, cu);
    free(existing);
    if (!same_file(cup, to.cu_path) && !identical && access(to.cu_path, F_OK) == 0) {
        fprintf(stderr, "ptxgen twin: %s exists and is not %s; the twin's copy would overwrite it: pass that file or move it\n",
                to.cu_path, cup);
        goto out;
    }
    if (!same_file(cup, to.cu_path) && !identical && pg_write_file_atomic(to.cu_path, cu, strlen(cu), &sink) != PG_OK) goto out;
    {
        twin_kernel k;
        if (twin_parse(cu, cup, NULL, &k, &sink) != PG_OK) goto out;
        twin_kernel_free(&k);
    }
    twin_prepare(request, cu, ptx, arch, 0, NULL, &to, &inferred, &sink);
    gen_verdict v;
    memset(&v, 0, sizeof v);
    v.check = v.ptxas = v.gpu = "not run";
    rc = 0;
    if (inferred) {
        pg_tmp_path(tmpdir, sizeof tmpdir, "ptxgen-twin-XXXXXX");
        if (!mkdtemp(tmpdir)) { fprintf(stderr, "ptxgen twin: cannot create a temp dir: %s\n", strerror(errno)); rc = 2; tmpdir[0] = 0; goto out; }
        verify_sample(ptx, ptxp, arch, inferred, 1, false, &v);   /* validator + signature + ptxas first */
        if (!passed(&v, 1)) { to.verdict = TWIN_V_NOT_RUN; snprintf(to.detail, sizeof to.detail, "the PTX fails its checks: %.560s", v.why); rc = 1; }
        else if (no_gpu) { to.verdict = TWIN_V_NOT_RUN; snprintf(to.detail, sizeof to.detail, "--no-gpu"); }
        else if (twin_can_run(&v, &to)) twin_judge(ptx, arch, inferred, tmpdir, 1, &to, &v, &sink);
    }
    if (to.verdict == TWIN_V_DIFFERS) rc = 1;
    pg_buf line = {0};
    utf8_clean(to.detail);
    twin_verdict_line(to.verdict, to.sets, to.detail, &line);
    fprintf(stderr, "twin: %s vs %s: %s\n", ptxp, to.cu_path, line.data);
    if (json) {
        json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:i}", "ptx", ptxp, "twin", to.cu_path, "verdict", twin_verdict_name(to.verdict),
                              "line", line.data, "input_sets", to.sets);
        if (to.task_written) json_object_set_new(j, "task_file", json_string(to.task_path));
        if (to.detail[0]) json_object_set_new(j, "detail", json_string(to.detail));
        json_object_set_new(j, "nvcc", to.nvcc[0] ? json_string(to.nvcc) : json_null());
        char *s2 = json_dumps(j, JSON_INDENT(2));
        printf("%s\n", s2);
        free(s2);
        json_decref(j);
    }
    pg_buf_free(&line);
out:
    if (tmpdir[0]) rmdir(tmpdir);
    task_free(inferred);
    free(ptx);
    free(cu);
    return rc;
}

/* --plain: the literate kernel without its plan lines (the constraint writes them as whole
 * "\t//..." lines; the GENERATED_BY line at the top stays). */
static void strip_plan_lines(char *ptx) {
    char *w = ptx;
    for (char *r = ptx; *r;) {
        char *nl = strchr(r, '\n');
        size_t n = nl ? (size_t)(nl - r) + 1 : strlen(r);
        bool plan = n >= 3 && r[0] == '\t' && r[1] == '/' && r[2] == '/';
        if (!plan) { memmove(w, r, n); w += n; }
        r += n;
    }
    *w = 0;
}

int cmd_gen(int argc, char **argv) {
    const char *desc = NULL, *desc_file = NULL, *task_path = NULL, *model_dir = NULL, *adapter = NULL;
    const char *outp = NULL, *verify = "check", *bias_path = NULL, *baseline = NULL, *kernel_opt = NULL, *name_opt = NULL;
    int samples = 4, threads = 1;   /* one core decodes the small default model fastest; --threads N for big ones */
    bool explain = false, json = false, no_bias = false, no_adapter = false, twin = false;
    const char *twin_file = NULL, *plan_file = NULL, *ngram_path = NULL;
    char *twin_src = NULL, *plan_src = NULL;
    gen_ngram *ngram = NULL;
    bool plain = false, single = false;
    pipe_in pin;
    pipe_out pout;
    pg_buf ptx_prompt = {0};
    memset(&pin, 0, sizeof pin);
    memset(&pout, 0, sizeof pout);
    twin_outcome tout;
    bool twin_ran = false;
    memset(&tout, 0, sizeof tout);
    gen_opts o;
    gen_opts_default(&o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
#define ARG(flag) (!strcmp(a, flag) && i + 1 < argc)
        if (ARG("-f")) desc_file = argv[++i];
        else if (ARG("--task")) task_path = argv[++i];
        else if (ARG("--model")) model_dir = argv[++i];
        else if (ARG("--adapter")) adapter = argv[++i];
        else if (!strcmp(a, "--no-adapter")) no_adapter = true;
        else if (ARG("--arch")) o.arch = argv[++i];
        else if (ARG("-o")) outp = argv[++i];
        else if (ARG("--samples")) { if (!cli_int_arg("gen", a, argv[++i], 1, 1000, &samples)) return 2; }
        else if (ARG("--verify")) verify = argv[++i];
        else if (ARG("--bias")) bias_path = argv[++i];
        else if (ARG("--seed")) { if (!cli_u64_arg("gen", a, argv[++i], &o.sampler.seed)) return 2; }
        else if (ARG("--temperature")) { if (!cli_float_arg("gen", a, argv[++i], 0, 100, &o.sampler.temperature)) return 2; }
        else if (ARG("--top-k")) { if (!cli_int_arg("gen", a, argv[++i], 1, 1 << 20, &o.sampler.top_k)) return 2; }
        else if (ARG("--max-tokens")) { if (!cli_int_arg("gen", a, argv[++i], 16, 1 << 20, &o.max_tokens)) return 2; }
        else if (ARG("--threads")) { if (!cli_int_arg("gen", a, argv[++i], 1, cli_cores(), &threads)) return 2; }
        else if (ARG("--draft")) { if (!cli_int_arg("gen", a, argv[++i], 0, 64, &o.draft_max)) return 2; }
        else if (ARG("--ngram")) ngram_path = argv[++i];
        else if (ARG("--baseline") || ARG("--superopt")) baseline = argv[++i];
        else if (ARG("--kernel")) kernel_opt = argv[++i];
        else if (ARG("--name")) name_opt = argv[++i];
        else if (!strcmp(a, "--explain")) explain = true;
        else if (!strcmp(a, "--json")) json = true;
        else if (!strcmp(a, "--no-constraint")) o.constrained = false;
        else if (!strcmp(a, "--no-bias")) no_bias = true;
        else if (!strcmp(a, "--twin")) twin = true;
        else if (ARG("--twin-file")) { twin_file = argv[++i]; twin = true; }
        else if (ARG("--plan")) plan_file = argv[++i];
        else if (!strcmp(a, "--plain")) plain = true;
        else if (!strcmp(a, "--single-stage")) single = true;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) { printf("%s", gen_usage); return 0; }
        else if (a[0] == '-' && a[1]) { cli_usage_error("gen", "unknown or incomplete option '%s'", a); return 2; }
        else if (!desc) desc = a;
        else { cli_usage_error("gen", "more than one description given"); return 2; }
#undef ARG
    }
    int level = !strcmp(verify, "check") ? 0 : !strcmp(verify, "ptxas") ? 1 : !strcmp(verify, "gpu") ? 2 : -1;
    if (level < 0) return cli_usage_error("gen", "--verify wants check, ptxas or gpu, not '%s'", verify);
    if (level == 2 && !task_path) return cli_usage_error("gen", "--verify gpu needs --task (the reference to check against)");
    int sm_;
    bool as_, fam_;
    if (!isa_parse_target(o.arch, &sm_, &as_, &fam_)) return cli_usage_error("gen", "--arch %s is not a known target (sm_50 ... sm_120a)", o.arch);
    if (!cli_arch_usable("gen", o.arch, gen_header_ptx_version(o.arch))) return 2;   /* before the model, not after every sample */
    if (name_opt && !name_ok(name_opt)) {
        return cli_usage_error("gen", "--name %s: want an identifier of at most 32 letters, digits and '_'", name_opt);
    }
    /* --verify gpu without a GPU: candidates are still drawn and checked (validator, ptxas), the
     * best is written, and the verdict and exit status 3 say the semantics were not verified */
    char nogpu_why[256] = "";
    bool nogpu = level == 2 && !gpu_available(nogpu_why, sizeof nogpu_why);
    if (nogpu) fprintf(stderr, "ptxgen gen: --verify gpu needs a GPU (%s): checking up to ptxas only, semantics not verified\n", nogpu_why);
    int vlevel = nogpu ? 1 : level;
    bool best_of = level == 2 && !nogpu;   /* verified best-of-k: draw all k, keep the fastest correct */
    int ncorrect = 0;
    pg_diag_sink sink = {cli_print_diag, NULL, 0, 0, 20};
    int rc = 2;
    char *desc_buf = NULL, *base_text = NULL;
    task_spec *task = NULL;
    model_model *model = NULL;
    tok_tokenizer *tok = NULL;
    dec_vocab *vocab = NULL;
    dec_bias *bias = NULL;
    pg_buf sig = {0}, canon_base = {0}, tokpath = {0};
    gen_card card = {0};
    char mdir[4096], kernel[128] = "";
    gen_result best = {0};
    gen_verdict bestv = {0};
    int best_attempt = 0;
    gen_result *drawn = NULL;   /* verified best-of-k: every candidate, drawn together (gen_sample_k) */
    const char *sig_source = "model";   /* who gave the signature: task, baseline, card, twin, plan or the model */

    if (desc_file) {
        size_t n;
        if (pg_read_file(desc_file, 1 << 20, &desc_buf, &n, &sink) != PG_OK) goto out;
        desc = desc_buf;
        if (!desc[strspn(desc, " \t\r\n")]) { fprintf(stderr, "ptxgen gen: -f %s: the description is empty\n", desc_file); goto out; }
    }
    if (desc && !desc[strspn(desc, " \t\r\n")]) { fprintf(stderr, "ptxgen gen: the description is empty\n"); goto out; }
    if (task_path) {
        if (task_load(task_path, &task, &sink) != PG_OK) goto out;
        /* no description given: the task's own, the most exact style it has */
        const char *own[] = {task->desc[TASK_STYLE_DETAILED], task->desc[TASK_STYLE_CARD], task->desc[TASK_STYLE_PROSE], task->desc[TASK_STYLE_ZH], task->desc[TASK_STYLE_TERSE]};
        for (size_t k = 0; !desc && k < sizeof own / sizeof own[0]; k++) desc = own[k];
        gen_signature_from_task(task, &sig);
        sig_source = "task";
        snprintf(kernel, sizeof kernel, "%s", task->kernel);
        if (name_opt && strcmp(name_opt, task->kernel)) {
            fprintf(stderr, "ptxgen gen: --name %s: the task names its kernel %s\n", name_opt, task->kernel);
            goto out;
        }
        task_block_max(task, o.block);   /* the constraint keeps .maxntid/.reqntid compatible with it */
    }
    if (baseline) {
        size_t n;
        ptx_module *bm = NULL;
        if (pg_read_file(baseline, 64 << 20, &base_text, &n, &sink) != PG_OK) goto out;
        if (ptx_parse(base_text, n, baseline, &bm, &sink) != PG_OK) { rc = 1; goto out; }
        ptx_print(bm, &canon_base);
        ptx_module_free(bm);
        if (!sig.len && !signature_of(canon_base.data, kernel_opt, &sig)) {
            fprintf(stderr, "ptxgen gen: %s: no entry %s%s\n", baseline, kernel_opt ? "named " : "", kernel_opt ? kernel_opt : "");
            goto out;
        }
        o.baseline_ptx = canon_base.data;
        if (!strcmp(sig_source, "model")) sig_source = "baseline";
        if (!desc) desc = "";
    }
    if (!desc) { cli_usage_error("gen", "no description (give text, -f FILE, --task or --baseline)"); goto out; }
    if (twin && baseline) { fprintf(stderr, "ptxgen gen: --twin/--twin-file are for descriptions, not --baseline (its twin is the .cu it came from)\n"); goto out; }
    gen_card_parse(desc, &card);
    if (card.ok) desc = card.text;   /* a card on one line prompts as %%ptxgen sends it: one "- Key:" per line */
    if (!sig.len && card.ok) {
        char why[300];
        if (gen_signature_from_card(&card, &sig, why, sizeof why)) {
            sig_source = "card";
            const char *p = strstr(sig.data, ".entry ");
            if (p) snprintf(kernel, sizeof kernel, "%.*s", (int)strcspn(p + 7, "("), p + 7);
        } else {
            fprintf(stderr, "gen: note: the card's signature was not used (%s); the model writes it\n", why);
            sig.len = 0;
        }
    }
    if (sig.len && name_opt && strcmp(kernel, name_opt)) {   /* --name renames the card's kernel */
        pg_buf renamed = {0};
        const char *p = strstr(sig.data, ".entry ");
        if (p) {
            pg_buf_printf(&renamed, "%.*s.entry %s%s", (int)(p - sig.data), sig.data, name_opt, p + 7 + strlen(kernel));
            pg_buf_free(&sig);
            sig = renamed;
            snprintf(kernel, sizeof kernel, "%s", name_opt);
        }
    }
    static char name_from_twin[128];   /* the twin's kernel name when its signature cannot be forced */
    if (twin_file) {   /* the user's twin: its signature is forced when nothing else gives one */
        size_t n;
        twin_kernel tk;
        if (pg_read_file(twin_file, 4 << 20, &twin_src, &n, &sink) != PG_OK) goto out;
        const char *want = kernel[0] ? kernel : name_opt;
        if (twin_parse(twin_src, twin_file, want, &tk, &sink) != PG_OK) goto out;
        if (!name_ok(tk.kernel)) {
            fprintf(stderr, "ptxgen gen: %s:%d: kernel name '%s': want an identifier of at most 32 letters, digits and '_'\n",
                    twin_file, tk.line, tk.kernel);
            twin_kernel_free(&tk);
            goto out;
        }
        if (!sig.len) {
            if (name_opt && strcmp(name_opt, tk.kernel)) {
                fprintf(stderr, "ptxgen gen: --name %s: the twin %s names its kernel %s\n", name_opt, twin_file, tk.kernel);
                twin_kernel_free(&tk);
                goto out;
            }
            if (twin_ptx_signature(&tk, &sig)) { snprintf(kernel, sizeof kernel, "%s", tk.kernel); sig_source = "twin"; }
            else {
                fprintf(stderr, "gen: note: the twin's signature has a parameter of unknown type; the model writes the signature\n");
                sig.len = 0;
                if (!name_opt) name_opt = name_from_twin, snprintf(name_from_twin, sizeof name_from_twin, "%s", tk.kernel);
            }
        }
        twin_kernel_free(&tk);
    }
    if (sig.len) o.signature = sig.data;
    else {   /* the model writes the parameters; the name comes from --name, the card or the request */
        if (name_opt) snprintf(kernel, sizeof kernel, "%s", name_opt);
        else if (card.ok && name_ok(card.kernel)) snprintf(kernel, sizeof kernel, "%s", card.kernel);
        else name_from_description(desc, kernel, sizeof kernel);
        o.entry_name = kernel;
    }

    if (model_dir) snprintf(mdir, sizeof mdir, "%s", model_dir);
    else if (!cli_default_model(mdir, sizeof mdir)) {
        fprintf(stderr, "ptxgen gen: no model: pass --model DIR, set $PTXGEN_MODEL, or run from the repository root (models/default)\n");
        goto out;
    }
    /* Super-optimization mode: the default model brings its own adapter
     * (models/superopt, trained on nvcc-baseline -> faster-kernel pairs). */
    char sodir[4200];
    if (baseline && !adapter && !no_adapter) {
        const char *env = getenv("PTXGEN_SUPEROPT_ADAPTER");
        if (env && *env) adapter = env;
        else if (!model_dir) {
            snprintf(sodir, sizeof sodir, "%s/../superopt/adapter_config.json", mdir);
            if (access(sodir, R_OK) == 0) {
                sodir[strlen(sodir) - strlen("/adapter_config.json")] = 0;
                adapter = sodir;
            }
        }
    }
    if (baseline && adapter) fprintf(stderr, "gen: super-optimization mode, adapter %s\n", adapter);
    /* the default model's base is pinned: a base file with another sha256 is refused */
    model_load_opts lo = {adapter, threads, NULL, !model_dir, false};
    if (model_load(mdir, &lo, &model, &sink) != PG_OK) goto out;
    char tpath[8400];
    if (model_tokenizer_path(mdir, tpath, sizeof tpath, &sink) != PG_OK) goto out;
    pg_buf_printf(&tokpath, "%s", tpath);
    if (tok_load(tokpath.data, &tok, &sink) != PG_OK) goto out;
    if (dec_vocab_new(tok, &vocab, &sink) != PG_OK) goto out;
    o.format = gen_prompt_fmt_of(tok);
    {   /* the n-gram table of training kernels: --ngram, else ngram.bin beside the model's adapter */
        char np[4200];
        snprintf(np, sizeof np, "%s/ngram.bin", mdir);
        const char *use = ngram_path ? ngram_path : access(np, R_OK) == 0 ? np : NULL;
        if (use && gen_ngram_load(use, tok, &ngram, &sink) != PG_OK) goto out;
        o.ngram = ngram;
    }
    if (!no_bias && o.constrained) {
        pg_status bs = bias_path ? dec_bias_load(bias_path, vocab, &bias, &sink) : dec_bias_default(vocab, &bias, &sink);
        if (bs != PG_OK) goto out;
        o.bias = bias;
    }

    /* the two-stage model (docs/LITERATE.md): its plan in CUDA C first, checked by nvcc; the PTX turns follow it */
    bool two = !baseline && !single && (pipe_model_is_two_stage(mdir) || plan_file);
    if (plan_file && !pipe_model_is_two_stage(mdir)) {
        fprintf(stderr, "ptxgen gen: --plan needs a two-stage model (base.json \"pipeline\": \"plan-literate\"); %s is not one\n", mdir);
        goto out;
    }
    if (two) {
        if (plan_file) {
            size_t n;
            if (pg_read_file(plan_file, 4 << 20, &plan_src, &n, &sink) != PG_OK) goto out;
        }
        pin.request = desc;
        pin.task = task;
        pin.plan = plan_src;
        pin.gen = o;
        pin.plan_samples = samples;
        rc = 1;
        if (pipe_plan(model, tok, &pin, &pout, &sink) != PG_OK) goto out;
        fprintf(stderr, "gen: plan: kernel %s, %s%s (%d attempt%s, %d tokens, %.1f s)\n", pout.kernel,
                plan_src ? "given" : "the model's", pout.nvcc_ran ? ", nvcc compiles it" : ", not compiled (no nvcc)",
                pout.plan_attempts, pout.plan_attempts == 1 ? "" : "s", pout.plan_tokens, pout.plan_seconds);
        if (!sig.len && pout.signature) {   /* a free-form request: the plan names the kernel and its parameters */
            pg_buf_puts(&sig, pout.signature);
            snprintf(kernel, sizeof kernel, "%s", pout.kernel);
            sig_source = "plan";
        }
        pipe_ptx_opts(&pin, &pout, &o, &ptx_prompt);
        if (sig.len) o.signature = sig.data;
        if (twin && !twin_src) twin_src = strdup(pout.plan);   /* the plan is the twin */
    }

    char tmpdir[600];
    pg_tmp_path(tmpdir, sizeof tmpdir, "ptxgen-gen-XXXXXX");
    if (!mkdtemp(tmpdir)) { fprintf(stderr, "ptxgen gen: cannot create a temp dir: %s\n", strerror(errno)); goto out; }
    uint64_t seed0 = o.sampler.seed;
    rc = 1;
    if (best_of && samples > 1) {   /* all k are drawn anyway: they share each forward step */
        drawn = calloc((size_t)samples, sizeof *drawn);
        if (!drawn) { fprintf(stderr, "ptxgen gen: out of memory for %d candidates\n", samples); goto cleanup; }
        if (gen_sample_k(model, tok, vocab, desc, &o, samples, drawn, &sink) != PG_OK) goto cleanup;
    }
    for (int at = 1; at <= samples; at++) {
        gen_result r;
        o.sampler.seed = seed0 + (uint64_t)(at - 1);
        if (drawn) {   /* candidate at - 1 was drawn with this seed */
            r = drawn[at - 1];
            memset(&drawn[at - 1], 0, sizeof r);
        } else if (gen_sample(model, tok, vocab, desc, &o, &r, &sink) != PG_OK) {
            gen_result_free(&r);
            goto cleanup;
        }
        pg_buf path = {0};
        pg_buf_printf(&path, "%s/attempt%d.ptx", tmpdir, at);
        gen_verdict v;
        if (pg_write_file_atomic(path.data, r.ptx, strlen(r.ptx), &sink) != PG_OK) { pg_buf_free(&path); gen_result_free(&r); goto cleanup; }
        verify_sample(r.ptx, path.data, o.arch, task, vlevel, best_of, &v);
        unlink(path.data);
        pg_buf_free(&path);
        /* a kernel the token budget closed is a stub: a failure, unless the GPU showed it correct */
        bool unfinished = r.cut && strcmp(v.gpu, "pass");
        if (unfinished) {   /* the cause first; what the checks then said after it */
            char then[sizeof v.why];
            snprintf(then, sizeof then, "%s", v.why);
            snprintf(v.why, sizeof v.why, "unfinished: the token budget (--max-tokens %d) ran out before the model ended the kernel%s%.480s",
                     o.max_tokens, then[0] ? "; " : "", then);
        }
        bool ok = passed(&v, vlevel) && !unfinished;
        ncorrect += ok && best_of;
        if (!ok)
            fprintf(stderr, "gen: attempt %d/%d failed (%s)%s\n", at, samples, v.why[0] ? v.why : "did not finish",
                    at < samples ? "; resampling with the next seed" : "");
        else if (best_of)
            fprintf(stderr, "gen: attempt %d/%d correct%s%.3fx nvcc%s%s\n", at, samples, v.fr.speedup > 0 ? ", " : " (not timed) ",
                    v.fr.speedup, v.fr.hygiene ? "; flagged: " : "", v.fr.hygiene ? v.fr.hygiene : "");
        if (best_of ? eval_better(&v.fr, best.ptx ? &bestv.fr : NULL) : (ok || !best.ptx)) {
            gen_result_free(&best);
            best = r;
            bestv = v;
            best_attempt = at;
        } else {
            gen_result_free(&r);
        }
        if (ok) { rc = 0; if (!best_of) break; }
    }
    if (nogpu) rc = 3;
    if (!kernel[0] && best.ptx) {
        const char *p = strstr(best.ptx, ".entry ");
        if (p) snprintf(kernel, sizeof kernel, "%.*s", (int)strcspn(p + 7, "( \n"), p + 7);
    }
    char defpath[200];
    if (!outp && twin && best.ptx) { snprintf(defpath, sizeof defpath, "%s.ptx", name_ok(kernel) ? kernel : "generated"); outp = defpath; }
    if (twin && best.ptx) {
        twin_phase(model, tok, vocab, desc, &o, seed0, samples, &best_attempt, &best, &bestv, outp, twin_src, twin_file, task, tmpdir,
                   &tout, &sink);
        twin_ran = true;
        if (tout.verdict == TWIN_V_DIFFERS) rc = 1;
        else if (tout.verdict == TWIN_V_AGREES && rc == 1) rc = 0;
    }
    if (!outp && json) { snprintf(defpath, sizeof defpath, "%s.ptx", name_ok(kernel) ? kernel : "generated"); outp = defpath; }
    if (plain && best.ptx) strip_plan_lines(best.ptx);
    if (outp) {
        if (pg_write_file_atomic(outp, best.ptx, strlen(best.ptx), &sink) != PG_OK) { rc = 2; goto cleanup; }
    } else if (!json) {
        fputs(best.ptx, stdout);
    }
    char plan_path[4200] = "";
    if (two && outp && !twin_ran) {   /* the plan beside the kernel: its CUDA C twin (--twin writes it as <out>.cu itself) */
        const char *dot = strrchr(outp, '.');
        snprintf(plan_path, sizeof plan_path, "%.*s.cu", (int)(dot && !strchr(dot, '/') ? dot - outp : (long)strlen(outp)), outp);
        if (pg_write_file_atomic(plan_path, pout.plan, strlen(pout.plan), &sink) != PG_OK) { rc = 2; goto cleanup; }
        fprintf(stderr, "gen: plan -> %s\n", plan_path);
    }
    int toks = best.gen_tokens + best.forced_tokens;
    double tps = best.seconds > 0 ? toks / best.seconds : 0;
    /* what was verified, said plainly: only the GPU run against a task's reference checks what it computes */
    const char *semantics = !strcmp(bestv.gpu, "pass") ? "correct" : !strcmp(bestv.gpu, "fail") ? "wrong" : "not verified";
    char nogpu_note[300];
    snprintf(nogpu_note, sizeof nogpu_note, "no GPU: %s", nogpu_why);
    const char *sem_note = !strcmp(bestv.gpu, "pass") ? "matches the task's reference on every input set (GPU)"
                           : !strcmp(bestv.gpu, "fail") ? "differs from the task's reference or did not run (GPU)"
                           : !task && twin_ran ? "no task says what it should compute; compared with its CUDA twin instead (the twin line)"
                           : !task ? "no task says what it should compute; use --task spec.json --verify gpu"
                           : nogpu ? nogpu_note : "--verify gpu was not requested";
    fprintf(stderr, "gen: %s: %d tokens (%d forced%s) in %.2f s (%.0f tok/s), %d registers; validator %s, ptxas %s, gpu %s; "
                    "semantics %s (%s); attempt %d/%d%s%s\n",
            kernel[0] ? kernel : "?", toks, best.forced_tokens, best.cut ? "; cut short by the token budget" : "", best.seconds,
            tps, bestv.registers, bestv.check, bestv.ptxas,
            bestv.gpu, semantics, sem_note, best_attempt, samples, outp ? " -> " : "", outp ? outp : "");
    /* what the line above cannot say on its own */
    bool unfinished = best.ptx && best.cut && strcmp(bestv.gpu, "pass") && !(twin_ran && tout.verdict == TWIN_V_AGREES);
    if (unfinished)
        fprintf(stderr, "gen: UNFINISHED: the token budget (--max-tokens %d) ran out before the model ended the kernel, so %s "
                        "is a stub, not a finished kernel (exit 1): raise --max-tokens\n",
                o.max_tokens, outp ? outp : "the output");
    if (!strcmp(sig_source, "model"))
        fprintf(stderr, "gen: the signature was invented by the model (no card, --task or twin gave one)%s%d%s; give the "
                        "parameters with a Markdown kernel card (see examples/saxpy.card.md) or --task spec.json\n",
                best.params_renamed ? ": " : "", best.params_renamed,
                best.params_renamed ? " parameter name(s) not in the request renamed a<k>" : "");
    pg_buf actual_sig = {0};
    if (best.ptx) gen_signature_from_module(best.ptx, &actual_sig);
    pg_buf twin_line = {0};
    if (twin_ran) {
        utf8_clean(tout.detail);
        twin_verdict_line(tout.verdict, tout.sets, tout.detail, &twin_line);
        fprintf(stderr, "gen: twin %s -> %s%s%s: %s\n", tout.generated ? "(second turn of the model)" : "(given)", tout.cu_path,
                tout.task_written ? ", task " : "", tout.task_written ? tout.task_path : "", twin_line.data);
    }
    if (json) {
        json_t *j = json_pack("{s:s?, s:s, s:s?, s:s, s:i, s:i, s:i, s:f, s:f, s:i, s:{s:s, s:s, s:s}, s:i, s:b, s:i, s:f, s:s}",
                              "ptx_file", outp, "kernel", kernel, "signature", actual_sig.data, "model",
                              model_get_config(model)->model_id, "tokens", toks, "forced_tokens", best.forced_tokens,
                              "prompt_tokens", best.prompt_tokens, "seconds", best.seconds, "tokens_per_s", tps,
                              "registers", bestv.registers, "verdicts", "check", bestv.check, "ptxas", bestv.ptxas, "gpu",
                              bestv.gpu, "attempts", best_attempt, "finished", best.finished, "mask_calls", best.mask_calls,
                              "mask_seconds", best.mask_seconds, "why", bestv.why);
        json_object_set_new(j, "semantics", json_string(semantics));
        if (two) {
            json_t *pl = json_pack("{s:s, s:b, s:i, s:i, s:f}", "source", plan_src ? "given" : "model", "nvcc_compiles", pout.nvcc_ran,
                                   "attempts", pout.plan_attempts, "tokens", pout.plan_tokens, "seconds", pout.plan_seconds);
            if (plan_path[0]) json_object_set_new(pl, "file", json_string(plan_path));
            json_object_set_new(j, "pipeline", json_string("plan-literate"));
            json_object_set_new(j, "plan", pl);
        }
        json_object_set_new(j, "signature_source", json_string(sig_source));   /* "model": invented, not asked for */
        json_object_set_new(j, "params_renamed", json_integer(best.params_renamed));
        json_object_set_new(j, "unfinished", json_boolean(unfinished));
        json_object_set_new(j, "speculative", json_pack("{s:i, s:i, s:i, s:i, s:i}", "draft_max", o.draft_max, "model_steps",
                                                        best.forwards, "drafted", best.drafted, "accepted", best.accepted,
                                                        "jumped", best.jumped));
        json_object_set_new(j, "semantics_note", json_string(sem_note));
        if (twin_ran) {
            json_t *tw = json_pack("{s:s, s:b, s:s, s:s, s:i, s:i}", "file", tout.cu_path, "generated", tout.generated, "verdict",
                                   twin_verdict_name(tout.verdict), "line", twin_line.data, "input_sets", tout.sets, "attempts",
                                   tout.attempts);
            if (tout.task_written) json_object_set_new(tw, "task_file", json_string(tout.task_path));
            if (tout.detail[0]) json_object_set_new(tw, "detail", json_string(tout.detail));
            json_object_set_new(tw, "nvcc", tout.nvcc[0] ? json_string(tout.nvcc) : json_null());
            json_object_set_new(j, "twin", tw);
        }
        if (best_of) {   /* verified best-of-k: what was drawn and what was kept */
            json_t *b = json_pack("{s:i, s:i, s:s}", "drawn", samples, "correct", ncorrect, "kept_stage", bestv.fr.stage);
            if (bestv.fr.speedup > 0) json_object_set_new(b, "speedup", json_real(bestv.fr.speedup));
            if (bestv.fr.hygiene) json_object_set_new(b, "hygiene", json_string(bestv.fr.hygiene));
            json_object_set_new(j, "best_of", b);
        }
        char *s = json_dumps(j, JSON_INDENT(2));
        printf("%s\n", s);
        free(s);
        json_decref(j);
    } else if (explain && !strcmp(bestv.check, "pass")) {
        ptx_module *m = NULL;
        pg_diag_sink q = {0};
        /* the explainer reads the forms the validator matched */
        if (ptx_parse(best.ptx, strlen(best.ptx), outp ? outp : "generated", &m, &q) == PG_OK &&
            ptx_validate(m, &q) == PG_OK) {
            pg_buf e = {0};
            ptx_explain_module(m, &e);
            if (outp) fputs(e.data, stdout);
            else fprintf(stderr, "%s", e.data);
            pg_buf_free(&e);
        }
        ptx_module_free(m);
    }
    pg_buf_free(&twin_line);
    pg_buf_free(&actual_sig);
cleanup:
    rmdir(tmpdir);
out:
    gen_result_free(&best);
    for (int i = 0; drawn && i < samples; i++) gen_result_free(&drawn[i]);
    free(drawn);
    gen_card_free(&card);
    dec_bias_free(bias);
    gen_ngram_free(ngram);
    dec_vocab_free(vocab);
    tok_free(tok);
    model_free(model);
    task_free(task);
    free(desc_buf);
    free(base_text);
    free(twin_src);
    free(plan_src);
    pipe_out_free(&pout);
    pg_buf_free(&ptx_prompt);
    pg_buf_free(&sig);
    pg_buf_free(&canon_base);
    pg_buf_free(&tokpath);
    return rc;
}
