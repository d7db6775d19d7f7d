/* gguf.h — GGUF v3 files (llama.cpp's model format), internal to src/model.
 *
 * model_gguf_open maps the file read-only and checks everything before returning:
 * magic "GGUF", version 3 (2 is accepted, same layout), counts that fit the
 * file, every key/value well formed (known value type, strings and arrays
 * inside the file, no arrays of arrays, no key twice; general.alignment a
 * u32 power of two), every tensor's name non-empty, at most 95 bytes, without
 * NUL and unique, n_dims 1..4, its type known, its dims positive with rows of
 * whole blocks and a size that fits the file, and its data range
 * [data_start + offset, + nbytes) inside the file, aligned to
 * general.alignment (default 32) and overlapping no other tensor's.  Errors
 * are one E801 diagnostic naming the file and the key or tensor and the cause
 * ("m.gguf: tensor 'blk.3.ffn_up.weight': data [.., ..) past the end of the
 * file (491400064 bytes)").
 *
 * Tensor data is not copied: gguf_tensor.data points into the mapping and
 * lives as long as the gguf_file.  Dims are GGML order: ne[0] is the
 * contiguous (row) length, so a [rows x cols] PyTorch weight has ne[0] = cols,
 * ne[1] = rows.  Quantized rows are whole blocks of model_gguf_type_block() elements.
 *
 * Ownership: model_gguf_open returns an object freed by model_gguf_close; every pointer
 * obtained from it dies with it.  Nothing here prints. */
#ifndef PTXGEN_MODEL_GGUF_H
#define PTXGEN_MODEL_GGUF_H

#include "ptxgen/common.h"
#include "numfmt.h"   /* gguf_type */

/* Metadata value types (values as in the file). */
typedef enum {
    GGUF_V_U8 = 0, GGUF_V_I8 = 1, GGUF_V_U16 = 2, GGUF_V_I16 = 3, GGUF_V_U32 = 4, GGUF_V_I32 = 5,
    GGUF_V_F32 = 6, GGUF_V_BOOL = 7, GGUF_V_STRING = 8, GGUF_V_ARRAY = 9, GGUF_V_U64 = 10, GGUF_V_I64 = 11,
    GGUF_V_F64 = 12,
} gguf_vtype;

typedef struct { const char *s; uint64_t len; } gguf_str;   /* points into the mapping; not NUL-terminated */

typedef struct {
    gguf_str key;
    gguf_vtype type;
    gguf_vtype arr_type;         /* element type when type == GGUF_V_ARRAY */
    uint64_t arr_len;            /* elements when type == GGUF_V_ARRAY */
    const uint8_t *value;        /* the raw value (for arrays: the first element) */
    const uint64_t *str_off;     /* arrays of strings: [arr_len] offset of element i from value (reader-internal) */
} gguf_kv;

typedef struct {
    char name[96];
    int n_dims;                  /* 1..4 */
    int64_t ne[4];               /* GGML order, unused dims = 1 */
    gguf_type type;
    uint64_t offset;             /* from the start of the data section */
    const void *data;            /* into the mapping */
    size_t nbytes;
} gguf_tensor;

typedef struct gguf_file gguf_file;

pg_status model_gguf_open(const char *path, gguf_file **out, pg_diag_sink *diag);
/* The same checks on a GGUF image already in memory (tests, fuzzing); data is
 * not copied and must outlive the gguf_file.  `name` names it in messages. */
pg_status model_gguf_open_mem(const void *data, size_t size, const char *name, gguf_file **out, pg_diag_sink *diag);
void model_gguf_close(gguf_file *g);   /* NULL is fine */
const char *model_gguf_path(const gguf_file *g);
uint64_t model_gguf_file_size(const gguf_file *g);
uint32_t model_gguf_version(const gguf_file *g);       /* 2 or 3 */
uint64_t model_gguf_alignment(const gguf_file *g);     /* general.alignment or 32 */
uint64_t model_gguf_data_start(const gguf_file *g);    /* file offset of the data section */

/* Type facts; false / 0 for a type this build cannot compute with.  Known:
 * F32 F16 BF16 Q4_0 Q4_1 Q5_0 Q5_1 Q8_0 Q2_K Q3_K Q4_K Q5_K Q6_K (Q8_1 and
 * Q8_K are ggml's activation formats, never stored in model files). */
bool model_gguf_type_known(int type);
const char *model_gguf_type_name(int type);    /* "Q4_K"; "?" when unknown */
int model_gguf_type_block(int type);           /* elements per block (32, 256, 1 for F32/F16/BF16) */
size_t model_gguf_type_block_bytes(int type);  /* bytes per block */

/* Metadata. */
int model_gguf_kv_count(const gguf_file *g);
const gguf_kv *model_gguf_kv_at(const gguf_file *g, int i);
const gguf_kv *model_gguf_find(const gguf_file *g, const char *key);   /* NULL when absent */
/* Typed getters: false when the key is absent or of another type (integers of
 * any width convert when the value fits; f32/f64 both read as double). */
bool model_gguf_get_int(const gguf_file *g, const char *key, int64_t *v);
bool model_gguf_get_float(const gguf_file *g, const char *key, double *v);
bool model_gguf_get_bool(const gguf_file *g, const char *key, bool *v);
bool model_gguf_get_str(const gguf_file *g, const char *key, gguf_str *v);
/* Arrays: element i of an array of strings / integers / floats. */
bool model_gguf_arr_str(const gguf_kv *kv, uint64_t i, gguf_str *v);
bool model_gguf_arr_int(const gguf_kv *kv, uint64_t i, int64_t *v);
bool model_gguf_arr_float(const gguf_kv *kv, uint64_t i, double *v);

/* Tensors. */
int model_gguf_tensor_count(const gguf_file *g);
const gguf_tensor *model_gguf_tensor_at(const gguf_file *g, int i);
const gguf_tensor *model_gguf_tensor_find(const gguf_file *g, const char *name);   /* NULL when absent */
int64_t model_gguf_tensor_rows(const gguf_tensor *t);        /* ne[1] * ne[2] * ne[3] */
size_t model_gguf_tensor_row_bytes(const gguf_tensor *t);    /* bytes of one row of ne[0] elements */

/* Dequantize n elements (a multiple of the block size) of one row starting at
 * block-aligned data into f32.  The reference implementation every fast
 * kernel is tested against: bit-exact with gguf-py's gguf.quants.dequantize
 * (ggml's dequantize_row_* order of operations).  data needs no alignment.
 * An unknown type gives zeros. */
void model_gguf_dequant_row(int type, const void *data, float *out, int64_t n);

#endif
