/* top.h — a draw from a row's top-K candidates, exactly as from the whole row (internal to gen.c).
 *
 * The GPU engine hands back each row's MODEL_TOPK largest logits (model_topk_rows) instead of the
 * whole row.  gen.c's pick draws with model_sample from the row after the performance bias
 * (dec_bias_apply) and, where it masks, with every refused id at -inf.  gen_top_sample makes
 * the same draw from the candidates when they prove that the entries model_sample reads -- the
 * first k finite allowed entries of the biased row in (logit descending, id ascending) order, k
 * = top_k or 1 for greedy -- are all among them; otherwise it says need_full and touches no
 * state (no random draw), and the caller reads the whole row.  top.c gives the argument. */
#ifndef PTXGEN_DECODE_TOP_H
#define PTXGEN_DECODE_TOP_H
#include "ptxgen/decode.h"

typedef struct {
    const float *vals;     /* [n] model_topk_rows's row: logits in (logit desc, id asc) order */
    const int32_t *ids;    /* [n] their ids */
    int n;                 /* MODEL_TOPK; fewer only when the row has no more finite entries */
} gen_top;

/* Which ids the draw may take: a bitset (dec_mask's layout, ids >= nbits refused), a list of
 * ids in ascending order, or (both NULL) every id. */
typedef struct {
    const uint32_t *bits;
    int nbits;
    const int32_t *ids;
    int nids;
} gen_allow;

/* model_sample(s, L, vocab) where L is the whole row with adds applied (NULL: none; in their
 * order, as dec_bias_apply adds them) and every id allow refuses at -inf (allow NULL: none
 * refused) -- or -1 with *need_full set, s untouched, when the candidates cannot decide it
 * (then also when no allowed candidate is finite, or the sampler reads more than its first
 * MODEL_TOPK entries: top_k 0 or above MODEL_TOPK, top_p < 1). */
int32_t gen_top_sample(model_sampler *s, const gen_top *c, const dec_bias_adds *adds, const gen_allow *allow, bool *need_full);
#endif
