"""The pytest plugin, found through its pytest11 entry point: --dsv4check-save-failures DIR saves each failing
assert_op_close case as a fixture that `dsv4check verify` replays (and fails); passing cases save nothing."""
import os
import subprocess
import sys
import textwrap

TEST_FILE = textwrap.dedent('''
    import numpy as np
    import dsv4check
    from merge_case import merge_inputs, merge_numpy

    def case():
        inputs = merge_inputs(np.random.default_rng(7))
        return inputs, merge_numpy(inputs)

    def test_good():
        inputs, outputs = case()
        dsv4check.assert_op_close("merge_attn_states", inputs, outputs)

    def test_bad():
        inputs, outputs = case()
        outputs["output"][1, 2, 3] += 50.0
        dsv4check.assert_op_close("merge_attn_states", inputs, outputs)
''')


def run_pytest(tmp_path, *args):
    (tmp_path / "test_kernel.py").write_text(TEST_FILE)
    env = dict(os.environ)
    here = os.path.dirname(os.path.abspath(__file__))
    paths = [os.path.abspath(p) for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join([here] + paths)
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path / "test_kernel.py"),
                        *args], capture_output=True, text=True, cwd=tmp_path, env=env)
    return p.returncode, p.stdout + p.stderr


def test_the_plugin_is_registered_by_its_entry_point(tmp_path):
    rc, out = run_pytest(tmp_path, "--help")
    assert rc == 0 and "--dsv4check-save-failures" in out, out


def test_failing_cases_are_saved_and_replay_in_verify(tmp_path, cli):
    saved = tmp_path / "failures"
    rc, out = run_pytest(tmp_path, "--dsv4check-save-failures", str(saved))
    assert rc == 1 and "1 failed, 1 passed" in out, out
    files = sorted(saved.iterdir())
    assert [f.name for f in files] == ["test_kernel.py_test_bad.safetensors"], files
    assert f"saved as {files[0]}" in out and "FAIL <in-process> (merge_attn_states)" in out, out
    assert "[1, 2, 3]" in out, out  # the localisation names the corrupted element
    rc, text = cli("verify", files[0])
    assert rc == 1 and "source: test_kernel.py::test_bad" in text and "[1, 2, 3]" in text, text


def test_nothing_is_saved_without_the_option(tmp_path):
    rc, out = run_pytest(tmp_path)
    assert rc == 1 and "FAIL <in-process>" in out and ".safetensors" not in out, out
