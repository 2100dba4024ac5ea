"""Ray for the project's long jobs: joining a cluster, and tournament games as Ray tasks.

* :func:`connect` starts a local Ray instance or joins a running cluster (``"auto"`` or
  ``HOST:PORT``), with Ray's token authentication where the cluster uses it.
* :func:`play_pairings` plays the games of a tournament's pairings as Ray tasks spread over
  the cluster's CPUs: game ``g`` of a pairing is still played with seed ``seed + g`` by the
  tournament's own game function (:func:`training.tournament.round_robin` passes
  ``_play_games``), so every game's result is the one a single process gets. Results come back to this process, which appends each game to the journal as it
  arrives (:func:`training.tournament.read_journal` reads it for ``--resume``); replay files
  (``save_games``) are written by the node that plays the game, so that folder must be on
  storage every node shares.

Every node needs the same Python packages (``pip install "sky_envs[rllib]"``) and the agents'
checkpoint files are shipped through Ray's object store, so only the driver reads them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

from sky_envs.agents import Agent

TOKEN_HELP = ("the cluster uses token authentication (Ray >= 2.60 turns it on at `ray start --head`): run with "
              "RAY_AUTH_MODE=token and the cluster's token in ~/.ray/auth_token, RAY_AUTH_TOKEN_PATH or RAY_AUTH_TOKEN")


def connect(address: str | None = None, token_auth: bool | None = None, num_cpus: int | None = None,
            log_to_driver: bool = False) -> dict:
    """Start or join Ray in this process and return the cluster's resources
    (``{"CPU": ..., ...}``); nothing happens if Ray is already running here.

    ``address``: ``None`` starts a local instance (``num_cpus`` CPUs, default all);
    ``"auto"`` joins the cluster this machine is a node of; ``"HOST:PORT"`` joins the cluster
    whose head listens there (``ray start --head --port PORT``). ``token_auth``: ``True``
    sends the token (``RAY_AUTH_MODE=token`` for this process and the ones it starts;
    the token comes from ``RAY_AUTH_TOKEN``, ``RAY_AUTH_TOKEN_PATH`` or ``~/.ray/auth_token``),
    ``False`` does not, ``None`` leaves it to the environment as Ray does (a token is sent
    to ``"auto"`` when one exists, to an explicit address only with ``RAY_AUTH_MODE=token``).
    """
    import ray

    if ray.is_initialized():
        return ray.cluster_resources()
    if token_auth is not None:
        os.environ["RAY_AUTH_MODE"] = "token" if token_auth else "disabled"
    try:
        ray.init(address=address, num_cpus=num_cpus if address is None else None, include_dashboard=False,
                 log_to_driver=log_to_driver, configure_logging=False)
    except Exception as error:   # Ray's own errors name neither the variable nor the file
        if "auth" in f"{error!r} {error.__cause__!r}".lower():
            raise ConnectionError(f"cannot join the Ray cluster at {address!r}: {TOKEN_HELP} ({error})") from error
        raise
    return ray.cluster_resources()


def cluster_cpus() -> int:
    """The CPUs of the Ray cluster this process is connected to."""
    import ray

    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def play_pairings(env_id: str, options: dict, entries: dict[str, Agent], pairings: list[tuple[str, str, int]],
                  seed: int, play_games: Callable[..., list[float]],
                  known: dict[tuple[str, str], dict[int, float]] | None = None,
                  save_games: str | Path | None = None, journal: str | Path | None = None,
                  done: Callable[[int, dict[int, float]], None] | None = None) -> list[dict[int, float]]:
    """Play ``pairings`` (``(a, b, games)``) as Ray tasks; per pairing, in order, the reward of
    seat a by game number. Each task calls ``play_games(env_id, options, (name_a, agent_a),
    (name_b, agent_b), games, seed, save_games)`` on a few consecutive games of one pairing
    (about eight tasks per CPU, so the last ones keep every CPU busy). Games already in
    ``known`` are counted, not played; ``done(index, rewards)`` is called as each pairing
    completes."""
    import ray

    known = known or {}
    remote = ray.remote(num_cpus=1)(_play_share)
    refs = {name: ray.put(entries[name]) for name in {name for a, b, _ in pairings for name in (a, b)}}
    cpus = cluster_cpus()
    tasks, rewards = {}, []
    for index, (a, b, games) in enumerate(pairings):
        already = known.get((a, b), {})
        rewards.append({g: already[g] for g in range(games) if g in already})
        todo = [g for g in range(games) if g not in already]
        size = max(1, len(todo) // (8 * cpus))
        for start in range(0, len(todo), size):
            share = todo[start:start + size]
            ref = remote.remote(play_games, env_id, options, a, refs[a], b, refs[b], share, seed, save_games)
            tasks[ref] = (index, share)
    remaining = {index: sum(1 for i, _ in tasks.values() if i == index) for index in range(len(pairings))}

    def finish(index: int) -> None:
        if done is not None:
            done(index, rewards[index])

    for index in range(len(pairings)):
        if remaining[index] == 0:
            finish(index)
    pending = list(tasks)
    try:
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            index, share = tasks[ready[0]]
            a, b, _ = pairings[index]
            played = ray.get(ready[0])
            for g, reward in zip(share, played):
                rewards[index][g] = reward
                if journal is not None:
                    with open(journal, "a") as file:
                        file.write(json.dumps({"a": a, "b": b, "game": g, "reward": reward}) + "\n")
            remaining[index] -= 1
            if remaining[index] == 0:
                finish(index)
    finally:
        for ref in pending:   # interrupted: no game goes on playing on the cluster
            ray.cancel(ref, force=True)
    return rewards


def _play_share(play_games: Callable[..., list[float]], env_id: str, options: dict, name_a: str, agent_a: Agent,
                name_b: str, agent_b: Agent, games: list[int], seed: int, save_games: str | Path | None) -> list[float]:
    """A task's games, played by ``play_games`` (the agents arrive through Ray's object store
    as top-level arguments)."""
    return play_games(env_id, options, (name_a, agent_a), (name_b, agent_b), games, seed, save_games)
