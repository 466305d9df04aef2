"""Grids of seed 004 (§3.1, Table 1): machines of identical nodes, 512 nodes in all.

A configuration is a list of machine sizes. ``grid_environment`` puts a job list on
one: every machine becomes a site, its nodes carry the site id, and the jobs are
given to submitting sites round robin in their order (§3.2). The workload
modifications of §3.2 split wide jobs into parts that run for the same time, so the
total work (nodes × runtime) is unchanged, submitted at the same time and site:

1. parts of at most the submitting (local) machine's size;
2. parts of at most the largest machine's size;
3. parts of at most 64 nodes (every configuration has a machine that large).

``compress`` divides every arrival time by F, which raises the offered load F-fold.
"""

from __future__ import annotations

import math
from dataclasses import replace

from workbench.engine.errors import ParameterError, show
from workbench.engine.model import Environment, Job, Node, Site, StrategyRef

CONFIGS: dict[str, tuple[int, ...]] = {
    "m64-18": (64,) * 4 + (32,) * 6 + (8,) * 8,
    "m64-8": (64,) * 8,
    "m128-4": (128,) * 4,
    "m256-2": (256,) * 2,
    "m256-5": (256,) + (64,) * 4,
    "m384-6": (384, 64) + (16,) * 4,
    "m512-1": (512,),
}
MODIFICATIONS = (1, 2, 3)
MOD3_PART = 64
MAX_MACHINES = 1000
MAX_MACHINE = 1_000_000


def machine_sizes(config: str) -> tuple[int, ...]:
    """The machine sizes of a Table 1 name (``m128-4``) or of a comma list (``256,64,64``)."""
    if config in CONFIGS:
        return CONFIGS[config]
    parts = config.split(",")
    sizes = []
    for part in parts:
        part = part.strip()
        if not part.isdigit() or not 1 <= int(part) <= MAX_MACHINE:
            names = ", ".join(CONFIGS)
            raise ParameterError(
                "--grid", f"expected one of {names}, or machine sizes like 256,64,64; got {show(config)}"
            )
        sizes.append(int(part))
    if len(sizes) > MAX_MACHINES:
        raise ParameterError("--grid", f"{len(sizes)} machines; the limit is {MAX_MACHINES}")
    return tuple(sizes)


def site_nodes(sizes: tuple[int, ...], performance: float = 1.0, price: float = 1.0) -> tuple[list[Site], list[Node]]:
    """Sites m1..mK and their identical nodes n1..nN (numbered across the grid)."""
    sites = [Site(f"m{k + 1}", f"machine {k + 1}") for k in range(len(sizes))]
    width = len(str(sum(sizes)))
    nodes: list[Node] = []
    for site, size in zip(sites, sizes, strict=True):
        for i in range(size):
            g = len(nodes) + 1
            nodes.append(Node(f"n{g}", f"{site.id} node {i + 1:0{width}d}", performance, price, site=site.id))
    return sites, nodes


def split_job(job: Job, part: int) -> list[Job]:
    """``job`` as parts of at most ``part`` nodes, each running as long (the work is unchanged)."""
    if job.node_count <= part:
        return [job]
    count = math.ceil(job.node_count / part)
    sizes = [part] * (count - 1) + [job.node_count - part * (count - 1)]
    return [
        replace(job, id=f"{job.id}.{k + 1}", name=f"{job.name} part {k + 1}/{count}", node_count=size)
        for k, size in enumerate(sizes)
    ]


def grid_environment(
    env: Environment,
    config: str,
    modification: int | None = None,
    compress: float = 1.0,
    name: str | None = None,
) -> tuple[Environment, list[str]]:
    """``env``'s jobs on the grid ``config``: (environment, jobs left out with the reason).

    The nodes of ``env`` are replaced by the grid's (performance and price of its first
    node). Jobs go to sites round robin in list order. A job wider than the whole grid
    is left out unless a modification splits it; every part keeps the job's arrival,
    site, volume and actual fraction.
    """
    sizes = machine_sizes(config)
    if modification is not None and modification not in MODIFICATIONS:
        raise ParameterError("--modification", f"expected 1, 2 or 3, got {show(modification)}")
    if not math.isfinite(compress) or compress <= 0:
        raise ParameterError("--compress", f"expected a number > 0, got {show(compress)}")
    first = env.nodes[0] if env.nodes else Node("n", "n", 1.0, 1.0)
    sites, nodes = site_nodes(sizes, first.performance, first.price)
    total = sum(sizes)
    jobs: list[Job] = []
    skipped: list[str] = []
    for i, job in enumerate(env.jobs):
        k = i % len(sizes)
        job = replace(job, site=sites[k].id, arrival=job.arrival / compress)
        if modification == 1:
            parts = split_job(job, sizes[k])
        elif modification == 2:
            parts = split_job(job, max(sizes))
        elif modification == 3:
            parts = split_job(job, MOD3_PART)
        else:
            parts = [job]
        for part in parts:
            if part.node_count > total:
                skipped.append(f"job {part.id} asks for {part.node_count} nodes; the grid {config} has {total}")
            else:
                jobs.append(part)
    mod = f", modification {modification}" if modification else ""
    squeeze = f", arrivals ÷ {compress:g}" if compress != 1 else ""
    grid = Environment(
        nodes=tuple(nodes),
        local_tasks=(),
        jobs=tuple(jobs),
        time=replace(env.time, start=env.time.start / compress, cycle_length=None, horizon=None),
        name=name or f"{env.name} on {config}",
        description=(
            f"{len(jobs)} jobs on grid {config} ({' + '.join(str(s) for s in sizes)} = {total} nodes{mod}{squeeze}), "
            f"submitted round robin; {len(skipped)} left out."
        ),
        strategy=StrategyRef("Job sharing"),
        sites=tuple(sites),
    )
    return grid, skipped


def lublin_environment(
    jobs: int = 10_000,
    seed: int = 0,
    nodes: int | None = None,
    grid: str | None = None,
    modification: int | None = None,
    typed: bool = True,
) -> tuple[Environment, list[str]]:
    """A Lublin–Feitelson workload of ``jobs`` on one machine of ``nodes`` (default 512) or on the
    grid ``grid`` (a Table 1 name or sizes; ``modification`` splits wide jobs): the environment and
    the jobs left out. ``workbench generate lublin`` and Generate's "lublin" both make it here."""
    from workbench.engine.grid.lublin import generate_workload, workload_environment

    if nodes is not None and grid is not None:
        raise ParameterError("--grid", "give either --nodes (one machine) or --grid CONFIG, not both")
    if grid is None and modification is not None:
        raise ParameterError("--modification", "a workload modification needs --grid")
    machines = sum(machine_sizes(grid)) if grid is not None else (512 if nodes is None else nodes)
    env = workload_environment(generate_workload(jobs, machines, seed, typed=typed), machines, seed)
    if grid is None:
        return env, []
    return grid_environment(env, grid, modification, name=env.name + f" on {grid}")
