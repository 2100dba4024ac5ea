"""Write the golden playthroughs: seeded random games of every env, recorded step by step.

    python tests/core/golden/make_golden.py          # rewrite every file (after a deliberate rules change)

Each ``<env_id>.json`` holds, per game, the options and seed, then every decision's
position text, legal actions and chosen action, and the final rewards and winners.
``tests/core/test_golden.py`` replays them: any change in behaviour shows up as a diff.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

import sky_envs  # noqa: E402

HERE = Path(__file__).parent
GAMES = {
    "sky_scrapers_v0": [({}, 1), ({"board": "random", "positioning": "random", "lines": "hex"}, 2),
                        ({"positioning": "strategic", "board": "square", "rows": 4, "cols": 4, "players": 4}, 3)],
    "scala_v0": [({}, 1), ({"split_rule": "illegal"}, 2)],
    "highrise_heist_v0": [({}, 1), ({}, 2)],
    "golden_rush_v0": [({"mode": "ffa"}, 1), ({"mode": "teams"}, 2)],
    "skybridge_v0": [({}, 1), ({"players": 3, "variant": "classic"}, 2), ({"players": 4}, 3)],
    "sky_towers_v0": [({}, 1), ({"players": 3}, 2), ({"players": 4}, 3)],
}


def play(env_id: str, options: dict, seed: int) -> dict:
    game = sky_envs.make_game(env_id, **options)
    state = game.new_initial_state(np.random.default_rng(seed))
    rng = np.random.default_rng(seed + 1000)
    steps = []
    while state.current_player >= 0:
        legal = state.legal_actions().tolist()
        action = legal[int(rng.integers(len(legal)))]
        steps.append({"text": state.to_text(), "player": state.current_player, "legal": legal, "action": action})
        state.apply(action)
    return {"options": options, "seed": seed, "steps": steps, "final_text": state.to_text(),
            "returns": state.returns().tolist(), "winners": state.info().get("winners")}


def main() -> None:
    for env_id, cases in GAMES.items():
        record = [play(env_id, options, seed) for options, seed in cases]
        (HERE / f"{env_id}.json").write_text(json.dumps(record, separators=(",", ":")) + "\n")
        print(env_id, sum(len(r["steps"]) for r in record), "decisions")


if __name__ == "__main__":
    main()
