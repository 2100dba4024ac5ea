"""The Skybridge game: options, board geometry, seat/colour tables, set-up, and the wiring
of position texts and pictures into states (documented in ``sky_envs/skybridge_v0.py``)."""

from __future__ import annotations

from functools import partial

import numpy as np

from sky_envs.core.options import MAX_SIDE, MAX_TURNS, choice_option, integer_option, reject_unknown_options
from sky_envs.core.state import Game
from sky_envs.games.skybridge.pieces import (
    BRIDGE, DIR_DELTAS, NEUTRAL, NUM_COLOURS, ROOF, SHORT, SUP_B, SUP_R, SUP_S, SUP_T, TALL,
)
from sky_envs.games.skybridge.heuristic import SkybridgeHeuristic
from sky_envs.games.skybridge.observation import NUM_CHANNELS, observation_matrices
from sky_envs.games.skybridge.render import render_rgb
from sky_envs.games.skybridge.state import SkybridgeState
from sky_envs.games.skybridge.text import read_position

VARIANTS = ("seed", "classic")
REWARDS = ("win", "score")
OPTIONS = ("players", "rows", "cols", "variant", "tall", "short", "bridges", "roofs", "neutral_tall",
           "neutral_short", "reward", "max_turns")
MAX_PIECES = 1000  # the most pieces of one kind a colour (or a seat's neutral share) may have


class SkybridgeGame(Game):
    """Validated options of one Skybridge configuration; documented in ``skybridge_v0``.

    Geometry tables (computed once here, shared by every state):

    * ``neighbours[i]``: foundations orthogonally adjacent to ``i``;
    * ``neighbour_at[i][d]``: the foundation in direction ``d`` (n e s w) of ``i``, or -1;
    * ``edges[e] = (a, b, d)``: the two foundations of edge ``e`` and the direction a -> b
      (horizontal edges first, then vertical, each row-major: the action layout's order);
      ``edge_list`` the same as ``(e, a, b)``.

    Seat tables: ``slot_colour[seat]`` (colours of the seat's slots in use),
    ``colour_seat[c]`` (-1 for the neutral colour with 3 seats), ``initial_supply[seat][slot]``
    and ``colour_total[c]`` (pieces of colour ``c`` in play, ``[T, S, B, R]``).
    """

    name = "skybridge"
    heuristic = SkybridgeHeuristic()

    def __init__(self, players: int = 2, rows: int = 3, cols: int = 3, variant: str = "seed",
                 tall: int = 4, short: int = 4, bridges: int = 1, roofs: int = 2,
                 neutral_tall: int = 1, neutral_short: int = 1, reward: str = "win",
                 max_turns: int | None = None, **unknown):
        reject_unknown_options("skybridge_v0", unknown, OPTIONS)
        self._options = dict(players=players, rows=rows, cols=cols, variant=variant, tall=tall,
                             short=short, bridges=bridges, roofs=roofs, neutral_tall=neutral_tall,
                             neutral_short=neutral_short, reward=reward, max_turns=max_turns)
        self.num_players = P = choice_option("players", players, (2, 3, 4))
        variant = choice_option("variant", variant, VARIANTS)
        reward = choice_option("reward", reward, REWARDS)
        self.variant = variant
        self.classic = variant == "classic"
        self.reward = reward
        self.rows = integer_option("rows", rows, 2, MAX_SIDE)
        self.cols = integer_option("cols", cols, 2, MAX_SIDE)
        counts = [integer_option(n, v, 0, MAX_PIECES)
                  for n, v in (("tall", tall), ("short", short), ("bridges", bridges), ("roofs", roofs))]
        neutral = [integer_option(n, v, 0, MAX_PIECES)
                   for n, v in (("neutral_tall", neutral_tall), ("neutral_short", neutral_short))]
        if counts[0] + counts[1] == 0:
            raise ValueError("tall + short must be >= 1: without blocks no piece can ever be placed "
                             "(roofs and bridges need a tower of height >= 1)")
        if P == 3:
            for name, each, total in (("neutral_tall", neutral[0], counts[0]), ("neutral_short", neutral[1], counts[1])):
                if 3 * each > total:
                    raise ValueError(f"{name}={each} is too many: the 3 seats' extra blocks come from the neutral "
                                     f"colour's {total} (3 x {each} > {total}); lower {name} or raise "
                                     f"{'tall' if name == 'neutral_tall' else 'short'}")
        self._build_geometry()
        self._build_seats(counts, neutral)
        B, E = self.num_foundations, len(self.edges)
        self.slot_size = 3 * B + E
        self.num_actions = 2 * self.slot_size
        # action -> (slot, kind, target, supply index): the decoding ``apply_unchecked`` needs
        self.action_parts = []
        for action in range(self.num_actions):
            slot, rest = divmod(action, self.slot_size)
            if rest < 3 * B:
                kind = (TALL, SHORT, ROOF)[rest // B]
                self.action_parts.append((slot, kind, rest % B, (SUP_T, SUP_S, SUP_R)[rest // B]))
            else:
                self.action_parts.append((slot, BRIDGE, rest - 3 * B, SUP_B))
        self.observation_shape = (self.rows, self.cols, NUM_CHANNELS)
        self.total_pieces = sum(sum(supply) for seat in self.initial_supply for supply in seat)
        self.total_storeys = sum(3 * t + 2 * s + b for t, s, b, _ in self.colour_total)
        self.observation_low = 0.0
        self.observation_high = float(max(1, self.total_storeys, *(max(t) for t in self.colour_total)))
        self.max_turns = self.total_pieces if max_turns is None else integer_option("max_turns", max_turns, 1, MAX_TURNS)

    # --------------------------------------------------------------- tables
    def _build_geometry(self) -> None:
        R, C = self.rows, self.cols
        self.num_foundations = R * C
        self.neighbour_at = []
        for r in range(R):
            for c in range(C):
                row = []
                for dr, dc in DIR_DELTAS:
                    rr, cc = r + dr, c + dc
                    row.append(rr * C + cc if 0 <= rr < R and 0 <= cc < C else -1)
                self.neighbour_at.append(tuple(row))
        self.neighbours = [tuple(j for j in row if j >= 0) for row in self.neighbour_at]
        horizontal = [(r * C + c, r * C + c + 1, 1) for r in range(R) for c in range(C - 1)]
        vertical = [(r * C + c, (r + 1) * C + c, 2) for r in range(R - 1) for c in range(C)]
        self.edges = horizontal + vertical
        self.edge_list = [(e, a, b) for e, (a, b, _) in enumerate(self.edges)]

    def _build_seats(self, counts: list[int], neutral: list[int]) -> None:
        P = self.num_players
        if P == 2:
            self.slot_colour = [[0, 2], [1, 3]]
            self.colour_seat = [0, 1, 0, 1]
        elif P == 3:
            self.slot_colour = [[0, NEUTRAL], [1, NEUTRAL], [2, NEUTRAL]]
            self.colour_seat = [0, 1, 2, -1]
        else:
            self.slot_colour = [[0], [1], [2], [3]]
            self.colour_seat = [0, 1, 2, 3]
        self.num_slots = len(self.slot_colour[0])
        self.initial_supply = []
        for seat in range(P):
            slots = [list(counts)]
            if P == 2:
                slots.append(list(counts))
            elif P == 3:
                slots.append([neutral[0], neutral[1], 0, 0])
            self.initial_supply.append(slots)
        self.colour_total = [list(counts) for _ in range(NUM_COLOURS)]
        if P == 3:
            self.colour_total[NEUTRAL] = [3 * neutral[0], 3 * neutral[1], 0, 0]
        # seat-relative colour order: the observer's colours, then each next seat's, neutral last
        self.relative_colours = []
        for seat in range(P):
            order = []
            for k in range(P):
                order += [c for c in self.slot_colour[(seat + k) % P] if c != NEUTRAL or P != 3]
            if P == 3:
                order.append(NEUTRAL)
            self.relative_colours.append(order)
        self.colour_rank = [[order.index(c) for c in range(NUM_COLOURS)] for order in self.relative_colours]
        self.obs_matrix = observation_matrices(self)

    # ------------------------------------------------------------------ setup
    def batched_games(self, num_envs: int, keep_final_observation: bool = True):
        """The compiled engine over arrays of games (``batched.py``); None (the reference
        engine) where one game's arrays would pass ``batched.MAX_STATE_BYTES``."""
        from sky_envs.games.skybridge.batched import MAX_STATE_BYTES, SkybridgeBatch, state_bytes

        if state_bytes(self) > MAX_STATE_BYTES:
            return None
        return SkybridgeBatch(self, num_envs, keep_final_observation)

    def new_initial_state(self, rng: np.random.Generator) -> SkybridgeState:
        B = self.num_foundations
        supply = [[list(s) for s in seat] for seat in self.initial_supply]
        return SkybridgeState(self, [[] for _ in range(B)], supply, 0, rng)

    def state_from_text(self, text: str, rng: np.random.Generator | None = None) -> SkybridgeState:
        return read_position(self, text, partial(SkybridgeState, self, rng=rng))

    def render_rgb(self, state: SkybridgeState) -> np.ndarray:
        return render_rgb(state)
