/* safetensors.c — read .safetensors files (mmap) and sharded model directories.
 *
 * Format: u64 little-endian header length N, N bytes of JSON
 * {"name": {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]}, ...,
 *  "__metadata__": {...}}, then the data; offsets are relative to the data
 * start.  Every offset, size and shape is checked against the file before a
 * tensor is handed out, so a truncated or hostile file gives E801, not a crash. */
#include "safetensors.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct { const char *name; st_dtype d; int size; } dtypes[] = {
    {"F32", ST_F32, 4}, {"F16", ST_F16, 2}, {"BF16", ST_BF16, 2}, {"F64", ST_F64, 8},
    {"I64", ST_I64, 8}, {"I32", ST_I32, 4}, {"I16", ST_I16, 2}, {"I8", ST_I8, 1},
    {"U8", ST_U8, 1}, {"BOOL", ST_BOOL, 1}, {"F8_E4M3", ST_F8_E4M3, 1}, {"F8_E5M2", ST_F8_E5M2, 1},
};

const char *model_st_dtype_name(st_dtype d) {
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (dtypes[i].d == d) return dtypes[i].name;
    return "?";
}

/* One tensor entry of the header; false (with a diagnostic) when malformed. */
static bool parse_entry(st_set *s, const char *name, json_t *e, size_t data_size, const uint8_t *data,
                        const char *file, pg_diag_sink *diag) {
    if (!json_is_object(e)) {
        pg_diag_emit(diag, PG_E_MODEL_FILE, file, 0, 0, "tensor '%s': header entry is not an object", name);
        return false;
    }
    const char *dt = json_string_value(json_object_get(e, "dtype"));
    json_t *shape = json_object_get(e, "shape"), *offs = json_object_get(e, "data_offsets");
    int esize = 0;
    st_tensor t;
    memset(&t, 0, sizeof t);
    for (size_t i = 0; dt && i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (!strcmp(dt, dtypes[i].name)) { t.dtype = dtypes[i].d; esize = dtypes[i].size; }
    if (!esize) {
        pg_diag_emit(diag, PG_E_MODEL_FILE, file, 0, 0, "tensor '%s': unknown dtype %s%s%s", name,
                     dt ? "'" : "", dt ? dt : "(missing)", dt ? "'" : "");
        return false;
    }
    if (!json_is_array(shape) || json_array_size(shape) > ST_MAX_DIMS) {
        pg_diag_emit(diag, PG_E_MODEL_FILE, file, 0, 0, "tensor '%s': 'shape' must be an array of at most %d sizes",
                     name, ST_MAX_DIMS);
        return false;
    }
    /* element count with overflow checks: anything over 2^48 elements is not a real tensor */
    uint64_t count = 1;
    t.ndim = (int)json_array_size(shape);
    for (int i = 0; i < t.ndim; i++) {
        json_t *d = json_array_get(shape, (size_t)i);
        if (!json_is_integer(d) || json_integer_value(d) < 0 || json_integer_value(d) > ((json_int_t)1 << 40)) {
            pg_diag_emit(diag, PG_E_MODEL_FILE, file, 0, 0, "tensor '%s': shape[%d] is not a valid size", name, i);
            return false;
        }
        t.shape[i] = json_integer_value(d);
        count *= (uint64_t)t.shape[i];
        if (count > ((uint64_t)1 << 48)) {
            pg_diag_emit(diag, PG_E_MODEL_FILE, file, 0, 0, "tensor '%s': shape too large", name);
            return false;
        }
    }
    json_t *b0 = json_array_get(offs, 0), *b1 = json_array_get(offs, 1);
    if (!json_is_array(offs) || json_array_size(offs) != 2 || !json_is_integer(b0) || !json_is_integer(b1) ||
        json_integer_value(b0) < 0 || json_integer_value(b1) < json_integer_value(b0)) {
        pg_diag_emit(diag, PG_E_MODEL_FILE, file, 0, 0, "tensor '%s': 'data_offsets' must be [begin, end] with 0 <= begin <= end",
                     name);
        return false;
    }
    uint64_t begin = (uint64_t)json_integer_value(b0), end = (uint64_t)json_integer_value(b1);
    if (end > data_size) {
        pg_diag_emit(diag, PG_E_MODEL_FILE, file, 0, 0,
                     "tensor '%s': data [%llu, %llu) runs past the end of the file (%zu data bytes; truncated?)",
                     name, (unsigned long long)begin, (unsigned long long)end, data_size);
        return false;
    }
    if (end - begin != count * (uint64_t)esize) {
        pg_diag_emit(diag, PG_E_MODEL_FILE, file, 0, 0, "tensor '%s': %llu data bytes, but %s x %llu elements need %llu",
                     name, (unsigned long long)(end - begin), dt, (unsigned long long)count,
                     (unsigned long long)(count * (uint64_t)esize));
        return false;
    }
    t.name = pg_arena_strdup(&s->arena, name);
    t.file = pg_arena_strdup(&s->arena, file);
    t.data = data + begin;
    t.nbytes = (size_t)(end - begin);
    pg_vec_push(s->t, t);
    return true;
}

pg_status model_st_parse(st_set *s, const uint8_t *buf, size_t size, const char *file, pg_diag_sink *diag) {
    if (size < 8) {
        pg_diag_emit(diag, PG_E_MODEL_FILE, file, 0, 0, "file is %zu bytes, too short for a safetensors header", size);
        return PG_ERR_PARSE;
    }
    uint64_t hlen = 0;
    for (int i = 7; i >= 0; i--) hlen = hlen << 8 | buf[i];
    if (hlen > size - 8) {
        pg_diag_emit(diag, PG_E_MODEL_FILE, file, 0, 0, "header length %llu runs past the end of the file (%zu bytes)",
                     (unsigned long long)hlen, size);
        return PG_ERR_PARSE;
    }
    if (hlen > (100u << 20)) {
        pg_diag_emit(diag, PG_E_MODEL_FILE, file, 0, 0, "header length %llu is over the 100 MB limit",
                     (unsigned long long)hlen);
        return PG_ERR_LIMIT;
    }
    json_error_t jerr;
    json_t *root = json_loadb((const char *)buf + 8, (size_t)hlen, JSON_REJECT_DUPLICATES, &jerr);
    if (!root || !json_is_object(root)) {
        pg_diag_emit(diag, PG_E_MODEL_FILE, file, 0, 0, "header is not a JSON object%s%s", root ? "" : ": ",
                     root ? "" : jerr.text);
        json_decref(root);
        return PG_ERR_PARSE;
    }
    const uint8_t *data = buf + 8 + hlen;
    size_t data_size = size - 8 - (size_t)hlen;
    const char *name;
    json_t *e;
    bool ok = true;
    json_object_foreach(root, name, e) {
        if (!strcmp(name, "__metadata__")) continue;
        if (!parse_entry(s, name, e, data_size, data, file, diag)) { ok = false; break; }
    }
    json_decref(root);
    return ok ? PG_OK : PG_ERR_PARSE;
}

pg_status model_st_open_file(st_set *s, const char *path, pg_diag_sink *diag) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        pg_diag_emit(diag, PG_E_MODEL_FILE, path, 0, 0, "cannot open: %s", strerror(errno));
        return PG_ERR_IO;
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        pg_diag_emit(diag, PG_E_MODEL_FILE, path, 0, 0, "not a regular file");
        close(fd);
        return PG_ERR_IO;
    }
    size_t size = (size_t)sb.st_size;
    if (size < 8) {
        close(fd);
        pg_diag_emit(diag, PG_E_MODEL_FILE, path, 0, 0, "file is %zu bytes, too short for a safetensors header", size);
        return PG_ERR_PARSE;
    }
    void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        pg_diag_emit(diag, PG_E_MODEL_FILE, path, 0, 0, "mmap failed: %s", strerror(errno));
        return PG_ERR_IO;
    }
    st_map m = {map, size};
    pg_vec_push(s->maps, m);
    return model_st_parse(s, map, size, path, diag);
}

static void join(char *dst, size_t n, const char *dir, const char *name) {
    snprintf(dst, n, "%s/%s", dir, name);
}

pg_status model_st_open_model_dir(st_set *s, const char *dir, pg_diag_sink *diag) {
    char path[4096];
    join(path, sizeof path, dir, "model.safetensors");
    if (access(path, F_OK) == 0) return model_st_open_file(s, path, diag);
    join(path, sizeof path, dir, "model.safetensors.index.json");
    if (access(path, F_OK) != 0) {
        pg_diag_emit(diag, PG_E_MODEL_FILE, dir, 0, 0, "no model.safetensors or model.safetensors.index.json");
        return PG_ERR_IO;
    }
    char *text = NULL;
    size_t len = 0;
    pg_status st = pg_read_file(path, 64u << 20, &text, &len, diag);
    if (st != PG_OK) return st;
    json_error_t jerr;
    json_t *root = json_loadb(text, len, 0, &jerr);
    free(text);
    json_t *wm = json_object_get(root, "weight_map");
    if (!json_is_object(wm)) {
        pg_diag_emit(diag, PG_E_MODEL_FILE, path, root ? 0 : jerr.line, 0, "%s",
                     root ? "no 'weight_map' object" : jerr.text);
        json_decref(root);
        return PG_ERR_PARSE;
    }
    /* open each distinct shard once, then check the map names only tensors it has */
    PG_VEC(const char *) shards = {0};
    const char *name;
    json_t *v;
    st = PG_OK;
    json_object_foreach(wm, name, v) {
        const char *f = json_string_value(v);
        if (!f || strchr(f, '/') || !strcmp(f, "..")) {
            pg_diag_emit(diag, PG_E_MODEL_FILE, path, 0, 0, "weight_map['%s'] is not a file name in the directory", name);
            st = PG_ERR_PARSE;
            break;
        }
        bool seen = false;
        for (int i = 0; i < shards.n; i++) seen |= !strcmp(shards.v[i], f);
        if (!seen) pg_vec_push(shards, f);
    }
    for (int i = 0; st == PG_OK && i < shards.n; i++) {
        join(path, sizeof path, dir, shards.v[i]);
        st = model_st_open_file(s, path, diag);
    }
    json_object_foreach(wm, name, v) {
        if (st != PG_OK) break;
        const st_tensor *t = model_st_find(s, name);
        if (!t) {
            join(path, sizeof path, dir, json_string_value(v));
            pg_diag_emit(diag, PG_E_MODEL_FILE, path, 0, 0, "tensor '%s' listed in the index is not in this shard", name);
            st = PG_ERR_PARSE;
        }
    }
    pg_vec_free(shards);
    json_decref(root);
    return st;
}

const st_tensor *model_st_find(const st_set *s, const char *name) {
    for (int i = 0; i < s->t.n; i++)
        if (!strcmp(s->t.v[i].name, name)) return &s->t.v[i];
    return NULL;
}

void model_st_close(st_set *s) {
    for (int i = 0; i < s->maps.n; i++) munmap(s->maps.v[i].map, s->maps.v[i].size);
    pg_vec_free(s->maps);
    pg_vec_free(s->t);
    pg_arena_free(&s->arena);
}

bool model_st_to_f32(const st_tensor *t, float *dst) {
    size_t n = 1;
    for (int i = 0; i < t->ndim; i++) n *= (size_t)t->shape[i];
    /* the data may sit at any offset in the file: copy bytes, don't cast pointers */
    switch (t->dtype) {
    case ST_F32: memcpy(dst, t->data, n * 4); return true;
    case ST_BF16:
        for (size_t i = 0; i < n; i++) dst[i] = bf16_to_f32((uint16_t)(t->data[2 * i] | t->data[2 * i + 1] << 8));
        return true;
    case ST_F16:
        for (size_t i = 0; i < n; i++) dst[i] = model_f16_to_f32((uint16_t)(t->data[2 * i] | t->data[2 * i + 1] << 8));
        return true;
    default: return false;
    }
}
