"""dsv4check's pytest plugin (entry point pytest11 "dsv4check"): `--dsv4check-save-failures DIR` saves every
failing dsv4check.assert_op_close case as a fixture in DIR, named after the test, that `dsv4check verify`
replays."""
import dsv4check


def pytest_addoption(parser):
    group = parser.getgroup("dsv4check")
    group.addoption("--dsv4check-save-failures", metavar="DIR", default=None,
                    help="save each failing dsv4check.assert_op_close case as a fixture file in DIR "
                         "(replay with `dsv4check verify FILE`)")


def pytest_configure(config):
    directory = config.getoption("dsv4check_save_failures")
    if directory:
        dsv4check._set_failure_dir(directory)


def pytest_unconfigure(config):
    dsv4check._set_failure_dir(None)
