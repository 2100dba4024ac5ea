"""Self-play collection spread over worker processes (``train.processes`` > 1).

:class:`ProcessCollector` is the same VecEnv as :class:`~training.collector.SelfPlayVecEnv`
with its games split into contiguous blocks, one :class:`SelfPlayVecEnv` per worker
process; a step sends each worker its block of actions and waits for all of them, so the
games advance in parallel on machines with cores to spare. Each worker keeps its own
opponent pool: the live policy is a copy whose weights are refreshed after every PPO
update (the policy does not change during a rollout, so the copy plays exactly as the
learner's own policy would), and pool checkpoints are loaded from their files.

Workers ignore SIGINT and SIGTERM: the main process handles them (saving the run) and
then closes the workers; a worker whose main process has gone exits when its pipe closes.

:func:`make_collector` chooses between the two: a run's collector is built here, above
:mod:`training.collector`, which knows nothing of worker processes.
"""

from __future__ import annotations

import multiprocessing
import signal

import numpy as np
from gymnasium import spaces

from sky_envs.core.registry import make_game
from .collector import GamesVecEnv, local_collector


def _worker(remote, parent_remote, env_id: str, env_options: dict, num_games: int, pool_config: dict, seed: int,
            first_slot: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    parent_remote.close()
    import cloudpickle
    import torch

    torch.set_num_threads(1)
    vec = local_collector(env_id, env_options, num_games, pool_config, seed, first_slot)
    policy = None
    while True:
        try:
            command, data = remote.recv()
        except (EOFError, OSError):
            break
        if command == "step":
            vec.step_async(data)
            remote.send((*vec.step_wait(), vec.action_masks(), vec.current_seats(), *vec.decision_record()))
        elif command == "reset":
            remote.send((vec.reset(), vec.action_masks(), vec.current_seats()))
        elif command == "live":
            policy = cloudpickle.loads(data)
            policy.set_training_mode(False)
            vec.set_live_policy(policy)
        elif command == "weights":
            policy.load_state_dict(data)
        elif command == "checkpoint":
            vec.add_checkpoint(data)
        elif command == "close":
            break
    remote.close()


def make_collector(env_id: str, env_options: dict, num_games: int, pool_config: dict, seed: int = 0,
                   processes: int = 1) -> GamesVecEnv:
    """The self-play VecEnv of a run: ``num_games`` games, in this process
    (:func:`~training.collector.local_collector`) or spread over ``processes`` worker
    processes (:class:`ProcessCollector`)."""
    if processes > 1:
        return ProcessCollector(env_id, env_options, num_games, pool_config, seed, processes)
    return local_collector(env_id, env_options, num_games, pool_config, seed)


class ProcessCollector(GamesVecEnv):
    """``num_games`` self-play games over ``processes`` worker processes; see the module docstring."""

    def __init__(self, env_id: str, env_options: dict, num_games: int, pool_config: dict, seed: int, processes: int):
        game = make_game(env_id, **env_options)
        observation_space = spaces.Box(game.observation_low, game.observation_high, shape=game.observation_shape,
                                       dtype=np.float32)
        blocks = np.array_split(np.arange(num_games), processes)
        self._splits = np.cumsum([len(block) for block in blocks])[:-1]
        self._window = pool_config["window"]
        self._checkpoints: list[str] = []
        self._policy = None
        self._init_records(num_games, game.num_actions, game.num_players)
        self._closed = False
        method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
        context = multiprocessing.get_context(method)
        seeds = np.random.SeedSequence(seed).generate_state(processes)
        self._remotes, self._processes = [], []
        for block, worker_seed in zip(blocks, seeds):
            remote, work_remote = context.Pipe()
            process = context.Process(target=_worker, daemon=True,
                                      args=(work_remote, remote, env_id, env_options, len(block), pool_config,
                                            int(worker_seed), int(block[0])))
            process.start()
            work_remote.close()
            self._remotes.append(remote)
            self._processes.append(process)
        super().__init__(num_games, observation_space, spaces.Discrete(game.num_actions))

    # ------------------------------------------------------- opponent pool
    def _broadcast(self, command: str, data) -> None:
        for remote in self._remotes:
            remote.send((command, data))

    def set_live_policy(self, policy) -> None:
        import cloudpickle

        self._policy = policy
        self._broadcast("live", cloudpickle.dumps(policy))

    def refresh_live_policy(self) -> None:
        """Send the learner's current weights to every worker (after each PPO update)."""
        self._broadcast("weights", {name: tensor.detach().cpu() for name, tensor in self._policy.state_dict().items()})

    def add_checkpoint(self, path) -> None:
        if self._window < 1:
            return
        self._broadcast("checkpoint", str(path))
        self._checkpoints = (self._checkpoints + [str(path)])[-self._window:]

    def checkpoint_paths(self) -> list[str]:
        return list(self._checkpoints)

    # --------------------------------------------------------------- VecEnv
    def reset(self):
        self._broadcast("reset", None)
        obs, masks, seats = zip(*[remote.recv() for remote in self._remotes])
        self._masks, self._seats = np.concatenate(masks), np.concatenate(seats)
        return np.concatenate(obs)

    def step_async(self, actions: np.ndarray) -> None:
        for remote, block in zip(self._remotes, np.split(np.asarray(actions).reshape(-1), self._splits)):
            remote.send(("step", block))

    def step_wait(self):
        results = [remote.recv() for remote in self._remotes]
        obs, rewards, dones, infos, masks, seats, movers, outcomes = zip(*results)
        self._masks, self._seats = np.concatenate(masks), np.concatenate(seats)
        self._movers, self._outcomes = np.concatenate(movers), np.concatenate(outcomes)
        return np.concatenate(obs), np.concatenate(rewards), np.concatenate(dones), [i for part in infos for i in part]

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for remote in self._remotes:
            try:
                remote.send(("close", None))
            except (BrokenPipeError, OSError):
                pass
        for process in self._processes:
            process.join(timeout=5)
            if process.is_alive():
                process.terminate()
        for remote in self._remotes:
            remote.close()
