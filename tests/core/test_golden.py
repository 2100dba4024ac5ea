"""Golden playthroughs: recorded games replay decision by decision, unchanged.

Every rule of every game is pinned by a recorded sequence of positions, legal action sets
and results (``tests/core/golden/*.json``, written by ``tests/core/golden/make_golden.py``). A
change in any of them is a change in behaviour: deliberate ones re-record the files.
"""

import json
from pathlib import Path

import numpy as np
import pytest

import sky_envs

GOLDEN = sorted((Path(__file__).parent / "golden").glob("*.json"))


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_recorded_games_replay_identically(path):
    env_id = path.stem
    for record in json.loads(path.read_text()):
        game = sky_envs.make_game(env_id, **record["options"])
        state = game.new_initial_state(np.random.default_rng(record["seed"]))
        for number, step in enumerate(record["steps"]):
            where = f"{env_id} {record['options']} seed {record['seed']}, decision {number}"
            assert state.to_text() == step["text"], where
            assert state.current_player == step["player"], where
            assert state.legal_actions().tolist() == step["legal"], where
            state.apply(step["action"])
        assert state.current_player < 0
        assert state.to_text() == record["final_text"]
        assert state.returns().tolist() == record["returns"]
        assert state.info().get("winners") == record["winners"]


def test_every_env_has_golden_games():
    assert {p.stem for p in GOLDEN} == {e for e in sky_envs.env_ids() if not e.startswith("tiny_")}
