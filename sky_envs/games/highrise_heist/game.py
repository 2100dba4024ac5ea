"""The two configurations: Highrise Heist (2 seats) and Golden Rush (4 seats).

Both share the action layout, the position text, the renderers and the rules core in
:mod:`~sky_envs.games.highrise_heist.state`; each picks its state class and options, and
this module wires position texts and pictures into states.
Documentation: ``sky_envs/highrise_heist_v0.py`` and ``sky_envs/golden_rush_v0.py``.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from sky_envs.core.options import MAX_TURNS, choice_option, integer_option, reject_unknown_options
from sky_envs.core.state import Game
from sky_envs.games.highrise_heist.heist import COLOUR_LETTERS, HeistState
from sky_envs.games.highrise_heist.heist import NUM_STANDS as HEIST_STANDS
from sky_envs.games.highrise_heist.heuristic import StandsHeuristic
from sky_envs.games.highrise_heist.layout import ActionLayout
from sky_envs.games.highrise_heist.observation import HEIST_CHANNELS, RUSH_CHANNELS
from sky_envs.games.highrise_heist.render import render_rgb
from sky_envs.games.highrise_heist.rules import HEIGHT, PLACE, TRANSFER
from sky_envs.games.highrise_heist.rush import NUM_STANDS as RUSH_STANDS
from sky_envs.games.highrise_heist.rush import TEAMS, RushState
from sky_envs.games.highrise_heist.tables import heist_tables, rush_tables
from sky_envs.games.highrise_heist.text import read_position

MODES = ("ffa", "teams")
REWARDS = ("win", "score")


class _StandsGame(Game):
    """What both modes share: stands of 11 levels, the layout, text and pictures."""

    num_stands: int
    letters: str
    layout: ActionLayout
    heuristic = StandsHeuristic()

    def render_rgb(self, state) -> np.ndarray:
        return render_rgb(state)

    def _empty(self) -> list[list[int]]:
        return [[] for _ in range(self.num_stands)]

    def _tables(self):
        """The shared lookup tables of this configuration (``tables.py``)."""
        raise NotImplementedError

    def batched_games(self, num_envs: int, keep_final_observation: bool = True):
        """The compiled engine of both modes over arrays of games (``batched.py``)."""
        from sky_envs.games.highrise_heist.batched import HighriseHeistBatch

        return HighriseHeistBatch(self, num_envs, keep_final_observation)

    # the tables are shared and large: copies and pickles leave them out and look them up again
    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        del state["tables"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.tables = self._tables()


class HighriseHeistGame(_StandsGame):
    """Highrise Heist for 2 seats; options: ``max_turns`` (default 200 turns)."""

    name = "highrise_heist"
    num_stands = HEIST_STANDS
    letters = COLOUR_LETTERS

    def __init__(self, max_turns: int = 200, **unknown):
        of_rush = [repr(name) for name in ("mode", "reward") if name in unknown]
        hint = (f" ({' and '.join(of_rush)} {'are options' if len(of_rush) > 1 else 'is an option'} of "
                f"golden_rush_v0, the 4-seat mode)" if of_rush else "")
        reject_unknown_options("highrise_heist_v0", unknown, ("max_turns",), hint)
        self.max_turns = integer_option("max_turns", max_turns, 1, MAX_TURNS)
        self._options = {"max_turns": self.max_turns}
        self.num_players = 2
        self.layout = ActionLayout(HEIST_STANDS, swap=True)
        self.num_actions = self.layout.size  # 267
        self.observation_shape = (HEIST_STANDS, HEIGHT, HEIST_CHANNELS)
        self.tables = self._tables()

    def _tables(self):
        return heist_tables(HEIST_STANDS)

    def new_initial_state(self, rng: np.random.Generator) -> HeistState:
        return HeistState(self, self._empty(), 0, PLACE, False, rng)

    def state_from_text(self, text: str, rng: np.random.Generator | None = None) -> HeistState:
        return read_position(self, text, partial(HeistState, self, rng=rng))


class GoldenRushGame(_StandsGame):
    """Golden Rush for 4 seats; options ``mode`` ("ffa" | "teams"), ``reward`` ("win" |
    "score") and ``max_turns`` (default 300 turns)."""

    name = "golden_rush"
    rules_summary_file = "rules_summary_golden_rush.md"
    num_stands = RUSH_STANDS
    letters = "0123"

    def __init__(self, mode: str = "ffa", reward: str = "win", max_turns: int = 300, **unknown):
        reject_unknown_options("golden_rush_v0", unknown, ("mode", "reward", "max_turns"))
        self.mode = choice_option("mode", mode, MODES)
        self.reward = choice_option("reward", reward, REWARDS)
        self.max_turns = integer_option("max_turns", max_turns, 1, MAX_TURNS)
        self._options = {"mode": self.mode, "reward": self.reward, "max_turns": self.max_turns}
        self.num_players = 4
        self.layout = ActionLayout(RUSH_STANDS, swap=False)
        self.num_actions = self.layout.size  # 217
        self.observation_shape = (RUSH_STANDS, HEIGHT, RUSH_CHANNELS)
        self.tables = self._tables()

    def _tables(self):
        return rush_tables(RUSH_STANDS, self.mode == "teams")

    @property
    def teams(self) -> tuple[int, ...]:
        """Teams mode: seats 0 and 2 against 1 and 3; ffa: every seat for itself."""
        if self.mode != "teams":
            return super().teams
        return tuple(next(team for team, members in enumerate(TEAMS) if seat in members)
                     for seat in range(self.num_players))

    def new_initial_state(self, rng: np.random.Generator) -> RushState:
        return RushState(self, self._empty(), 0, TRANSFER, False, [], rng)

    def state_from_text(self, text: str, rng: np.random.Generator | None = None) -> RushState:
        return read_position(self, text, partial(RushState, self, rng=rng))
