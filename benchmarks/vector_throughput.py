"""Decisions per second of random play through ``sky_envs.vector``, side by side with the anchors, in one run.

    python benchmarks/vector_throughput.py                              # every env, 1, 128 and 4096 games
    python benchmarks/vector_throughput.py --num-envs 1024 --rounds 5 sky_scrapers_v0
    python benchmarks/vector_throughput.py --json vector.json           # also write the figures as JSON

Each measurement plays random games and counts the decisions made (one per game per step):

* ``sky_envs.vector``: ``vector.make(env_id, num_envs)``, then ``venv.step(vector.random_actions(
  batch.action_mask, rng))`` over and over (the observation and mask of every game are
  produced at every step; ended games restart in place), for each ``--num-envs``, with the
  game's compiled engine (``engine="auto"``, measured only where the game has one) and the
  reference engine over states (``engine="python"``).
* PettingZoo's ``connect_four_v3``: its AEC loop (``agent_iter`` / ``last`` / ``step``), the
  mover drawing among the mask's legal actions.
* OpenSpiel's C++ ``connect_four`` through ``pyspiel`` (``observation_tensor``,
  ``legal_actions``, ``apply_action``), where ``open_spiel`` is installed.
* pgx's ``connect_four`` on the CPU, where ``pgx`` (and JAX) can be imported: one jitted,
  vmapped step over ``num_envs`` games (random legal actions drawn in JAX, auto-reset), the
  way pgx is meant to be used, at each ``--num-envs``. The reason is printed where it is skipped.

Every measurement is played ``--seconds`` of wall time per round, all of them in turn
within each round, for ``--rounds`` rounds; the table gives the median rate over the rounds
and the median of each round's ratio to the anchors (pgx at the same ``num_envs``), so
that anchors and envs meet the same machine. Wall time is the figure of record (compiled
engines and JAX may use several threads); CPU time (this process, all threads) is in the
JSON beside it, and for ``sky_envs.vector`` where each decision's wall time goes: drawing
the actions (``draw_us_per_decision``) and the step (``step_us_per_decision``), over all
rounds. ``B/game`` is the memory one game of a VectorEnv holds (``tracemalloc``
over ``vector.make`` and ``reset`` of the largest ``num_envs``, divided by it).

Timings are reported here, never asserted in tests.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import tracemalloc

from pathlib import Path

import numpy as np

if not __package__:  # run as a script (python benchmarks/vector_throughput.py): measure this checkout
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import sky_envs  # noqa: E402
from sky_envs import vector  # noqa: E402

if __package__:
    from .throughput import open_spiel_game, pick
else:
    from throughput import open_spiel_game, pick

C4 = "connect_four_v3"
SPIEL = "open_spiel_connect_four"
PGX = "pgx_connect_four"


class Player:
    """Random play that can stop and go on: ``play(seconds)`` plays for at least ``seconds``
    of wall time; ``rounds`` holds each call's (decisions, wall seconds, CPU seconds)."""

    def __init__(self) -> None:
        self.rounds: list[tuple[int, float, float]] = []

    def play(self, seconds: float) -> None:
        wall, cpu = time.perf_counter(), time.process_time()
        decisions = self.play_until(wall + seconds)
        self.rounds.append((decisions, time.perf_counter() - wall, time.process_time() - cpu))

    def play_until(self, deadline: float) -> int:
        """Play until ``time.perf_counter() >= deadline``; the decisions made."""
        raise NotImplementedError

    def rates(self, clock: str) -> list[float]:
        column = 1 if clock == "wall" else 2
        return [row[0] / max(row[column], 1e-9) for row in self.rounds]


class VectorPlay(Player):
    """``num_envs`` games of ``env_id`` through ``sky_envs.vector``, random legal actions."""

    def __init__(self, env_id: str, num_envs: int, engine: str, seed: int = 0):
        super().__init__()
        self.venv = vector.make(env_id, num_envs, seed=seed, engine=engine)
        self.batch = self.venv.reset()
        self.rng = np.random.default_rng(seed)
        self.draw_seconds = self.step_seconds = 0.0   # wall time in the draws and in the steps
        self.decisions = 0
        self.play_until(0.0)   # one step: compiled kernels are compiled now
        self.draw_seconds = self.step_seconds = 0.0   # ... of the measured rounds only
        self.decisions = 0

    def play_until(self, deadline: float) -> int:
        venv, rng, batch = self.venv, self.rng, self.batch
        steps = 0
        draw = step = 0.0
        now = time.perf_counter()
        while True:
            actions = vector.random_actions(batch.action_mask, rng)
            drawn = time.perf_counter()
            batch = venv.step(actions)
            stepped = time.perf_counter()
            draw += drawn - now
            step += stepped - drawn
            now = stepped
            steps += 1
            if now >= deadline:
                break
        self.batch = batch
        self.draw_seconds += draw
        self.step_seconds += step
        self.decisions += steps * venv.num_envs
        return steps * venv.num_envs


class AecPlay(Player):
    """PettingZoo's ``connect_four_v3`` through its AEC loop, whole games per call."""

    def __init__(self, seed: int = 0):
        from pettingzoo.classic import connect_four_v3

        super().__init__()
        self.env = connect_four_v3.env()
        self.env.reset(seed=seed)
        self.rng = np.random.default_rng(seed)

    def play_until(self, deadline: float) -> int:
        env, rng = self.env, self.rng
        decisions = 0
        while True:
            for _ in env.agent_iter():
                observation, _, terminated, truncated, _ = env.last()
                if terminated or truncated:
                    env.step(None)
                    continue
                env.step(pick(np.flatnonzero(observation["action_mask"]), rng))
                decisions += 1
            env.reset()
            if time.perf_counter() >= deadline:
                return decisions


class SpielPlay(Player):
    """OpenSpiel's C++ ``connect_four`` through pyspiel, whole games per call."""

    def __init__(self, seed: int = 0):
        import pyspiel

        super().__init__()
        self.game = pyspiel.load_game("connect_four")
        self.rng = np.random.default_rng(seed)

    def play_until(self, deadline: float) -> int:
        decisions = 0
        while True:
            decisions += open_spiel_game(self.game, self.rng)
            if time.perf_counter() >= deadline:
                return decisions


class PgxPlay(Player):
    """pgx's ``connect_four``: ``num_envs`` games in one jitted, vmapped step on the CPU."""

    def __init__(self, num_envs: int, seed: int = 0):
        import jax
        import pgx
        from pgx.experimental import act_randomly, auto_reset

        super().__init__()
        env = pgx.make("connect_four")
        step = jax.vmap(auto_reset(env.step, env.init))

        def random_step(state, key):
            act_key, step_key = jax.random.split(key)
            actions = act_randomly(act_key, state.legal_action_mask)
            return step(state, actions, jax.random.split(step_key, num_envs))

        self.jax = jax
        self.step = jax.jit(random_step)
        self.num_envs = num_envs
        self.key = jax.random.PRNGKey(seed)
        self.state = jax.jit(jax.vmap(env.init))(jax.random.split(self.key, num_envs))
        self.play_until(0.0)   # compile

    def play_until(self, deadline: float) -> int:
        jax, step, state, key = self.jax, self.step, self.state, self.key
        steps = 0
        while True:
            key, subkey = jax.random.split(key)
            state = step(state, subkey)
            steps += 1
            if steps % 8 == 0 and time.perf_counter() >= deadline:
                break
        state.observation.block_until_ready()
        self.state, self.key = state, key
        return steps * self.num_envs


def pgx_unavailable() -> str | None:
    """Why pgx's anchor cannot run here, or None if it can."""
    try:
        import jax  # noqa: F401
        import pgx  # noqa: F401
    except ImportError as error:
        return f"pgx is not importable ({error}); pip install pgx (it brings JAX) to measure it"
    return None


def spiel_unavailable() -> str | None:
    try:
        import pyspiel  # noqa: F401
    except ImportError as error:
        return f"open_spiel is not importable ({error})"
    return None


def bytes_per_game(env_id: str, num_envs: int, engine: str) -> float:
    """Memory a VectorEnv of ``num_envs`` games holds after ``reset``, per game (``tracemalloc``)."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        venv = vector.make(env_id, num_envs, seed=0, engine=engine)
        venv.reset()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    del venv
    return (after - before) / num_envs


def summary(player: Player, anchors: dict[str, Player]) -> dict:
    """Median rates of ``player`` and the medians of its per-round ratios to each anchor."""
    row = {"decisions_per_s": statistics.median(player.rates("wall")),
           "cpu_decisions_per_s": statistics.median(player.rates("cpu"))}
    for name, anchor in anchors.items():
        ratios = [ours / theirs for ours, theirs in zip(player.rates("wall"), anchor.rates("wall"))]
        row[f"x_{name}"] = statistics.median(ratios)
        row[f"x_{name}_rounds"] = ratios
    if isinstance(player, VectorPlay):   # where a decision's time goes: the draw, the step
        row["draw_us_per_decision"] = 1e6 * player.draw_seconds / player.decisions
        row["step_us_per_decision"] = 1e6 * player.step_seconds / player.decisions
    return row


def main(argv: list[str] | None = None, prog: str = "python benchmarks/vector_throughput.py") -> None:
    from sky_envs.core.arguments import HelpFormatter

    parser = argparse.ArgumentParser(prog=prog, description=__doc__, formatter_class=HelpFormatter)
    parser.add_argument("envs", nargs="*", help="env ids (default: every shipped env)")
    parser.add_argument("--num-envs", nargs="+", type=int, default=[1, 128, 4096], metavar="N",
                        help="games per VectorEnv (and per pgx batch)")
    parser.add_argument("--seconds", type=float, default=0.5, help="wall seconds per measurement and round")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds; medians are reported")
    parser.add_argument("--no-pgx", action="store_true", help="leave pgx out even where it is importable")
    parser.add_argument("--json", metavar="PATH", help="also write the figures to PATH as JSON")
    args = parser.parse_args(argv)
    env_ids = args.envs or list(sky_envs.BUILTIN_ENV_IDS)
    for env_id in env_ids:
        sky_envs.make_game(env_id)   # an unknown id fails now, with the registered ones named

    anchors: dict[str, Player] = {C4: AecPlay()}
    skipped: dict[str, str] = {}
    reason = spiel_unavailable()
    if reason is None:
        anchors[SPIEL] = SpielPlay()
    else:
        skipped[SPIEL] = reason
    reason = "left out (--no-pgx)" if args.no_pgx else pgx_unavailable()
    pgx_players = {} if reason else {n: PgxPlay(n) for n in args.num_envs}
    if reason:
        skipped[PGX] = reason
    players: dict[tuple[str, str, int], VectorPlay] = {}
    compiled: dict[str, bool] = {}
    for env_id in env_ids:
        for num_envs in args.num_envs:
            python = VectorPlay(env_id, num_envs, "python")
            players[env_id, "python", num_envs] = python
            auto = vector.make(env_id, 1, engine="auto")
            compiled[env_id] = auto.compiled
            if auto.compiled:
                players[env_id, "auto", num_envs] = VectorPlay(env_id, num_envs, "auto")

    everyone = [*anchors.values(), *pgx_players.values(), *players.values()]
    for _ in range(args.rounds):
        for player in everyone:
            player.play(args.seconds)

    report: dict = {"seconds": args.seconds, "rounds": args.rounds, "num_envs": args.num_envs, "clock": "wall",
                    "anchors": {}, "skipped": skipped, "envs": {}}
    for name, anchor in anchors.items():
        report["anchors"][name] = summary(anchor, {})
    if pgx_players:
        report["anchors"][PGX] = {str(n): summary(p, {}) for n, p in pgx_players.items()}
    largest = max(args.num_envs)
    for env_id in env_ids:
        engines = ["auto", "python"] if compiled[env_id] else ["python"]
        row: dict = {"compiled": compiled[env_id], "bytes_per_game": {}}
        for engine in engines:
            row[engine] = {}
            for num_envs in args.num_envs:
                against = dict(anchors)
                if num_envs in pgx_players:
                    against[PGX] = pgx_players[num_envs]
                row[engine][str(num_envs)] = summary(players[env_id, engine, num_envs], against)
            row["bytes_per_game"][engine] = bytes_per_game(env_id, largest, engine)
        if not compiled[env_id]:
            row["auto"] = "python"   # no compiled engine: engine='auto' is the reference engine
        report["envs"][env_id] = row
    print_report(report)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2)



def print_report(report: dict) -> None:
    anchors = report["anchors"]
    print(f"anchors (decisions/s, wall; medians of {report['rounds']} interleaved rounds):")
    for name in (C4, SPIEL):
        if name in anchors:
            print(f"  {name:<28}{anchors[name]['decisions_per_s']:>14,.0f}")
    for n, row in anchors.get(PGX, {}).items():
        print(f"  {PGX + f' x{n}':<28}{row['decisions_per_s']:>14,.0f}")
    for name, reason in report["skipped"].items():
        print(f"  {name:<28}skipped: {reason}")
    header = (f"{'env':<20}{'engine':<8}{'games':>7}{'decisions/s':>14}{'x c4':>8}{'x spiel':>9}{'x pgx':>8}"
              f"{'B/game':>9}")
    print(header)
    for env_id, row in report["envs"].items():
        for engine in ("auto", "python"):
            if not isinstance(row.get(engine), dict):
                continue
            for n, cell in row[engine].items():
                ratios = "".join(f"{cell[key]:>{width}.2f}" if key in cell else f"{'-':>{width}}"
                                 for key, width in ((f"x_{C4}", 8), (f"x_{SPIEL}", 9), (f"x_{PGX}", 8)))
                memory = f"{row['bytes_per_game'][engine]:>9,.0f}" if n == str(max(report['num_envs'])) else ""
                print(f"{env_id:<20}{engine:<8}{n:>7}{cell['decisions_per_s']:>14,.0f}{ratios}{memory}")
        if not row["compiled"]:
            print(f"{env_id:<20}{'auto':<8}  = python (no compiled engine yet)")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
