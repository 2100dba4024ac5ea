"""Write the golden playthroughs: seeded random games of every env, recorded fact by fact.

    python -m tests.core.golden.make_golden   # from the repo root: rewrite every file (after a rules change)

One text file per configuration, ``<env_id>_seed<seed>.txt`` (each configuration of an env
has its own seed), one fact per line, as OpenSpiel's playthroughs are: per decision ``i``
the position text (``state i:``, then the text as an indented block), the seat to move,
that seat's own observation (hidden information stays hidden), the legal actions in the
game's notation (comma-separated) and as action ids, and the action chosen (uniformly at
random from the legal ones, by a generator seeded with ``seed + 1000``); at the end the
final position, the returns and the winners. There are no per-decision rewards: every
game rewards only at its end, with the returns. ``tests/core/test_golden.py`` regenerates
every file's lines from the code and compares them line by line: any change in behaviour
shows up as a diff.

Observations are written as their nonzero entries: for a board tensor ``(rows, cols,
planes)`` one ``p<plane>:`` group per plane with nonzero cells, each cell ``<row>.<col>``
(``=<value>`` where the value is not 1); for a flat vector the nonzero indices the same way.
Every decision's observation has a digest (``observation_sha256 i:``, the first 16 hex
digits of the SHA-256 of its shape and float32 bytes); the entries themselves are written
every decision, or every k-th in the long games of :data:`OBSERVATION_EVERY` (each file's
header says which), so that their files stay small.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

import sky_envs

HERE = Path(__file__).parent
COMMAND = "python -m tests.core.golden.make_golden"
GAMES = {
    "sky_scrapers_v0": [({}, 1), ({"board": "random", "positioning": "random", "lines": "hex"}, 2),
                        ({"positioning": "strategic", "board": "square", "rows": 4, "cols": 4, "players": 4}, 3)],
    "scala_v0": [({}, 1), ({"split_rule": "illegal"}, 2)],
    "highrise_heist_v0": [({}, 1), ({}, 2)],
    "golden_rush_v0": [({"mode": "ffa"}, 1), ({"mode": "teams"}, 2)],
    "skybridge_v0": [({}, 1), ({"players": 3, "variant": "classic"}, 2), ({"players": 4}, 3)],
    "sky_towers_v0": [({}, 1), ({"players": 3}, 2), ({"players": 4}, 3)],
}
OBSERVATION_EVERY = {"highrise_heist_v0": 10, "golden_rush_v0": 10, "sky_towers_v0": 5}  # others: every decision


def file_name(env_id: str, seed: int) -> str:
    return f"{env_id}_seed{seed}.txt"


def configurations() -> list[tuple[str, dict, int]]:
    return [(env_id, options, seed) for env_id, cases in GAMES.items() for options, seed in cases]


def number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def observation_text(observation: np.ndarray) -> str:
    """The nonzero entries of an observation (see the module docstring)."""
    def cells(values: np.ndarray, positions) -> str:
        return " ".join(f"{p}" + ("" if v == 1 else f"={number(v)}") for p, v in zip(positions, values))

    if observation.ndim == 1:
        nonzero = np.flatnonzero(observation)
        return cells(observation[nonzero], nonzero.tolist()) or "-"
    groups = []
    for plane in range(observation.shape[-1]):
        rows, cols = np.nonzero(observation[..., plane])
        if rows.size:
            names = [f"{r}.{c}" for r, c in zip(rows, cols)]
            groups.append(f"p{plane}: " + cells(observation[rows, cols, plane], names))
    return " ; ".join(groups) or "-"


def observation_digest(observation: np.ndarray) -> str:
    data = np.ascontiguousarray(observation, dtype=np.float32)
    return hashlib.sha256(repr(data.shape).encode() + data.tobytes()).hexdigest()[:16]


def id_ranges(ids: list[int]) -> str:
    """Sorted action ids as ranges: ``2-4 18 20-22``."""
    parts, start = [], 0
    for i in range(1, len(ids) + 1):
        if i == len(ids) or ids[i] != ids[i - 1] + 1:
            parts.append(str(ids[start]) if i - 1 == start else f"{ids[start]}-{ids[i - 1]}")
            start = i
    return " ".join(parts)


def notation(state, action: int) -> str:
    text = state.action_to_string(action)
    if not text.strip() or "," in text or "\n" in text:
        raise ValueError(f"{state.game.env_id}: the notation of action {action} ({text!r}) is empty or holds a "
                         "comma or a line break: a golden 'legal' line cannot list it")
    return text


def block(text: str) -> list[str]:
    return ["  " + line for line in text.split("\n")]


def playthrough(env_id: str, options: dict, seed: int) -> list[str]:
    """The lines of one configuration's golden file (without line ends)."""
    game = sky_envs.make_game(env_id, **options)
    state = game.new_initial_state(np.random.default_rng(seed))
    rng = np.random.default_rng(seed + 1000)
    every = OBSERVATION_EVERY.get(env_id, 1)
    lines = [f"# {env_id} options={json.dumps(options, sort_keys=True)} seed={seed}  (written by: {COMMAND})",
             f"# actions: uniformly random legal ones, generator seed {seed + 1000}; observation: the mover's own, "
             f"its digest every decision, its nonzero entries every {every} decision{'s' if every > 1 else ''} "
             "(p<plane>: <row>.<col>[=value])"]
    step = 0
    while state.current_player >= 0:
        seat = state.current_player
        legal = state.legal_actions().tolist()
        action = legal[int(rng.integers(len(legal)))]
        observation = state.observation(seat)
        lines += [f"state {step}:", *block(state.to_text()), f"mover {step}: player_{seat}",
                  f"observation_sha256 {step}: {observation_digest(observation)}"]
        if step % every == 0:
            lines.append(f"observation {step}: {observation_text(observation)}")
        lines += [f"legal {step}: " + ", ".join(notation(state, a) for a in legal),
                  f"legal_ids {step}: {id_ranges(legal)}",
                  f"action {step}: {notation(state, action)} (id {action})"]
        state.apply(action)
        step += 1
    lines += ["final state:", *block(state.to_text()),
              "returns: " + " ".join(number(r) for r in state.returns().tolist()),
              f"winners: {json.dumps(state.info().get('winners'))}"]
    return lines


def main() -> None:
    for old in HERE.glob("*.txt"):
        old.unlink()
    for env_id, options, seed in configurations():
        lines = playthrough(env_id, options, seed)
        path = HERE / file_name(env_id, seed)
        path.write_text("\n".join(lines) + "\n")
        print(f"{path.name}: {sum(l.startswith('action ') for l in lines)} decisions, {path.stat().st_size // 1024} KB")


if __name__ == "__main__":
    main()
