# The docs/fixtures.md capture snippet, plus a tiny example run: writes fixtures with torch + safetensors
# exactly as a PyTorch user would. Used to check (on a machine with torch and safetensors) that dsv4check
# reads what safetensors.torch.save_file writes:  python capture_fixture.py OUT_DIR
import json
import sys

import torch
from safetensors.torch import save_file

# dtypes safetensors cannot store: saved as uint8, their format named in attrs["dtypes"]
_AS_U8 = {getattr(torch, n): d for n, d in [("float8_e4m3fnuz", "F8_E4M3FNUZ"),
          ("float8_e5m2fnuz", "F8_E5M2FNUZ"), ("float8_e8m0fnu", "F8_E8M0")] if hasattr(torch, n)}


def save_fixture(path, op, inputs, outputs, attrs=None, expected=None, seed=None, source="", note=""):
    """inputs/outputs/expected: dicts of name -> tensor (ops.md names); attrs: dict of op attributes."""
    attrs, tensors, dtypes = dict(attrs or {}), {}, {}
    def put(name, t):
        t = t.detach().to("cpu").clone().contiguous()   # own storage, row-major (save_file needs both)
        if t.dtype in _AS_U8:
            dtypes[name] = _AS_U8[t.dtype]
            t = t.view(torch.uint8)
        tensors[name] = t
    for name, t in inputs.items():
        if t is not None:
            put(name, t)
    for name, t in outputs.items():
        put("out." + name, t)
    for name, t in (expected or {}).items():
        put("expected." + name, t)
    if dtypes:
        attrs["dtypes"] = dtypes
    meta = {"schema": "dsv4check-fixture/1", "op": op, "attrs": json.dumps(attrs)}
    if seed is not None:
        meta["seed"] = str(seed)
    if source:
        meta["source"] = source
    if note:
        meta["note"] = note
    save_file(tensors, path, metadata=meta)


def merge_attn_states_torch(p_out, p_lse, s_out, s_lse):
    """ops.md 1 in float64 (both-empty -> zeros), cast back to the input dtype."""
    p = torch.where(torch.isinf(p_lse) & (p_lse > 0), torch.full_like(p_lse, -float("inf")), p_lse).double()
    s = torch.where(torch.isinf(s_lse) & (s_lse > 0), torch.full_like(s_lse, -float("inf")), s_lse).double()
    m = torch.maximum(p, s)
    empty = torch.isinf(m) & (m < 0)
    m0 = torch.where(empty, torch.zeros_like(m), m)
    pe, se = torch.exp(p - m0), torch.exp(s - m0)
    d = pe + se
    wp = torch.where(empty, torch.zeros_like(d), pe / d).T.unsqueeze(-1)   # [T, H, 1]
    ws = torch.where(empty, torch.zeros_like(d), se / d).T.unsqueeze(-1)
    out = p_out.double() * wp + s_out.double() * ws
    lse = torch.where(empty, m, torch.log(d) + m0)
    return out.to(p_out.dtype), lse.float()


if __name__ == "__main__":
    out_dir = sys.argv[1]
    g = torch.Generator().manual_seed(3)
    T, H, D = 5, 4, 16
    for dt, name in [(torch.float32, "f32"), (torch.bfloat16, "bf16")]:
        p_out = torch.randn(T, H, D, generator=g).to(dt)
        s_out = torch.randn(T, H, D, generator=g).to(dt)
        p_lse = torch.randn(H, T, generator=g)
        s_lse = torch.randn(H, T, generator=g)
        p_lse[:, 2] = -float("inf")
        s_lse[:, 2] = -float("inf")
        out, lse = merge_attn_states_torch(p_out, p_lse, s_out, s_lse)
        ins = dict(prefix_output=p_out, prefix_lse=p_lse, suffix_output=s_out, suffix_lse=s_lse)
        save_fixture(f"{out_dir}/torch_merge_{name}.safetensors", "merge_attn_states", ins,
                     dict(output=out, output_lse=lse), attrs={"both_empty": "zeros"}, seed=3,
                     source="tests/tools/verify/python/capture_fixture.py")
        bad = out.clone()
        bad[3, 1, 7] += 1.0
        save_fixture(f"{out_dir}/torch_merge_{name}_planted.safetensors", "merge_attn_states", ins,
                     dict(output=bad, output_lse=lse), attrs={"both_empty": "zeros"}, note="planted [3,1,7]")
    if hasattr(torch, "float8_e4m3fnuz"):  # FNUZ input stored as U8 + attrs dtypes (a raw safetensors check)
        x = torch.randn(4, 8, generator=g).to(torch.float8_e4m3fnuz)
        save_fixture(f"{out_dir}/torch_fnuz_container.safetensors", "per_token_group_quant_fp8",
                     dict(x=torch.randn(4, 128, generator=g).to(torch.bfloat16)), dict(x_q=x), note="container only")
    print("python capture: ok")
