import os
import tempfile

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Keep Qt settings, recent files and autosaves of the tests away from the user's own.
_home = tempfile.mkdtemp(prefix="workbench-tests-")
os.environ["XDG_CONFIG_HOME"] = os.path.join(_home, "config")
os.environ["XDG_DATA_HOME"] = os.path.join(_home, "data")


def pytest_sessionfinish(session, exitstatus):  # type: ignore[no-untyped-def]
    """After the whole suite, every compiled kernel holds one signature (docs/design.md "The compiled
    kernels"): a second one, compiled silently by some call, fails the run."""
    import sys

    if "workbench.engine.kernels" not in sys.modules:
        return
    from workbench.engine.kernels import signature_counts

    many = {name: count for name, count in signature_counts().items() if count > 1}
    if many:
        print(f"\nkernels with more than one compiled signature after the suite: {many}", file=sys.stderr)
        session.exitstatus = 1
