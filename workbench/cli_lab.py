"""The ``workbench`` command's research sub-commands: ``bench``, ``lab`` (list, run, report, export)
and ``traces`` (list, get). docs/design.md "Command line"."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from workbench.cli_args import parse_params
from workbench.cli_progress import ByteBar, ProgressBar


def cmd_bench(args: argparse.Namespace) -> int:
    if args.gui:
        from workbench.gui.bench import run_gui_bench

        run_gui_bench(out=print)
        return 0
    from workbench.lab.bench import run_bench

    traces = Path(args.traces) if args.traces else None
    run_bench(args.runs, args.only, print, traces, args.limit, studies=args.study or None)
    return 0


def cmd_lab_list(args: argparse.Namespace) -> int:
    from workbench.lab.catalogue import all_studies

    for study in all_studies():
        factors = "; ".join(f"{f.name}: {', '.join(map(str, f.values))}" for f in study.factors) or "none"
        print(f"{study.name:16s} {study.title}")
        print(f"{'':16s} {study.source}")
        print(f"{'':16s} strategies: {', '.join(study.labels)}")
        print(
            f"{'':16s} factors: {factors}; {study.reps} repetitions by default; measures: {', '.join(study.measures)}"
        )
    return 0


def cmd_lab_run(args: argparse.Namespace) -> int:
    from workbench.lab.runner import run_study

    overrides = parse_params(args.set, "--set")
    with ProgressBar(f"lab {args.study}") as bar:
        result = run_study(args.study, args.reps, args.workers, args.dask, args.out, overrides, progress=bar)
    failed = f", {result.failed} failed" if result.failed else ""
    if result.stopped:
        print(
            f"workbench: stopped; {result.recorded} of {result.planned} runs are in {result.folder}{failed}; "
            "the same command resumes",
            file=sys.stderr,
        )
        return 130
    print(
        f"{result.recorded} of {result.planned} runs in {result.folder}{failed}; `workbench lab report {result.folder}`"
    )
    if result.failed:  # earlier, resumed runs too: a study with a failed run is not a result to publish
        print(
            f"workbench: {result.failed} of {result.planned} runs failed; `workbench lab report {result.folder}` "
            "lists why, and the same command runs them again",
            file=sys.stderr,
        )
        return 1
    return 0


def cmd_lab_report(args: argparse.Namespace) -> int:
    from workbench.lab.report import write_report

    print(write_report(Path(args.dir), Path(args.out) if args.out else None, dpi=args.dpi))
    return 0


def cmd_lab_export(args: argparse.Namespace) -> int:
    from workbench.lab.export import export

    print(export(Path(args.dir), args.format, Path(args.output) if args.output else None))
    return 0


def cmd_traces_list(args: argparse.Namespace) -> int:
    from workbench.lab.archive import listing

    print("\n".join(listing()))
    return 0


def cmd_traces_get(args: argparse.Namespace) -> int:
    from workbench.lab.archive import fetch

    with ByteBar(args.name) as bar:
        got = fetch(args.name, args.sha256, bar)
    check = f"SHA-256 checked: {got.sha256}" if got.checked else f"no checksum known; computed: {got.sha256}"
    print(f"{got.path} ({'downloaded' if got.downloaded else 'already in the cache'}); {check}")
    return 0
