"""data.py — training data for ptxgen's model.

Input: prompt/completion JSONL as `ptxgen prompts --in synth.jsonl --out pairs.jsonl`
writes it, one object a line:
    {"id", "family", "source", "split", "prompt", "completion"}
    prompt     = "<|task|>{desc}\n<|arch|>{arch}\n<|signature|>{sig}\n<|ptx|>"
    completion = "{canonical ptx}<|end|>"
(the format of include/ptxgen/decode.h, gen_prompt_build).

Phase 1 (pretrain): causal LM over the completions of the train split, packed
into fixed-length rows separated by <|endoftext|>.
Phase 2 (finetune): prompt + completion, loss on completion tokens only
(labels -100 on the prompt), length-bucketed batches.

`python3 train/data.py pairs --in synth.jsonl --out pairs.jsonl [--ptxgen build/ptxgen]`
builds the same pairs from a synth dataset (canonical PTX through `ptxgen fmt`);
it stands in for `ptxgen prompts` where that command is missing.
"""
import argparse
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile

import torch

TOK_EOT = "<|endoftext|>"
TOK_TASK = "<|task|>"
TOK_ARCH = "<|arch|>"
TOK_SIGNATURE = "<|signature|>"
TOK_PTX = "<|ptx|>"
TOK_END = "<|end|>"
TOK_BASELINE = "<|baseline|>"
SPECIAL_TOKENS = [TOK_EOT, TOK_TASK, TOK_ARCH, TOK_SIGNATURE, TOK_PTX, TOK_END, TOK_BASELINE]  # ids 0..6
EOT_ID, END_ID = 0, 5
IGNORE = -100


# ---- reading --------------------------------------------------------------------------------

def read_jsonl(path):
    """List of dicts; a malformed line is an error naming the file and line."""
    rows = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise ValueError(f"{path}:{n}: malformed JSON ({e.msg} at column {e.colno})") from None
    return rows


def load_pairs(path):
    rows = read_jsonl(path)
    for n, r in enumerate(rows, 1):
        for k in ("prompt", "completion"):
            if not isinstance(r.get(k), str):
                raise ValueError(f"{path}: record {n}: field '{k}' missing or not a string")
        r.setdefault("split", "train")
    return rows


def build_prompt(description, arch, signature):
    """The prompt of decode.h (gen_prompt_build)."""
    return f"{TOK_TASK}{description}\n{TOK_ARCH}{arch}\n{TOK_SIGNATURE}{signature or ''}\n{TOK_PTX}"


_SIG_RE = re.compile(r"^\.visible \.entry [^\n(]+\((?:\n[^\n]*)*?\n\)", re.M)


def signature_of(ptx):
    """The first entry header of a canonical module: '.visible .entry k(\\n\\t.param ...\\n)'."""
    m = _SIG_RE.search(ptx)
    if m:
        return m.group(0)
    m = re.search(r"^\.visible \.entry [^\n]*\(\)", ptx, re.M)   # no params
    return m.group(0) if m else ""


def canonical_ptx(ptxgen, texts, jobs=0):
    """`ptxgen fmt` of each text (comments dropped, canonical spacing); None where fmt fails."""
    from concurrent.futures import ThreadPoolExecutor
    if not os.path.exists(ptxgen):
        raise FileNotFoundError(f"{ptxgen} not found (run make)")
    with tempfile.TemporaryDirectory() as d:
        def one(i):
            p = os.path.join(d, f"k{i}.ptx")
            with open(p, "w", encoding="utf-8") as f:
                f.write(texts[i])
            r = subprocess.run([ptxgen, "fmt", p], capture_output=True, text=True)
            os.remove(p)
            return r.stdout if r.returncode == 0 else None
        with ThreadPoolExecutor(jobs or os.cpu_count() or 2) as ex:
            return list(ex.map(one, range(len(texts))))


def pairs_from_synth(synth_path, out_path, ptxgen="build/ptxgen", jobs=0):
    """Synth JSONL -> prompt/completion JSONL (same format as `ptxgen prompts`).  Returns counts."""
    rows = read_jsonl(synth_path)
    canon = canonical_ptx(ptxgen, [r["ptx_code"] for r in rows], jobs)
    kept = bad = 0
    tmp = out_path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        for r, ptx in zip(rows, canon):
            if ptx is None:
                bad += 1
                continue
            prompt = build_prompt(r["description"], r.get("arch", "sm_80"), signature_of(ptx))
            rec = {"id": r["id"], "family": r.get("family", ""), "source": r.get("source", ""),
                   "split": r.get("split", "train"), "prompt": prompt, "completion": ptx + TOK_END}
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")
            kept += 1
    os.replace(tmp, out_path)
    return {"pairs": kept, "fmt_failed": bad}


# ---- tokenizer ---------------------------------------------------------------------------------

class Tokenizer:
    """tokenizers.Tokenizer with the project's special tokens checked."""

    def __init__(self, path):
        from tokenizers import Tokenizer as HFTok
        self.path = path
        self.tok = HFTok.from_file(path)
        for i, s in enumerate(SPECIAL_TOKENS):
            if self.tok.token_to_id(s) != i:
                raise ValueError(f"{path}: special token {s} has id {self.tok.token_to_id(s)}, want {i}")
        self.vocab_size = self.tok.get_vocab_size(with_added_tokens=True)

    def encode(self, text):
        return self.tok.encode(text, add_special_tokens=False).ids

    def encode_batch(self, texts):
        return [e.ids for e in self.tok.encode_batch(texts, add_special_tokens=False)]

    def decode(self, ids):
        return self.tok.decode(ids, skip_special_tokens=False)


# ---- phase 1: packed causal LM ---------------------------------------------------------------------

class PackedData:
    """Completions joined by <|endoftext|>, cut into rows of seq_len tokens.

    rows: LongTensor [n_rows, seq_len].  A batch is (x, labels) with labels == x: the
    model shifts inside (logits[:, t] predicts labels[:, t+1]), as HF does.
    """

    def __init__(self, tok, pairs, seq_len, seed=0):
        texts = [p["completion"] for p in pairs]
        rng = random.Random(seed)
        rng.shuffle(texts)                       # documents in random order before packing
        stream = []
        for ids in tok.encode_batch(texts):
            stream.extend(ids)
            stream.append(EOT_ID)
        self.tokens = len(stream)
        if len(stream) < seq_len:                # tiny data: repeat the stream to fill one row
            stream = stream * (seq_len // max(1, len(stream)) + 1)
        n_rows = len(stream) // seq_len
        self.rows = torch.tensor(stream[: n_rows * seq_len], dtype=torch.long).view(n_rows, seq_len)
        self.seq_len = seq_len
        self.gen = torch.Generator().manual_seed(seed)

    def batch(self, batch_size):
        """x, labels: LongTensor [batch_size, seq_len] (every token is a target)."""
        idx = torch.randint(0, self.rows.shape[0], (batch_size,), generator=self.gen)
        x = self.rows[idx]                       # [B, T]
        return x, x.clone()


# ---- phase 2: prompt + completion, masked -------------------------------------------------------------

def round_up(x, m):
    return int(math.ceil(x / m) * m)


def pick_max_length(lengths, pct=95, multiple=128, cap=2048):
    """The pct-th percentile of token lengths, rounded up to a multiple, capped."""
    if not lengths:
        return multiple
    s = sorted(lengths)
    k = min(len(s) - 1, int(math.ceil(pct / 100 * len(s))) - 1)
    return min(cap, max(multiple, round_up(s[max(0, k)], multiple)))


def encode_example(tok, prompt, completion):
    """input_ids and labels (lists, same length): labels -100 on the prompt tokens.

    The model predicts token t+1 from tokens <= t; the shift happens in the loss
    (labels[1:] against logits[:-1]), as HF does, so labels align with input_ids.
    """
    p = tok.encode(prompt)
    c = tok.encode(completion)
    return p + c, [IGNORE] * len(p) + c


class FinetuneData:
    """Masked examples in length buckets.

    max_length: from the data (95th percentile rounded up to 128, cap 2048) unless given;
    longer examples are dropped and counted (self.dropped).
    """

    def __init__(self, tok, pairs, max_length=None, batch_tokens=16384, seed=0):
        ex = []
        prompts = tok.encode_batch([p["prompt"] for p in pairs])
        comps = tok.encode_batch([p["completion"] for p in pairs])
        for p, c in zip(prompts, comps):
            ex.append((p + c, [IGNORE] * len(p) + c))
        lengths = [len(e[0]) for e in ex]
        self.max_length = max_length or pick_max_length(lengths)
        self.examples = [e for e in ex if len(e[0]) <= self.max_length]
        self.dropped = len(ex) - len(self.examples)
        self.batch_tokens = max(batch_tokens, self.max_length)
        self.rng = random.Random(seed)
        self.tokens = sum(len(e[0]) for e in self.examples)
        self._batches = []

    def _make_batches(self):
        """Sort by length (with a random tie-break), cut into batches of <= batch_tokens padded tokens."""
        order = sorted(range(len(self.examples)), key=lambda i: (len(self.examples[i][0]), self.rng.random()))
        batches, cur, cur_max = [], [], 0
        for i in order:
            n = len(self.examples[i][0])
            if cur and max(cur_max, n) * (len(cur) + 1) > self.batch_tokens:
                batches.append(cur)
                cur, cur_max = [], 0
            cur.append(i)
            cur_max = max(cur_max, n)
        if cur:
            batches.append(cur)
        self.rng.shuffle(batches)
        return batches

    def collate(self, idx):
        """x: LongTensor [B, L] right-padded with <|endoftext|>; y: labels [B, L] with -100 on
        prompt and padding.  Right padding needs no attention mask under a causal mask."""
        L = max(len(self.examples[i][0]) for i in idx)
        x = torch.full((len(idx), L), EOT_ID, dtype=torch.long)     # [B, L]
        y = torch.full((len(idx), L), IGNORE, dtype=torch.long)     # [B, L]
        for b, i in enumerate(idx):
            ids, lab = self.examples[i]
            x[b, : len(ids)] = torch.tensor(ids)
            y[b, : len(lab)] = torch.tensor(lab)
        return x, y

    def batch(self):
        if not self._batches:
            self._batches = self._make_batches()
            if not self._batches:
                raise ValueError("fine-tune set is empty (every example longer than max_length?)")
        return self.collate(self._batches.pop())

    def all_batches(self):
        return [self.collate(b) for b in self._make_batches()]


def split_pairs(pairs):
    train = [p for p in pairs if p.get("split", "train") == "train"]
    val = [p for p in pairs if p.get("split") in ("val", "test")]
    if not val:                                   # no val split: hold out 5% deterministically
        k = max(1, len(train) // 20)
        val, train = train[-k:], train[:-k]
    return train, val


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("pairs", help="synth JSONL -> prompt/completion JSONL")
    a.add_argument("--in", dest="inp", required=True)
    a.add_argument("--out", required=True)
    a.add_argument("--ptxgen", default="build/ptxgen")
    a.add_argument("--jobs", type=int, default=0, help="parallel fmt processes (default: cores)")
    a = sub.add_parser("stats", help="token lengths of a pairs file")
    a.add_argument("--data", required=True)
    a.add_argument("--tokenizer", default="models/default/tokenizer.json")
    args = ap.parse_args()
    if args.cmd == "pairs":
        print(json.dumps(pairs_from_synth(args.inp, args.out, args.ptxgen, args.jobs)))
    else:
        tok = Tokenizer(args.tokenizer)
        pairs = load_pairs(args.data)
        ft = FinetuneData(tok, pairs)
        lens = sorted(len(e[0]) for e in ft.examples)
        print(json.dumps({"pairs": len(pairs), "max_length": ft.max_length, "dropped": ft.dropped,
                          "p50": lens[len(lens) // 2], "max": lens[-1]}))


if __name__ == "__main__":
    sys.exit(main())
