/* config.c — HF config.json (Qwen2) and PEFT adapter_config.json.
 *
 * Only what the engine can run is accepted: model_type "qwen2", silu MLP,
 * default RoPE (no scaling), no sliding window.  Anything else is E802 (model)
 * or E805 (adapter) naming the field, rather than silently wrong logits. */
#include "model_internal.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Integer field: required (def < 0 means required) or defaulted. */
static bool get_int(json_t *root, const char *key, int def, int lo, int hi, int *out, const char *file,
                    pg_diag_sink *diag) {
    json_t *v = json_object_get(root, key);
    if (!v || json_is_null(v)) {
        if (def >= 0) { *out = def; return true; }
        pg_diag_emit(diag, PG_E_MODEL_CONFIG, file, 0, 0, "missing '%s'", key);
        return false;
    }
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi) {
        pg_diag_emit(diag, PG_E_MODEL_CONFIG, file, 0, 0, "'%s' must be an integer in [%d, %d]", key, lo, hi);
        return false;
    }
    *out = (int)json_integer_value(v);
    return true;
}

static bool get_real(json_t *root, const char *key, double def, double *out, const char *file, pg_diag_sink *diag) {
    json_t *v = json_object_get(root, key);
    if (!v || json_is_null(v)) { *out = def; return true; }
    if (!json_is_number(v) || !(json_number_value(v) > 0) || !isfinite(json_number_value(v))) {
        pg_diag_emit(diag, PG_E_MODEL_CONFIG, file, 0, 0, "'%s' must be a positive number", key);
        return false;
    }
    *out = json_number_value(v);
    return true;
}

/* RoPE: transformers 4 writes rope_theta + rope_scaling, 5 writes rope_parameters. */
static bool parse_rope(json_t *root, model_config *c, const char *file, pg_diag_sink *diag) {
    json_t *rp = json_object_get(root, "rope_parameters");
    json_t *rs = json_object_get(root, "rope_scaling");
    if (!get_real(root, "rope_theta", 10000.0, &c->rope_theta, file, diag)) return false;
    json_t *scaling[2] = {rp, rs};
    for (int i = 0; i < 2; i++) {
        json_t *s = scaling[i];
        if (!s || json_is_null(s)) continue;
        const char *what = i ? "rope_scaling" : "rope_parameters";
        if (!json_is_object(s)) {
            pg_diag_emit(diag, PG_E_MODEL_CONFIG, file, 0, 0, "'%s' must be an object", what);
            return false;
        }
        const char *type = json_string_value(json_object_get(s, "rope_type"));
        if (!type) type = json_string_value(json_object_get(s, "type"));
        if (type && strcmp(type, "default")) {
            pg_diag_emit(diag, PG_E_MODEL_CONFIG, file, 0, 0, "%s type '%s' is not supported (only default RoPE)",
                         what, type);
            return false;
        }
        if (json_object_get(s, "factor") && !json_is_null(json_object_get(s, "factor"))) {
            pg_diag_emit(diag, PG_E_MODEL_CONFIG, file, 0, 0, "%s with a scaling factor is not supported", what);
            return false;
        }
        if (json_object_get(s, "rope_theta") && !get_real(s, "rope_theta", 10000.0, &c->rope_theta, file, diag))
            return false;
    }
    return true;
}

pg_status model_config_parse(const char *text, size_t len, const char *file, model_config *c, pg_diag_sink *diag) {
    memset(c, 0, sizeof *c);
    json_error_t jerr;
    json_t *root = json_loadb(text, len, 0, &jerr);
    if (!root || !json_is_object(root)) {
        if (root) pg_diag_emit(diag, PG_E_MODEL_CONFIG, file, 0, 0, "not a JSON object");
        else pg_diag_emit(diag, PG_E_MODEL_CONFIG, file, jerr.line, jerr.column, "malformed JSON: %s", jerr.text);
        json_decref(root);
        return PG_ERR_PARSE;
    }
    pg_status st = PG_ERR_INVALID;
    const char *mt = json_string_value(json_object_get(root, "model_type"));
    if (!mt || strcmp(mt, "qwen2")) {
        pg_diag_emit(diag, PG_E_MODEL_CONFIG, file, 0, 0, "model_type is %s%s%s, only \"qwen2\" is supported",
                     mt ? "\"" : "", mt ? mt : "missing", mt ? "\"" : "");
        goto done;
    }
    const int big = 1 << 24;
    if (!get_int(root, "vocab_size", -1, 1, big, &c->vocab_size, file, diag) ||
        !get_int(root, "hidden_size", -1, 1, 1 << 16, &c->hidden_size, file, diag) ||
        !get_int(root, "intermediate_size", -1, 1, 1 << 18, &c->intermediate_size, file, diag) ||
        !get_int(root, "num_hidden_layers", -1, 1, 1024, &c->num_hidden_layers, file, diag) ||
        !get_int(root, "num_attention_heads", -1, 1, 1024, &c->num_attention_heads, file, diag) ||
        !get_int(root, "num_key_value_heads", c->num_attention_heads, 1, 1024, &c->num_key_value_heads, file, diag) ||
        !get_int(root, "max_position_embeddings", 32768, 1, big, &c->max_position_embeddings, file, diag) ||
        !get_real(root, "rms_norm_eps", 1e-6, &c->rms_norm_eps, file, diag) || !parse_rope(root, c, file, diag))
        goto done;
    if (!json_object_get(root, "head_dim") || json_is_null(json_object_get(root, "head_dim"))) {
        if (c->hidden_size % c->num_attention_heads) {
            pg_diag_emit(diag, PG_E_MODEL_CONFIG, file, 0, 0, "hidden_size %d is not a multiple of num_attention_heads %d",
                         c->hidden_size, c->num_attention_heads);
            goto done;
        }
        c->head_dim = c->hidden_size / c->num_attention_heads;
    } else if (!get_int(root, "head_dim", -1, 2, 4096, &c->head_dim, file, diag)) goto done;
    if (c->head_dim % 2) {
        pg_diag_emit(diag, PG_E_MODEL_CONFIG, file, 0, 0, "head_dim %d is odd (RoPE rotates pairs)", c->head_dim);
        goto done;
    }
    if (c->num_attention_heads % c->num_key_value_heads) {
        pg_diag_emit(diag, PG_E_MODEL_CONFIG, file, 0, 0, "num_attention_heads %d is not a multiple of num_key_value_heads %d",
                     c->num_attention_heads, c->num_key_value_heads);
        goto done;
    }
    const char *act = json_string_value(json_object_get(root, "hidden_act"));
    if (json_object_get(root, "hidden_act") && (!act || strcmp(act, "silu"))) {
        pg_diag_emit(diag, PG_E_MODEL_CONFIG, file, 0, 0, "hidden_act '%s' is not supported (only silu)", act ? act : "?");
        goto done;
    }
    json_t *sw = json_object_get(root, "use_sliding_window");
    if (json_is_true(sw)) {   /* sliding_window / max_window_layers only matter when this is on */
        pg_diag_emit(diag, PG_E_MODEL_CONFIG, file, 0, 0, "use_sliding_window is true: sliding-window attention is not supported");
        goto done;
    }
    json_t *tie = json_object_get(root, "tie_word_embeddings");
    c->tie_word_embeddings = tie ? json_is_true(tie) : true;   /* Qwen2Config's default */
    c->bos_token_id = c->eos_token_id = -1;
    json_t *bos = json_object_get(root, "bos_token_id"), *eos = json_object_get(root, "eos_token_id");
    if (json_is_integer(bos)) c->bos_token_id = (int)json_integer_value(bos);
    else if (json_is_array(bos) && json_is_integer(json_array_get(bos, 0)))
        c->bos_token_id = (int)json_integer_value(json_array_get(bos, 0));
    if (json_is_integer(eos)) c->eos_token_ids[c->n_eos_token_ids++] = (int)json_integer_value(eos);
    else if (json_is_array(eos)) {
        size_t i;
        json_t *e;
        json_array_foreach(eos, i, e)
            if (json_is_integer(e) && c->n_eos_token_ids < MODEL_MAX_EOS)
                c->eos_token_ids[c->n_eos_token_ids++] = (int)json_integer_value(e);
    }
    if (c->n_eos_token_ids) c->eos_token_id = c->eos_token_ids[0];
    const char *dt = json_string_value(json_object_get(root, "torch_dtype"));
    if (!dt) dt = json_string_value(json_object_get(root, "dtype"));
    snprintf(c->dtype, sizeof c->dtype, "%s", dt ? dt : "");
    const char *np = json_string_value(json_object_get(root, "_name_or_path"));
    if (np && *np) snprintf(c->model_id, sizeof c->model_id, "%s", np);
    st = PG_OK;
done:
    json_decref(root);
    return st;
}

pg_status model_lora_config_parse(const char *text, size_t len, const char *file, lora_config *lc, pg_diag_sink *diag) {
    memset(lc, 0, sizeof *lc);
    json_error_t jerr;
    json_t *root = json_loadb(text, len, 0, &jerr);
    if (!root || !json_is_object(root)) {
        if (root) pg_diag_emit(diag, PG_E_ADAPTER, file, 0, 0, "not a JSON object");
        else pg_diag_emit(diag, PG_E_ADAPTER, file, jerr.line, jerr.column, "malformed JSON: %s", jerr.text);
        json_decref(root);
        return PG_ERR_PARSE;
    }
    pg_status st = PG_ERR_INVALID;
    const char *pt = json_string_value(json_object_get(root, "peft_type"));
    json_t *r = json_object_get(root, "r"), *alpha = json_object_get(root, "lora_alpha");
    json_t *tm = json_object_get(root, "target_modules");
    if (pt && strcmp(pt, "LORA")) {
        pg_diag_emit(diag, PG_E_ADAPTER, file, 0, 0, "peft_type '%s' is not LORA", pt);
        goto done;
    }
    if (!json_is_integer(r) || json_integer_value(r) < 1 || json_integer_value(r) > 4096) {
        pg_diag_emit(diag, PG_E_ADAPTER, file, 0, 0, "'r' must be an integer in [1, 4096]");
        goto done;
    }
    lc->r = (int)json_integer_value(r);
    const char *bc = json_string_value(json_object_get(json_object_get(root, "auto_mapping"), "base_model_class"));
    if (bc) snprintf(lc->base_class, sizeof lc->base_class, "%s", bc);
    lc->alpha = alpha ? json_number_value(alpha) : 8.0;
    if (alpha && !json_is_number(alpha)) {
        pg_diag_emit(diag, PG_E_ADAPTER, file, 0, 0, "'lora_alpha' must be a number");
        goto done;
    }
    static const char *unsupported_true[] = {"fan_in_fan_out", "use_dora", "use_qalora"};
    for (size_t i = 0; i < sizeof unsupported_true / sizeof *unsupported_true; i++)
        if (json_is_true(json_object_get(root, unsupported_true[i]))) {
            pg_diag_emit(diag, PG_E_ADAPTER, file, 0, 0, "'%s' is true: not supported", unsupported_true[i]);
            goto done;
        }
    static const char *must_be_empty[] = {"rank_pattern", "alpha_pattern", "modules_to_save", "layers_to_transform"};
    for (size_t i = 0; i < sizeof must_be_empty / sizeof *must_be_empty; i++) {
        json_t *v = json_object_get(root, must_be_empty[i]);
        if (v && !json_is_null(v) && !((json_is_object(v) && !json_object_size(v)) || (json_is_array(v) && !json_array_size(v)))) {
            pg_diag_emit(diag, PG_E_ADAPTER, file, 0, 0, "'%s' is set: not supported (only a uniform r/alpha over whole layers)",
                         must_be_empty[i]);
            goto done;
        }
    }
    const char *bias = json_string_value(json_object_get(root, "bias"));
    if (bias && strcmp(bias, "none")) {
        pg_diag_emit(diag, PG_E_ADAPTER, file, 0, 0, "bias '%s' is not supported (only \"none\")", bias);
        goto done;
    }
    lc->scale = json_is_true(json_object_get(root, "use_rslora")) ? lc->alpha / sqrt(lc->r) : lc->alpha / lc->r;
    if (json_is_string(tm)) {                   /* a single module name (PEFT would take it as a regex) */
        snprintf(lc->targets[0], sizeof lc->targets[0], "%s", json_string_value(tm));
        lc->ntargets = 1;
    } else if (json_is_array(tm)) {
        size_t i;
        json_t *e;
        json_array_foreach(tm, i, e) {
            if (!json_is_string(e) || lc->ntargets >= 16 || json_string_length(e) >= sizeof lc->targets[0]) {
                pg_diag_emit(diag, PG_E_ADAPTER, file, 0, 0, "target_modules[%zu] is not a short module name", i);
                goto done;
            }
            snprintf(lc->targets[lc->ntargets++], sizeof lc->targets[0], "%s", json_string_value(e));
        }
    }
    if (!lc->ntargets) {
        pg_diag_emit(diag, PG_E_ADAPTER, file, 0, 0, "'target_modules' must be a non-empty list of module names");
        goto done;
    }
    st = PG_OK;
done:
    json_decref(root);
    return st;
}
