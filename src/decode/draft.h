/* draft.h — the drafter's guesses (draft.c), shared by gen.c and test_draft.c; not a public header.
 * Every function reads only its arguments and writes only its outputs. */
#ifndef PTXGEN_DRAFT_H
#define PTXGEN_DRAFT_H

#include "ptxgen/decode.h"
#include "ptxgen/ptx.h"

#include <stdbool.h>

#define DRAFT_MIN_MATCH 2   /* the shortest history match drafted: one token of context guesses too often wrong */

/* The token after the longest earlier occurrence (2..8 tokens; ties: the most recent) of the
 * suffix of h[0..n), or -1 (no occurrence of at least DRAFT_MIN_MATCH); *len = its length. */
int32_t gen_draft_hist_next(const int32_t *h, int n, int *len);

/* The same lookup in a reference token array (the speculative decoder's gen_opts.draft_ref): the
 * token after the longest occurrence (2..8 tokens) of the suffix of h[0..n) in ref[0..nref), or
 * -1; *len = its length, *at = the index of the returned token in ref.  Among occurrences of
 * the same length, the first whose next token stands at or after `from` wins, else the first.
 * digits (the ten digit tokens, or NULL): any two of them match each other, so a match runs on
 * across register numbers the model and nvcc count differently. */
int32_t gen_draft_ref_next(const int32_t *h, int n, const int32_t *ref, int nref, const int32_t *digits, int from, int *len, int *at);

/* The next digit (0..9) of the register number the text s[0..n) (PTX, the line being written
 * last) is writing, or -1: the line ends in %<class><digits so far> as an instruction's first
 * operand (*dst true: the highest number of the class in the body so far, plus one, as nvcc
 * numbers registers) or after ", " or "[" (*dst false: the number of the last destination of the
 * class).  No guess in a comment or directive, or when the digits so far are not its prefix. */
int gen_draft_reg_digit(const char *s, size_t n, bool *dst);

/* The plan line a literate comment being begun most likely copies: the line of prompt after the
 * one the text's last whole `// ` comment copied (blanks collapsed on both sides), skipping lines
 * of braces only and the __global__ line; appended to out, blanks collapsed, at most
 * PTX_LITERATE_LINE_MAX bytes.  false (out unchanged) when the text has no whole comment or the
 * prompt has no such line. */
bool gen_draft_plan_next(const char *prompt, const char *s, size_t n, pg_buf *out);

/* Register renames: nvcc numbers its registers one way, the model another (`%rd6` in the reference
 * where the model wrote `%rd2`), so a reference draft of a register number is right only when the
 * two agree.  The map holds, per class, nvcc's number -> the model's, learned where a reference
 * match lined the model's just-finished register up with one of the reference's. */
#define DRAFT_REGMAP_CLS 8     /* classes tracked (p, r, rd, f, fd, h, ...); more are not mapped */
#define DRAFT_REGMAP_N 1024    /* numbers per class; higher ones are not mapped */
typedef struct {
    int ncls;
    char cls[DRAFT_REGMAP_CLS][4];               /* class letters, NUL-terminated */
    int32_t to[DRAFT_REGMAP_CLS][DRAFT_REGMAP_N]; /* the model's number + 1; 0: not known */
} gen_regmap;

/* The register number at byte q of s[0..n): a run of digits [*ds, *de) holding q or ending at q,
 * right after %<1..3 lower-case letters>; its class into cls (NUL-terminated) and value into *num.
 * false when q is at no register number (or the number has more than 6 digits). */
bool gen_draft_reg_at(const char *s, size_t n, size_t q, char cls[4], long *num, size_t *ds, size_t *de);

/* Record that nvcc's register cls `from` is the model's `to` (ignored past the map's bounds). */
void gen_regmap_set(gen_regmap *m, const char *cls, long from, long to);

/* The model's number for nvcc's register cls `from`, or -1 when not known. */
long gen_regmap_get(const gen_regmap *m, const char *cls, long from);

/* Learn a rename: the text t[0..n) ends in a token of bl bytes (not a digit) that just ended a
 * register number %<class><digits>; h[0..nh) are the tokens so far (the last that token, before it
 * the number's digits, one token a digit: digits[0..10) are their ids).  The tokens before the
 * digits are lined up with the reference ref[0..nref) (a match of 3+ tokens, any digit matching
 * any digit, ties at or after *from: gen_draft_ref_next); where the reference writes a register of
 * the same class right there (its text rtext, token i at byte ref_off[i], ref_off[nref] its
 * length), its number -> the text's is recorded, *from set to the place, and true returned. */
bool gen_regmap_learn(gen_regmap *m, const char *t, size_t n, size_t bl, const int32_t *h, int nh, const int32_t *ref, int nref,
                      const size_t *ref_off, const char *rtext, const int32_t *digits, int *from);

/* A translated reference draft: the reference ref[0..rn) aligned so that its byte q stands next
 * (a reference match's next token), the text so far h[0..hn) ending in %<class><digits typed>.
 * When the reference's register there has a known rename with the typed digits as its prefix:
 * the next digit of the renamed number (0..9), or -2 when the typed digits are the whole renamed
 * number (*skip = the reference's digit bytes from q on, to be passed over); else -1. */
int gen_regmap_next(const gen_regmap *m, const char *ref, size_t rn, size_t q, const char *h, size_t hn, size_t *skip);

#endif
