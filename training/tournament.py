"""Matches between agents on the State protocol: seats rotate, results from one side."""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sky_envs import vector
from sky_envs.agents import Agent, make_agent
from sky_envs.core.registry import make_game
from sky_envs.core.replay_file import record, replay_name, start_state, write_replay
from .actors import Actor, PolicyActor, actor_for, advance_slots


def play_game(game, agents: list[Agent], seed: int, replay_path: Path | None = None,
              names: list[str] | None = None) -> np.ndarray:
    """One game with ``agents[seat]`` in each seat; the final rewards (zeros if truncated).
    With ``replay_path`` the game is also written there as a replay file (``sky_envs.replay``),
    its seats named by ``names`` (default: the agents' names)."""
    state = start_state(game, seed)
    for k, agent in enumerate(agents):
        agent.reset(seed=seed * 17 + k)
    start, moves = (state.to_text(), []) if replay_path is not None else (None, None)
    while state.current_player >= 0:
        seat = state.current_player
        observation = {"observation": state.observation(seat), "action_mask": state.legal_mask().astype(np.int8)}
        action = agents[seat].act(observation, state)
        if moves is not None:
            moves.append({"seat": seat, "action": int(action), "text": state.action_to_string(int(action))})
        state.apply(action)
    if replay_path is not None:
        players = names or [agent.name for agent in agents]
        write_replay(record(game.env_id, game.options(), seed, players, start, moves, state), replay_path)
    return state.returns() if state.is_terminal() else np.zeros(game.num_players)


@dataclass
class PairResult:
    a: str
    b: str
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        return self.wins + self.draws / 2

    def record(self, reward: float) -> None:
        """Count one game from a's side by its final reward."""
        if reward > 0:
            self.wins += 1
        elif reward < 0:
            self.losses += 1
        else:
            self.draws += 1

    def as_dict(self) -> dict:
        return {"a": self.a, "b": self.b, "wins": self.wins, "draws": self.draws, "losses": self.losses}


def match(env_id: str, options: dict, a: tuple[str, Agent], b: tuple[str, Agent], games: int,
          seed: int = 0, workers: int = 1, save_games: str | Path | None = None,
          journal: str | Path | None = None, known: dict[int, float] | None = None) -> PairResult:
    """``a`` against ``b``: ``a`` takes seat g % players in game g, ``b`` every other seat.
    ``save_games``: a folder that receives one replay file per game (``A-vs-B-game0003.json``).
    ``journal``: a file that receives one JSON line per game played (``a``, ``b``, ``game``:
    g, ``reward``: a's), as soon as it ends; ``known``: a's rewards of games already played
    (by game g), which are counted instead of played again (see :func:`read_journal`).

    Every game re-seeds the agents, so ``workers`` processes (each playing a share of the
    games on copies of the agents) give exactly the result of one; except with a search's
    exact endgame (``exact_nodes``), whose solver keeps its table and what it learned of its
    reach from game to game, so that a solve may finish within its budget in one order of
    games and not in another. An exception in the
    caller's process while they play (Ctrl-C, or SIGTERM under
    :func:`training.signals.interrupts_as_keyboard`) terminates them: none outlives the match.
    """
    known = known or {}
    todo = [g for g in range(games) if g not in known]   # shared out after the known ones: even shares
    if workers > 1 and len(todo) > 1:
        import multiprocessing

        shares = [part.tolist() for part in np.array_split(todo, min(workers, len(todo)))]
        # a multiprocessing Pool, not concurrent.futures: leaving its block terminates the
        # workers, where an executor would wait for each to finish its whole share
        with multiprocessing.get_context("spawn").Pool(len(shares)) as pool:
            parts = pool.starmap(_play_games, [(env_id, options, a, b, share, seed, save_games, journal)
                                               for share in shares])
    else:
        parts = [_play_games(env_id, options, a, b, todo, seed, save_games, journal)]
    result = PairResult(a[0], b[0])
    for reward in [known[g] for g in range(games) if g in known] + [r for part in parts for r in part]:
        result.record(reward)
    return result


def _play_games(env_id: str, options: dict, a: tuple[str, Agent], b: tuple[str, Agent], games: list[int],
                seed: int, save_games: str | Path | None = None, journal: str | Path | None = None) -> list[float]:
    """Play games ``games`` of the match (a worker's share): a's reward in each."""
    import torch

    torch.set_num_threads(1)  # one process per core
    game = make_game(env_id, **options)
    rewards = []
    for g in games:
        seat = g % game.num_players
        agents, names = [b[1]] * game.num_players, [b[0]] * game.num_players
        agents[seat], names[seat] = a[1], a[0]
        path = None if save_games is None else Path(save_games) / f"{replay_name(a[0], 'vs', b[0], f'game{g:04d}')}.json"
        reward = float(play_game(game, agents, seed + g, path, names)[seat])
        if journal is not None:  # one short append per game: workers' lines never interleave
            with open(journal, "a") as file:
                file.write(json.dumps({"a": a[0], "b": b[0], "game": g, "reward": reward}) + "\n")
        rewards.append(reward)
    return rewards


def journal_identity(spec: str, agent) -> dict:
    """What a game journal records of an agent: its spec, and for a checkpoint the file's
    digest, so that games of another network with the same file name are never counted."""
    digest = getattr(agent, "metadata", {}).get("sha256")
    return {"spec": spec, "sha256": digest} if digest else {"spec": spec}


def write_journal_header(journal: str | Path, header: dict) -> None:
    """Start ``journal`` afresh: its first line says which evaluation its games belong to."""
    Path(journal).write_text(json.dumps({"evaluation": header}) + "\n")


def read_journal(journal: str | Path, header: dict) -> dict[tuple[str, str], dict[int, float]]:
    """The games a journal holds, ``{(a, b): {game: a's reward}}``, after checking that it
    was written by the evaluation ``header`` describes (``ValueError`` if not, or if a line
    is damaged; a last line cut short by a kill is dropped)."""
    header = json.loads(json.dumps(header))   # as written: tuples become lists
    lines = Path(journal).read_text().split("\n")
    written = _header_of(lines[0], journal)
    if written != header:
        changed = sorted(key for key in set(written) | set(header) if written.get(key) != header.get(key))
        raise ValueError(f"{str(journal)!r} holds games of another evaluation (it differs in {', '.join(changed)}): "
                         "run without --resume to start afresh, or with the same env, agents and seed")
    known: dict[tuple[str, str], dict[int, float]] = {}
    body = lines[1:]
    for number, line in enumerate(body, 2):
        if not line:
            continue
        try:
            entry = json.loads(line)
            known.setdefault((entry["a"], entry["b"]), {})[int(entry["game"])] = float(entry["reward"])
        except (ValueError, KeyError, TypeError):
            if number == len(body) + 1:  # the last line, cut short when the run was killed mid-write
                break
            raise ValueError(f"{str(journal)!r} line {number} is damaged: {line[:80]!r}") from None
    return known


def journal_header(journal: str | Path) -> dict:
    """The evaluation a journal's games belong to (its first line), without reading the games."""
    with open(journal, encoding="utf-8") as lines:
        return _header_of(lines.readline(), journal)


def _header_of(line: str, journal: str | Path) -> dict:
    try:
        return json.loads(line)["evaluation"]
    except (ValueError, KeyError, TypeError):
        raise ValueError(f"{str(journal)!r} is not a game journal: its first line names no evaluation") from None


def batched_match(env_id: str, options: dict, a: tuple[str, Actor], b: tuple[str, Actor], games: int,
                  seed: int = 0) -> PairResult:
    """:func:`match` with every game played at once: the same seeds and seats, and each
    side's decisions batched across the games (a policy: one forward per round), on a
    :class:`sky_envs.vector.VectorEnv` (:func:`~training.actors.advance_slots`: the moves and
    draws that :func:`~training.actors.advance` makes on states)."""
    result = PairResult(a[0], b[0])
    if games == 0:
        return result
    venv = vector.make(env_id, games, seed=seed, keep_final_observation=False, **options)   # slot g: seed + g
    venv.reset()
    players = venv.num_players
    returns = advance_slots(venv, lambda g, seat: a[1] if seat == g % players else b[1])
    for g in range(games):
        result.record(returns[g, g % players])
    return result


def quick_scores(env_id: str, options: dict, policy, games: int, seed: int, agent_seed: int) -> dict[str, float]:
    """The quick evaluation both learners log at every checkpoint: the policy's most likely
    action against ``random`` and ``greedy``, ``games`` games each, all played at once."""
    policy.set_training_mode(False)
    learner = ("learner", PolicyActor(policy, "learner", deterministic=True))
    scores = {}
    for name in ("random", "greedy"):
        opponent = actor_for(make_agent(name, seed=agent_seed), seed=agent_seed)
        result = batched_match(env_id, options, learner, (name, opponent), games, seed=seed)
        scores[name] = result.score / max(result.games, 1)
    return scores


def round_robin(env_id: str, options: dict, entries: dict[str, Agent], games: int, seed: int = 0,
                progress=None, pairings: list[tuple] | None = None, workers: int = 1,
                save_games: str | Path | None = None, journal: str | Path | None = None,
                known: dict[tuple[str, str], dict[int, float]] | None = None, cluster: bool = False) -> list[PairResult]:
    """Every pair of entries plays ``games`` games (seats rotating), or only ``pairings``:
    ``(a, b)`` or ``(a, b, games)`` tuples of entry names. ``save_games``, ``journal``: see
    :func:`match`; ``known``: games already played, by pairing (:func:`read_journal`).
    ``cluster``: the games of all pairings are Ray tasks on the cluster this process is
    connected to (:func:`training.cluster.play_pairings`; the same results), not ``workers``
    processes."""
    chosen = [(*pairing, games)[:3] for pairing in (pairings if pairings is not None
                                                    else itertools.combinations(entries, 2))]
    if cluster:
        from .cluster import play_pairings   # imports Ray: only where a tournament runs on a cluster

        on_cluster: list[PairResult] = [PairResult(a, b) for a, b, _ in chosen]

        def pairing_done(index: int, rewards: dict[int, float]) -> None:
            for g in range(chosen[index][2]):
                on_cluster[index].record(rewards[g])
            if progress is not None:
                progress(on_cluster[index])

        play_pairings(env_id, options, entries, chosen, seed, _play_games, known, save_games, journal, pairing_done)
        return on_cluster
    results = []
    for name_a, name_b, count in chosen:
        results.append(match(env_id, options, (name_a, entries[name_a]), (name_b, entries[name_b]), count, seed,
                             workers, save_games, journal, (known or {}).get((name_a, name_b))))
        if progress is not None:
            progress(results[-1])
    return results
