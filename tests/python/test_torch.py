"""PyTorch's own tensors (needs torch; skipped without it, and ctest then reports the test as skipped): bf16,
fp16 and every torch float8 dtype, CPU and CUDA tensors, non-contiguous views; assert_op_close on torch's own
implementations (torch.nn.functional.linear for skinny_gemm, a merge of two attention states with -inf LSEs)
passing, and a corrupted output failing, localised. The tests read tensors only through __dlpack__."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import dsv4check  # noqa: E402
from corrupt import corrupt  # noqa: E402

DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
FLOAT8 = [n for n in ("float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu")
          if hasattr(torch, n)]
FORMAT = {"float8_e4m3fn": "F8_E4M3FN", "float8_e4m3fnuz": "F8_E4M3FNUZ", "float8_e5m2": "F8_E5M2",
          "float8_e5m2fnuz": "F8_E5M2FNUZ", "float8_e8m0fnu": "F8_E8M0"}
TORCH_OF = {v: getattr(torch, k) for k, v in FORMAT.items() if hasattr(torch, k)}
TORCH_OF["BF16"] = torch.bfloat16


def test_cuda_is_there_when_the_bundle_runs_on_a_gpu():
    import os
    if os.environ.get("DSV4_EXPECT_CUDA") == "1":
        assert torch.cuda.is_available(), "DSV4_EXPECT_CUDA=1 but torch sees no CUDA device"
    else:
        pytest.skip("DSV4_EXPECT_CUDA is not set")


def to_torch(a, device):
    """A CodeArray as a tensor of its own torch dtype (BF16 or a float8), others as they are."""
    if isinstance(a, dsv4check.CodeArray):
        if a.format not in TORCH_OF:
            pytest.skip(f"this torch has no dtype for {a.format}")
        codes = np.ascontiguousarray(a.view(np.ndarray))
        codes = torch.from_numpy(codes.view(np.int16) if codes.itemsize == 2 else codes)  # no uint16 in older torch
        return codes.view(TORCH_OF[a.format]).to(device)
    return torch.from_numpy(np.ascontiguousarray(a)).to(device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", FLOAT8 + ["bfloat16", "float16"])
def test_every_torch_dtype_decodes_as_torch_does(name, device):
    """All codes of each float8 dtype (and 4096 of bf16/fp16) read through __dlpack__ with their own DLPack code
    and decoded by dsv4check equal torch's own conversion to float32."""
    dtype = getattr(torch, name)
    itemsize = torch.empty(0, dtype=dtype).element_size()
    if itemsize == 1:
        codes = torch.arange(256, dtype=torch.int32).to(torch.uint8)
    else:
        codes = torch.arange(0, 65536, 16, dtype=torch.int32).to(torch.int16)
    t = codes.view(dtype).to(device)
    view, _ = dsv4check._arrays.view_of("t", t)
    fmt = FORMAT.get(name, {"bfloat16": "BF16", "float16": "F16"}.get(name))
    assert view[0] == fmt
    if fmt == "F16":
        return  # NumPy reads F16 natively
    ours = dsv4check.CodeArray(codes.numpy().view(np.uint8 if itemsize == 1 else np.uint16), fmt).decode()
    theirs = t.cpu().float().double().numpy()  # torch decodes on the host (not every cast has a CUDA kernel)
    both_nan = np.isnan(ours) & np.isnan(theirs)
    assert np.array_equal(ours[~both_nan], theirs[~both_nan]), name
    assert np.array_equal(np.isnan(ours), np.isnan(theirs)), name


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("op", sorted(dsv4check.ops()))
def test_torch_tensors_judge_as_their_numpy_codes(op, device, seed):
    """Each op's example with every tensor as a torch tensor of its own dtype (bf16, the float8 dtypes of the
    registry, on the device): the same verdict as the NumPy arrays, passing and with a corrupted output."""
    inputs, attrs = dsv4check.example_case(op, seed)
    outputs = dsv4check.reference(op, inputs, attrs)
    tin = {k: to_torch(v, device) for k, v in inputs.items()}
    tout = {k: to_torch(v, device) for k, v in outputs.items()}
    want = dsv4check.judge(op, inputs, outputs, attrs)
    got = dsv4check.judge(op, tin, tout, attrs)
    assert want.passed and str(got) == str(want)
    first = next(iter(outputs))
    bad, idx = corrupt(outputs[first])
    want = dsv4check.judge(op, inputs, dict(outputs, **{first: bad}), attrs)
    got = dsv4check.judge(op, tin, dict(tout, **{first: to_torch(bad, device)}), attrs)
    assert not got.passed and str(got) == str(want)


def linear(a, b, c):
    try:
        return torch.nn.functional.linear(a, b, c)
    except RuntimeError as e:  # older torch: no fp16 GEMM on CPU
        if "not implemented for 'Half'" in str(e):
            pytest.skip(f"this torch has no {a.dtype} linear on {a.device}")
        raise


def linear_case(dtype, device, N=7, K=264, M=40, bias=True, seed=0):
    g = torch.Generator().manual_seed(seed)
    a_wide = torch.randn(N, K + 8, generator=g).to(dtype).to(device)
    a = a_wide[:, :K]  # row stride K + 8: a non-contiguous view
    b = torch.randn(M, K, generator=g).to(dtype).to(device)
    c = torch.randn(M, generator=g).to(dtype).to(device) if bias else None
    return a, b, c


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("bias", [False, True])
def test_torch_linear_passes_as_skinny_gemm(dtype, device, bias):
    a, b, c = linear_case(dtype, device, bias=bias)
    assert not a.is_contiguous()
    out = linear(a, b, c)
    inputs = dict(a=a, b=b, bias=c)
    v = dsv4check.assert_op_close("skinny_gemm", inputs, dict(out=out))
    assert v.passed
    # The output as a transposed view (column-major storage) reads the same.
    out_t = torch.empty(out.shape[1], out.shape[0], dtype=dtype, device=device).t()
    out_t.copy_(out)
    assert not out_t.is_contiguous()
    assert str(dsv4check.judge("skinny_gemm", inputs, dict(out=out_t))) == str(v)


@pytest.mark.parametrize("device", DEVICES)
def test_a_corrupted_linear_fails_localised(device):
    a, b, c = linear_case(torch.bfloat16, device)
    out = linear(a, b, c)
    out[3, 17] += 64.0
    with pytest.raises(AssertionError) as e:
        dsv4check.assert_op_close("skinny_gemm", dict(a=a, b=b, bias=c), dict(out=out))
    text = str(e.value)
    assert text.startswith("FAIL") and "[3, 17]" in text, text
    v = dsv4check.judge("skinny_gemm", dict(a=a, b=b, bias=c), dict(out=out))
    assert v.outputs["out"].worst[0].index == (3, 17)


def torch_merge(p, pl, s, sl):
    """Two attention states merged by their LSEs (ops.md's merge; both -inf: zeros and LSE -inf)."""
    m = torch.maximum(pl, sl)
    m_safe = torch.where(torch.isinf(m) & (m < 0), torch.zeros_like(m), m)
    wp, ws = torch.exp(pl - m_safe), torch.exp(sl - m_safe)
    tot = wp + ws
    safe_tot = torch.where(tot > 0, tot, torch.ones_like(tot))
    out = (p * (wp / safe_tot).t()[:, :, None] + s * (ws / safe_tot).t()[:, :, None])
    return out, m_safe + torch.log(tot)


@pytest.mark.parametrize("device", DEVICES)
def test_a_torch_merge_with_minus_inf_lses_passes_and_fails_when_corrupted(device):
    g = torch.Generator().manual_seed(3)
    T, H, D = 6, 8, 64
    p = torch.randn(T, H, D, generator=g).to(device)
    s = torch.randn(T, H, D, generator=g).to(device)
    pl = torch.randn(H, T, generator=g).to(device)
    sl = torch.randn(H, T, generator=g).to(device)
    pl[:, 1] = -float("inf")                             # prefix empty: the suffix
    sl[:, 2] = -float("inf")                             # suffix empty: the prefix
    pl[:, 3:5] = -float("inf")
    sl[:, 3:5] = -float("inf")                           # both empty: zeros, LSE -inf
    pl_view = pl.t().contiguous().t()                    # a transposed [T, H] view, as ops.md admits
    out, lse = torch_merge(p, pl_view, s, sl)
    inputs = dict(prefix_output=p, prefix_lse=pl_view, suffix_output=s, suffix_lse=sl)
    assert dsv4check.assert_op_close("merge_attn_states", inputs, dict(output=out, output_lse=lse),
                                     {"both_empty": "zeros"}).passed
    bad = out.clone()
    bad[4, 5, 6] = 1.0                                   # a both-empty token must be zero
    with pytest.raises(AssertionError) as e:
        dsv4check.assert_op_close("merge_attn_states", inputs, dict(output=bad, output_lse=lse),
                                  {"both_empty": "zeros"})
    assert "[4, 5, 6]" in str(e.value), str(e.value)


def test_a_tensor_that_requires_grad_is_read():
    a, b, c = linear_case(torch.float16, "cpu")
    b.requires_grad_(True)
    out = linear(a, b, c)
    assert dsv4check.judge("skinny_gemm", dict(a=a, b=b, bias=c), dict(out=out)).passed


def test_a_float8_dtype_the_op_does_not_take_names_what_it_takes():
    if "float8_e5m2" not in FLOAT8:
        pytest.skip("this torch has no float8_e5m2")
    a, b, c = linear_case(torch.bfloat16, "cpu")
    with pytest.raises(ValueError, match=r"'a'.*F8_E5M2.*BF16"):
        out = torch.zeros(7, 40, dtype=torch.bfloat16)  # an admitted output, so the error is a's
        dsv4check.judge("skinny_gemm", dict(a=a.to(torch.float8_e5m2), b=b), dict(out=out))
