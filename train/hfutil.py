"""hfutil.py — loading a tokenizer the same way on every transformers version.

tokenizer_config.json files written by one transformers release can name a
tokenizer class another release lacks ("TokenizersBackend"), so the tokenizer is
built from tokenizer.json alone and its special tokens are read from the config.
"""
import json
import os


def load_tokenizer(model_dir, tokenizer_file=None):
    from transformers import PreTrainedTokenizerFast
    path = tokenizer_file or os.path.join(model_dir, "tokenizer.json")
    if not os.path.exists(path):
        raise SystemExit(f"{path}: no tokenizer.json")
    tok = PreTrainedTokenizerFast(tokenizer_file=path)
    cfg_path = os.path.join(os.path.dirname(path), "tokenizer_config.json")
    cfg = json.load(open(cfg_path)) if os.path.exists(cfg_path) else {}
    special = {}
    for k in ("bos_token", "eos_token", "pad_token", "unk_token"):
        v = cfg.get(k)
        if isinstance(v, dict):
            v = v.get("content")
        if isinstance(v, str):
            special[k] = v
    if "pad_token" not in special:
        # ptxgen's own tokenizer pads with <|endoftext|>; chat bases with their eos
        for cand in ("<|endoftext|>", special.get("eos_token")):
            if cand and tok.convert_tokens_to_ids(cand) is not None:
                special["pad_token"] = cand
                break
    tok.add_special_tokens({k: v for k, v in special.items()})
    return tok
