"""The tensors judge() reads: NumPy arrays and DLPack producers, every dtype code, strides (non-contiguous and
negative), GPU producers (host copy through the protocol), raw codes named in attrs['dtypes']; and bad input,
which raises ValueError naming the argument and what the schema admits."""
import numpy as np
import pytest

import dsv4check
from corrupt import corrupt
from dlpack_fakes import FakeGpuTensor, NumpyDLPack, RawDLPack
from merge_case import merge_inputs, merge_numpy

OP = "merge_attn_states"


@pytest.fixture
def case(seed):
    inputs = merge_inputs(np.random.default_rng(seed))
    return inputs, merge_numpy(inputs)


def test_an_independent_numpy_merge_passes_and_a_corrupted_one_fails(case):
    inputs, outputs = case
    assert dsv4check.judge(OP, inputs, outputs).passed
    bad, idx = corrupt(outputs["output"])
    v = dsv4check.judge(OP, inputs, dict(outputs, output=bad))
    assert not v.passed and not v.outputs["output"].passed and v.outputs["output_lse"].passed
    assert v.outputs["output"].worst[0].index == idx
    assert "FAIL output" in str(v)


def test_strides_are_honoured(case):
    inputs, outputs = case
    # prefix_lse as the transposed view of a [T, H] array (ops.md admits it): same values, other memory order.
    lse_th = np.ascontiguousarray(inputs["prefix_lse"].T)
    view = dict(inputs, prefix_lse=lse_th.T)
    assert not view["prefix_lse"].flags.c_contiguous
    assert dsv4check.judge(OP, view, outputs).passed
    # Read in memory order instead of through the strides, the same bytes are other values: it fails.
    misread = dict(inputs, prefix_lse=lse_th.reshape(inputs["prefix_lse"].shape))
    assert not dsv4check.judge(OP, misread, outputs).passed


def test_negative_strides_and_sliced_outputs(case):
    inputs, outputs = case
    rev = {k: (v[:, ::-1] if v.ndim == 3 else v[::-1]) for k, v in inputs.items()}  # heads reversed
    expected = merge_numpy({k: np.ascontiguousarray(v) for k, v in rev.items()})
    big = np.full((expected["output"].shape[0], expected["output"].shape[1], 40), np.nan, np.float32)
    big[:, :, 3:3 + expected["output"].shape[2]] = expected["output"]
    outs = dict(output=big[:, :, 3:3 + expected["output"].shape[2]], output_lse=expected["output_lse"])
    assert dsv4check.judge(OP, rev, outs).passed


def test_dlpack_producers_read_like_numpy(case):
    inputs, outputs = case
    a = dsv4check.judge(OP, inputs, outputs)
    b = dsv4check.judge(OP, {k: NumpyDLPack(v) for k, v in inputs.items()},
                        {k: NumpyDLPack(v) for k, v in outputs.items()})
    c = dsv4check.judge(OP, {k: RawDLPack(v, "F32") for k, v in inputs.items()},
                        {k: RawDLPack(v, "F32") for k, v in outputs.items()})
    assert str(a) == str(b) == str(c) and a.passed


def test_versioned_capsules_are_read_and_an_unknown_major_version_refused(case):
    inputs, outputs = case
    v1 = dsv4check.judge(OP, {k: RawDLPack(v, "F32", version=(1, 1)) for k, v in inputs.items()}, outputs)
    assert str(v1) == str(dsv4check.judge(OP, inputs, outputs)) and v1.passed
    with pytest.raises(ValueError, match=r"input 'prefix_lse'.*major version 2"):
        dsv4check.judge(OP, dict(inputs, prefix_lse=RawDLPack(inputs["prefix_lse"], "F32", version=(2, 0))), outputs)


def test_a_gpu_tensor_is_copied_to_the_host_through_the_protocol(case):
    inputs, outputs = case
    gpu = {k: FakeGpuTensor(v) for k, v in inputs.items()}
    assert dsv4check.judge(OP, gpu, outputs).passed
    assert all(t.calls[-1] == dict(dl_device=(1, 0), copy=True) for t in gpu.values())


def test_a_gpu_tensor_without_a_host_copy_is_a_clear_error(case):
    inputs, outputs = case
    bad = dict(inputs, suffix_lse=FakeGpuTensor(inputs["suffix_lse"], can_copy=False))
    with pytest.raises(ValueError, match=r"input 'suffix_lse' lives on DLPack device \(2, 0\).*host"):
        dsv4check.judge(OP, bad, outputs)


@pytest.mark.parametrize("op", sorted(dsv4check.ops()))
def test_every_code_dtype_reads_alike_as_dlpack_code_and_as_named_raw_codes(op, seed):
    """BF16/fp8/e8m0 tensors of each op's example: as CodeArray, as DLPack capsules of their own type codes,
    and as plain uint8/uint16 with attrs['dtypes']: the same verdict, passing and corrupted."""
    inputs, attrs = dsv4check.example_case(op, seed)
    outputs = dsv4check.reference(op, inputs, attrs)
    coded_in = {k: v.format for k, v in inputs.items() if isinstance(v, dsv4check.CodeArray)}
    coded_out = {k: v.format for k, v in outputs.items() if isinstance(v, dsv4check.CodeArray)}
    if not coded_in and not coded_out:
        pytest.skip(f"{op}: its example has no BF16/fp8/e8m0 tensor")
    first = next(k for k, v in outputs.items())
    outputs[first], _ = corrupt(outputs[first])
    want = dsv4check.judge(op, inputs, outputs, attrs)
    as_dl = lambda d: {k: RawDLPack(np.asarray(v.view(np.ndarray)), v.format) if isinstance(v, dsv4check.CodeArray)
                       else v for k, v in d.items()}
    assert str(dsv4check.judge(op, as_dl(inputs), as_dl(outputs), attrs)) == str(want)
    raw = lambda d: {k: v.view(np.ndarray) if isinstance(v, dsv4check.CodeArray) else v for k, v in d.items()}
    names = dict(coded_in)
    names.update({"out." + k: f for k, f in coded_out.items()})
    assert str(dsv4check.judge(op, raw(inputs), raw(outputs), dict(attrs, dtypes=names))) == str(want)


def test_every_torch_float8_code_is_read():
    """Each DLPack float8 code (10-14) decodes to its own format's values."""
    codes = np.arange(256, dtype=np.uint8)
    for fmt in ("F8_E4M3FN", "F8_E4M3FNUZ", "F8_E5M2", "F8_E5M2FNUZ", "F8_E8M0"):
        exact = dsv4check.CodeArray(codes, fmt).decode()
        view, _ = dsv4check._arrays.view_of("x", RawDLPack(codes, fmt))
        assert view[0] == fmt
        assert np.array_equal(np.isnan(exact), np.isnan(dsv4check.CodeArray(codes, view[0]).decode()))
    # Known values (formats.md): 0x38 is 1.0 in e4m3fn, 0.5 in e4m3fnuz; 0x7f is 2^0 in e8m0.
    assert dsv4check.CodeArray(np.uint8([0x38]), "F8_E4M3FN").decode()[0] == 1.0
    assert dsv4check.CodeArray(np.uint8([0x38]), "F8_E4M3FNUZ").decode()[0] == 0.5
    assert dsv4check.CodeArray(np.uint8([0x7F]), "F8_E8M0").decode()[0] == 1.0
    assert dsv4check.CodeArray(np.uint16([0x3F80]), "BF16").decode()[0] == 1.0


@pytest.mark.parametrize("mutate,pattern", [
    (lambda i, o, a: ("no_such_op", i, o, a), r"no_such_op.*merge_attn_states"),
    (lambda i, o, a: (OP, dict(i, prefix_lsee=i["prefix_lse"]), o, a), r"prefix_lsee.*prefix_lse"),
    (lambda i, o, a: (OP, {k: v for k, v in i.items() if k != "suffix_lse"}, o, a), r"suffix_lse"),
    (lambda i, o, a: (OP, dict(i, prefix_lse=i["prefix_lse"].astype(np.float64)), o, a), r"prefix_lse.*F64.*F32"),
    (lambda i, o, a: (OP, dict(i, prefix_lse=i["prefix_lse"][:, :-1]), o, a), r"lse"),
    (lambda i, o, a: (OP, i, dict(o, output=o["output"].astype(np.float64)), a), r"out\.output.*F64.*F32"),
    (lambda i, o, a: (OP, i, dict(o, output=o["output"][:, :, :-1]), a), r"out\.output"),
    (lambda i, o, a: (OP, i, o, {"both_empty": "nope"}), r"both_empty.*zeros.*copy_prefix"),
    (lambda i, o, a: (OP, i, o, {"no_such_attr": 1}), r"no_such_attr.*both_empty"),
    (lambda i, o, a: (OP, dict(i, prefix_lse=i["prefix_lse"] > 0), o, a), r"prefix_lse.*bool"),
    (lambda i, o, a: (OP, dict(i, prefix_lse=object()), o, a), r"prefix_lse.*not an array"),
    (lambda i, o, a: (OP, i, o, {"dtypes": {"nothing": "F8_E4M3FNUZ"}}), r"nothing.*prefix_output"),
    (lambda i, o, a: (OP, i, o, {"dtypes": {"prefix_lse": "F8_E4M3FNUZ"}}), r"prefix_lse.*F8_E4M3FNUZ.*F32"),
])
def test_bad_input_is_a_value_error_naming_it(case, mutate, pattern):
    inputs, outputs = case
    op, i, o, a = mutate(inputs, outputs, {})
    with pytest.raises(ValueError, match=pattern):
        dsv4check.judge(op, i, o, a)


def test_an_fnuz_output_as_uint8_reads_as_the_format_named(case):
    """An FNUZ output passed as uint8 codes reads as FNUZ with its format named (or implied by
    output_fp8_format, the fixture rule); named as the OCP format it is not the op's output dtype: a ValueError
    naming it. The FNUZ codes decode to other values than the same codes as e4m3fn."""
    inputs, _ = case
    attrs = {"output_scale": 0.25, "output_fp8_format": "e4m3fnuz"}
    ref = dsv4check.reference(OP, inputs, attrs)
    assert isinstance(ref["output"], dsv4check.CodeArray) and ref["output"].format == "F8_E4M3FNUZ"
    raw = dict(ref, output=ref["output"].view(np.ndarray))
    assert raw["output"].dtype == np.uint8
    assert dsv4check.judge(OP, inputs, raw, dict(attrs, dtypes={"out.output": "e4m3fnuz"})).passed
    assert dsv4check.judge(OP, inputs, raw, attrs).passed
    with pytest.raises(ValueError, match=r"out\.output.*F8_E4M3FN\b.*F8_E4M3FNUZ"):
        dsv4check.judge(OP, inputs, raw, dict(attrs, dtypes={"out.output": "e4m3fn"}))
    bad, idx = corrupt(ref["output"])
    v = dsv4check.judge(OP, inputs, dict(raw, output=bad.view(np.ndarray)), dict(attrs, dtypes={"out.output": "F8_E4M3FNUZ"}))
    assert not v.passed and v.outputs["output"].worst[0].index == idx
