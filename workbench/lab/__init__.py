def run_study(*args, **kwargs):  # type: ignore[no-untyped-def]
    """``workbench.lab.runner.run_study`` (imported on first use: the lab's runner pulls in the engine)."""
    from workbench.lab.runner import run_study as run

    return run(*args, **kwargs)
