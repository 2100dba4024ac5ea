"""The opponent pool of self-play: the current policy, recent checkpoints and baselines."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from sky_envs.agents import Agent, PolicyAgent, make_agent


class OpponentPool:
    """Members an opponent seat may be given for an episode.

    With probability ``latest`` the current (learning) policy plays, sampling its actions;
    otherwise a uniform pick among the last ``window`` checkpoints and the baselines.
    """

    def __init__(self, env_id: str, env_options: dict, latest: float, window: int, baselines: list[str], seed: int = 0):
        self.env_id, self.env_options = env_id, env_options
        self.latest_probability = latest
        self.window = window
        self.baselines = {name: make_agent(name, seed=seed) for name in baselines}
        self.snapshots: list[tuple[str, PolicyAgent]] = []
        self.live: Agent | None = None

    def set_live_policy(self, policy) -> None:
        self.live = PolicyAgent(policy, deterministic=False)
        self.live.name = "latest"

    def add_checkpoint(self, path: str | Path) -> None:
        if self.window < 1:
            return
        agent = PolicyAgent.load(path, env_id=self.env_id, env_options=self.env_options, deterministic=False)
        self.snapshots.append((str(path), agent))
        del self.snapshots[:-self.window]

    def checkpoint_paths(self) -> list[str]:
        return [path for path, _ in self.snapshots]

    def sample(self, rng: np.random.Generator) -> Agent:
        others = [agent for _, agent in self.snapshots] + list(self.baselines.values())
        if self.live is not None and (not others or rng.random() < self.latest_probability):
            return self.live
        if not others:
            raise RuntimeError("the opponent pool has no member yet")
        return others[rng.integers(len(others))]


class PoolAgent(Agent):
    """One opponent seat: takes a new pool member at every episode start (``reset``)."""

    name = "pool"

    def __init__(self, pool: OpponentPool, seed: int = 0):
        super().__init__(seed)
        self.pool = pool
        self.current: Agent | None = None

    @property
    def needs_state(self) -> bool:
        return True

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.current = self.pool.sample(self.rng)

    def act(self, observation: dict, state=None) -> int:
        if self.current is None:
            self.reset()
        return self.current.act(observation, state)
