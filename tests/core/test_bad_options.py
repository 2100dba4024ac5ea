"""Bad options: a ``ValueError`` at construction, in microseconds, naming the option.

Unknown names (and the other mode's options) list the valid ones; every integer option has
one integer check (``2.0``, ``True``, ``"2"`` refused); every size and count has an upper
bound that the env module documents; deck files are read only if they are small regular
files. A fuzz test throws arbitrary option sets at every game: each either builds a game
that plays, or raises ``ValueError``.
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sky_envs
from sky_envs.core.options import MAX_SIDE, MAX_TURNS
from sky_envs.games.sky_towers.deck import MAX_CARDS, MAX_DECK_FILE, MAX_SAILS
from sky_envs.games.skybridge.game import MAX_PIECES
from sky_envs.gym_env import SingleAgentEnv

BUILTIN = [env_id for env_id in sky_envs.env_ids() if not env_id.startswith("tiny_")]


def option_names(env_id: str) -> list[str]:
    """The keyword options of a game's constructor."""
    factory = type(sky_envs.make_game(env_id))
    return [name for name, p in inspect.signature(factory).parameters.items() if p.kind is p.KEYWORD_ONLY
            or p.kind is p.POSITIONAL_OR_KEYWORD]


# ------------------------------------------------------------------ unknown names
@pytest.mark.parametrize("env_id", BUILTIN)
def test_unknown_option_is_a_value_error_listing_the_valid_ones(env_id):
    with pytest.raises(ValueError, match=f"unknown option 'foo': {env_id} takes ") as error:
        sky_envs.make(env_id, foo=1)
    valid = str(error.value).split(" takes ", 1)[1]
    assert all(name in valid for name in option_names(env_id))
    with pytest.raises(ValueError, match="unknown options 'bar', 'foo'"):
        sky_envs.make_raw(env_id, foo=1, bar=2)


@pytest.mark.parametrize("option", ["mode", "reward"])
def test_an_option_of_the_other_mode_names_that_mode(option):
    with pytest.raises(ValueError, match=rf"unknown option '{option}': highrise_heist_v0 takes max_turns "
                                         rf"\('{option}' is an option of golden_rush_v0, the 4-seat mode\)"):
        sky_envs.make("highrise_heist_v0", **{option: "teams"})


# ------------------------------------------------------------------ integer options
#: env id, integer option, a valid value, the other options it needs
INTEGER_OPTIONS = [
    ("sky_scrapers_v0", "players", 2, {}),
    ("sky_scrapers_v0", "rows", 5, {"board": "square", "positioning": "random"}),
    ("sky_scrapers_v0", "cols", 5, {"board": "square", "positioning": "random"}),
    ("sky_scrapers_v0", "tiles_per_player", 3, {"positioning": "random"}),
    ("sky_scrapers_v0", "skyscraper_height", 3, {}),
    ("sky_scrapers_v0", "max_turns", 30, {}),
    ("scala_v0", "max_turns", 30, {}),
    ("highrise_heist_v0", "max_turns", 30, {}),
    ("golden_rush_v0", "max_turns", 30, {}),
    ("skybridge_v0", "players", 3, {}),
    *(("skybridge_v0", name, 3, {}) for name in ("rows", "cols", "tall", "short", "bridges", "roofs", "max_turns")),
    *(("skybridge_v0", name, 1, {"players": 3}) for name in ("neutral_tall", "neutral_short")),
    ("sky_towers_v0", "players", 3, {}),
    ("sky_towers_v0", "max_towers", 4, {}),
    ("sky_towers_v0", "max_turns", 30, {}),
]


def not_integers(value: int) -> list:
    return [float(value), np.float64(value), str(value), True, np.True_, [value], complex(value)]


@pytest.mark.parametrize("env_id, option, valid, needs", INTEGER_OPTIONS)
def test_integer_options_take_integers_only(env_id, option, valid, needs):
    game = sky_envs.make_game(env_id, **needs, **{option: np.int64(valid)})
    assert game.options()[option] == valid
    for bad in not_integers(valid):
        with pytest.raises(ValueError, match=rf"^{option}( must be|=.* is not valid)"):
            sky_envs.make_game(env_id, **needs, **{option: bad})


def test_sky_scrapers_cells_are_a_pair_of_integers():
    options = {"board": "random", "positioning": "random", "rows": 4, "cols": 4}
    assert sky_envs.make_game("sky_scrapers_v0", **options, cells=(np.int64(8), 12)).cell_range == (8, 12)
    for bad in not_integers(8):
        with pytest.raises(ValueError, match="cells"):
            sky_envs.make_game("sky_scrapers_v0", **options, cells=(bad, 12))


@pytest.mark.parametrize("field", ["copies", "sails", "flags"])
def test_sky_towers_deck_numbers_take_integers_only(field):
    entry = {"value": 10, "copies": 30, "sails": 1, "flags": 0}
    for bad in not_integers(entry[field]):
        with pytest.raises(ValueError, match=f"deck {field} of value 10 must be a non-negative integer"):
            sky_envs.make_game("sky_towers_v0", deck=[{**entry, field: bad}])
    for bad in not_integers(3):
        with pytest.raises(ValueError, match="sails of bonus 'sky' must be a non-negative integer"):
            sky_envs.make_game("sky_towers_v0", bonuses={"sky": bad})


def test_gym_view_seat_takes_a_seat_index_or_random():
    assert SingleAgentEnv("scala_v0", seat=np.int64(1)).seat_option == 1
    for bad in [*not_integers(1), 2, -1, "player_1"]:
        with pytest.raises(ValueError, match=r"seat=.* is not valid: expected 'random' or a seat index 0\.\.1"):
            SingleAgentEnv("scala_v0", seat=bad)


# ------------------------------------------------------------------ upper bounds
@pytest.mark.parametrize("env_id, options, message", [
    ("sky_scrapers_v0", {"board": "square", "rows": 10**6}, r"rows must be an integer >= 1 and <= 64"),
    ("sky_scrapers_v0", {"board": "square", "rows": 1000, "cols": 1000}, "rows must be"),
    ("sky_scrapers_v0", {"board": "random", "rows": 2000, "cols": 2000, "positioning": "random"}, "rows must be"),
    ("sky_scrapers_v0", {"board": "square", "rows": 10**6, "cols": 10**6}, "rows must be"),
    ("sky_scrapers_v0", {"board": "square", "rows": 64, "cols": 65}, r"cols must be an integer >= 1 and <= 64"),
    ("sky_scrapers_v0", {"board": "." * 10**6, "positioning": "random"}, "board mask of 1000000 characters is too big"),
    ("sky_scrapers_v0", {"board": "/".join(["." * 65] * 2), "positioning": "random"}, "board mask is 2x65"),
    ("sky_scrapers_v0", {"board": "\n".join(["."] * 65), "positioning": "random"}, "board mask is 65x1"),
    ("sky_scrapers_v0", {"skyscraper_height": 10**30}, r"skyscraper_height must be an integer >= 2 and <= 4096"),
    ("sky_scrapers_v0", {"positioning": "random", "tiles_per_player": 10**30}, "tiles_per_player must be"),
    ("skybridge_v0", {"rows": 10**6}, r"rows must be an integer >= 2 and <= 64"),
    ("skybridge_v0", {"rows": 10**18}, "rows must be"),
    ("skybridge_v0", {"rows": 1000, "cols": 1000}, "rows must be"),
    ("skybridge_v0", {"tall": 10**9}, r"tall must be a non-negative integer and <= 1000"),
    ("skybridge_v0", {"players": 3, "neutral_short": 10**9}, "neutral_short must be"),
    ("sky_towers_v0", {"max_towers": 65}, r"max_towers must be an integer >= 1 and <= 64"),
    ("sky_towers_v0", {"deck": [{"value": 1, "copies": 10**30, "sails": 0, "flags": 0}]},
     r"deck copies of value 1 must be a non-negative integer and <= 4096"),
    ("sky_towers_v0", {"deck": [{"value": 1, "copies": 10**8, "sails": 0, "flags": 0}]}, "deck copies of value 1"),
    ("sky_towers_v0", {"deck": [{"value": v, "copies": 500, "sails": 0, "flags": 0} for v in range(1, 10)]},
     "the deck has 4500 cards: a deck holds at most 4096"),
    ("sky_towers_v0", {"deck": [{"value": 1, "copies": 20, "sails": 10**6, "flags": 0}]}, "sails of value 1"),
    ("sky_towers_v0", {"bonuses": {"sky": 10**40}}, r"sails of bonus 'sky' must be a non-negative integer and <= 1000"),
    *((env_id, {"max_turns": MAX_TURNS + 1}, r"max_turns must be an integer >= 1 and <= 1000000") for env_id in BUILTIN),
])
def test_sizes_and_counts_have_upper_bounds(env_id, options, message):
    with pytest.raises(ValueError, match=message):
        sky_envs.make(env_id, **options)


def test_the_largest_sizes_are_accepted():
    assert sky_envs.make_game("sky_scrapers_v0", board="square", rows=MAX_SIDE, cols=MAX_SIDE).num_actions == 9 * 4096 + 2
    assert sky_envs.make_game("sky_scrapers_v0", board="\n".join(["." * MAX_SIDE] * MAX_SIDE)).rows == MAX_SIDE
    skybridge = sky_envs.make("skybridge_v0", rows=MAX_SIDE, cols=MAX_SIDE, tall=MAX_PIECES, max_turns=MAX_TURNS)
    skybridge.reset(seed=0)
    deck = [{"value": v, "copies": MAX_CARDS // 8, "sails": MAX_SAILS, "flags": MAX_SAILS} for v in range(1, 9)]
    towers = sky_envs.make("sky_towers_v0", deck=deck, max_towers=64, bonuses={"sky": MAX_SAILS})
    towers.reset(seed=0)
    assert len(towers.unwrapped.game_state.deck) == MAX_CARDS - 10


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_deck_devices_are_refused_without_reading_them(device):
    with pytest.raises(ValueError, match=f"deck='{device}' is not a regular file"):
        sky_envs.make("sky_towers_v0", deck=device)


def test_deck_files_must_be_small_regular_files(tmp_path):
    fifo = tmp_path / "deck.fifo"
    os.mkfifo(fifo)  # opening it would block until a writer came
    with pytest.raises(ValueError, match="is not a regular file"):
        sky_envs.make("sky_towers_v0", deck=str(fifo))
    with pytest.raises(ValueError, match="is not a regular file"):
        sky_envs.make("sky_towers_v0", deck=tmp_path)
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"cards": [{"value": 1, "copies": 20, "sails": 1, "flags": 0}],
                               "description": "x" * MAX_DECK_FILE}))
    with pytest.raises(ValueError, match=f"is bigger than {MAX_DECK_FILE} bytes"):
        sky_envs.make("sky_towers_v0", deck=str(big))
    for name, content in [("deep.json", b"[" * 100_000), ("binary.json", bytes(range(256))),
                          ("digits.json", b'{"cards": [{"value": 1, "copies": 1' + b"0" * 5000 + b"}]}")]:
        (tmp_path / name).write_bytes(content)
        with pytest.raises(ValueError, match="is not valid JSON"):
            sky_envs.make("sky_towers_v0", deck=str(tmp_path / name))
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"cards": [{"value": 2, "copies": 30, "sails": 1, "flags": 0}]}))
    assert sky_envs.make_game("sky_towers_v0", deck=good).deck.total == 30


#: env module, option, its documented upper bound
DOCUMENTED_BOUNDS = [
    ("sky_scrapers_v0", "rows", MAX_SIDE), ("sky_scrapers_v0", "tiles_per_player", MAX_SIDE**2),
    ("sky_scrapers_v0", "skyscraper_height", MAX_SIDE**2), ("sky_scrapers_v0", "max_turns", MAX_TURNS),
    ("scala_v0", "max_turns", MAX_TURNS), ("highrise_heist_v0", "max_turns", MAX_TURNS),
    ("golden_rush_v0", "max_turns", MAX_TURNS),
    ("skybridge_v0", "rows", MAX_SIDE), ("skybridge_v0", "tall", MAX_PIECES),
    ("skybridge_v0", "neutral_tall", MAX_PIECES), ("skybridge_v0", "max_turns", MAX_TURNS),
    ("sky_towers_v0", "max_towers", 64), ("sky_towers_v0", "max_turns", MAX_TURNS),
    ("sky_towers_v0", "deck", MAX_CARDS), ("sky_towers_v0", "deck", MAX_DECK_FILE),
    ("sky_towers_v0", "deck", MAX_SAILS), ("sky_towers_v0", "bonuses", MAX_SAILS),
]


@pytest.mark.parametrize("module, option, bound", DOCUMENTED_BOUNDS)
def test_every_bound_is_documented_in_the_env_module(module, option, bound):
    doc = importlib.import_module(f"sky_envs.{module}").__doc__
    row = next(line for line in doc.splitlines() if re.match(rf"\| `{option}`", line))
    assert f"{bound:,}" in row or str(bound) in row, row


# ------------------------------------------------------------------ fuzzing
WORDS = ["standard", "square", "random", "all", "orthogonal", "hex", "strategic", "player_0", "seed",
         "classic", "win", "score", "ffa", "teams", "mover_loses", "illegal", "..#/...", ".", "", "/dev/null"]
SMALL = st.integers(-2, 70)
HUGE = st.sampled_from([MAX_SIDE + 1, MAX_PIECES + 1, MAX_CARDS + 1, MAX_TURNS + 1, 2**31, 2**63, 10**30, -(10**30)])
SCALARS = st.one_of(
    SMALL, HUGE, SMALL.map(np.int64), SMALL.map(float), st.floats(allow_nan=True), st.booleans(), st.none(),
    st.sampled_from(WORDS), st.text(max_size=5), SMALL.map(str),
)
CARDS = st.fixed_dictionaries({"value": st.integers(-1, 11), "copies": st.one_of(st.integers(0, 40), HUGE, SCALARS),
                               "sails": st.one_of(st.integers(0, 5), HUGE, SCALARS), "flags": st.integers(0, 2)})
VALUES = st.one_of(
    SCALARS,
    st.tuples(SMALL, SMALL), st.lists(SCALARS, max_size=3),
    st.lists(CARDS, min_size=1, max_size=11), st.dictionaries(st.sampled_from(["cards", "bonuses", "x"]), SCALARS, max_size=2),
    st.dictionaries(st.sampled_from(["sky", "perfect", "lucky", "unicorn"]), st.one_of(st.integers(0, 9), HUGE, SCALARS), max_size=3),
)


@st.composite
def option_sets(draw):
    env_id = draw(st.sampled_from(BUILTIN))
    names = draw(st.lists(st.sampled_from([*option_names(env_id), "foo", "mode", "rows"]), max_size=4, unique=True))
    return env_id, {name: draw(VALUES) for name in names}, draw(st.integers(0, 2**32 - 1))


def check_builds_or_refuses(env_id: str, options: dict, seed: int) -> None:
    try:
        game = sky_envs.make_game(env_id, **options)
    except ValueError:
        return
    # an accepted configuration plays: set-up, a few moves, observations within the space
    rng = np.random.default_rng(seed)
    state = game.new_initial_state(np.random.default_rng(seed))
    for _ in range(3):
        if state.current_player < 0:
            break
        obs = state.observation(state.current_player)
        assert obs.shape == game.observation_shape
        assert np.all(obs >= game.observation_low) and np.all(obs <= game.observation_high)
        state.apply(int(rng.choice(state.legal_actions())))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(option_sets())
def test_any_option_set_builds_a_playable_game_or_raises_value_error(case):
    check_builds_or_refuses(*case)


@pytest.mark.slow
@settings(max_examples=5000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(option_sets())
def test_any_option_set_builds_a_playable_game_or_raises_value_error_long(case):
    check_builds_or_refuses(*case)
