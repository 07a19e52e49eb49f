"""dsv4check.ops(): the registry as the CLI sees it, each op with its schema, attributes and policies."""
import dsv4check

DTYPES = {"F64", "F32", "F16", "BF16", "I64", "I32", "I16", "I8", "U8", "F8_E4M3FN", "F8_E4M3FNUZ", "F8_E5M2",
          "F8_E5M2FNUZ", "F8_E8M0"}


def test_every_op_has_a_schema_attrs_and_a_policy_with_its_reasoning_per_output():
    ops = dsv4check.ops()
    assert "merge_attn_states" in ops and "skinny_gemm" in ops
    for name, op in ops.items():
        assert op["name"] == name and op["summary"], name
        assert op["inputs"] and op["outputs"], name
        for arg in op["inputs"] + op["outputs"]:
            assert arg["name"] and arg["shape"], (name, arg)
            assert set(arg["dtypes"]) <= DTYPES, (name, arg)
            assert arg["dtypes"] or arg["optional"], (name, arg)  # only an optional kernel-private one takes any
        for out in op["outputs"]:
            spec = op["oracle"].get(out["name"])
            assert spec and spec["policy"] and spec["rationale"], (name, out["name"])
        for attr in op["attrs"]:
            if attr["choices"] and isinstance(attr["default"], str):
                assert attr["default"] in attr["choices"], (name, attr)
        assert op["default_shapes"], name


def test_ops_is_a_copy():
    dsv4check.ops()["merge_attn_states"]["inputs"].clear()
    assert dsv4check.ops()["merge_attn_states"]["inputs"]


def test_reference_of_a_hand_computed_merge():
    """Equal LSEs weigh both states 1/2; the merged LSE is lse + ln 2."""
    import numpy as np
    p = np.full((1, 1, 8), 1.0, np.float32)
    s = np.full((1, 1, 8), 3.0, np.float32)
    lse = np.zeros((1, 1), np.float32)
    r = dsv4check.reference("merge_attn_states", dict(prefix_output=p, prefix_lse=lse, suffix_output=s,
                                                      suffix_lse=lse))
    assert np.all(r["output"] == 2.0)
    assert abs(float(r["output_lse"][0, 0]) - float(np.float32(np.log(2.0)))) <= 1e-7
