/* pipe_notes.h — the pipeline's progress lines (internal): formatted, then handed to
 * the caller's pipe_notes callback (a NULL callback drops them). */
#ifndef PTXGEN_PIPE_NOTES_H
#define PTXGEN_PIPE_NOTES_H
#include "ptxgen/pipeline.h"

void pipe_note(const pipe_notes *n, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#endif
