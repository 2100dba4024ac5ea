"""Bad position texts: every number is bounded by what the game can reach.

Regression tests for the numbers that used to overflow or load unreachable states, and a
fuzz test that mutates real positions of every game: a mutated text either loads as a
state that keeps every invariant, or is refused with a ``ValueError`` (never an
``OverflowError``, a C-long error or a crash later in play).
"""

from __future__ import annotations

import re
from functools import lru_cache

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sky_envs

#: env id, options: configurations whose texts use every field of the notation
CONFIGS = [
    ("sky_scrapers_v0", {}),
    ("sky_scrapers_v0", {"board": "square", "rows": 4, "cols": 4, "positioning": "strategic"}),
    ("sky_scrapers_v0", {"positioning": "random"}),
    ("scala_v0", {}),
    ("highrise_heist_v0", {}),
    ("golden_rush_v0", {"mode": "teams"}),
    ("skybridge_v0", {}),
    ("skybridge_v0", {"players": 3}),
    ("sky_towers_v0", {}),
    ("sky_towers_v0", {"players": 3, "max_towers": 4}),
]


def load(env_id, text, **options):
    return sky_envs.make_game(env_id, **options).state_from_text(text)


# ------------------------------------------------------------------ regressions
@pytest.mark.parametrize("height", ["2147483648", "1" + "0" * 30, "2147483647", "37", "1" + "0" * 5000],
                         ids=lambda height: f"{len(height)} digits")
def test_sky_scrapers_heights_beyond_the_board_are_refused(height):
    """int32 heights overflowed (OverflowError, "Python int too large to convert to C long",
    or an overflow inside ``step`` after ``a2147483647`` loaded)."""
    text = "\n".join(["a" + height + " b1 a1 b1 a1 b1"] + ["b1 a1 b1 a1 b1 a1", "a1 b1 a1 b1 a1 b1"] * 2 + [". . . . . ."])
    with pytest.raises(ValueError, match=r"height of token 1 must be in 1\.\.36 \(every tile starts on its own cell"):
        load("sky_scrapers_v0", text)


def test_sky_scrapers_tiles_beyond_the_cells_are_refused():
    with pytest.raises(ValueError, match="4 tiles on a board of 3 cells"):
        load("sky_scrapers_v0", "a2 b2 . #", board="...#", positioning="random")
    with pytest.raises(ValueError, match="2 tiles on the board and 3 to place exceed the board's 4 cells"):
        load("sky_scrapers_v0", "a2 . . .\nphase: place\ntiles_left: 2 1\nfirst_mover: 1",
             board="square", rows=1, cols=4, positioning="strategic")


def test_sky_scrapers_the_tallest_reachable_stack_loads_and_plays():
    state = load("sky_scrapers_v0", "a35 . . . . .\n" + ". . . . . .\n" * 4 + ". . . . . b1")
    assert state.is_terminal()  # nothing can move 35 cells: the position is over, nothing overflows
    assert state.observation(0).max() == 35


@pytest.mark.parametrize("env_id, options, field, value, message", [
    ("highrise_heist_v0", {}, "turn", "201", r"turn must be in 0\.\.200 \(the game is cut at max_turns=200\)"),
    ("highrise_heist_v0", {}, "turn", "9" * 60, r"turn must be in 0\.\.200 .*\(60 characters\)"),
    ("golden_rush_v0", {"max_turns": 50}, "turn", "52", r"turn must be in 0\.\.50"),
    ("sky_towers_v0", {}, "turns", "501", r"turns must be in 0\.\.500 \(the game is cut at max_turns=500\)"),
    ("sky_towers_v0", {}, "slots", "10000000", r"slots must be in 1\.\.64"),
    ("sky_towers_v0", {}, "completed", "1", r"completed must be in 0\.\.0 \(the towers player_0 completed"),
    ("sky_towers_v0", {}, "turn_of", "-0x1", r"turn_of must be an integer in 0\.\.1"),
    ("skybridge_v0", {}, "to_move", "١", r"to_move must be an integer in 0\.\.1"),
    ("skybridge_v0", {}, "to_move", "0" * 5000 + "7", r"to_move must be in 0\.\.1, got 7"),
    ("skybridge_v0", {}, "to_move", "0" * 5000, None),
], ids=lambda value: value[:12] if isinstance(value, str) else None)
def test_numbers_beyond_reach_are_refused_with_the_bound(env_id, options, field, value, message):
    game = sky_envs.make_game(env_id, **options)
    text = game.new_initial_state(np.random.default_rng(0)).to_text()
    text = re.sub(rf"^{field}: .*$", f"{field}: {value}", text, count=1, flags=re.M)
    if message is None:  # leading zeros are fine: the number is in range
        assert game.state_from_text(text).to_text() == game.new_initial_state(np.random.default_rng(0)).to_text()
        return
    with pytest.raises(ValueError, match=message):
        game.state_from_text(text)


def test_skybridge_supplies_are_bounded_by_the_starting_supply():
    game = sky_envs.make_game("skybridge_v0")
    text = game.new_initial_state(np.random.default_rng(0)).to_text().replace("T=4", "T=" + "9" * 30, 1)
    with pytest.raises(ValueError, match=r"supply T must be in 0\.\.4 \(that slot starts with only 4"):
        game.state_from_text(text)
    text = game.new_initial_state(np.random.default_rng(0)).to_text().replace("0 0:", "99999999999999999999 0:")
    with pytest.raises(ValueError, match=r"row must be in 0\.\.2"):
        game.state_from_text(text)


# ------------------------------------------------------------------ fuzzing
@lru_cache(maxsize=None)
def reachable_texts(config: int) -> tuple[str, ...]:
    """Texts of positions met in seeded random games of one configuration."""
    env_id, options = CONFIGS[config]
    game = sky_envs.make_game(env_id, **options)
    texts = []
    for seed in range(2):
        rng = np.random.default_rng(seed)
        state = game.new_initial_state(np.random.default_rng(seed))
        for ply in range(200):
            if ply % 9 == 0:
                texts.append(state.to_text())
            if state.current_player < 0:
                break
            state.apply(int(rng.choice(state.legal_actions())))
        texts.append(state.to_text())
    return tuple(texts)


NUMBERS = st.one_of(
    st.integers(-3, 40),
    st.sampled_from([2**31 - 1, 2**31, 2**32, 2**63 - 1, 2**63, 2**64, 10**30, -(2**63) - 1]),
    st.integers(),
).map(str)
JUNK = st.one_of(
    NUMBERS,
    st.sampled_from(["1e3", "0x10", "1_000", "+1", "-0", "٣", "²", "", " ", "-", "nan", "9" * 5000, "0" * 5000 + "1"]),
    st.text(max_size=6),
)


@st.composite
def mutated_texts(draw):
    config = draw(st.integers(0, len(CONFIGS) - 1))
    text = draw(st.sampled_from(reachable_texts(config)))
    numbers = [m.span() for m in re.finditer(r"\d+", text)]
    for _ in range(draw(st.integers(1, 3))):
        if numbers and draw(st.booleans()):  # a number of the notation -> another number or junk
            start, end = draw(st.sampled_from(numbers))
            text = text[:start] + draw(JUNK) + text[end:]
        else:                                # any character -> junk
            at = draw(st.integers(0, max(len(text) - 1, 0)))
            text = text[:at] + draw(JUNK) + text[at + 1:]
        numbers = [m.span() for m in re.finditer(r"\d+", text)]
    return config, text, draw(st.integers(0, 2**32 - 1))


def check_loads_or_refuses(config: int, text: str, seed: int) -> None:
    env_id, options = CONFIGS[config]
    game = sky_envs.make_game(env_id, **options)
    try:
        state = game.state_from_text(text)
    except ValueError:
        return
    # a loaded text is a state the game can be in: exact round trip, bounded observations, play
    assert game.state_from_text(state.to_text()).to_text() == state.to_text()
    rng = np.random.default_rng(seed)
    for _ in range(4):
        state.render_text()
        for seat in range(game.num_players):
            obs = state.observation(seat)
            assert np.all(obs >= game.observation_low) and np.all(obs <= game.observation_high), text
        if state.current_player < 0:
            assert not state.legal_mask().any()
            break
        state.apply(int(rng.choice(state.legal_actions())))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_texts())
def test_mutated_positions_load_as_valid_states_or_raise_value_error(case):
    check_loads_or_refuses(*case)


@pytest.mark.slow
@settings(max_examples=5000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_texts())
def test_mutated_positions_load_as_valid_states_or_raise_value_error_long(case):
    check_loads_or_refuses(*case)
