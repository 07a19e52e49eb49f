"""merge_attn_states cases built here, with its outputs from an independent NumPy float64 formulation of
ops.md's merge (the weights of the two states by their LSEs; an empty state has LSE -inf)."""
import numpy as np


def merge_inputs(rng, T=5, H=3, D=16):
    p = rng.standard_normal((T, H, D)).astype(np.float32)
    s = rng.standard_normal((T, H, D)).astype(np.float32)
    pl = rng.uniform(-2, 2, (H, T)).astype(np.float32)
    sl = rng.uniform(-2, 2, (H, T)).astype(np.float32)
    return dict(prefix_output=p, prefix_lse=pl, suffix_output=s, suffix_lse=sl)


def merge_numpy(inputs):
    p, s = inputs["prefix_output"].astype(np.float64), inputs["suffix_output"].astype(np.float64)
    pl, sl = inputs["prefix_lse"].astype(np.float64), inputs["suffix_lse"].astype(np.float64)
    m = np.maximum(pl, sl)
    wp, ws = np.exp(pl - m), np.exp(sl - m)
    out = (p * wp.T[:, :, None] + s * ws.T[:, :, None]) / (wp + ws).T[:, :, None]
    return dict(output=out.astype(np.float32), output_lse=(m + np.log(wp + ws)).astype(np.float32))
