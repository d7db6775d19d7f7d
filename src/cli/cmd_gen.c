/* cmd_gen.c — `ptxgen gen` (generate PTX with the model under the constraint)
 * and `ptxgen prompts` (a synth dataset in the training format). */
#include "cli.h"
#include "ptxgen/decode.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- ptxgen prompts ----------------------------------------------------------- */

static const char *prompts_usage =
    "usage: ptxgen prompts --in SYNTH.jsonl --out PAIRS.jsonl [--no-signature-pct P] [--arch sm_90]\n"
    "  One line per sample: {id, family, source, split, prompt, completion}.  The prompt is\n"
    "  gen_prompt_build(description, arch, signature); the completion is the module as\n"
    "  `ptxgen fmt` prints it with the forced header for the arch, then <|end|>.  P%% of the\n"
    "  samples (chosen by a hash of the id; default 25) leave the signature line empty so the\n"
    "  model also learns to write the signature itself.  Samples whose PTX does not parse and\n"
    "  validate after the rewrite are counted and dropped, never passed through.\n";

static uint64_t fnv1a(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* Canonical text with the forced header for `arch`; false when it does not validate. */
static bool canonical_ptx(const char *src, const char *arch, pg_buf *out, char *why, size_t whyn) {
    ptx_module *m = NULL;
    pg_diag_sink q = {0};
    if (ptx_parse(src, strlen(src), "sample", &m, &q) != PG_OK || ptx_validate(m, &q) != PG_OK || q.nerrors) {
        snprintf(why, whyn, "does not parse/validate as given");
        ptx_module_free(m);
        return false;
    }
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

int cmd_prompts(int argc, char **argv) {
    const char *in = NULL, *outp = NULL, *arch_override = NULL;
    int nosig_pct = 25;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--in") && i + 1 < argc) in = argv[++i];
        else if (!strcmp(argv[i], "--out") && i + 1 < argc) outp = argv[++i];
        else if (!strcmp(argv[i], "--arch") && i + 1 < argc) arch_override = argv[++i];
        else if (!strcmp(argv[i], "--no-signature-pct") && i + 1 < argc) nosig_pct = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) { printf("%s", prompts_usage); return 0; }
        else { fprintf(stderr, "ptxgen prompts: unknown or incomplete option '%s'\n%s", argv[i], prompts_usage); return 2; }
    }
    if (!in || !outp || nosig_pct < 0 || nosig_pct > 100) { fprintf(stderr, "%s", prompts_usage); return 2; }
    FILE *f = fopen(in, "r");
    if (!f) { fprintf(stderr, "ptxgen prompts: %s: %s\n", in, strerror(errno)); return 2; }
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
        pg_buf canon = {0}, sig = {0}, prompt = {0}, completion = {0};
        char why[128];
        if (!canonical_ptx(ptx, arch, &canon, why, sizeof why)) {
            fprintf(stderr, "%s:%ld: sample %s dropped: %s\n", in, lineno, id, why);
            dropped++;
        } else {
            bool with_sig = (int)(fnv1a(id) % 100) >= nosig_pct;
            if (with_sig && !gen_signature_from_module(canon.data, &sig)) with_sig = false;
            gen_prompt_build(desc, arch, with_sig ? sig.data : "", &prompt);
            pg_buf_puts(&completion, canon.data);
            pg_buf_puts(&completion, GEN_TOK_END);
            json_t *j = json_pack("{s:s, s:s?, s:s?, s:s?, s:s, s:s}", "id", id,
                                  "family", json_string_value(json_object_get(r, "family")),
                                  "source", json_string_value(json_object_get(r, "source")),
                                  "split", json_string_value(json_object_get(r, "split")),
                                  "prompt", prompt.data, "completion", completion.data);
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
    fprintf(stderr, "prompts: %ld pairs -> %s (%ld dropped, %ld malformed lines)\n", kept, outp, dropped, bad);
    return bad ? 1 : 0;
}

int cmd_gen(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "ptxgen gen: not built yet\n"); return 2; }
