"""Skybridge positions: legal placements, applying them, the end and scoring.

A position is fully described by its towers (piece codes bottom to top, see ``pieces.py``),
the supplies and the seat to move; everything else is derived and kept incrementally:
``heights``, the top piece's colour and kind, ``occ[i][c]``, a bit mask of the storey
levels occupied by colour ``c`` on foundation ``i`` (bit L = the span [L, L + 1); a roof at
base b occupies bit b), and ``near[i][c]``, the OR of ``occ[j][c]`` over the neighbours j of
``i``, which makes the classic "never touch" rule one shift and one ``&``. The observation
features (``observation.py``) are kept up to date the same way.
The turn counter of ``max_turns`` is the number of pieces on the board (each turn places
exactly one), so a position text determines the state completely.

A position's text, notation, explanations, observation layout, scoring and pictures live in
the modules beside this one (``text``, ``notation``, ``explain``, ``observation``, ``rules``,
``render``); the state's methods of the same names hand over to them.
"""

from __future__ import annotations

import numpy as np

from sky_envs.core.buffers import KeepsViews, flat_view
from sky_envs.core.masks import mask_from_bits
from sky_envs.core.notation import cell_name
from sky_envs.core.state import GameState, LazilyCopiedRng, win_loss_returns
from sky_envs.games.skybridge import explain, notation, render
from sky_envs.games.skybridge.observation import (
    F_BRIDGES, F_HEIGHT, F_LOWEST, F_ONE, F_ROOFED, F_STOREYS, NUM_CHANNELS, NUM_FEATURES, TOP_ROW_VIEWS,
)
from sky_envs.games.skybridge.pieces import BRIDGE, EMPTY, OPPOSITE, ROOF, SHORT, TALL
from sky_envs.games.skybridge.rules import scores
from sky_envs.games.skybridge.text import state_to_text

class SkybridgeState(LazilyCopiedRng, KeepsViews, GameState):
    """One Skybridge position (see the module docstring for the representation).

    ``features`` is the ``(rows, cols, NUM_FEATURES)`` table of absolute observation features
    (see ``observation.py``), kept up to date by every placement.
    """

    __slots__ = ("game", "stacks", "supply", "heights", "top_colour", "top_kind", "occ", "near",
                 "features", "obs_matrix", "_flat", "_fmv", "_mmv", "_low", "_lv", "_cb",
                 "_blocks", "_openbits", "pieces_on_board", "_open", "finished", "to_move",
                 "current_player", "_mask", "_legal_cache")

    def __init__(self, game, stacks: list[list[int]], supply: list[list[list[int]]], to_move: int,
                 rng: np.random.Generator | None):
        self.game = game
        self.rng = rng if rng is not None else np.random.default_rng()
        self.stacks = stacks
        self.supply = supply          # supply[seat][slot] = [T, S, B, R]
        B = game.num_foundations
        self.heights = [0] * B
        self.top_colour = [-1] * B
        self.top_kind = [EMPTY] * B
        self.occ = [[0, 0, 0, 0] for _ in range(B)]
        self.near = [[0, 0, 0, 0] for _ in range(B)]   # OR of occ over the neighbours
        self.features = np.zeros((game.rows, game.cols, NUM_FEATURES), dtype=np.float32)
        self.obs_matrix = game.obs_matrix.copy()
        self._views()
        self._flat[:, F_ONE] = 1
        for seat, slots in enumerate(supply):
            for slot, sup in enumerate(slots):
                self.obs_matrix[seat, F_ONE, 26 + slot * 4:30 + slot * 4] = sup
        self._low = -1
        # bit masks over foundations (bit i = foundation i), kept by ``_stack``:
        # _lv[h]: open towers of height h (only non-empty levels); _cb[c]: towers whose top
        # is of colour c; _blocks: towers whose top is a tall or short block
        self._lv = {0: (1 << B) - 1}
        self._cb = [0, 0, 0, 0]
        self._blocks = 0
        self._openbits = (1 << B) - 1   # towers not roofed
        self.pieces_on_board = 0
        for i, stack in enumerate(stacks):
            for piece in stack:
                self._stack(i, piece >> 3, piece & 7)
                if (piece & 7) < BRIDGE or (piece & 7) - BRIDGE in (1, 2):  # a bridge counts once
                    self.pieces_on_board += 1
        self._open = [i for i in range(B) if self.top_kind[i] != ROOF]
        self.finished = False
        self.to_move = to_move
        self.current_player = -1
        self._mask: np.ndarray | None = None
        self._legal_cache = None
        self._start_turn(to_move)

    def clone(self) -> SkybridgeState:
        twin = self._shallow_copy()
        self._copy_rng_to(twin)
        twin.stacks = [s[:] for s in self.stacks]
        twin.supply = [[s[:] for s in seat] for seat in self.supply]
        twin.heights = self.heights[:]
        twin.top_colour = self.top_colour[:]
        twin.top_kind = self.top_kind[:]
        twin.occ = [o[:] for o in self.occ]
        twin.near = [o[:] for o in self.near]
        twin.features = self.features.copy()
        twin._open = self._open[:]
        twin._lv = self._lv.copy()
        twin._cb = self._cb[:]
        twin.obs_matrix = self.obs_matrix.copy()
        twin._views()
        return twin

    _view_names = ("_flat", "_fmv", "_mmv")

    def _views(self) -> None:
        """The views into ``features`` and ``obs_matrix`` the hot path writes through:
        ``_flat`` (foundation, feature) and flat memoryviews of both (see ``core.buffers``)."""
        self._flat = self.features.reshape(self.game.num_foundations, NUM_FEATURES)
        self._fmv = flat_view(self.features)
        self._mmv = flat_view(self.obs_matrix)

    # ------------------------------------------------------------ placement
    def _stack(self, i: int, colour: int, kind: int) -> None:
        """Put a piece on top of tower ``i`` and update the derived tables."""
        base = self.heights[i]
        old = self.top_colour[i]
        storeys = 1 if kind >= BRIDGE else 3 if kind == TALL else 2 if kind == SHORT else 0
        span = ((1 << max(storeys, 1)) - 1) << base
        self.occ[i][colour] |= span
        near = self.near
        for j in self.game.neighbours[i]:
            near[j][colour] |= span
        self.heights[i] = base + storeys
        self.top_colour[i] = colour
        self.top_kind[i] = kind
        bit = 1 << i
        cb = self._cb
        if old >= 0:
            cb[old] &= ~bit
        cb[colour] |= bit
        lv = self._lv
        rest = lv.get(base, 0) & ~bit
        if rest:
            lv[base] = rest
        else:
            lv.pop(base, None)
        if kind != ROOF:
            top = base + storeys
            lv[top] = lv.get(top, 0) | bit
        else:
            self._openbits &= ~bit
        if kind <= SHORT and kind != ROOF:
            self._blocks |= bit
        else:
            self._blocks &= ~bit
        fmv, row = self._fmv, i * NUM_FEATURES
        fmv[row + F_ROOFED:row + F_BRIDGES] = TOP_ROW_VIEWS[colour * 8 + kind]
        fmv[row + F_HEIGHT] = base + storeys
        if storeys:
            fmv[row + F_STOREYS + colour] += storeys
        if kind >= BRIDGE:
            fmv[row + F_BRIDGES + colour * 4 + kind - BRIDGE] += 1

    def lowest_level(self) -> int | None:
        """The minimum height over open towers (None when every tower is roofed)."""
        heights = [h for h, k in zip(self.heights, self.top_kind) if k != ROOF]
        return min(heights) if heights else None

    def fits(self, colour: int, i: int, storeys: int) -> bool:
        """The own-colour rule for a piece of ``colour`` spanning ``storeys`` on top of tower ``i``.

        seed: not directly on a piece of its own colour. classic: also no piece of its colour on
        an adjacent foundation whose vertical span overlaps [h, h + storeys) (a roof: storeys 1).
        """
        if self.top_colour[i] == colour:
            return False
        if self.game.classic:
            return not (self.near[i][colour] >> self.heights[i]) & ((1 << storeys) - 1)
        return True

    def _lowest_fitting(self, colour: int, order: list[int], storeys: int) -> list[int]:
        """classic: towers of ``order`` (open, by height) at the lowest height where the
        own-colour rule allows a piece of ``colour`` spanning ``storeys``."""
        heights, colours, near = self.heights, self.top_colour, self.near
        bits = (1 << storeys) - 1
        found: list[int] = []
        m = -1
        for i in order:
            h = heights[i]
            if found and h > m:
                break
            if colours[i] != colour and not (near[i][colour] >> h) & bits:
                found.append(i)
                m = h
        return found

    def _seat_actions(self, seat: int, order: list[int] | None = None) -> list[int]:
        """Every legal action of ``seat`` (empty when it cannot place); ``order``: the open
        towers by height (computed when not given).

        The reference generator: the seed variant's turns use :meth:`_seed_bits` instead
        (the tests check the two agree).
        """
        game = self.game
        B = game.num_foundations
        heights, colours = self.heights, self.top_colour
        if order is None:
            order = sorted(self._open, key=heights.__getitem__)
        if not order:
            return []
        low = heights[order[0]]
        seed = not game.classic
        actions: list[int] = []
        bridge_edges = None
        for slot, colour in enumerate(game.slot_colour[seat]):
            n_tall, n_short, n_bridges, n_roofs = self.supply[seat][slot]
            base = slot * game.slot_size
            if seed and (n_tall or n_short):
                targets = []
                m = -1
                for i in order:  # the lowest towers whose top is not of this colour
                    if targets and heights[i] > m:
                        break
                    if colours[i] != colour:
                        targets.append(i)
                        m = heights[i]
                if not targets:  # the fallback: any open tower of the lowest height
                    targets = [i for i in order if heights[i] == low]
                if n_tall:
                    actions += [base + i for i in targets]
                if n_short:
                    actions += [base + B + i for i in targets]
            else:
                if n_tall:
                    actions += [base + i for i in self._lowest_fitting(colour, order, 3)]
                if n_short:
                    actions += [base + B + i for i in self._lowest_fitting(colour, order, 2)]
            if n_roofs:
                offset = base + 2 * B
                if seed:
                    actions += [offset + i for i in order if heights[i] and colours[i] != colour]
                else:
                    actions += [offset + i for i in order if heights[i] and self.fits(colour, i, 1)]
            if n_bridges:
                if bridge_edges is None:
                    bridge_edges = self._bridge_edges(low)
                offset = base + 3 * B
                actions += [offset + e for e, a, b in bridge_edges if self.fits(colour, a, 1) and self.fits(colour, b, 1)]
        return actions

    def _bridge_edges(self, low: int) -> list[tuple[int, int, int]]:
        """Edges where a bridge of some colour may go: equal heights >= 1, both tops blocks
        (open, not bridges); seed: at the lowest level and with different top colours."""
        heights, kinds, colours = self.heights, self.top_kind, self.top_colour
        seed = not self.game.classic
        out = []
        if seed and low == 0:  # an empty foundation: the lowest level is the bare board
            return out
        for e, a, b in self.game.edge_list:
            h = heights[a]
            if h == 0 or heights[b] != h or kinds[a] > SHORT or kinds[b] > SHORT:
                continue
            if seed and (h != low or colours[a] == colours[b]):
                continue
            out.append((e, a, b))
        return out

    def _seed_bits(self, seat: int, levels: list[int]) -> int:
        """seed variant: the legal actions of ``seat`` as an int (bit a = action a; 0 when it
        cannot place); ``levels``: the heights of open towers, ascending, without repeats."""
        if not levels:
            return 0
        game = self.game
        B, size = game.num_foundations, game.slot_size
        lv, cb = self._lv, self._cb
        low = levels[0]
        bits = 0
        edges = roofs = None
        supply = self.supply[seat]
        for slot, colour in enumerate(game.slot_colour[seat]):
            n_tall, n_short, n_bridges, n_roofs = supply[slot]
            base = slot * size
            mine = cb[colour]
            if n_tall or n_short:
                for h in levels:  # the lowest towers whose top is not of this colour
                    targets = lv[h] & ~mine
                    if targets:
                        break
                else:  # the fallback: any open tower of the lowest height
                    targets = lv[low]
                if n_tall:
                    bits |= targets << base
                if n_short:
                    bits |= targets << (base + B)
            if n_roofs:
                if roofs is None:
                    roofs = self._openbits & ~lv.get(0, 0)
                bits |= (roofs & ~mine) << (base + 2 * B)
            if n_bridges:
                if edges is None:
                    edges = []
                    if low:
                        level = lv[low] & self._blocks
                        colours = self.top_colour
                        for e, a, b in game.edge_list:
                            ends = (1 << a) | (1 << b)
                            if level & ends == ends and colours[a] != colours[b]:
                                edges.append((e, ends))
                offset = base + 3 * B
                for e, ends in edges:
                    if not ends & mine:
                        bits |= 1 << (offset + e)
        return bits

    def legal_mask(self) -> np.ndarray:
        if self._mask is None:
            self._mask = np.zeros(self.game.num_actions, dtype=bool)
            self._mask.flags.writeable = False
        return self._mask

    def _start_turn(self, seat: int, changed: tuple[int, ...] | None = None) -> None:
        """Hand the turn to ``seat`` or the first seat after it that can place.

        ``changed``: the towers the last placement went on (None: recompute everything).
        """
        P = self.num_players
        lv = self._lv
        levels = sorted(lv)
        low = levels[0] if levels else -1
        fmv = self._fmv
        if changed is not None and low == self._low:  # the changed towers left the lowest level
            for i in changed:
                fmv[i * NUM_FEATURES + F_LOWEST] = 0
        else:
            self._flat[:, F_LOWEST] = 0
            if levels:
                rest = lv[low]
                while rest:
                    bit = rest & -rest
                    fmv[(bit.bit_length() - 1) * NUM_FEATURES + F_LOWEST] = 1
                    rest ^= bit
        self._low = low
        bits = 0
        if self.game.classic:
            order = sorted(self._open, key=self.heights.__getitem__)
            for k in range(P):
                for a in self._seat_actions((seat + k) % P, order):
                    bits |= 1 << a
                if bits:
                    seat = (seat + k) % P
                    break
        else:
            for k in range(P):
                bits = self._seed_bits((seat + k) % P, levels)
                if bits:
                    seat = (seat + k) % P
                    break
        self.to_move = seat
        if not bits:
            self.finished = True
            self.current_player, self._mask = -1, None
        elif self.pieces_on_board >= self.game.max_turns:
            self.current_player, self._mask = -1, None
        else:
            self.current_player, self._mask = seat, mask_from_bits(bits, self.game.num_actions)

    def decode(self, action: int) -> tuple[int, int, int]:
        """``action`` -> (slot, kind, target): target is a foundation, or an edge for a bridge."""
        B = self.game.num_foundations
        slot, rest = divmod(int(action), self.game.slot_size)
        if rest < 3 * B:
            kind_index, target = divmod(rest, B)
            return slot, (TALL, SHORT, ROOF)[kind_index], target
        return slot, BRIDGE, rest - 3 * B

    def apply_unchecked(self, action: int) -> None:
        seat = self.current_player
        game = self.game
        slot, kind, target, sup_index = game.action_parts[action]
        colour = game.slot_colour[seat][slot]
        sup = self.supply[seat][slot]
        if kind == BRIDGE:
            a, b, d = game.edges[target]
            self.stacks[a].append(colour * 8 + BRIDGE + d)
            self.stacks[b].append(colour * 8 + BRIDGE + OPPOSITE[d])
            self._stack(a, colour, BRIDGE + d)
            self._stack(b, colour, BRIDGE + OPPOSITE[d])
            changed = (a, b)
        else:
            self.stacks[target].append(colour * 8 + kind)
            self._stack(target, colour, kind)
            if kind == ROOF:
                self._open.remove(target)
            changed = (target,)
        left = sup[sup_index] - 1
        sup[sup_index] = left
        self._mmv[(seat * NUM_FEATURES + F_ONE) * NUM_CHANNELS + 26 + slot * 4 + sup_index] = left
        self.pieces_on_board += 1
        self._start_turn((seat + 1) % self.num_players, changed)

    # ---------------------------------------------------------- explanations
    def where(self, i: int) -> str:
        """Foundation ``i`` by its name in the move notation (``b2``)."""
        return cell_name(*divmod(i, self.game.cols))

    def action_to_string(self, action: int) -> str:
        return notation.action_to_string(self, int(action))

    def string_to_action(self, text: str) -> int:
        return notation.string_to_action(self, text)

    def describe_action(self, action: int) -> str:
        return notation.describe_action(self, int(action))

    def illegal_reason(self, action: int) -> str:
        return explain.illegal_reason(self, int(action))

    # ------------------------------------------------------------------ end
    def is_terminal(self) -> bool:
        return self.finished

    def is_truncated(self) -> bool:
        return not self.finished and self.pieces_on_board >= self.game.max_turns

    def scores(self) -> list[int]:
        """Points per seat by the variant's scoring, for the position as it stands."""
        return scores(self.game, self.stacks, self.heights, self.top_kind, self.top_colour)

    def winners(self) -> list[int]:
        scores = self.scores()
        best = max(scores)
        return [s for s, v in enumerate(scores) if v == best]

    def returns(self) -> np.ndarray:
        P = self.num_players
        out = np.zeros(P)
        if not self.finished:
            return out
        scores = self.scores()
        if self.game.reward == "score":
            total = sum(scores)
            for s in range(P):
                out[s] = scores[s] - (total - scores[s]) / (P - 1)
            return out
        return win_loss_returns(self.winners(), P)

    def score_vector(self) -> list[int]:
        return self.scores()

    def info(self) -> dict:
        info = {"scores": self.scores(), "colours": [list(c) for c in self.game.slot_colour]}
        if self.finished:
            info["winners"] = self.winners()
        return info

    # ------------------------------------------------------------ observation
    def observation(self, seat: int) -> np.ndarray:
        """See ``observation.py``: the absolute feature table times the seat's matrix."""
        return np.dot(self._flat, self.obs_matrix[seat]).reshape(self.game.observation_shape)

    # ------------------------------------------------------------------ text
    def to_text(self) -> str:
        return state_to_text(self)

    def render_text(self) -> str:
        return render.render_text(self)
