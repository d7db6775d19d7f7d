"""lora.py — LoRA in our own code, saved in PEFT's format.

A LoRALinear keeps the wrapped nn.Linear's weight and bias under the same names
(so the base state_dict is unchanged) and adds lora_A [r, in] and lora_B [out, r]:
    y = x W^T + b + (dropout(x) A^T B^T) * alpha / r
B starts at zero, so a fresh adapter leaves the model unchanged.  PEFT's tensor
names are base_model.model.<module path>.lora_A.weight (no ".default").
"""
import json
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

TARGETS_DEFAULT = ["q_proj", "v_proj"]
TARGETS_ALL = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


class LoRALinear(nn.Module):
    def __init__(self, base, r, alpha, dropout):
        super().__init__()
        self.in_features, self.out_features = base.in_features, base.out_features
        self.weight = base.weight                       # [out, in], frozen
        self.bias = base.bias                           # [out] or None, frozen
        self.weight.requires_grad_(False)
        if self.bias is not None:
            self.bias.requires_grad_(False)
        dev, dt = base.weight.device, base.weight.dtype
        self.lora_A = nn.Linear(self.in_features, r, bias=False, device=dev, dtype=dt)    # weight [r, in]
        self.lora_B = nn.Linear(r, self.out_features, bias=False, device=dev, dtype=dt)   # weight [out, r]
        nn.init.kaiming_uniform_(self.lora_A.weight, a=math.sqrt(5))    # as PEFT
        nn.init.zeros_(self.lora_B.weight)
        self.dropout = nn.Dropout(dropout) if dropout > 0 else nn.Identity()
        self.r, self.alpha, self.scale = r, alpha, alpha / r

    def forward(self, x):                               # x: [..., in] -> [..., out]
        return F.linear(x, self.weight, self.bias) + self.lora_B(self.lora_A(self.dropout(x))) * self.scale

    def merged_linear(self):
        """A plain nn.Linear with W + scale * B A."""
        lin = nn.Linear(self.in_features, self.out_features, bias=self.bias is not None,
                        device=self.weight.device, dtype=self.weight.dtype)
        with torch.no_grad():
            delta = (self.lora_B.weight.float() @ self.lora_A.weight.float()) * self.scale   # [out, in]
            lin.weight.copy_((self.weight.float() + delta).to(self.weight.dtype))
            if self.bias is not None:
                lin.bias.copy_(self.bias)
        return lin


def _targets(model, targets):
    """(parent module, attribute name, full path) of every nn.Linear whose name is a target."""
    out = []
    for path, mod in model.named_modules():
        for name, child in mod.named_children():
            if name in targets and isinstance(child, (nn.Linear, LoRALinear)):
                out.append((mod, name, f"{path}.{name}" if path else name))
    return out


def apply_lora(model, r=64, alpha=128, dropout=0.05, targets=TARGETS_DEFAULT):
    """Freeze every parameter, wrap the targets; returns the number of trainable parameters."""
    for p in model.parameters():
        p.requires_grad_(False)
    found = _targets(model, set(targets))
    if not found:
        raise ValueError(f"no module named {targets} to wrap")
    for parent, name, _ in found:
        if not isinstance(getattr(parent, name), LoRALinear):
            setattr(parent, name, LoRALinear(getattr(parent, name), r, alpha, dropout))
    model.lora = {"r": r, "alpha": alpha, "dropout": dropout, "targets": list(targets)}
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def merge_lora(model):
    """Replace every LoRALinear by its merged nn.Linear (in place); unfreezes all parameters."""
    for parent, name, _ in _targets(model, set(TARGETS_ALL)):
        child = getattr(parent, name)
        if isinstance(child, LoRALinear):
            setattr(parent, name, child.merged_linear())
    if hasattr(model, "lora"):
        del model.lora
    for p in model.parameters():
        p.requires_grad_(True)
    return model


def lora_state_dict(model):
    """PEFT names -> tensors: base_model.model.<path>.lora_{A,B}.weight."""
    sd = {}
    for k, v in model.state_dict().items():
        if ".lora_A." in k or ".lora_B." in k:
            sd["base_model.model." + k] = v.detach().contiguous()
    return sd


def _write_atomic(path, data):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def save_adapter(model, out_dir, base_model_name_or_path="", dtype=torch.float32):
    """adapter_config.json + adapter_model.safetensors, as peft.PeftModel.from_pretrained reads them."""
    from safetensors.torch import save
    info = getattr(model, "lora", None)
    if info is None:
        raise ValueError("model has no LoRA adapter to save")
    os.makedirs(out_dir, exist_ok=True)
    cfg = {
        "peft_type": "LORA", "task_type": "CAUSAL_LM", "r": info["r"], "lora_alpha": info["alpha"],
        "lora_dropout": info["dropout"], "target_modules": sorted(info["targets"]),
        "base_model_name_or_path": base_model_name_or_path, "bias": "none", "fan_in_fan_out": False,
        "inference_mode": True, "init_lora_weights": True, "modules_to_save": None,
        "use_rslora": False, "use_dora": False, "layers_to_transform": None, "layers_pattern": None,
        "rank_pattern": {}, "alpha_pattern": {}, "revision": None,
    }
    sd = {k: v.to(dtype).cpu() for k, v in lora_state_dict(model).items()}
    _write_atomic(os.path.join(out_dir, "adapter_model.safetensors"), save(sd, metadata={"format": "pt"}))
    _write_atomic(os.path.join(out_dir, "adapter_config.json"), (json.dumps(cfg, indent=2) + "\n").encode())


def load_adapter(model, adapter_dir):
    """Wrap the model per adapter_config.json and load adapter_model.safetensors (PEFT format)."""
    from safetensors.torch import load_file
    path = os.path.join(adapter_dir, "adapter_config.json")
    with open(path, encoding="utf-8") as f:
        cfg = json.load(f)
    if cfg.get("peft_type") != "LORA":
        raise ValueError(f"{path}: peft_type is {cfg.get('peft_type')!r}, want 'LORA'")
    if cfg.get("fan_in_fan_out"):
        raise ValueError(f"{path}: fan_in_fan_out adapters are not supported")
    targets = cfg["target_modules"]
    if isinstance(targets, str):
        raise ValueError(f"{path}: target_modules as a regex is not supported")
    apply_lora(model, cfg["r"], cfg["lora_alpha"], 0.0, targets)
    sd = load_file(os.path.join(adapter_dir, "adapter_model.safetensors"))
    own = model.state_dict()
    with torch.no_grad():
        for k, t in sd.items():
            name = k.removeprefix("base_model.model.").replace(".lora_A.default.", ".lora_A.") \
                    .replace(".lora_B.default.", ".lora_B.")
            if name not in own:
                raise ValueError(f"{adapter_dir}: adapter tensor '{k}' has no place in the model")
            if own[name].shape != t.shape:
                raise ValueError(f"{adapter_dir}: tensor '{k}': shape {list(t.shape)}, model wants {list(own[name].shape)}")
            own[name].copy_(t)
    return model
