"""The opponent pool of self-play: the current policy, recent checkpoints and baselines."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from sky_envs.agents import Agent, PolicyAgent, make_agent
from .actors import Actor, PolicyActor, actor_for

LATEST = "latest"


class OpponentPool:
    """Members an opponent seat may be given for an episode, each a batched :class:`Actor`.

    With probability ``latest`` the current (learning) policy plays, sampling its actions;
    otherwise a uniform pick among the last ``window`` checkpoints and the baselines.
    ``baselines`` are agent names (``"random"``, ``"greedy"``) or :class:`Agent` objects.
    """

    def __init__(self, env_id: str, env_options: dict, latest: float, window: int, baselines: list[str | Agent],
                 seed: int = 0):
        self.env_id, self.env_options = env_id, env_options
        self.latest_probability = latest
        self.window = window
        seeds = [int(s) for s in np.random.SeedSequence(seed).generate_state(len(baselines) + 1)]
        self.baselines: list[Actor] = [actor_for(make_agent(spec, seed=s, env_id=env_id, env_options=env_options), seed=s)
                                       for spec, s in zip(baselines, seeds)]
        self._snapshot_seed = seeds[-1]
        self.snapshots: list[tuple[str, Actor]] = []
        self.live: Actor | None = None

    def set_live_policy(self, policy) -> None:
        self.live = PolicyActor(policy, LATEST, deterministic=False, seed=self._snapshot_seed)

    def add_checkpoint(self, path: str | Path) -> None:
        if self.window < 1:
            return
        agent = PolicyAgent.load(path, env_id=self.env_id, env_options=self.env_options, deterministic=False)
        self.snapshots.append((str(path), actor_for(agent, seed=self._snapshot_seed + len(self.snapshots) + 1)))
        del self.snapshots[:-self.window]

    def checkpoint_paths(self) -> list[str]:
        return [path for path, _ in self.snapshots]

    def sample(self, rng: np.random.Generator) -> Actor:
        others = [actor for _, actor in self.snapshots] + self.baselines
        if self.live is not None and (not others or rng.random() < self.latest_probability):
            return self.live
        if not others:
            raise RuntimeError("the opponent pool has no member yet")
        return others[rng.integers(len(others))]
