"""In-process verdicts equal `dsv4check verify`'s on the fixture save_fixture writes, for every op of the
registry (iterated, no list here): the reference's own outputs pass; each output corrupted at one element fails,
localised at that element, in-process and in `verify` alike."""
import pytest

import dsv4check
from corrupt import corrupt

OPS = sorted(dsv4check.ops())
OUTPUTS = [(op, o["name"]) for op in OPS for o in dsv4check.ops()[op]["outputs"]]


def verify_text(cli, tmp_path, op, inputs, outputs, attrs):
    path = tmp_path / f"{op}.safetensors"
    dsv4check.save_fixture(str(path), op, inputs, outputs, attrs)
    rc, out = cli("verify", path)
    return rc, out.replace(str(path), dsv4check.IN_PROCESS_NAME)


def test_the_registry_has_ops():
    assert len(OPS) >= 13, OPS


@pytest.mark.parametrize("op", OPS)
def test_reference_outputs_pass_as_in_verify(op, seed, cli, tmp_path):
    inputs, attrs = dsv4check.example_case(op, seed)
    outputs = dsv4check.reference(op, inputs, attrs)
    assert outputs, f"{op}: the reference returned no outputs"
    verdict = dsv4check.judge(op, inputs, outputs, attrs)
    assert verdict.passed, str(verdict)
    assert set(verdict.outputs) == set(outputs)
    rc, text = verify_text(cli, tmp_path, op, inputs, outputs, attrs)
    assert rc == 0, text
    assert str(verdict) == text


@pytest.mark.parametrize("op,output", OUTPUTS)
def test_a_corrupted_output_fails_localised_as_in_verify(op, output, seed, cli, tmp_path):
    inputs, attrs = dsv4check.example_case(op, seed)
    outputs = dsv4check.reference(op, inputs, attrs)
    if output not in outputs:
        pytest.skip(f"{op}: the reference produces no '{output}' for its default case")
    outputs[output], idx = corrupt(outputs[output])
    verdict = dsv4check.judge(op, inputs, outputs, attrs)
    assert not verdict.passed, str(verdict)
    bad = verdict.outputs[output]
    assert not bad.passed and bad.failed >= 1, str(verdict)
    for name, v in verdict.outputs.items():
        if name != output:
            assert v.passed, f"{name} failed although only {output} was corrupted:\n{verdict}"
    worst = [w.index for w in bad.worst]
    assert idx in worst or (bad.policy == "topk-set" and any(w[:-1] == idx[:-1] for w in worst)), \
        f"corrupted {idx}, worst elements {worst}:\n{verdict}"
    assert bad.where.summary, str(verdict)
    rc, text = verify_text(cli, tmp_path, op, inputs, outputs, attrs)
    assert rc == 1, text
    assert str(verdict) == text
    with pytest.raises(AssertionError) as e:
        dsv4check.assert_op_close(op, inputs, outputs, attrs)
    assert str(e.value) == str(verdict)
