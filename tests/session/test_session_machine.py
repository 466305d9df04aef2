"""The session as a state machine: random valid edits, undo, redo, save and reload, checked step by
step against a plain model (a list of environments with its own cursor).

The model computes each edit's environment with ``dataclasses.replace`` by itself, keeps the history
as a list (an edit after undo drops what could be redone; an edit that changes nothing is no step),
knows which entry was saved and what the file holds, and predicts what the document shows after
every step: the environment, whether undo and redo are possible, whether it is modified.
"""

from __future__ import annotations

import math
import shutil
import tempfile
from dataclasses import replace
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from tests.support.hypothesis_strategies import examples
from workbench.engine.files import load_environment
from workbench.engine.io.envfile import save_environment
from workbench.engine.model import JOB_CRITERIA, TASK_KINDS, Environment, LocalTask, StrategyRef
from workbench.session import edits
from workbench.session.document import Document

TINY = Path(__file__).resolve().parents[2] / "sample_envs" / "tiny.json"

PICK = st.integers(0, 1_000)  # an index into whatever list the rule picks from, taken modulo its length

JOB_FIELDS = st.one_of(
    st.tuples(st.just("priority"), st.integers(0, 3).map(float)),
    st.tuples(st.just("budget"), st.sampled_from([math.inf, 100.0, 150.0, 260.5])),
    st.tuples(st.just("volume"), st.sampled_from([20.0, 60.0, 90.0, 33.25])),
    st.tuples(st.just("actual_fraction"), st.sampled_from([0.25, 0.5, 1.0])),
    st.tuples(st.just("arrival"), st.sampled_from([0.0, 5.0, 12.5, 30.0])),
    st.tuples(st.just("node_count"), st.integers(1, 6)),  # tiny.json has six nodes; no rule changes them
    st.tuples(st.just("min_performance"), st.sampled_from([0.0, 2.0, 4.0])),
    st.tuples(st.just("criterion"), st.sampled_from(JOB_CRITERIA)),
    st.tuples(st.just("name"), st.sampled_from(["build", "render ✓", "job 1"])),
)

STRATEGY_CHOICES = st.sampled_from(
    [
        ("FirstFit", {}),
        ("MinCost", {}),
        ("CoP", {}),
        ("EASY", {}),
        ("BSF", {}),
        ("Batch-slicer", {"slices": 3}),
    ]
)


def _with_task(env: Environment, task: LocalTask) -> Environment:
    """``env`` with the task of ``task.id`` replaced by ``task``, in its place."""
    return replace(env, local_tasks=tuple(task if t.id == task.id else t for t in env.local_tasks))


def _free_from(env: Environment, node: str, without: str = "") -> float:
    """Where the last local task on ``node`` ends (other than ``without``): from there on it is free."""
    return max((t.end for t in env.local_tasks if t.node == node and t.id != without), default=env.time.start)


class SessionMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.folder = Path(tempfile.mkdtemp(prefix="workbench-session-"))
        self.path = self.folder / "session.json"
        start = load_environment(TINY)
        save_environment(start, self.path)
        self.doc = Document(load_environment(self.path), self.path)
        # The model: the history, its cursor, the entry saved last (None: no longer reachable by
        # undo or redo) and the environment the file holds.
        self.history: list[Environment] = [start]
        self.cursor = 0
        self.saved: int | None = 0
        self.on_disk = start

    def teardown(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)

    @property
    def env(self) -> Environment:
        """The model's current environment (what the document must show)."""
        return self.history[self.cursor]

    def edit(self, edit: edits.Edit, expected: Environment) -> None:
        """Apply ``edit`` to the document and ``expected`` to the model as one step."""
        self.doc.apply(edit)
        if expected == self.env:
            return  # an edit that changes nothing is no step to undo
        if self.saved is not None and self.saved > self.cursor:
            self.saved = None
        del self.history[self.cursor + 1 :]
        self.history.append(expected)
        self.cursor += 1

    # ------------------------------------------------------------ edits

    @precondition(lambda self: self.env.local_tasks)
    @rule(which=PICK, node=PICK, gap=st.integers(0, 30))
    def move_task(self, which: int, node: int, gap: int) -> None:
        """Move a task, keeping its length, to a node (its own or another) past that node's last task."""
        env = self.env
        task = env.local_tasks[which % len(env.local_tasks)]
        to = env.nodes[node % len(env.nodes)].id
        start = _free_from(env, to, task.id) + gap
        moved = replace(task, node=to, start=start, end=start + (task.end - task.start))
        self.edit(edits.move_task(task.id, start, to), _with_task(env, moved))

    @precondition(lambda self: self.env.local_tasks)
    @rule(which=PICK, eighths=st.integers(1, 8))
    def resize_task(self, which: int, eighths: int) -> None:
        """Move a task's end, up to the start of the next task on its node (or 40 past its end)."""
        env = self.env
        task = env.local_tasks[which % len(env.local_tasks)]
        later = [t.start for t in env.local_tasks if t.node == task.node and t.id != task.id and t.start >= task.end]
        room = min(later, default=task.end + 40.0) - task.start
        end = task.start + room * eighths / 8
        self.edit(edits.resize_task(task.id, task.start, end), _with_task(env, replace(task, end=end)))

    @rule(node=PICK, gap=st.integers(0, 30), length=st.integers(1, 30), kind=st.sampled_from(TASK_KINDS))
    def add_task(self, node: int, gap: int, length: int, kind: str) -> None:
        """A new task past the node's last one, named t<number of tasks + 1> or the next free number."""
        env = self.env
        on = env.nodes[node % len(env.nodes)].id
        start = _free_from(env, on) + gap
        taken = {t.id for t in env.local_tasks}
        number = len(taken) + 1
        while f"t{number}" in taken:
            number += 1
        task = LocalTask(f"t{number}", on, start, start + length, kind)
        self.edit(edits.add_task(on, start, start + length, kind), replace(env, local_tasks=(*env.local_tasks, task)))

    @precondition(lambda self: self.env.local_tasks)
    @rule(which=PICK)
    def delete_task(self, which: int) -> None:
        env = self.env
        task = env.local_tasks[which % len(env.local_tasks)]
        kept = tuple(t for t in env.local_tasks if t.id != task.id)
        self.edit(edits.delete_task(task.id), replace(env, local_tasks=kept))

    @rule(which=PICK, change=JOB_FIELDS)
    def set_job_field(self, which: int, change: tuple[str, object]) -> None:
        env = self.env
        job = env.jobs[which % len(env.jobs)]
        field, value = change
        changed = replace(job, **{field: value})
        jobs = tuple(changed if j.id == job.id else j for j in env.jobs)
        self.edit(edits.set_job(job.id, **{field: value}), replace(env, jobs=jobs))

    @rule(choice=STRATEGY_CHOICES)
    def set_strategy(self, choice: tuple[str, dict[str, object]]) -> None:
        name, params = choice
        expected = replace(self.env, strategy=StrategyRef(name, tuple(params.items())))
        self.edit(edits.set_strategy(name, params), expected)

    # ------------------------------------------------------------ history and files

    @rule()
    def undo(self) -> None:
        self.doc.undo()
        self.cursor = max(0, self.cursor - 1)

    @rule()
    def redo(self) -> None:
        self.doc.redo()
        self.cursor = min(len(self.history) - 1, self.cursor + 1)

    @rule()
    def save(self) -> None:
        self.doc.save(self.path)
        self.saved, self.on_disk = self.cursor, self.env
        assert load_environment(self.path) == self.env  # the file holds exactly what was saved

    @rule()
    def reload(self) -> None:
        """Open the file again: a fresh history holding what the file holds, unmodified."""
        self.doc.open(self.path)
        self.history, self.cursor, self.saved = [self.on_disk], 0, 0

    # ------------------------------------------------------------ what the document shows

    @invariant()
    def shows_the_models_environment(self) -> None:
        assert self.doc.env == self.env

    @invariant()
    def undo_redo_and_modified_as_the_model_says(self) -> None:
        assert self.doc.can_undo == (self.cursor > 0)
        assert self.doc.can_redo == (self.cursor < len(self.history) - 1)
        assert self.doc.modified == (self.cursor != self.saved)


SessionMachine.TestCase.settings = settings(
    max_examples=examples(40),
    stateful_step_count=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
test_the_session_follows_a_plain_list_of_environments = SessionMachine.TestCase
