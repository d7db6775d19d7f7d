/* vocab_tok.c — dec_vocab from a loaded tokenizer (kept apart from vocab.c so
 * that tests on a fake vocabulary do not pull in the tokenizer). */
#include "dec_internal.h"

#include <stdlib.h>

static pg_status dec_vocab_new_(const tok_tokenizer *t, dec_vocab **out, pg_diag_sink *diag) {
    int n = tok_vocab_size(t);
    const char **pieces = calloc((size_t)(n > 0 ? n : 1), sizeof *pieces);
    size_t *lens = calloc((size_t)(n > 0 ? n : 1), sizeof *lens);
    bool *special = calloc((size_t)(n > 0 ? n : 1), sizeof *special);
    if (!pieces || !lens || !special) {
        free(pieces); free(lens); free(special);
        return PG_ERR_NOMEM;
    }
    for (int i = 0; i < n; i++) {
        size_t len = 0;
        const char *b = tok_is_unused(t, i) ? NULL : tok_token_bytes(t, i, &len);   /* empty: never allowed */
        pieces[i] = b ? b : "";
        lens[i] = b ? len : 0;
        special[i] = tok_is_special(t, i);
    }
    pg_status st = dec_vocab_from_pieces(pieces, lens, special, n, out, diag);
    free(pieces);
    free(lens);
    free(special);
    return st;
}

pg_status dec_vocab_new(const tok_tokenizer *t, dec_vocab **out, pg_diag_sink *diag) {
    int e0 = diag ? diag->nerrors : 0;
    return pg_nomem_said(dec_vocab_new_(t, out, diag), diag, e0, "ptxgen", "building the decoder vocabulary");
}

