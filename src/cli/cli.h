/* cli.h — command entry points of the ptxgen binary (src/cli). */
#ifndef PTXGEN_CLI_H
#define PTXGEN_CLI_H
#include "ptxgen/common.h"
#include "ptxgen/ptx.h"

#include <jansson.h>

#define PTXGEN_VERSION "0.1.0"

int cmd_check(int argc, char **argv);
int cmd_fmt(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_isa(int argc, char **argv);
int cmd_run(int argc, char **argv);        /* cmd_run.c */
int cmd_devinfo(int argc, char **argv);    /* cmd_devinfo.c */
int cmd_synth(int argc, char **argv);
int cmd_gen(int argc, char **argv);        /* cmd_gen.c */
int cmd_prompts(int argc, char **argv);    /* cmd_prompts.c */
int cmd_twin(int argc, char **argv);       /* cmd_twin.c */
int cmd_ngram(int argc, char **argv);      /* cmd_ngram.c */
int cmd_retrieve(int argc, char **argv);   /* cmd_retrieve.c */
int cmd_tokenize(int argc, char **argv);   /* cmd_tokenize.c */
int cmd_logits(int argc, char **argv);     /* cmd_logits.c */
int cmd_grammar(int argc, char **argv);    /* cmd_grammar.c */
int cmd_eval(int argc, char **argv);       /* cmd_eval.c */
int cmd_gate(int argc, char **argv);       /* cmd_gate.c */
int cmd_nvcc(int argc, char **argv);       /* cmd_nvcc.c (also run as `ptxgen-nvcc`) */

/* The helpers below are cli_util.c's (commands call them, never each other).
 * ptxas -v figures of one function as a JSON object (check --ptxas, stats --ptxas). */
json_t *cli_ptxas_func_json(const ptxas_func_report *f);

/* The model directory when none is named: $PTXGEN_MODEL, else model_default_dir (model.h)
 * in the cwd, then in the folder above the binary and its share/ptxgen. */
bool cli_default_model(char *out, size_t n);
/* "<folder above the binary>/<rel>" when it exists (build/ptxgen or build/san/ptxgen + "corpus" ->
 * build/../corpus), or "<folder above the binary>/share/ptxgen/<rel>" (where `make install`
 * puts the model and the corpus: PREFIX/bin/ptxgen -> PREFIX/share/ptxgen); false when there is none. */
bool cli_near_exe(const char *rel, char *out, size_t n);

/* Flag values: the whole string must be a number in [lo, hi] (finite for
 * floats); otherwise print "ptxgen CMD: FLAG wants ..., not 'TEXT'" and return false. */
bool cli_int_arg(const char *cmd, const char *flag, const char *text, long lo, long hi, int *out);
bool cli_float_arg(const char *cmd, const char *flag, const char *text, double lo, double hi, float *out);
bool cli_u64_arg(const char *cmd, const char *flag, const char *text, uint64_t *out);
/* A usage error: "ptxgen CMD: MESSAGE" and the hint "try 'ptxgen help CMD'" on stderr
 * (never the whole usage text).  Returns 2, the usage exit status. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Refuse up front an --arch the installed ptxas does not know (a PTX header of
 * `ptx_version`, 0 = the target's first): prints "ptxgen CMD: --arch X: the installed
 * ptxas (PATH) does not know it: ..." and returns false.  true when it does, or
 * when there is no ptxas (the commands say so themselves). */
bool cli_arch_usable(const char *cmd, const char *arch, int ptx_version);
/* The number of online cores (at least 1). */
int cli_cores(void);

/* The library's progress notes (pipe_notes.fn: whole lines) on stderr (cli_util.c). */
void cli_print_note(void *user, const char *text);
/* ... and the product (pipe_notes.out: PTX, JSON) on stdout. */
void cli_print_out(void *user, const char *text);
/* Diagnostics sink that prints "file:line:col: error[CODE]: msg" to stderr. */
void cli_print_diag(void *user, const pg_diag *d);
#endif
