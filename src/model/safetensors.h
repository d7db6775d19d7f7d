/* safetensors.h — the safetensors reader (Hugging Face weight files), internal to src/model: one
 * file or the shards of an index, mmapped, every header checked (E801 naming the file).  A
 * reader below the model: it includes only common.h and numfmt.h, and load.c is its one user
 * in the library.  Ownership: an st_set owns its mappings until model_st_close. */
#ifndef PTXGEN_MODEL_SAFETENSORS_H
#define PTXGEN_MODEL_SAFETENSORS_H

#include "ptxgen/common.h"
#include "numfmt.h"

#include <stddef.h>
#include <stdint.h>

/* ---- safetensors ------------------------------------------------------------ */
typedef enum { ST_F32, ST_F16, ST_BF16, ST_F64, ST_I64, ST_I32, ST_I16, ST_I8, ST_U8, ST_BOOL,
               ST_F8_E4M3, ST_F8_E5M2 } st_dtype;
#define ST_MAX_DIMS 8

typedef struct {
    const char *name;          /* lives in the owning st_set's arena */
    const char *file;          /* the file it came from (for messages) */
    st_dtype dtype;
    int ndim;
    int64_t shape[ST_MAX_DIMS];
    const uint8_t *data;       /* points into the mmap */
    size_t nbytes;
} st_tensor;

typedef struct {               /* one mmapped file */
    void *map;
    size_t size;
} st_map;

/* All tensors of a model (one file or every shard). */
typedef struct {
    pg_arena arena;
    PG_VEC(st_tensor) t;
    PG_VEC(st_map) maps;
} st_set;

const char *model_st_dtype_name(st_dtype d);
/* Parse a safetensors image already in memory (header + data); appends its
 * tensors to s with data pointing into buf.  `file` names it in messages.
 * Errors are E801 (bad header, offsets past the end). */
pg_status model_st_parse(st_set *s, const uint8_t *buf, size_t size, const char *file, pg_diag_sink *diag);
/* mmap a file and model_st_parse it. */
pg_status model_st_open_file(st_set *s, const char *path, pg_diag_sink *diag);
/* Open DIR/model.safetensors or the shards of DIR/model.safetensors.index.json. */
pg_status model_st_open_model_dir(st_set *s, const char *dir, pg_diag_sink *diag);
const st_tensor *model_st_find(const st_set *s, const char *name);
void model_st_close(st_set *s);
/* Convert n elements of a F32/F16/BF16 tensor to f32 (other dtypes: false). */
bool model_st_to_f32(const st_tensor *t, float *dst);

#endif
