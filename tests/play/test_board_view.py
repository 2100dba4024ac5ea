"""Each game's ``board_view.py``: in random games of every env (Sky Scrapers in every board
shape and with 4 seats), every legal action starts and ends on things the scene draws, where
its notation says (checked from the notation text, not from the view's own code), no thing
is both something to pick up and something to click alone, hidden hands stay hidden, and the
end is explained naming the winners. Plus the generic view of a game without one."""

from __future__ import annotations

import json

import numpy as np
import pytest

import sky_envs
from sky_envs.core.registry import make_game
from sky_envs.games.sky_towers.rules import PEEK
from sky_envs.play.board import GenericView, board_view_of, move_choices
from tests.play.play_web_support import BOARD_CONFIGS, config_id, expected_ways

SHAPES = {"rect": ("x", "y", "w", "h"), "circle": ("x", "y", "r"), "polygon": ("points",), "line": ("points",),
          "text": ("x", "y", "text", "size")}


def thing_ids(scene) -> set[str]:
    return {item["id"] for item in scene["items"] if "id" in item}


def check_scene(scene) -> None:
    """The scene is JSON and every shape is one the page draws, with its numbers."""
    assert json.loads(json.dumps(scene)) == scene
    assert scene["width"] > 0 and scene["height"] > 0
    ids = [item["id"] for item in scene["items"] if "id" in item]
    assert len(ids) == len(set(ids)), "a thing id drawn twice"
    for item in scene["items"]:
        for shape in item.get("shapes", [item]):
            assert shape["shape"] in SHAPES, shape
            assert all(key in shape for key in SHAPES[shape["shape"]]), shape


@pytest.mark.parametrize("config", BOARD_CONFIGS, ids=config_id)
def test_every_legal_move_starts_and_ends_where_its_notation_says(config):
    env_id, options = config
    game = make_game(env_id, **options)
    view = board_view_of(game)
    assert view.__name__ == f"{type(game).__module__.rpartition('.')[0]}.board_view"
    rng = np.random.default_rng(11)
    positions = 0
    for _ in range(1 if env_id == "sky_towers_v0" else 2):
        state = game.new_initial_state(rng)
        while state.current_player >= 0:
            actions = [int(a) for a in state.legal_actions()]
            shown = None if positions % 2 else {state.current_player}
            scene = view.board_scene(state, shown)
            check_scene(scene)
            ids = thing_ids(scene)
            choices = move_choices(view, state, actions)
            assert [c["action"] for c in choices] == actions
            origins = {o for c in choices for o, _ in c["ways"] if o is not None}
            direct = {t for c in choices for o, t in c["ways"] if o is None}
            assert not origins & direct, f"things both to pick up and to click alone: {origins & direct}"
            for choice in choices:
                assert choice["text"] == state.action_to_string(choice["action"])
                assert [tuple(way) for way in choice["ways"]] == expected_ways(env_id, state, choice["text"])
                assert all((o is None or o in ids) and t in ids for o, t in choice["ways"]), (choice, sorted(ids))
            state.apply(int(rng.choice(actions)))
            positions += 1
        words = view.result_words(state)
        if state.is_terminal():
            assert all(f"player_{w}" in words for w in state.winners()), words
        else:
            assert "draw" in words
        check_scene(view.board_scene(state, None))
    assert positions > 20


def test_sky_towers_hides_the_hands_and_the_peek_of_other_seats():
    game = make_game("sky_towers_v0", players=3)
    view = board_view_of(game)
    rng = np.random.default_rng(5)
    peeks = 0
    state = game.new_initial_state(rng)
    while state.current_player >= 0:
        for seat in range(3):
            scene = view.board_scene(state, {seat})
            ids = thing_ids(scene)
            others = [s for s in range(3) if s != seat]
            assert f"p{seat}:hand" not in ids     # its own hand is face up: a thing per value
            assert not any(i.startswith(f"p{o}:hand:") for o in others for i in ids), "another seat's cards shown"
            assert all(f"p{o}:hand" in ids for o in others)
            deck = next(item for item in scene["items"] if item.get("id") == "deck")
            labels = [shape.get("label") for shape in deck["shapes"] if shape.get("label")]
            if labels:
                assert seat == state.current_player and state.phase == PEEK
                assert labels == [str(state.deck[-1])]
                peeks += 1
        state.apply(int(rng.choice(state.legal_actions())))
    assert peeks > 0


def test_a_game_without_a_board_view_gets_the_generic_one():
    from tests.tiny_game import NimGame

    game = NimGame(heap=5)
    view = board_view_of(game)
    assert isinstance(view, GenericView)
    state = game.new_initial_state(np.random.default_rng(0))
    scene = view.board_scene(state)
    check_scene(scene)
    choices = move_choices(view, state, [int(a) for a in state.legal_actions()])
    assert [c["ways"] for c in choices] == [[[None, f"action:{c['action']}"]] for c in choices]
    assert {f"action:{c['action']}" for c in choices} <= thing_ids(scene)


def test_every_built_in_game_folder_has_a_board_view():
    from pathlib import Path

    games = Path(sky_envs.__file__).parent / "games"
    folders = sorted(p for p in games.iterdir() if (p / "game.py").is_file())
    assert len(folders) == 5
    for folder in folders:
        source = (folder / "board_view.py").read_text()
        assert all(f"def {name}(" in source for name in ("board_scene", "action_ways", "result_words")), folder
