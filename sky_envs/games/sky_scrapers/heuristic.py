"""Sky Scrapers' heuristic for the baseline agents (:class:`~sky_envs.core.state.Heuristic`):
the sky scraper lead first, then tiles under own control and the tallest sky scraper; the
move phase's one-ply values come from compiled kernels (:mod:`.heuristic_kernels`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sky_envs.core.state import WIN, Heuristic
from sky_envs.games.sky_scrapers.heuristic_kernels import sky_scrapers_move_values, sky_scrapers_value
from sky_envs.games.sky_scrapers.rules import MOVE


class SkyScrapersHeuristic(Heuristic):
    def value(self, state, seat: int) -> float:
        """Sky scraper lead first, then tiles under own control and the tallest sky scraper
        (:func:`~sky_envs.games.sky_scrapers.heuristic_kernels.sky_scrapers_value`)."""
        return float(sky_scrapers_value(state.heights, state.tops, state.seat_colours, seat,
                                        state.game.skyscraper_height))

    def move_values(self, states: Sequence) -> list[np.ndarray | None]:
        """One-ply values of every legal stack move (the move phase) in each of ``states``;
        ``None`` for a state in another phase. Each move is played on scratch arrays by a
        compiled kernel, which scores the result as :meth:`value` would, or as ``WIN`` times
        the seat's return where no stack can move after it (the game is over, as
        ``SkyScrapersState._start_turn`` decides)."""
        out: list[np.ndarray | None] = [None] * len(states)
        for k, state in enumerate(states):
            if state.phase == MOVE:
                actions = state.legal_actions()
                values = np.empty(actions.size)
                sky_scrapers_move_values(state.heights, state.tops, state.landing, state.board.reach,
                                         state.seat_colours, state.current_player, actions,
                                         state.game.skyscraper_height, WIN, values)
                out[k] = values
        return out
