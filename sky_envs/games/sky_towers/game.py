"""The Sky Towers game: options, set-up (the shuffle and the deal), and the wiring of
position texts and pictures into states (documented in :mod:`sky_envs.sky_towers_v0`)."""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from sky_envs.core.options import MAX_TURNS, choice_option, integer_option, reject_unknown_options
from sky_envs.core.state import Game
from sky_envs.games.sky_towers.deck import load_deck
from sky_envs.games.sky_towers.layout import ActionLayout
from sky_envs.games.sky_towers.observation import ObservationLayout
from sky_envs.games.sky_towers.render import render_rgb
from sky_envs.games.sky_towers.rules import MAX_SLOTS
from sky_envs.games.sky_towers.state import SkyTowersState
from sky_envs.games.sky_towers.text import read_position

FIRSTS = ("player_0", "random")
OPTIONS = ("players", "first", "max_towers", "max_turns", "deck", "bonuses", "debug_render")


class SkyTowersGame(Game):
    """Validated options of one Sky Towers configuration."""

    name = "sky_towers"

    def __init__(self, players: int = 2, first: str = "player_0", max_towers: int = 12,
                 max_turns: int = 500, deck: Any = None, bonuses: Any = None, debug_render: bool = False,
                 **unknown):
        reject_unknown_options("sky_towers_v0", unknown, OPTIONS)
        self.num_players = choice_option("players", players, (2, 3, 4))
        self.first = first = choice_option("first", first, FIRSTS)
        debug_render = choice_option("debug_render", debug_render, (False, True))
        self.max_towers = integer_option("max_towers", max_towers, 1, MAX_SLOTS)
        self.max_turns = integer_option("max_turns", max_turns, 1, MAX_TURNS)
        self.deck = load_deck(deck, bonuses, self.num_players)
        self.debug_render = debug_render
        self.layout = ActionLayout(self.max_towers)
        self.num_actions = self.layout.N
        self.obs_layout = ObservationLayout(self.num_players, self.max_towers, self.deck)
        self.observation_shape = (self.obs_layout.size,)
        self.observation_low = 0.0
        self.observation_high = self.obs_layout.high.astype(np.float32)  # the bound of every entry
        self._options = dict(
            players=self.num_players, first=first, max_towers=self.max_towers, max_turns=self.max_turns,
            deck=None if deck is None else {"cards": self.deck.cards()},
            bonuses=None if deck is None and bonuses is None else self.deck.bonuses(),
            debug_render=debug_render,
        )

    def new_initial_state(self, rng: np.random.Generator) -> SkyTowersState:
        """Shuffle, pick the first seat (``first="random"``), deal 5 cards each from it on."""
        state = SkyTowersState(self, rng)
        copies = self.deck.copies
        cards = [v for v in range(1, 11) for _ in range(copies[v])]
        deck = [cards[i] for i in rng.permutation(len(cards))]  # the top card is last
        first = int(rng.integers(self.num_players)) if self.first == "random" else 0
        state.deal(deck, first)
        return state

    def batched_games(self, num_envs: int, keep_final_observation: bool = True):
        from sky_envs.games.sky_towers.batched import SkyTowersBatch   # the game's compiled engine

        return SkyTowersBatch(self, num_envs, keep_final_observation)

    def state_from_text(self, text: str, rng: np.random.Generator | None = None) -> SkyTowersState:
        return read_position(self, text, partial(SkyTowersState, self, rng))

    def render_rgb(self, state: SkyTowersState) -> np.ndarray:
        return render_rgb(state, self.debug_render)
