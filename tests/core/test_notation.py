"""Move notation: every game's ``action_to_string`` / ``string_to_action`` round trip, and bad
text is refused at the boundary (ValueError with the expected form; IllegalActionError for a
well-formed move that is not legal)."""

from __future__ import annotations

import numpy as np
import pytest

import sky_envs
from sky_envs.core.notation import cell_name, column_index, column_name
from sky_envs.core.registry import make_game
from sky_envs.core.state import IllegalActionError

CONFIGS = [
    ("sky_scrapers_v0", {}),
    ("sky_scrapers_v0", {"board": "random", "positioning": "random"}),
    ("sky_scrapers_v0", {"positioning": "strategic"}),
    ("sky_scrapers_v0", {"players": 4, "board": "random", "positioning": "random", "lines": "hex"}),
    ("scala_v0", {}),
    ("highrise_heist_v0", {}),
    ("golden_rush_v0", {}),
    ("skybridge_v0", {}),
    ("skybridge_v0", {"players": 3}),
    ("skybridge_v0", {"players": 4, "rows": 4, "cols": 4}),
    ("sky_towers_v0", {}),
    ("sky_towers_v0", {"players": 4}),
]

BUILTIN = [env_id for env_id in sky_envs.env_ids() if not env_id.startswith("tiny_")]


def random_positions(game, games: int, seed: int):
    """The positions of ``games`` random games (every decision)."""
    rng = np.random.default_rng(seed)
    for g in range(games):
        state = game.new_initial_state(np.random.default_rng(seed + g))
        while state.current_player >= 0:
            yield state
            state = state.clone()
            state.apply(int(rng.choice(state.legal_actions())))


def test_every_env_is_covered():
    assert {env_id for env_id, _ in CONFIGS} == set(BUILTIN)


@pytest.mark.parametrize("env_id,options", CONFIGS)
def test_every_legal_action_round_trips_and_illegal_ones_are_refused(env_id, options):
    game = make_game(env_id, **options)
    refused = 0
    rng = np.random.default_rng(1)
    for state in random_positions(game, games=3, seed=7):
        texts = set()
        for action in state.legal_actions():
            text = state.action_to_string(int(action))
            assert text == text.strip() and "\n" not in text
            assert state.string_to_action(text) == action, text
            assert state.string_to_action(f"  {text.upper()} ") == action   # case and space tolerant
            texts.add(text)
        assert len(texts) == len(state.legal_actions())       # one notation per legal action
        illegal = np.flatnonzero(~state.legal_mask())
        for action in rng.choice(illegal, size=min(5, illegal.size), replace=False):
            text = state.action_to_string(int(action))
            try:
                parsed = state.string_to_action(text)
            except IllegalActionError:
                refused += 1
            except ValueError:
                pass     # an action no position can use (e.g. a transfer onto its own stand)
            else:
                assert state.legal_mask()[parsed], (text, parsed)
    assert refused > 0


@pytest.mark.parametrize("env_id,options", CONFIGS)
@pytest.mark.parametrize("text", ["", "hello world", "e5-", ">>", "99>99", "T9z99", "take 11", "zz99>NE"])
def test_malformed_text_names_the_text_and_the_expected_form(env_id, options, text):
    state = make_game(env_id, **options).new_initial_state(np.random.default_rng(0))
    with pytest.raises(ValueError, match="expected") as error:
        state.string_to_action(text)
    assert not isinstance(error.value, IllegalActionError)
    assert repr(text) in str(error.value)


@pytest.mark.parametrize("env_id,options,text", [
    ("sky_scrapers_v0", {}, "a1>N"),          # off the board
    ("scala_v0", {}, "f14-f13"),              # no stone there
    ("highrise_heist_v0", {}, "3>7"),         # nothing to transfer at the start
    ("golden_rush_v0", {}, "+55"),            # must decide the transfer first
    ("skybridge_v0", {}, "R0b2"),             # a roof needs a tower
    ("skybridge_v0", {}, "T1a1"),             # colour 1 belongs to player_1
    ("sky_towers_v0", {}, "dismantle 0"),     # no tower yet
])
def test_a_well_formed_illegal_move_says_why(env_id, options, text):
    state = make_game(env_id, **options).new_initial_state(np.random.default_rng(0))
    with pytest.raises(IllegalActionError, match="illegal"):
        state.string_to_action(text)


@pytest.mark.parametrize("env_id,text,action_text", [
    ("sky_scrapers_v0", "a1 > e", "a1>E"),
    ("sky_scrapers_v0", "a1-se", "a1>SE"),
    ("scala_v0", "e5d4", "e5-d4"),
    ("scala_v0", "E5 D4", "e5-d4"),
    ("highrise_heist_v0", "7", "+7"),
    ("skybridge_v0", "t0 B2", "T0b2"),
])
def test_alternative_spellings_read_as_the_canonical_move(env_id, text, action_text):
    state = make_game(env_id).new_initial_state(np.random.default_rng(0))
    assert state.action_to_string(state.string_to_action(text)) == action_text


def test_the_notations_read_as_documented():
    rng = np.random.default_rng(0)
    scala = make_game("scala_v0").new_initial_state(rng)
    assert scala.action_to_string(scala.legal_actions()[0]) == "e5-d4"
    heist = make_game("highrise_heist_v0").new_initial_state(rng)
    layout = heist.game.layout
    assert [heist.action_to_string(a) for a in (37, layout.no_transfer, layout.swap)] == ["3>7", "pass", "swap"]
    assert heist.action_to_string(layout.placement_action({3: 1, 7: 2})) == "+377"
    assert heist.action_to_string(layout.placement_action({5: 3})) == "+555"
    towers = make_game("sky_towers_v0").new_initial_state(rng)
    L = towers.layout
    assert [towers.action_to_string(a) for a in (0, 7, L.build(7, 2), L.build(4, L.T), L.chaos(8, 1, L.T + 1),
                                                 L.ask(1, 6), L.STOP + 1)] == \
        ["draw", "take 7", "7>2", "4>L", "8>p1:R", "ask p1 6", "exchange p1"]
    bridge = make_game("skybridge_v0").new_initial_state(rng)
    assert bridge.action_to_string(27) == "B0a1-b1" and bridge.action_to_string(0) == "T0a1"


def test_cell_names_run_like_spreadsheet_columns():
    assert [column_name(c) for c in (0, 25, 26, 27, 63)] == ["a", "z", "aa", "ab", "bl"]
    assert all(column_index(column_name(c)) == c for c in range(64))
    assert cell_name(2, 1) == "b3"
