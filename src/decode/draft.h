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

#endif
