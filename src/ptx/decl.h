/* decl.h — the rules of a declaration's qualifiers and type (internal to src/ptx).
 * ptxas applies them whether or not the declaration names anything: the
 * validator checks them on each declared name, the parser on the declarations
 * that name nothing (`.reg .v4 .f64;`, `.align 4 .b32;`), which leave no statement. */
#ifndef PTX_DECL_H
#define PTX_DECL_H
#include "ptxgen/ptx.h"

#include <stddef.h>

/* The first rule d breaks, as a message without the name (written into buf, n
 * bytes), or NULL.  in_body: declared in a function's body. */
const char *ptx_decl_shape_problem(const ptx_decl *d, bool in_body, char *buf, size_t n);
#endif
