"""Engine speed, side by side with PettingZoo's connect_four_v3, in one run.

    python benchmarks/throughput.py                      # every registered env
    python benchmarks/throughput.py --seconds 2 --rounds 5 scala_v0
    python benchmarks/throughput.py --json speed.json    # also write the figures as JSON

Per env (default options) it reports:

* ``env steps/s``: random play through the public ``env()`` loop (``agent_iter`` / ``last`` /
  ``step``, resetting when a game ends), for connect_four_v3 and every env alike. The
  player draws uniformly among the nonzero entries of the observation's ``action_mask``,
  as cheaply as numpy allows (``pick``: the mask read as bool, ``rng.random()``), so that
  the figures measure the env rather than the player: scanning an int8 mask with
  ``np.flatnonzero`` and drawing with ``rng.integers`` cost more than a whole step of the
  faster envs. ``x c4`` is the ratio to connect_four_v3 measured in the same round, the
  median over the rounds is reported. Within a round the two loops take turns in short
  slices (``--slices``, whole games each), so that both meet the same machine: the
  machine's speed drifts by tens of percent within seconds (other jobs, clock speed), and
  a ratio of two back-to-back one-second measurements moved by tens of percent between rounds.
* ``user steps/s``: the same loop with the player a user writes, as PettingZoo's docs do
  (``np.flatnonzero(observation["action_mask"])``, then ``rng.choice`` among them), for
  connect_four_v3 and every env; ``x c4`` beside it is that loop's ratio. This is the
  figure a user meets: the int8 mask scan and the draw are part of every step.
* ``raw dec/s``: decisions per second of random play on the State API alone (the mover's
  ``observation``, ``legal_actions``, then ``apply``; a new game when one ends): what search
  agents and evaluation tournaments spend their time in. OpenSpiel's C++ ``connect_four``
  runs the same loop (``observation_tensor``, ``legal_actions``, ``apply_action``) in the
  ``open_spiel connect_four`` row when ``pyspiel`` is installed.
* ``clone us``: the cost of ``state.clone()`` on positions met during random play.
* ``mcts sim/s``: simulations per second of ``MCTSAgent`` at its default budget.
* ``env KiB`` and ``1k states MiB``: memory allocated by one reset env, and by 1,000 live
  states (clones of positions met during random play), measured with ``tracemalloc``.

Rates are per second of this process's CPU time (``time.process_time``), not of wall time:
on a shared machine other jobs then disturb the figures much less (they still do, through
caches and clock speed, hence the rounds). Timings are reported here, never asserted in tests.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import tracemalloc

clock = time.process_time

import numpy as np

import sky_envs
from sky_envs.agents import MCTSAgent


def pick(legal: np.ndarray, rng: np.random.Generator) -> int:
    """A uniformly random entry of the non-empty array ``legal``."""
    return int(legal[int(rng.random() * legal.size)])


def random_step(env, rng: np.random.Generator) -> None:
    """One step of random play through the AEC loop (``None`` for a finished agent)."""
    observation, _, terminated, truncated, _ = env.last()
    if terminated or truncated:
        action = None
    else:
        action = pick(np.asarray(observation["action_mask"], dtype=bool).nonzero()[0], rng)
    env.step(action)


def user_step(env, rng: np.random.Generator) -> None:
    """One step of random play as a user writes it (PettingZoo's docs): ``np.flatnonzero``
    over the int8 action mask and ``rng.choice`` among the legal actions."""
    observation, _, terminated, truncated, _ = env.last()
    if terminated or truncated:
        action = None
    else:
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
    env.step(action)


class RandomPlay:
    """Random play through one env's AEC loop that can stop and go on: ``play(seconds)``
    plays whole games (resetting after each) for at least ``seconds`` of CPU time, and
    ``rate`` is the steps per CPU second over every call so far. ``step``: how the mover
    picks (:func:`random_step`, the benchmark's own player, or :func:`user_step`)."""

    def __init__(self, make_env, seed: int = 0, step=random_step):
        self.step = step
        self.env = make_env()
        self.rng = np.random.default_rng(seed)
        self.env.reset(seed=seed)
        self.steps = 0
        self.seconds = 0.0

    def play(self, seconds: float) -> None:
        env, rng, step = self.env, self.rng, self.step
        steps = 0
        start = clock()
        deadline = start + seconds
        while True:
            for _ in env.agent_iter():
                step(env, rng)
                steps += 1
            env.reset()
            if clock() >= deadline:
                break
        self.seconds += clock() - start
        self.steps += steps

    @property
    def rate(self) -> float:
        return self.steps / self.seconds


def env_steps_per_second(make_env, seconds: float, seed: int = 0) -> float:
    """Random play through the AEC loop for ``seconds``: steps per CPU second."""
    player = RandomPlay(make_env, seed)
    player.play(seconds)
    return player.rate


def paired_rates(make_baseline, make_env, seconds: float, slices: int, step=random_step) -> tuple[float, float]:
    """Steps/s of the baseline (``seconds / 2`` of play) and of the env (``seconds``), the
    two taking turns in ``slices`` slices so that both meet the same machine, both played
    by ``step``."""
    baseline, player = RandomPlay(make_baseline, step=step), RandomPlay(make_env, step=step)
    for _ in range(slices):
        baseline.play(seconds / 2 / slices)
        player.play(seconds / slices)
    return baseline.rate, player.rate


def raw_decisions_per_second(game, seconds: float, seed: int = 0) -> float:
    """Random play on the State API alone: ``legal_actions`` and ``apply``."""
    rng = np.random.default_rng(seed)
    decisions = 0
    start = clock()
    deadline = start + seconds
    while clock() < deadline:
        state = game.new_initial_state(rng)
        while state.current_player >= 0:
            state.observation(state.current_player)
            state.apply(pick(state.legal_actions(), rng))
            decisions += 1
    return decisions / (clock() - start)


def open_spiel_decisions_per_second(seconds: float, seed: int = 0) -> float | None:
    """The raw loop on OpenSpiel's C++ ``connect_four``; None when pyspiel is not installed."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("connect_four")
    rng = np.random.default_rng(seed)
    decisions = 0
    start = clock()
    deadline = start + seconds
    while clock() < deadline:
        decisions += open_spiel_game(game, rng)
    return decisions / (clock() - start)


def open_spiel_game(game, rng: np.random.Generator) -> int:
    """One random game of an OpenSpiel game through the raw loop (``observation_tensor``,
    ``legal_actions``, ``apply_action``); the decisions it took."""
    state = game.new_initial_state()
    decisions = 0
    while not state.is_terminal():
        np.asarray(state.observation_tensor(), dtype=np.float32)
        legal = state.legal_actions()
        state.apply_action(legal[int(rng.random() * len(legal))])
        decisions += 1
    return decisions


def positions(game, count: int, seed: int = 0) -> list:
    """``count`` positions met during random play (clones, so they stay live)."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        state = game.new_initial_state(rng)
        while state.current_player >= 0 and len(out) < count:
            state.apply(pick(state.legal_actions(), rng))
            out.append(state.clone())
    return out


def clone_microseconds(game, seconds: float) -> float:
    sample = positions(game, 200)
    clones = 0
    start = clock()
    deadline = start + seconds
    while clock() < deadline:
        for state in sample:
            state.clone()
        clones += len(sample)
    return (clock() - start) / clones * 1e6


def mcts_simulations_per_second(game, seconds: float, seed: int = 0) -> float:
    """``MCTSAgent()`` (default budget) deciding in positions met during random play."""
    agent = MCTSAgent(seed=seed)
    sample = [s for s in positions(game, 60, seed) if s.current_player >= 0][::6]
    simulations = 0
    start = clock()
    deadline = start + seconds
    for state in sample:
        agent.act({}, state)
        simulations += agent.simulations
        if clock() >= deadline:
            break
    return simulations / (clock() - start)


def allocated_bytes(build) -> int:
    """Bytes still allocated (per ``tracemalloc``) once ``build()`` returned, kept alive."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        kept = build()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    del kept
    return after - before


def env_memory(env_id: str) -> int:
    def build():
        env = sky_envs.make(env_id)
        env.reset(seed=0)
        return env
    return allocated_bytes(build)


def states_memory(game, count: int = 1000) -> int:
    return allocated_bytes(lambda: positions(game, count))


def main(argv: list[str] | None = None, prog: str = "python benchmarks/throughput.py") -> None:
    from sky_envs.core.arguments import HelpFormatter

    parser = argparse.ArgumentParser(prog=prog, description=__doc__, formatter_class=HelpFormatter)
    parser.add_argument("envs", nargs="*", help="env ids (default: all registered)")
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds per measurement")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of env-loop measurements")
    parser.add_argument("--slices", type=int, default=20,
                        help="turns the baseline and the env take within a round")
    parser.add_argument("--env-only", action="store_true", help="only the env-loop figures")
    parser.add_argument("--json", metavar="PATH", help="also write the figures to PATH as JSON")
    args = parser.parse_args(argv)
    from pettingzoo.classic import connect_four_v3

    env_ids = args.envs or sky_envs.env_ids()
    env_steps_per_second(connect_four_v3.env, 0.05)   # warm up (imports, tables, compiled kernels)
    for env_id in env_ids:
        env_steps_per_second(lambda: sky_envs.make(env_id), 0.05)
    players = {"own": random_step, "user": user_step}
    baseline_rates: dict[str, list[float]] = {who: [] for who in players}
    rates = {who: {env_id: [] for env_id in env_ids} for who in players}
    ratios = {who: {env_id: [] for env_id in env_ids} for who in players}
    for _ in range(args.rounds):
        for env_id in env_ids:
            for who, step in players.items():
                baseline, rate = paired_rates(connect_four_v3.env, lambda: sky_envs.make(env_id),
                                              args.seconds, args.slices, step)
                baseline_rates[who].append(baseline)
                rates[who][env_id].append(rate)
                ratios[who][env_id].append(rate / baseline)

    report = {"seconds": args.seconds, "rounds": args.rounds, "slices": args.slices,
              "connect_four_v3": {"env_steps_per_s": statistics.median(baseline_rates["own"]),
                                  "user_env_steps_per_s": statistics.median(baseline_rates["user"])},
              "envs": {}}
    header = f"{'env':<20}{'env steps/s':>12}{'x c4':>7}{'min-max':>11}{'user steps/s':>13}{'x c4':>7}"
    if not args.env_only:
        header += f"{'raw dec/s':>11}{'clone us':>10}{'mcts sim/s':>12}{'env KiB':>9}{'1k states MiB':>15}"
    print(header)
    print(f"{'connect_four_v3':<20}{report['connect_four_v3']['env_steps_per_s']:>12,.0f}{1.0:>7.2f}{'':>11}"
          f"{report['connect_four_v3']['user_env_steps_per_s']:>13,.0f}{1.0:>7.2f}")
    spiel = None if args.env_only else open_spiel_decisions_per_second(args.seconds)
    if spiel is not None:
        report["open_spiel_connect_four"] = {"raw_decisions_per_s": spiel}
        print(f"{'open_spiel c4 (C++)':<20}{'':>12}{'':>7}{'':>11}{'':>13}{'':>7}{spiel:>11,.0f}")
    for env_id in env_ids:
        own, user = ratios["own"][env_id], ratios["user"][env_id]
        row = {"env_steps_per_s": statistics.median(rates["own"][env_id]),
               "x_connect_four_v3": statistics.median(own), "x_connect_four_v3_rounds": own,
               "user_env_steps_per_s": statistics.median(rates["user"][env_id]),
               "user_x_connect_four_v3": statistics.median(user), "user_x_connect_four_v3_rounds": user}
        line = (f"{env_id:<20}{row['env_steps_per_s']:>12,.0f}{row['x_connect_four_v3']:>7.2f}"
                f"{min(own):>5.1f}-{max(own):<5.1f}"
                f"{row['user_env_steps_per_s']:>13,.0f}{row['user_x_connect_four_v3']:>7.2f}")
        if not args.env_only:
            game = sky_envs.make_game(env_id)
            row["raw_decisions_per_s"] = raw_decisions_per_second(game, args.seconds)
            row["clone_us"] = clone_microseconds(game, args.seconds / 2)
            row["mcts_simulations_per_s"] = mcts_simulations_per_second(game, args.seconds)
            row["env_bytes"] = env_memory(env_id)
            row["states_1000_bytes"] = states_memory(game)
            line += (f"{row['raw_decisions_per_s']:>11,.0f}{row['clone_us']:>10.1f}"
                     f"{row['mcts_simulations_per_s']:>12,.0f}{row['env_bytes'] / 1024:>9,.0f}"
                     f"{row['states_1000_bytes'] / 2**20:>15.1f}")
        report["envs"][env_id] = row
        print(line)
        sys.stdout.flush()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2)


if __name__ == "__main__":
    main()
