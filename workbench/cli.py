"""The ``workbench`` command (docs/design.md "Command line").

``workbench [ENV] [--strategy NAME] [--screenshot PNG]`` opens the GUI; the
sub-commands run the same engine headless. Errors are one line on stderr with
exit code 2; ``--debug`` shows the traceback instead.
"""

from __future__ import annotations

import argparse
import contextlib
import faulthandler
import os
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from workbench import cli_lab
from workbench.allocator import settle_allocator
from workbench.cli_args import parse_params
from workbench.cli_kernels import announce_compiles, cmd_warm, exit_safely
from workbench.cli_progress import ProgressBar
from workbench.engine.errors import ParameterError, WorkbenchError

SUBCOMMANDS = (
    "schedule",
    "simulate",
    "export",
    "metrics",
    "explain",
    "strategies",
    "generate",
    "import-swf",
    "bench",
    "lab",
    "traces",
    "warm",
)
SCHEDULE_FORMATS = (".csv", ".json", ".swf")
EXPORT_FORMATS = (".png", ".svg", ".pdf", *SCHEDULE_FORMATS)


SHARED_AT = 2  # strategies sharing a parameter before `strategies -v` explains it once


def _cmd_strategies(args: argparse.Namespace) -> int:
    from workbench.engine import registry

    infos = registry.strategies()
    width = max(14, *(len(info.name) for info in infos))  # a plug-in's long name keeps the columns
    # A parameter many strategies share with the same meaning is explained once, at the end.
    uses = Counter((p.name, p.help, p.choices) for info in infos for p in info.params)
    shared = {key for key, count in uses.items() if count >= SHARED_AT}
    for info in infos:
        print(f"{info.name:{width}s} {info.family:8s} {info.description}")
        if args.verbose:
            common = []
            for p in info.params:
                if (p.name, p.help, p.choices) in shared:
                    common.append(f"{p.name}={p.default!r}")
                    continue
                extra = f" (one of {', '.join(p.choices)})" if p.choices else ""
                print(f"{'':24s}{p.name}={p.default!r}: {p.help}{extra}")
            if common:
                print(f"{'':24s}and {', '.join(common)} (below)")
    if args.verbose and shared:
        print("\nParameters many strategies share:")
        for name, help_, choices in sorted(shared):
            extra = f" (one of {', '.join(choices)})" if choices else ""
            print(f"  {name}: {help_}{extra}")
    return 0


def _run(args: argparse.Namespace) -> tuple[Any, Any]:
    """Load ``args.env`` and run ``--strategy`` (default: the file's) with its ``--param``s."""
    from workbench.engine import registry
    from workbench.engine.files import load_environment

    env = load_environment(args.env)
    name = args.strategy or env.strategy.name
    params: dict[str, Any] = {}
    if registry.get(name).name == env.strategy.name:
        params.update(env.strategy.params_dict())
    params.update(parse_params(args.param))
    with ProgressBar(registry.get(name).name) as bar:
        return env, registry.run(env, name, params, progress=bar)


def _cmd_schedule(args: argparse.Namespace) -> int:
    from workbench.engine.io.container import writer_suffix
    from workbench.engine.io.result import result_text, schedule_to_dict
    from workbench.engine.io.result_files import save_result

    _check_threshold(args)
    if args.out:
        writer_suffix(args.out, "a result")  # before the run, not after it
    env, schedule = _run(args)
    if args.out:
        save_result(env, schedule, args.out, args.slowdown_threshold, str(args.env))
    else:
        sys.stdout.write(result_text(schedule_to_dict(env, schedule, args.slowdown_threshold, str(args.env))))
    return 0


def _cmd_explain(args: argparse.Namespace) -> int:
    """Why so late? (what held the job from arrival to start) and Why here? (its window against the
    others its strategy compared)."""
    from workbench.engine.explain import check_job, explain_job, explain_late, explanation_text
    from workbench.engine.numbers import number
    from workbench.engine.waits import wait_text

    env, schedule = _run(args)
    check_job(env, args.job)
    name = args.strategy or env.strategy.name
    print("Why so late?")
    def show(t: float) -> str:  # in the document's own unit, named where it has one
        return f"{number(t)} s" if env.time.unit == "seconds" else number(t)

    print(wait_text(explain_late(env, schedule, args.job, name, show), show))
    print()
    print("Why here?")
    params = dict(env.strategy.params_dict()) if name == env.strategy.name else {}
    params.update(parse_params(args.param))
    print(explanation_text(explain_job(env, name, params, args.job)))
    return 0


def _cmd_metrics(args: argparse.Namespace) -> int:
    from workbench.engine.io.atomic import write_json_atomic, write_text_atomic
    from workbench.engine.io.result import metrics_to_csv, result_summary

    out = Path(args.output) if args.output else None
    if out is not None and out.suffix.lower() not in (".csv", ".json"):
        raise ParameterError("-o", f"{out}: the suffix picks the format: .csv or .json")
    _check_threshold(args)
    env, schedule = _run(args)
    if out is not None and out.suffix.lower() == ".json":
        doc = result_summary(env, schedule, args.slowdown_threshold)
        write_json_atomic({key: doc[key] for key in ("strategy", "metrics", "metric_definitions", "work")}, out)
        return 0
    text = metrics_to_csv(env, schedule, args.slowdown_threshold, per_node=args.nodes)
    if out is not None:
        write_text_atomic(text, out)
    else:
        sys.stdout.write(text)
    return 0


def _size(text: str | None) -> tuple[int, int] | None:
    if text is None:
        return None
    w, _, h = text.lower().partition("x")
    try:
        return int(w), int(h)
    except ValueError:
        raise ParameterError("--size", f"expected WIDTHxHEIGHT in pixels, e.g. 1200x700, got {text!r}") from None


def _cmd_export(args: argparse.Namespace) -> int:
    out = Path(args.output)
    suffix = out.suffix.lower()
    if suffix not in EXPORT_FORMATS:
        raise ParameterError("-o", f"{out}: the suffix picks the format: one of {', '.join(EXPORT_FORMATS)}")
    if args.format == "batsim" and suffix not in (".csv", ".json"):
        raise ParameterError(
            "--format", f"batsim writes jobs.csv (-o FILE.csv) or a workload (-o FILE.json), not {suffix}"
        )
    if not out.parent.is_dir():
        raise ParameterError("-o", f"{out.parent}: no such folder")
    size = _size(args.size)
    if suffix in SCHEDULE_FORMATS:
        return _export_schedule(args, out)
    from workbench.gui.figure import figure_of, save_figure
    from workbench.gui.headless import ensure_gui_application
    from workbench.gui.numbers import default_unit, units_for

    env, schedule = _run(args)
    offered = units_for(env.time.unit)
    unit = args.time_unit or default_unit(env.time.unit)
    if unit not in offered:
        counted = "seconds" if env.time.unit == "seconds" else "model units"
        raise ParameterError("--time-unit", f"this environment counts {counted}: {' or '.join(offered)}, not {unit}")
    ensure_gui_application()
    fig = figure_of(env, schedule, colour_by=args.colour_by, time_unit=unit)
    save_figure(fig, out, dpi=args.dpi, size=size)
    return 0


def _export_schedule(args: argparse.Namespace, out: Path) -> int:
    from workbench.engine.io.exports import write_schedule, write_workload

    if args.format == "batsim" and out.suffix.lower() == ".json":
        from workbench.engine.files import load_environment

        env = load_environment(args.env)
        write_workload(env, out)
        if env.local_tasks:
            print(
                f"workbench: note: a Batsim workload has no local tasks; {len(env.local_tasks)} left out",
                file=sys.stderr,
            )
        return 0
    env, schedule = _run(args)
    write_schedule(env, schedule, out, args.format)
    return 0


def _cmd_simulate(args: argparse.Namespace) -> int:
    from workbench.engine import registry
    from workbench.engine.files import load_environment
    from workbench.engine.io.atomic import write_json_atomic
    from workbench.engine.io.result import snapshot_summary

    env = load_environment(args.env)
    name = args.strategy or env.strategy.name
    info = registry.get(name)
    params: dict[str, Any] = {}
    if info.name == env.strategy.name:
        params.update(env.strategy.params_dict())
    params.update(parse_params(args.param))
    steps_left = None
    if args.cycles is not None:
        if args.cycles < 1:
            raise ParameterError("--cycles", "must be at least 1")
        if any(p.name == "max_cycles" for p in info.params):
            params["max_cycles"] = args.cycles
        else:
            steps_left = args.cycles  # an event-driven strategy: stop after K steps
    bar = ProgressBar(info.name) if args.out else None  # the lines themselves show progress otherwise
    sim = registry.simulator(env, name, params, progress=bar)
    summaries = []
    while not sim.done and (steps_left is None or steps_left > 0):
        snap = sim.step()
        if snap is None:
            continue
        summary = snapshot_summary(snap)
        summaries.append(summary)
        if steps_left is not None:
            steps_left -= 1
        if not args.out:
            print(
                f"{summary['step']:4d}  t={summary['time']:<10g} placed {summary['placed']:4d}  "
                f"queue {len(summary['queue']):4d}  failed {summary['failed']:4d}  {summary['label']}"
            )
    if bar is not None:
        bar.__exit__()
    if args.out:
        write_json_atomic({"strategy": info.name, "steps": summaries}, args.out)
    return 0


def _cmd_import_swf(args: argparse.Namespace) -> int:
    from workbench.engine.files import save_environment

    performance = _range(args.performance, "--performance") if args.performance else None
    if performance is not None and args.perf is not None:
        raise ParameterError("--perf", "give either --perf (identical nodes) or --performance LO:HI, not both")
    perf = 1.0 if args.perf is None else args.perf
    if args.grid is None and (args.modification is not None or args.compress is not None):
        raise ParameterError("--grid", "--modification and --compress map a trace onto a grid; give --grid CONFIG")
    if args.grid is not None:
        return _import_grid(args, perf, performance)
    result = _read_trace(args, args.nodes, perf, performance)
    _report_left_out(result.skipped)
    save_environment(result.env, args.output)
    print(f"wrote {args.output}: {len(result.env.jobs)} jobs on {len(result.nodes)} nodes, {_left_out(result)}")
    return 0


def _read_trace(args: argparse.Namespace, nodes: int | None, perf: float, performance: tuple[int, int] | None) -> Any:
    """The trace of ``import-swf`` (SWF, or a Batsim workload by its .json name) with its selection."""
    from workbench.engine.io.imports import import_trace
    from workbench.engine.io.trace import Selection

    selection = Selection(args.first, args.start, args.end, args.skip_status)
    return import_trace(args.file, nodes, perf, args.price, performance, args.seed, selection)


def _left_out(result: Any, more: int = 0) -> str:
    taken = f"; {result.dropped:,} not selected" if result.dropped else ""
    return f"{len(result.skipped) + more} left out{taken}"


def _report_left_out(lines: Sequence[str]) -> None:
    for line in lines:
        print(f"workbench: left out: {line}", file=sys.stderr)


def _import_grid(args: argparse.Namespace, perf: float, performance: tuple[int, int] | None) -> int:
    from workbench.engine.files import save_environment
    from workbench.engine.grid.configs import grid_environment, machine_sizes

    if performance is not None or args.nodes is not None:
        raise ParameterError("--grid", "a grid has its own identical nodes; leave out --nodes and --performance")
    total = sum(machine_sizes(args.grid))
    result = _read_trace(args, total, perf, None)
    env, skipped = grid_environment(
        result.env, args.grid, args.modification, 1.0 if args.compress is None else args.compress
    )
    _report_left_out(result.skipped + skipped)
    save_environment(env, args.output)
    print(
        f"wrote {args.output}: {len(env.jobs)} jobs on grid {args.grid} ({len(env.site_ids)} sites, {total} nodes), "
        f"{_left_out(result, len(skipped))}"
    )
    return 0


def _range(text: str, option: str) -> tuple[int, int]:
    lo, sep, hi = text.partition(":")
    try:
        if not sep:
            raise ValueError(text)
        return int(lo), int(hi)
    except ValueError:
        raise ParameterError(option, f"expected LO:HI (two integers), got {text[:40]!r}") from None


def _cmd_generate(args: argparse.Namespace) -> int:
    from workbench.engine.files import save_environment
    from workbench.engine.generate import generate

    if args.preset == "lublin":
        return _generate_lublin(args)
    for option in ("jobs", "nodes", "grid"):
        if getattr(args, option) is not None:
            raise ParameterError(f"--{option}", "only the lublin preset takes it")
    overrides = parse_params(args.set, "--set")
    env = generate(args.preset, args.seed, **overrides)
    save_environment(env, args.output)
    print(f"wrote {args.output}: {len(env.nodes)} nodes, {len(env.local_tasks)} local tasks, {len(env.jobs)} jobs")
    return 0


def _generate_lublin(args: argparse.Namespace) -> int:
    from workbench.engine.files import save_environment
    from workbench.engine.grid.configs import lublin_environment

    if args.set:
        raise ParameterError("--set", "the lublin preset takes --jobs, --nodes or --grid, not --set")
    jobs = 10_000 if args.jobs is None else args.jobs
    env, skipped = lublin_environment(jobs, args.seed, args.nodes, args.grid, args.modification, not args.typeless)
    for line in skipped:
        print(f"workbench: left out: {line}", file=sys.stderr)
    save_environment(env, args.output)
    sites = f" on {len(env.site_ids)} sites" if env.site_ids else ""
    print(f"wrote {args.output}: {len(env.jobs)} jobs, {len(env.nodes)} nodes{sites}")
    return 0


def _cmd_gui(args: argparse.Namespace) -> int:
    from workbench.engine.files import default_environment_path
    from workbench.gui.app import run_app

    env_path = Path(args.env) if args.env else default_environment_path()
    return run_app(env_path, strategy=args.strategy, screenshot=args.screenshot)


def _check_threshold(args: argparse.Namespace) -> None:
    from workbench.engine.metrics import check_threshold

    try:
        check_threshold(args.slowdown_threshold)
    except ParameterError as exc:
        raise ParameterError("--slowdown-threshold", exc.message) from None


def _threshold_option(parser: argparse.ArgumentParser) -> None:
    from workbench.engine.metrics import BOUNDED_SLOWDOWN_THRESHOLD

    parser.add_argument(
        "--slowdown-threshold",
        type=float,
        default=BOUNDED_SLOWDOWN_THRESHOLD,
        metavar="TAU",
        help=f"the bounded slowdown's threshold τ in time units (default {BOUNDED_SLOWDOWN_THRESHOLD:g})",
    )


def _parsers() -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--debug", action="store_true", help="show tracebacks of errors")
    common.add_argument(
        "--plugin",
        metavar="FILE.py",
        action="append",
        help="load strategies from a plug-in file (repeatable; docs/plugins.md)",
    )

    gui = argparse.ArgumentParser(
        prog="workbench",
        parents=[common],
        description="Slot Workbench. Opens the GUI; sub-commands: " + ", ".join(SUBCOMMANDS),
        epilog="Run `workbench COMMAND --help` for a sub-command.",
    )
    gui.add_argument("env", nargs="?", help="environment file (default: the bundled sample)")
    gui.add_argument("--strategy", help="strategy to run at start")
    gui.add_argument("--screenshot", metavar="PNG", help="render the window to PNG and exit")
    gui.set_defaults(func=_cmd_gui)

    cli = argparse.ArgumentParser(prog="workbench", parents=[common])
    sub = cli.add_subparsers(dest="command", required=True)
    p = sub.add_parser("schedule", parents=[common], help="run a strategy, write the schedule JSON")
    p.add_argument("env")
    p.add_argument("--strategy", help="strategy name (default: the file's)")
    p.add_argument("--param", action="append", default=[], metavar="K=V", help="strategy parameter")
    p.add_argument("--out", help="write the JSON here instead of standard output")
    _threshold_option(p)
    p.set_defaults(func=_cmd_schedule)
    p = sub.add_parser("explain", parents=[common], help="why a job started when and where it did")
    p.add_argument("env")
    p.add_argument("--job", required=True, help="the job's id")
    p.add_argument("--strategy", help="strategy name (default: the file's)")
    p.add_argument("--param", action="append", default=[], metavar="K=V", help="strategy parameter")
    p.set_defaults(func=_cmd_explain)
    p = sub.add_parser("metrics", parents=[common], help="run a strategy, write its measures and their definitions")
    p.add_argument("env")
    p.add_argument("--strategy", help="strategy name (default: the file's)")
    p.add_argument("--param", action="append", default=[], metavar="K=V", help="strategy parameter")
    p.add_argument("-o", "--output", help="FILE.csv (measure, value, definition) or FILE.json (default: CSV on stdout)")
    _threshold_option(p)
    p.add_argument(
        "--nodes",
        action="store_true",
        help="add the per-node rows (profit, busy time, utilisation of each node) after the flow's measures",
    )
    p.add_argument("--no-nodes", action="store_false", dest="nodes", help=argparse.SUPPRESS)  # the default now
    p.set_defaults(func=_cmd_metrics)
    p = sub.add_parser("simulate", parents=[common], help="step a strategy, one summary line per snapshot")
    p.add_argument("env")
    p.add_argument("--strategy", help="strategy name (default: the file's)")
    p.add_argument("--param", action="append", default=[], metavar="K=V", help="strategy parameter")
    p.add_argument("--cycles", type=int, help="most cycles (event-driven strategies: most steps)")
    p.add_argument("--out", help="write the summaries as JSON here")
    p.set_defaults(func=_cmd_simulate)
    p = sub.add_parser("export", parents=[common], help="run a strategy, write its chart or schedule")
    p.add_argument("env")
    p.add_argument("--strategy", help="strategy name (default: the file's)")
    p.add_argument("--param", action="append", default=[], metavar="K=V", help="strategy parameter")
    p.add_argument(
        "-o", "--output", required=True, help="the file; its suffix picks the format: " + ", ".join(EXPORT_FORMATS)
    )
    p.add_argument(
        "--format",
        default="workbench",
        choices=("workbench", "batsim"),
        help="batsim: .csv is Batsim's jobs.csv, .json the environment as a Batsim workload (no run)",
    )
    p.add_argument("--dpi", type=float, default=150.0, help="PNG resolution (default 150)")
    p.add_argument("--size", metavar="WxH", help="figure size in pixels at 96 DPI (default: 1100 wide, fitted)")
    p.add_argument(
        "--colour-by", default="job", choices=("job", "criterion", "status", "batch", "user"), help="window colours"
    )
    p.add_argument(
        "--time-unit",
        choices=("model", "seconds", "minutes", "hours", "days"),
        help="time axis: model units for an environment in model units; seconds (the default), minutes, hours"
        " or days for one in seconds (a trace)",
    )
    p.set_defaults(func=_cmd_export)
    p = sub.add_parser(
        "import-swf", parents=[common], help="convert an SWF trace (.swf, .swf.gz) or a Batsim workload (.json)"
    )
    p.add_argument("file")
    p.add_argument(
        "--nodes", type=int, help="nodes of one machine (default: the trace's MaxNodes, else MaxProcs; Batsim: nb_res)"
    )
    p.add_argument("--first", type=int, metavar="N", help="keep the first N jobs (of those the other options keep)")
    p.add_argument("--from", dest="start", type=float, metavar="T", help="keep the jobs submitted at T or later")
    p.add_argument("--to", dest="end", type=float, metavar="T", help="keep the jobs submitted before T")
    p.add_argument(
        "--skip-status",
        action="store_true",
        help="leave out the jobs that failed or were cancelled (SWF field 11: 0, 5)",
    )
    p.add_argument("--grid", help="a grid of seed 004 Table 1 (m64-18 … m512-1) or sizes like 256,64,64")
    p.add_argument("--modification", type=int, help="--grid: split wide jobs (seed 004 modification 1, 2 or 3)")
    p.add_argument("--compress", type=float, help="--grid: divide every arrival time by F (raises the load)")
    p.add_argument("--perf", type=float, help="performance of every node (default 1)")
    p.add_argument("--performance", metavar="LO:HI", help="each node's performance drawn from the integers LO..HI")
    p.add_argument("--seed", type=int, default=0, help="random seed of --performance")
    p.add_argument("--price", type=float, help="price of every node (default 1, or the performance with --performance)")
    p.add_argument("-o", "--output", required=True)
    p.set_defaults(func=_cmd_import_swf)
    p = sub.add_parser("warm", parents=[common], help="compile the kernels now (once per install), not at first use")
    p.add_argument("-v", "--verbose", action="store_true", help="also list every kernel's signatures")
    p.set_defaults(func=cmd_warm)
    p = sub.add_parser("strategies", parents=[common], help="list the strategies")
    p.add_argument("-v", "--verbose", action="store_true", help="also list each strategy's parameters")
    p.set_defaults(func=_cmd_strategies)
    p = sub.add_parser("generate", parents=[common], help="write a random environment of a paper preset")
    p.add_argument("preset", help="vo24, backfill32, window100, aep100 or lublin (a Lublin–Feitelson workload)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--set", action="append", default=[], metavar="K=V", help="preset parameter")
    p.add_argument("--jobs", type=int, help="lublin: number of jobs (default 10000)")
    p.add_argument("--nodes", type=int, help="lublin: one machine of this many identical nodes (default 512)")
    p.add_argument("--grid", help="lublin: a grid of seed 004 Table 1 (m64-18 … m512-1) or sizes like 256,64,64")
    p.add_argument("--modification", type=int, help="lublin --grid: split wide jobs (seed 004 modification 1, 2, 3)")
    p.add_argument("--typeless", action="store_true", help="lublin: one job class (the model's whole-sample fit)")
    p.set_defaults(func=_cmd_generate)
    p = sub.add_parser("bench", parents=[common], help="time the strategies on the papers' set-ups")
    p.add_argument("--runs", type=int, default=50, help="generated environments per figure")
    p.add_argument(
        "--only",
        action="append",
        default=[],
        help="window, backfill, easy, css (the default); why, plugins, grid, lab, studies, scale, saturation or "
        "coldstart read the traces or take minutes (studies: every study's default run, up to an hour)",
    )
    p.add_argument(
        "--traces", help="folder of the SWF traces for --only scale and saturation (default: ../shared/traces)"
    )
    p.add_argument(
        "--study", action="append", default=[], help="with --only studies: time only this study (repeatable)"
    )
    p.add_argument("--limit", type=float, default=300.0, help="seconds before a scale or saturation run is stopped")
    p.add_argument("--gui", action="store_true", help="time the chart and the live runs instead")
    p.set_defaults(func=cli_lab.cmd_bench)
    lab = sub.add_parser("lab", parents=[common], help="the papers' experiments as studies")
    lab_sub = lab.add_subparsers(dest="lab_command", required=True)
    q = lab_sub.add_parser("list", parents=[common], help="the studies, their factors and measures")
    q.set_defaults(func=cli_lab.cmd_lab_list)
    q = lab_sub.add_parser("run", parents=[common], help="run (or resume) a study")
    q.add_argument("study")
    q.add_argument("--reps", type=int, help="repetitions (seeds 1..N; default: the study's)")
    q.add_argument("--workers", type=int, help="processes (default: one per core)")
    q.add_argument("--dask", metavar="ADDRESS", help="a Dask scheduler address, or 'local' for a LocalCluster")
    q.add_argument("--out", help="run folder (default: lab-runs/STUDY)")
    q.add_argument("--set", action="append", default=[], metavar="FACTOR=V1,V2", help="run only these values")
    q.set_defaults(func=cli_lab.cmd_lab_run)
    q = lab_sub.add_parser("report", parents=[common], help="write report.md/.html and figures of a run folder")
    q.add_argument("dir")
    q.add_argument("--out", help="folder for the report (default: the run folder)")
    q.add_argument(
        "--dpi", type=int, default=300, help="resolution of the PNG figures (default 300; SVG and PDF are vector)"
    )
    q.set_defaults(func=cli_lab.cmd_lab_report)
    q = lab_sub.add_parser("export", parents=[common], help="tidy rows of a run folder as CSV or Parquet")
    q.add_argument("dir")
    q.add_argument("--format", default="csv", choices=("csv", "parquet"))
    q.add_argument("-o", "--output", help="file (default: DIR/results.FORMAT)")
    q.set_defaults(func=cli_lab.cmd_lab_export)
    traces = sub.add_parser("traces", parents=[common], help="the Parallel Workloads Archive's logs by name")
    traces_sub = traces.add_subparsers(dest="traces_command", required=True)
    q = traces_sub.add_parser("list", parents=[common], help="the logs, their sizes and citations")
    q.set_defaults(func=cli_lab.cmd_traces_list)
    q = traces_sub.add_parser("get", parents=[common], help="download a log into the user cache and check it")
    q.add_argument("name", help="a name of `workbench traces list`")
    q.add_argument("--sha256", help="the SHA-256 the download must have (default: the catalogue's, if known)")
    q.set_defaults(func=cli_lab.cmd_traces_get)
    return gui, cli


def _take_plugins(argv: list[str]) -> tuple[list[str], list[str]]:
    """``argv`` without its ``--plugin FILE`` options (allowed anywhere), and those files."""
    rest, files = [], []
    items = iter(argv)
    for item in items:
        if item == "--plugin":
            files.append(next(items, ""))
        elif item.startswith("--plugin="):
            files.append(item.split("=", 1)[1])
        else:
            rest.append(item)
    return rest, files


def _load_plugins(files: list[str]) -> None:
    """Installed packages' plug-ins (a refusal is a one-line warning: the built-ins keep working),
    then the ``--plugin`` files the user named (a refusal is the command's error: one line, exit 2,
    so that a script does not go on without the strategy it asked for)."""
    from workbench.engine import plugins

    for error in plugins.load_entry_points():
        print(f"workbench: warning: {error}", file=sys.stderr)
    for path in files:
        plugins.load_file(path)


def run() -> None:
    """The ``workbench`` process: ``main``, then an exit with no thread inside compiled code."""
    with contextlib.suppress(OSError, ValueError):  # (stderr without a file descriptor)
        faulthandler.enable()  # a fatal signal prints every thread's stack instead of dying silently
    code = main()
    exit_safely(code)
    raise SystemExit(code)


def main(argv: Sequence[str] | None = None) -> int:
    """The command's work (what tests call in-process); ``run`` is the process around it."""
    argv, plugin_files = _take_plugins(list(sys.argv[1:] if argv is None else argv))
    settle_allocator()
    gui, cli = _parsers()
    parser = cli if argv and argv[0] in SUBCOMMANDS else gui
    args = parser.parse_args(argv)
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        _load_plugins(plugin_files)
        announce_compiles()
        return func(args)
    except WorkbenchError as exc:
        if args.debug:
            raise
        print(f"workbench: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader went away (`workbench strategies | head`): end quietly
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - Python flushes stdout at exit
        return 0
    except KeyboardInterrupt:
        # Results are written atomically at the end, so an interrupted run leaves no file behind.
        print("workbench: interrupted; nothing was written", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    run()
