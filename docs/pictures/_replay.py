"""Shared by the picture modules: the positions of a recorded game in docs/replays/."""

from __future__ import annotations

import json
from pathlib import Path

REPLAYS = Path(__file__).resolve().parent.parent / "replays"


def replay_states(game) -> list:
    """Every position of the recorded game ``docs/replays/<env_id>.json``, replayed move by
    move with ``game`` (made with the replay's options), the start first."""
    record = json.loads((REPLAYS / f"{game.env_id}.json").read_text())
    state = game.state_from_text(record["start"])
    states = [state.clone()]
    for move in record["moves"]:
        state.apply(state.string_to_action(move["text"]))
        states.append(state.clone())
    return states
