"""Shared pieces of the Python API's tests: the dsv4check CLI (DSV4CHECK_CLI, set by ctest), the seed of every
random test (DSV4_SEED, printed), and a one-line repro command for each failure."""
import os
import shlex
import subprocess
import sys

import pytest

SEED = int(os.environ.get("DSV4_SEED", "20261202"))


def pytest_report_header(config):
    return f"dsv4check tests: DSV4_SEED={SEED} (set DSV4_SEED to vary); python {sys.executable}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        env = f"DSV4_SEED={SEED}"
        for k in ("PYTHONPATH", "DSV4CHECK_CLI"):
            if os.environ.get(k):
                env += f" {k}={shlex.quote(os.environ[k])}"
        report.sections.append(("repro", f"{env} {sys.executable} -m pytest {shlex.quote(item.nodeid)}"))


@pytest.fixture
def seed():
    print(f"seed: DSV4_SEED={SEED}")
    return SEED


@pytest.fixture(scope="session")
def cli():
    """Runs `dsv4check ARGS`: (exit code, stdout). Skips when the CLI is not given (the H200 bundle has it)."""
    path = os.environ.get("DSV4CHECK_CLI")
    if not path or not os.path.exists(path):
        pytest.skip("DSV4CHECK_CLI (the dsv4check executable) is not set")

    def run(*args):
        p = subprocess.run([path, *map(str, args)], capture_output=True, text=True)
        return p.returncode, p.stdout + p.stderr

    return run
