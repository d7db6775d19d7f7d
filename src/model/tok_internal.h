/* tok_internal.h — tokenizer entry points for tests and the fuzz target
 * (not part of the public API in ptxgen/model.h). */
#ifndef PTXGEN_TOK_INTERNAL_H
#define PTXGEN_TOK_INTERNAL_H

#include "ptxgen/model.h"
#include "gguf.h"

/* tok_load on a tokenizer.json already in memory; `name` is the file name used
 * in diagnostics. */
pg_status tok_load_mem(const char *json, size_t len, const char *name, tok_tokenizer **out,
                       pg_diag_sink *diag);

/* The tokenizer described by an open GGUF file's tokenizer.ggml.* metadata
 * (see tok_load_gguf); diagnostics name model_gguf_path(g).  Nothing of g is kept:
 * the tokenizer may outlive it. */
pg_status tok_from_gguf(const gguf_file *g, tok_tokenizer **out, pg_diag_sink *diag);

#endif
