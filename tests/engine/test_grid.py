"""Grid scheduling of seed 004 §3: sites, workload modifications, the four conventional strategies."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.hypothesis_strategies import examples
from workbench.engine import registry
from workbench.engine.errors import ParameterError, ValidationError
from workbench.engine.grid.configs import CONFIGS, grid_environment, machine_sizes, split_job
from workbench.engine.grid.metrics import backlog, grid_metrics
from workbench.engine.io.envfile import environment_from_dict, environment_to_dict
from workbench.engine.metrics import flow_metrics
from workbench.engine.model import EPS, Environment, Job, Node, Site, TimeSettings

GRID = ("Local", "Job sharing", "Multi-site", "Adaptive multi-site")
MULTI = ("Multi-site", "Adaptive multi-site")


def grid(sizes: list[int], jobs: list[Job]) -> Environment:
    sites = [Site(f"m{k + 1}") for k in range(len(sizes))]
    nodes = []
    for site, size in zip(sites, sizes, strict=True):
        for _ in range(size):
            nodes.append(Node(f"n{len(nodes) + 1}", f"node {len(nodes) + 1}", 1.0, 1.0, site=site.id))
    return Environment(nodes=tuple(nodes), jobs=tuple(jobs), time=TimeSettings(), sites=tuple(sites))


def job(ident: str, n: int, T: float, arrival: float = 0.0, site: str = "m1", frac: float = 1.0) -> Job:
    return Job(ident, ident, n, 1.0, T, arrival=arrival, site=site, actual_fraction=frac)


def starts(schedule) -> dict[str, tuple[float, float, tuple[str, ...]]]:
    return {w.job: (w.start, w.length, w.nodes) for w in schedule.windows}


def sites_of(env: Environment, window) -> set[str]:
    site = {n.id: n.site for n in env.nodes}
    return {site[n] for n in window.nodes}


# ---------------------------------------------------------------- configurations and workloads


def test_table_1_configurations():
    """Every Table 1 configuration has 512 nodes, m64-18 and m384-6 have the listed machine sizes, a list of
    sizes is read as given, and an unknown name (m100-5) is refused with an error naming m128-4."""
    assert {name: sum(sizes) for name, sizes in CONFIGS.items()} == dict.fromkeys(CONFIGS, 512)
    assert machine_sizes("m64-18").count(64) == 4 and machine_sizes("m64-18").count(32) == 6
    assert machine_sizes("m384-6") == (384, 64, 16, 16, 16, 16)
    assert machine_sizes("256, 64,64") == (256, 64, 64)
    with pytest.raises(ParameterError, match="m128-4"):
        machine_sizes("m100-5")


def test_grid_environment_round_robin_and_modifications():
    """A trace put on m128-4 gives its jobs to the sites in turn; modifications 1-3 split jobs to at most 128 or
    64 nodes, keeping each job's work and its parts' arrival (compressed) and site; on m64-18 modification 1
    splits by the local machine's size; a job wider than the grid is skipped with a reason; a bad modification
    or compression is refused."""
    jobs = [job(str(i), n, 10.0 * (i + 1), arrival=100.0 * i, site="") for i, n in enumerate([300, 100, 1, 64, 65])]
    source = Environment(nodes=(Node("a", "a", 1.0, 1.0),), jobs=tuple(jobs))
    plain, skipped = grid_environment(source, "m128-4")
    assert [j.site for j in plain.jobs] == ["m1", "m2", "m3", "m4", "m1"]
    assert not skipped and len(plain.nodes) == 512 and plain.site_ids == ("m1", "m2", "m3", "m4")
    for mod, limit in ((1, 128), (2, 128), (3, 64)):
        env, _ = grid_environment(source, "m128-4", mod, compress=4.0)
        assert max(j.node_count for j in env.jobs) <= limit
        for original in jobs:  # the work of every job is unchanged; parts share arrival and site
            parts = [j for j in env.jobs if j.id == original.id or j.id.startswith(original.id + ".")]
            assert sum(p.node_count * p.volume for p in parts) == original.node_count * original.volume
            assert {(p.arrival, p.site) for p in parts} == {(original.arrival / 4.0, parts[0].site)}
    env, _ = grid_environment(source, "m64-18", 1)  # local machine size: job 0 at m1 (64), job 2 ... at m3 (64)
    assert [j.node_count for j in env.jobs if j.id.startswith("0.")] == [64, 64, 64, 64, 44]
    assert [j.node_count for j in env.jobs if j.id.startswith("4.")] == [32, 32, 1]  # job 4 went to m5 (32)
    wide, skipped = grid_environment(Environment(nodes=source.nodes, jobs=(job("w", 600, 1.0, site=""),)), "m128-4")
    assert not wide.jobs and skipped == ["job w asks for 600 nodes; the grid m128-4 has 512"]
    with pytest.raises(ParameterError, match="modification"):
        grid_environment(source, "m128-4", 4)
    with pytest.raises(ParameterError, match="compress"):
        grid_environment(source, "m128-4", None, compress=0.0)


def test_split_keeps_small_jobs_whole():
    """split_job leaves a job no wider than the limit whole and cuts a 10-node job at limit 4 into parts of 4, 4
    and 2."""
    j = job("x", 10, 5.0)
    assert split_job(j, 10) == [j]
    assert [p.node_count for p in split_job(j, 4)] == [4, 4, 2]


def test_sites_round_trip_and_bad_sites():
    """Sites and the nodes' and jobs' sites survive a round trip through a dict; a job or node with an unknown
    site is refused by path; an environment without sites writes no site fields."""
    env = grid([2, 1], [job("a", 1, 1.0, site="m2")])
    back = environment_from_dict(environment_to_dict(env))
    assert back.sites == env.sites and [n.site for n in back.nodes] == [n.site for n in env.nodes]
    assert back.jobs[0].site == "m2"
    data = environment_to_dict(env)
    data["jobs"][0]["site"] = "m9"
    with pytest.raises(ValidationError, match=r"\$\.jobs\[0\]\.site: no site has id 'm9'"):
        environment_from_dict(data)
    data = environment_to_dict(env)
    data["nodes"][2]["site"] = "elsewhere"
    with pytest.raises(ValidationError, match=r"\$\.nodes\[2\]\.site"):
        environment_from_dict(data)
    old = environment_to_dict(Environment(nodes=(Node("a", "a", 1.0, 1.0),)))
    assert "sites" not in old and "site" not in old["nodes"][0]  # files without sites stay version 1 as before


# ---------------------------------------------------------------- hand-worked examples


def test_local_waits_where_job_sharing_moves_the_job():
    """Two 4-node jobs submitted at m1: Local starts the second at 10, after the first; Job sharing starts it at
    0 on m2."""
    env = grid([4, 4], [job("big", 4, 10.0), job("next", 4, 5.0)])  # both submitted at m1
    local = starts(registry.run(env, "Local"))
    assert local["big"][0] == 0 and local["next"][0] == 10.0
    shared = registry.run(env, "Job sharing")
    assert shared.window_of("next").start == 0 and sites_of(env, shared.window_of("next")) == {"m2"}


def test_job_sharing_best_fit_leaves_fewest_idle_nodes():
    """Of machines of 8, 4 and 6 nodes, Job sharing puts a 4-node job on the 4-node machine m2."""
    env = grid([8, 4, 6], [job("j", 4, 3.0)])
    w = registry.run(env, "Job sharing").window_of("j")
    assert sites_of(env, w) == {"m2"} and w.nodes == ("n9", "n10", "n11", "n12")


def test_multi_site_splits_over_sites_by_idle_nodes_and_stretches_once():
    """Multi-site puts a 2-node job where it leaves fewest idle nodes and runs a 6-node job over m1 and m3 (most
    idle nodes first), stretched once by the overhead; Job sharing leaves that job out with a reason."""
    # "busy" (2 nodes) goes where it leaves fewest idle: m2 (3 nodes). At 1 a 6-node job finds 4 idle
    # on m1, 1 on m2, 4 on m3: no machine alone, so it runs multi-site, stretched once by the overhead.
    env = grid([4, 3, 4], [job("busy", 2, 50.0), job("wide", 6, 40.0, arrival=1.0)])
    schedule = registry.run(env, "Multi-site", {"overhead": 0.25})
    assert sites_of(env, schedule.window_of("busy")) == {"m2"}
    w = schedule.window_of("wide")
    assert w.start == 1.0 and w.length == 50.0 and w.overhead == 0.25
    # descending idle nodes: m1 (4, the earlier of the two with 4) first, then m3 supplies the other 2
    assert w.nodes == ("n1", "n2", "n3", "n4", "n8", "n9")
    m = flow_metrics(env, schedule)
    assert m.multi_site_jobs == 1
    # Job sharing cannot run a 6-node job on machines of at most 4 nodes: a reason, not a silent drop.
    shared = registry.run(env, "Job sharing")
    assert shared.unscheduled == ("wide",)
    assert "asks for 6 nodes, more than every machine has (4)" in shared.reasons["wide"]


def test_adaptive_waits_when_one_machine_finishes_sooner():
    """A 6-node job that Multi-site runs at once over two machines (ending at 125) waits under Adaptive
    multi-site for m1 alone (ending at 110); with a small overhead the multi-site run ends first and is taken."""
    # m1 (8 nodes) gets a 5-node job until 10; m2 (4) is idle. A 6-node job of T = 100 then finds
    # 3 + 4 idle nodes: multi-site now ends at 0 + 1.25·100 = 125, m1 alone at 10 + 100 = 110.
    env = grid([8, 4], [job("busy", 5, 10.0), job("six", 6, 100.0)])
    plain = registry.run(env, "Multi-site", {"overhead": 0.25}).window_of("six")
    assert (plain.start, plain.length) == (0.0, 125.0)
    adaptive = registry.run(env, "Adaptive multi-site", {"overhead": 0.25}).window_of("six")
    assert (adaptive.start, adaptive.length, adaptive.overhead) == (10.0, 100.0, 0.0)
    # With a small overhead the multi-site run ends first (0 + 105 < 110), so adaptive takes it.
    cheap = registry.run(env, "Adaptive multi-site", {"overhead": 0.05}).window_of("six")
    assert (cheap.start, cheap.length) == (0.0, 105.0)


def test_awrt_by_hand_without_the_overhead_in_the_weights():
    """A hand case on two machines with overhead 0.5: the starts (c backfilled at 1, b over both machines at
    10), AWRT and AWWT weighted by work without the overhead, the multi-site shares, each machine's utilisation,
    the bounded slowdown and the backlog."""
    # m1 = n1, n2 and m2 = n3, n4; overhead 50 %.
    env = grid([2, 2], [job("a", 2, 10.0), job("b", 3, 4.0, frac=0.5), job("c", 1, 2.0, arrival=1.0)])
    schedule = registry.run(env, "Multi-site", {"overhead": 0.5})
    got = starts(schedule)
    # a starts at 0 on m1 (BestFit tie: earlier site). b needs 3 nodes: only m2's 2 are idle, so it is the
    # blocked head, reserved at 10 over both machines; c (1 node, ends at 3 ≤ 10) backfills on m2 at 1.
    # At 10 b runs over m1 and m2 for (1 + 0.5)·4 = 6.
    assert got["a"][:2] == (0.0, 10.0) and got["c"][:2] == (1.0, 2.0) and got["b"][:2] == (10.0, 6.0)
    # b ran actual_fraction 0.5 of its stretched 6: it finishes at 13. Weights n·p use p without overhead:
    # a 2·10 = 20, b 3·(0.5·4) = 6, c 1·2 = 2; responses 10, 13, 2.
    want = (20 * 10 + 6 * 13 + 2 * 2) / (20 + 6 + 2)
    assert math.isclose(flow_metrics(env, schedule).awrt, want, rel_tol=1e-12)
    g = grid_metrics(env, schedule)
    assert math.isclose(g.awrt, want, rel_tol=1e-12)
    assert math.isclose(g.awwt, 6 * 10 / 28, rel_tol=1e-12)  # only b waited, 10
    assert (g.multi_site_jobs, g.multi_site_share) == (1, 1 / 3) and math.isclose(g.multi_site_work_share, 6 / 28)
    # busy node time over 13: m1 runs a (2·10) and two parts of b (2·3); m2 runs c (2) and one part of b (3)
    assert g.utilisation == pytest.approx({"m1": 26 / 26, "m2": 5 / 26})
    # bounded slowdown (runtimes under 10 count as 10): a 10/10, b 13/10, c max(1, 2/10)
    assert math.isclose(g.bounded_slowdown, (1 + 1.3 + 1) / 3)
    times, work = backlog(env, schedule, points=14)  # 0, 1, …, 13
    assert times.tolist() == list(range(14)) and work.tolist() == [6.0] * 10 + [0.0] * 4


def test_bad_parameters_and_environments_give_one_line_errors():
    """A negative overhead, nodes that are not identical and a node in no site are refused with errors saying
    so; under Local a job wider than its site is left out with a reason suggesting a workload modification."""
    env = grid([2, 2], [job("a", 1, 1.0)])
    with pytest.raises(ParameterError, match="overhead: must be ≥ 0"):
        registry.run(env, "Multi-site", {"overhead": -0.1})
    mixed = Environment(nodes=(Node("a", "a", 1.0, 1.0), Node("b", "b", 2.0, 1.0)), jobs=(job("x", 1, 1.0, site=""),))
    with pytest.raises(ParameterError, match="identical nodes"):
        registry.run(mixed, "Job sharing")
    unsited = Environment(
        nodes=(Node("a", "a", 1.0, 1.0, site="m1"), Node("b", "b", 1.0, 1.0)), jobs=(job("x", 1, 1.0),)
    )
    with pytest.raises(ParameterError, match="node 'b' belongs to no site"):
        registry.run(unsited, "Local")
    local = registry.run(grid([4, 2], [job("w", 3, 1.0, site="m2"), job("ok", 2, 1.0, site="m2")]), "Local")
    assert local.unscheduled == ("w",)
    assert local.reasons["w"] == (
        "asks for 3 nodes, more than its site 'm2' has (2); split it with a workload modification (1–3)"
    )


# ---------------------------------------------------------------- equivalences and invariants


@st.composite
def grids(draw, max_sites: int = 4):
    sizes = draw(st.lists(st.integers(1, 4), min_size=1, max_size=max_sites))
    count = draw(st.integers(1, 12))
    jobs = []
    for i in range(count):
        jobs.append(
            job(
                f"j{i}",
                draw(st.integers(1, max(sizes) + 2)),
                float(draw(st.integers(1, 20))),
                arrival=float(draw(st.integers(0, 30))),
                site=f"m{draw(st.integers(1, len(sizes)))}",
                frac=draw(st.sampled_from([1.0, 0.5, 0.25])),
            )
        )
    return grid(sizes, jobs)


def single_site(env: Environment, site: str) -> Environment:
    """The site's own machine and jobs as a plain environment (no sites)."""
    nodes = tuple(Node(n.id, n.name, n.performance, n.price) for n in env.nodes if n.site == site)
    jobs = tuple(Job(**{**j.__dict__, "site": ""}) for j in env.jobs if j.site == site)
    return Environment(nodes=nodes, jobs=jobs, time=env.time)


@settings(max_examples=examples(60), deadline=None)
@given(env=grids())
def test_local_is_easy_on_each_sites_own_jobs(env):
    """On random grids, Local places each site's own jobs as EASY does on that site alone, and leaves out the
    same jobs."""
    local = registry.run(env, "Local")
    for site in env.site_ids:
        own = single_site(env, site)
        easy = registry.run(own, "EASY")
        mine = {j: v for j, v in starts(local).items() if env.job(j).site == site}
        assert mine == starts(easy)
        assert set(easy.unscheduled) == {j for j in local.unscheduled if env.job(j).site == site}


@settings(max_examples=examples(60), deadline=None)
@given(env=grids(max_sites=1))
def test_job_sharing_on_one_site_is_easy(env):
    """On a grid of one site, Job sharing and Multi-site give EASY's starts."""
    alone = single_site(env, "m1")
    assert starts(registry.run(env, "Job sharing")) == starts(registry.run(alone, "EASY"))
    assert starts(registry.run(env, "Multi-site")) == starts(registry.run(alone, "EASY"))


@settings(max_examples=examples(80), deadline=None)
@given(
    env=grids(),
    name=st.sampled_from((*GRID, "Economic")),
    overhead=st.sampled_from([0.0, 0.25, 0.6]),
    mf=st.sampled_from(["MF1", "MF2", "MF4"]),
    uf=st.sampled_from(["UF1", "UF3", "UF2"]),
)
def test_grid_invariants(env, name, overhead, mf, uf):
    """On random grids under each grid strategy and Economic: a job runs at most once, after its arrival, on
    distinct nodes; only a window over several sites is stretched, once, by the overhead; Local keeps jobs on
    their site; no node is over-booked; each job is placed or has a reason, and only one too wide for any
    machine fails."""
    params: dict = {"overhead": overhead} if name in MULTI else {}
    if name == "Economic":
        params = {"overhead": overhead, "machine_function": mf, "user_function": uf}
    schedule = registry.run(env, name, params)
    sizes = {s: sum(1 for n in env.nodes if n.site == s) for s in env.site_ids}
    site = {n.id: n.site for n in env.nodes}
    busy: dict[str, list[tuple[float, float, str]]] = {n.id: [] for n in env.nodes}
    placed = set()
    for w in schedule.windows:
        j = env.job(w.job)
        assert w.job not in placed  # every job runs at most once ...
        placed.add(w.job)
        assert w.start >= j.arrival - EPS and len(set(w.nodes)) == j.node_count == len(w.nodes)
        spans = {site[n] for n in w.nodes}
        if len(spans) > 1:  # all parts share one start and one length: stretched once, by the overhead
            # (the economic scheduler co-allocates only a job no machine can hold, §4.4)
            assert name in MULTI or (name == "Economic" and j.node_count > max(sizes.values()))
            assert w.overhead == overhead and w.length == j.volume * (1 + overhead)
        else:
            assert w.overhead == 0.0 and w.length == j.volume
        if name == "Local":
            assert spans == {j.site}
        end = schedule.actual_end(env, w)
        assert end == w.start + j.actual_fraction * w.length
        for n in w.nodes:
            busy[n].append((w.start, end, w.job))
    for node, spans in busy.items():  # ... and no node (so no site) is ever over-booked
        spans.sort()
        for (_, e0, a), (s1, _, b) in itertools.pairwise(spans):
            assert s1 >= e0 - EPS, f"{a} and {b} overlap on {node}"
    # ... exactly once: what did not run has a reason, and only a job no machine can take fails
    assert placed | set(schedule.unscheduled) == {j.id for j in env.jobs} and not placed & set(schedule.unscheduled)
    for jid in schedule.unscheduled:
        j = env.job(jid)
        room = sizes[j.site] if name == "Local" else max(sizes.values())
        if name in (*MULTI, "Economic") and len(sizes) > 1:
            room = sum(sizes.values())
        assert j.node_count > room, schedule.reasons[jid]


@pytest.mark.parametrize("name", GRID)
def test_a_short_backfill_on_reserved_nodes_leaves_the_open_ones_to_others(name):
    """With the head reserved on n1-n3 from 10, a short job backfills at 1 on the reserved but idle n3, so a
    long one still gets the open n4 at 1; the head starts at 10."""
    # One machine of 4: x holds n1, n2 until 10; the head h (3 nodes) is reserved n1-n3 from 10, so n4 is
    # open. At 1, s (1 node, ends at 3 ≤ 10) backfills on the reserved but idle n3, and l (1 node, long)
    # still finds n4 open.
    env = grid([4], [job("x", 2, 10.0), job("h", 3, 5.0), job("s", 1, 2.0, arrival=1.0), job("l", 1, 50.0, 1.0)])
    got = starts(registry.run(env, name))
    assert got["s"] == (1.0, 2.0, ("n3",)) and got["l"] == (1.0, 50.0, ("n4",))
    assert got["h"][0] == 10.0
