#!/usr/bin/env python3
"""make_gguf_golden.py — golden ids for tokenizers read from GGUF metadata
(src/model/tokenizer.c tok_load_gguf, test src/model/test_tok_gguf.c).

    python3 tests/tokenizer/make_gguf_golden.py
        writes tok_qwen2.gguf, tok_smollm.gguf and gguf_golden.json (keeps any
        real-file entries already in gguf_golden.json)
    python3 tests/tokenizer/make_gguf_golden.py --real qwen=QWEN.gguf smol=SMOL.gguf
        also (re)computes the entries of the real model files (minutes: loading
        a 151,936-token GGUF tokenizer in transformers is slow)

The small files: the vocab and merges of qwen2_plain.json (made by
make_golden.py) written as llama.cpp's tokenizer.ggml.* keys with GGUFWriter,
tokenizer.ggml.pre "qwen2" (architecture qwen2) and "smollm" (architecture
llama).  Token types cover control (3: the five specials, plus one spelled
with a raw space, which transformers skips), user-defined (4: one in the vocab,
one not), unused (5), and a normal token outside the byte-level alphabet.

Reference: transformers' AutoTokenizer.from_pretrained(dir, gguf_file=...)
(tokenizers underneath), encode(text, add_special_tokens=False), over the
texts of golden.json plus EXTRA below.  For "smollm" transformers keeps GPT-2's
ByteLevel pre-tokenizer, while SmolLM2's own tokenizer.json (and llama.cpp)
split digits first: Sequence[Digits(individual_digits), ByteLevel]; the
golden uses that pipeline and records where plain transformers differs
("transformers_gguf_differs").  For the real Qwen file it also records where
Qwen's own tokenizer.json (the same plus an NFC normalizer) differs
("with_nfc_differs").
"""
import glob, json, os, sys

import numpy as np
import gguf
from tokenizers import normalizers, pre_tokenizers
from transformers import AutoTokenizer
import transformers, tokenizers

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(HERE, "gguf_golden.json")

QWEN2_RE = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
            r"|\s*[\r\n]+|\s+(?!\S)|\s+")


def extra_texts():
    ks = sorted(glob.glob(os.path.join(ROOT, "corpus", "*", "kernel.ptx")))
    t = [open(ks[i], encoding="utf-8").read() for i in (1, 12, 30)]       # whole corpus kernels
    t += ["请写一个CUDA内核，计算两个向量的点积。", "输入：float* x（长度 n）；输出：每个线程块的最大值及其全局索引。",
          "// 中文注释\n\tld.global.f32 \t%f1, [%rd2+4];\t// 读取 x[i]\n", "全角：ＡＢＣ１２３，。！？「」【】",
          "数字 12345 和 3.14，共计 42 个。", "混合 mixed 文本 text 和 PTX：add.s32 %r3, %r1, %r2;",
          "<|im_start|>system\nYou are a PTX expert.<|im_end|>\n<|im_start|>user\n写一个 kernel<|im_end|>\n<|im_start|>assistant\n",
          "<tool_call>\n{\"name\": \"f\"}\n</tool_call>", "<|fim_prefix|>a<|fim_suffix|>b<|fim_middle|>", "[PAD151665]",
          "<|endoftext|>x<|endoftext|>", "a  1  22   333", "x1y22z333 4444", "0x1F 1e-5 -2.5f 1_000",
          "\t\t@%p1 bra.uni \t$L__BB0_3;\n", "mov.u32 \t%r1, %ctaid.x;\nmad.lo.s32 \t%r4, %r1, %r2, %r3;\n",
          "<repo_name>x<file_sep>y<empty_output>", "a<| |>b", "<my tok> <pad> x<pad>y"]
    return t


def small_vocab():
    j = json.load(open(os.path.join(HERE, "qwen2_plain.json"), encoding="utf-8"))
    vocab = j["model"]["vocab"]
    toks = [None] * (1 + max(vocab.values()))
    for k, v in vocab.items():
        toks[v] = k
    types = [1] * len(toks)
    for a in j["added_tokens"]:
        if a["id"] < len(toks):
            toks[a["id"]] = a["content"]
        else:
            toks += [None] * (a["id"] + 1 - len(toks))
            types += [1] * (a["id"] + 1 - len(types))
            toks[a["id"]] = a["content"]
        types[a["id"]] = 3 if a["special"] else 4
    merges = [" ".join(m) if isinstance(m, list) else m for m in j["model"]["merges"]]
    assert None not in toks
    # edge cases: a control token with a raw space (not in the alphabet: transformers skips it),
    # user-defined tokens in / not in the vocab, unused padding, a normal token outside the alphabet
    toks += ["<| |>", "<pad>", "<my tok>", "[PAD1]", "\u00e9\u4e2d x"]
    types += [3, 4, 4, 5, 1]
    return toks, types, merges


def write_small(path, arch, pre):
    toks, types, merges = small_vocab()
    w = gguf.GGUFWriter(path, arch)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre(pre)
    w.add_token_list(toks)
    w.add_token_types(types)
    w.add_token_merges(merges)
    w.add_eos_token_id(toks.index("<|endoftext|>"))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def reference(path):
    """transformers' tokenizer for the file, and the backend the golden uses."""
    tok = AutoTokenizer.from_pretrained(os.path.dirname(path), gguf_file=os.path.basename(path))
    back = tok.backend_tokenizer
    pre = gguf.GGUFReader(path).fields["tokenizer.ggml.pre"].contents()
    j = json.loads(back.to_str())
    if pre == "qwen2":   # transformers uses Qwen2's own regex: Split(Isolated) + ByteLevel without regex
        p = j["pre_tokenizer"]["pretokenizers"]
        assert p[0]["pattern"]["Regex"] == QWEN2_RE and p[0]["behavior"] == "Isolated", p
        assert p[1]["type"] == "ByteLevel" and not p[1]["add_prefix_space"] and not p[1]["use_regex"], p
        assert j["normalizer"] is None
        return tok, back, None
    assert pre == "smollm" and j["pre_tokenizer"]["type"] == "ByteLevel", j["pre_tokenizer"]
    from tokenizers import Tokenizer
    own = Tokenizer.from_str(back.to_str())
    own.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Digits(individual_digits=True),
                                                 pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)])
    return tok, own, back


def entry(name, path, texts, real=None):
    tok, golden_tok, plain = reference(path)
    e = {"name": name, "vocab_size": len(gguf.GGUFReader(path).fields["tokenizer.ggml.tokens"].data), "ids": []}
    if real:
        e.update(real)
        e["size"] = os.path.getsize(path)
    else:
        e["file"] = os.path.basename(path)
    e["transformers_gguf_differs"] = []
    for i, t in enumerate(texts):
        ids = golden_tok.encode(t, add_special_tokens=False).ids
        e["ids"].append(ids)
        if plain is not None and plain.encode(t, add_special_tokens=False).ids != ids:
            e["transformers_gguf_differs"].append(i)
        if plain is None:
            assert tok.encode(t, add_special_tokens=False) == ids
    if name == "qwen":   # Qwen's tokenizer.json = this + NFC
        from tokenizers import Tokenizer
        nfc = Tokenizer.from_str(golden_tok.to_str())
        nfc.normalizer = normalizers.NFC()
        e["with_nfc_differs"] = [i for i, t in enumerate(texts) if nfc.encode(t, add_special_tokens=False).ids != e["ids"][i]]
        digits = golden_tok.encode("12345", add_special_tokens=False).ids
        assert len(digits) == 5, digits          # digits one by one, as Qwen2's tokenizer.json
    return e


def main():
    base = json.load(open(os.path.join(HERE, "golden.json"), encoding="utf-8"))["texts"]
    extra = extra_texts()
    texts = base + extra
    old = json.load(open(OUT, encoding="utf-8")) if os.path.exists(OUT) else {"tokenizers": []}
    write_small(os.path.join(HERE, "tok_qwen2.gguf"), "qwen2", "qwen2")
    write_small(os.path.join(HERE, "tok_smollm.gguf"), "llama", "smollm")
    out = {"transformers_version": transformers.__version__, "tokenizers_version": tokenizers.__version__,
           "texts": "golden.json's texts, then extra_texts", "extra_texts": extra, "tokenizers": []}
    out["tokenizers"].append(entry("qwen2_small", os.path.join(HERE, "tok_qwen2.gguf"), texts))
    out["tokenizers"].append(entry("smollm_small", os.path.join(HERE, "tok_smollm.gguf"), texts))
    real = dict(a.split("=", 1) for a in sys.argv[2:]) if len(sys.argv) > 1 and sys.argv[1] == "--real" else {}
    meta = {"qwen": {"env": "PTXGEN_QWEN_GGUF", "default": "models/base/qwen2.5-coder-0.5b-instruct.gguf"},
            "smol": {"env": "PTXGEN_SMOL_GGUF", "default": "models/base/smollm2-135m-instruct.Q4_1.gguf"}}
    for name in ("qwen", "smol"):
        if name in real:
            out["tokenizers"].append(entry(name, os.path.abspath(real[name]), texts, meta[name]))
        else:
            out["tokenizers"] += [e for e in old["tokenizers"] if e["name"] == name]
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")
    for e in out["tokenizers"]:
        print(e["name"], "texts", len(e["ids"]), "ids", sum(map(len, e["ids"])), "transformers differs on",
              len(e["transformers_gguf_differs"]), "nfc differs on", len(e.get("with_nfc_differs", [])))


if __name__ == "__main__":
    main()
