/* tok_internal.h — tokenizer entry points for tests and the fuzz target
 * (not part of the public API in ptxgen/model.h). */
#ifndef PTXGEN_TOK_INTERNAL_H
#define PTXGEN_TOK_INTERNAL_H

#include "ptxgen/model.h"

/* tok_load on a tokenizer.json already in memory; `name` is the file name used
 * in diagnostics. */
pg_status tok_load_mem(const char *json, size_t len, const char *name, tok_tokenizer **out,
                       pg_diag_sink *diag);

#endif
