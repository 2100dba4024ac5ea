"""Sky Towers over arrays of games: the compiled engine behind :mod:`sky_envs.vector`
(``SkyTowersGame.batched_games``), for every option set.

:class:`SkyTowersBatch` keeps every slot's position as a structure of arrays (hands, what
each seat knows of the others' hands, rows of towers, the deck with its peeked cards, the
pools, the score piles, bonus holders, the turn's facts and the slot's random generator;
:mod:`~sky_envs.games.sky_towers.batched_kernel` describes them) and steps all slots in
one compiled call (:func:`~sky_envs.games.sky_towers.batched_kernel.advance`), which
applies the action, settles the turn, and writes the next mask and observation, or the
end of the game and the next game.

Sky Towers draws at random during set-up (the shuffle, the first seat) and during play
(the 2's pick from another hand): each slot keeps its own generator, numpy's PCG64 as
``np.random.default_rng(seed)`` seeds it (:mod:`sky_envs.core.numpy_random`), so that a
slot plays the game ``env.reset(seed=s)`` plays, draw for draw. ``set_state`` takes the
state's generator over and ``get_state`` hands the slot's back as a numpy ``Generator`` in
the same state, with the full position (hands, deck order, knowledge): what the oracle
tests hold to :class:`~sky_envs.games.sky_towers.state.SkyTowersState`, bit for bit.

Memory per live game with the default deck and 12 row slots: 1,297 bytes of state arrays
with 2 seats (1,759 with 3, 2,269 with 4) besides the outputs of ``BatchedGames`` (1,689
bytes with 2 seats: two observations of 684 bytes and a 303-byte mask).
"""

from __future__ import annotations

import numpy as np

from sky_envs.core.batched import KernelBatchedGames
from sky_envs.core.numpy_random import STATE_WORDS, generator, load_generator
from sky_envs.core.state import Heuristic
from sky_envs.games.sky_towers import batched_kernel as kernel
from sky_envs.games.sky_towers import greedy_kernel
from sky_envs.games.sky_towers.batched_kernel import (ACTION_UP, ACTIONS_LEFT, COMPLETED, CUR, DECK_LEN, DISCARD_POOL,
                                                      END_SEAT, FINAL, FLAGS, GIVE_TARGET, HAND_SIZE_F,
                                                      LOGGED_CARDS, LOGGED_TOWERS, OPEN_POOL, PHASE, PILE_CARDS,
                                                      PILE_TOWERS, ROW_LEN, RUSH_SLOT, SAILS, TENS, TOWER_HEIGHT,
                                                      TOWER_SUM, TURN_OF, TURNS)
from sky_envs.games.sky_towers.deck import BONUS_NAMES
from sky_envs.games.sky_towers.state import SkyTowersState

class SkyTowersBatch(KernelBatchedGames):
    """``num_envs`` games of one Sky Towers configuration, stepped by the compiled kernel;
    see the module docstring."""

    def __init__(self, game, num_envs: int, keep_final_observation: bool = True):
        super().__init__(game, num_envs, keep_final_observation)
        N, P, T = num_envs, game.num_players, game.max_towers
        deck = game.deck
        total = deck.total
        self.hands = np.zeros((N, P, 11), dtype=np.int16)
        self.seats = np.zeros((N, P, kernel.SEAT_FIELDS), dtype=np.int32)
        self.known = np.zeros((N, P, P, 11), dtype=np.int16)
        self.lacks = np.zeros((N, P, P), dtype=np.int16)
        self.order = np.zeros((N, P, T), dtype=np.int8)
        self.towers = np.zeros((N, P, T, kernel.TOWER_FIELDS), dtype=np.int8)
        self.deck = np.zeros((N, total), dtype=np.int8)
        self.deck_known = np.zeros((N, total), dtype=np.int8)
        self.pools = np.zeros((N, 2, 11), dtype=np.int16)
        self.holder = np.full((N, len(BONUS_NAMES)), -1, dtype=np.int8)
        self.pile_log = np.zeros((N, total), dtype=np.int8)
        self.pile_towers = np.zeros((N, total // 3 + 1), dtype=np.int16)   # owner * 32 + height
        self.scalars = np.zeros((N, kernel.SCALARS), dtype=np.int32)
        self.bitgen = np.zeros((N, STATE_WORDS), dtype=np.uint64)
        layout, obs = game.layout, game.obs_layout
        config = np.zeros(kernel.CONFIG_SIZE, dtype=np.int64)
        config[[kernel.PLAYERS, kernel.SLOTS, kernel.WIDTH]] = P, T, layout.W
        config[[kernel.AT_DISMANTLE, kernel.AT_BUILD, kernel.AT_CHAOS, kernel.AT_STOP, kernel.AT_GIVE, kernel.AT_KEEP,
                kernel.AT_BOTTOM, kernel.AT_ASK, kernel.AT_DISCARD]] = (
            layout.DISMANTLE, layout.BUILD, layout.CHAOS, layout.STOP, layout.GIVE, layout.KEEP, layout.BOTTOM,
            layout.ASK, layout.DISCARD)
        config[[kernel.MAX_TURNS, kernel.FIRST_RANDOM, kernel.TOTAL, kernel.KEEP_FINAL]] = (
            game.max_turns, game.first == "random", total, keep_final_observation)
        config[[kernel.SEAT_BLOCK, kernel.O_DECK, kernel.O_OPEN, kernel.O_DISCARDS, kernel.O_PHASE, kernel.O_RUSH,
                kernel.O_PEEK, kernel.O_ACTIONS]] = (
            obs.seat_block, obs.o_deck, obs.o_open, obs.o_discards, obs.o_phase, obs.o_rush, obs.o_peek,
            obs.o_actions)
        tables = (np.array(layout.decode, dtype=np.int64),
                  np.array([v for v in range(1, 11) for _ in range(deck.copies[v])], dtype=np.int8),   # as dealt from
                  np.array(deck.sails, dtype=np.int64), np.array(deck.flags, dtype=np.int64),
                  np.array([-1 if sails is None else sails for sails in deck.bonus_sails], dtype=np.int64),
                  np.zeros(total, dtype=np.int64),   # the shuffle's scratch
                  config)
        state = (self.hands, self.seats, self.known, self.lacks, self.order, self.towers, self.deck, self.deck_known,
                 self.pools, self.holder, self.pile_log, self.pile_towers, self.scalars, self.bitgen)
        self._use_kernel(kernel.advance, (*self._kernel_outputs(), *state, *tables, self.final_observer),
                         play_out=kernel.play_out)
        self._state_arrays = state
        self._rule_tables = tables[0], tables[2], tables[3], tables[4], tables[6]   # what _apply reads
        # the kernel judges moves as the default heuristic does (the score lead)
        self._use_greedy_kernel(greedy_kernel.greedy_actions, Heuristic)

    def _greedy_arguments(self) -> tuple:
        """Work arrays, this batch's state arrays, a two-slot scratch batch's (slot 0 the dealt
        world, slot 1 a move on it) and the rule tables (see
        :mod:`~sky_envs.games.sky_towers.greedy_kernel`)."""
        game = self.game
        P, A, total = game.num_players, game.num_actions, game.deck.total
        scratch = SkyTowersBatch(game, 2, keep_final_observation=False)
        return (np.zeros(A, dtype=bool), np.zeros(A, dtype=np.int64), np.zeros(A, dtype=np.float64),
                np.zeros((2, P), dtype=np.float32), *(np.zeros(total, dtype=np.int64) for _ in range(3)),
                np.zeros((P, 3), dtype=np.int64), np.zeros(P, dtype=np.int64), np.zeros(P, dtype=np.float64),
                np.zeros(total, dtype=np.int64), *self._state_arrays, *scratch._state_arrays, *self._rule_tables)

    def set_state(self, slot: int, state: SkyTowersState) -> None:
        game = self.game
        if state.game.env_id != game.env_id:
            raise ValueError(f"a {state.game.env_id} position cannot go into a batch of {game.env_id}")
        for fact in ("num_players", "max_towers", "max_turns", "deck"):
            if getattr(state.game, fact) != getattr(game, fact):
                raise ValueError(f"slot {slot}: the position's game has {fact}={getattr(state.game, fact)!r} "
                                 f"but this batch's has {getattr(game, fact)!r}")
        if state.current_player < 0:
            raise ValueError(f"slot {slot}: the position is over; a slot holds a game in play")
        load_generator(self.bitgen[slot], state.rng, f"slot {slot}: the position's generator")
        P, T = game.num_players, game.max_towers
        self.hands[slot] = state.hands
        self.known[slot] = state.known
        self.lacks[slot] = state.lacks
        seats, towers = self.seats[slot], self.towers[slot]
        seats[:] = 0
        towers[:] = 0
        self.order[slot] = np.arange(T)
        logged_towers = logged_cards = 0
        for s in range(P):
            seats[s, [HAND_SIZE_F, SAILS, FLAGS, TENS, ACTION_UP, ROW_LEN]] = (
                state.hand_size[s], state.sails[s], state.flags[s], state.ten_towers[s], state.action_up[s],
                len(state.rows[s]))
            for place, tower in enumerate(state.rows[s]):
                towers[s, place, :len(tower)] = tower
                towers[s, place, TOWER_HEIGHT] = len(tower)
                towers[s, place, TOWER_SUM] = state.sums[s][place]
            for tower in state.piles[s]:
                self.pile_log[slot, logged_cards:logged_cards + len(tower)] = tower
                self.pile_towers[slot, logged_towers] = s * 32 + len(tower)
                logged_cards += len(tower)
                logged_towers += 1
            seats[s, PILE_CARDS] = sum(map(len, state.piles[s]))
            seats[s, PILE_TOWERS] = len(state.piles[s])
        size = len(state.deck)
        self.deck[slot, :size] = state.deck
        self.deck_known[slot, :size] = state.deck_known
        self.pools[slot, OPEN_POOL] = state.open
        self.pools[slot, DISCARD_POOL] = state.discards
        self.holder[slot] = state.holder
        facts = {TURNS: state.turns, TURN_OF: state.turn_of, ACTIONS_LEFT: state.actions_left, PHASE: state.phase,
                 RUSH_SLOT: state.rush_slot, GIVE_TARGET: state.give_target, COMPLETED: state.completed_turn,
                 END_SEAT: state.end_seat, FINAL: state.final, CUR: state.current_player, DECK_LEN: size,
                 LOGGED_TOWERS: logged_towers, LOGGED_CARDS: logged_cards}
        for field, value in facts.items():
            self.scalars[slot, field] = value
        self._refresh(slot)

    def get_state(self, slot: int) -> SkyTowersState:
        game = self.game
        P = game.num_players
        state = SkyTowersState(game, generator(self.bitgen[slot]))
        seats, towers, order, scalars = self.seats[slot], self.towers[slot], self.order[slot], self.scalars[slot]
        state.hands = self.hands[slot].tolist()
        state.hand_size = seats[:, HAND_SIZE_F].tolist()
        for s in range(P):
            places = order[s, :seats[s, ROW_LEN]].tolist()
            state.rows[s] = [towers[s, place, :towers[s, place, TOWER_HEIGHT]].tolist() for place in places]
            state.sums[s] = [int(towers[s, place, TOWER_SUM]) for place in places]
        logged = 0
        for entry in self.pile_towers[slot, :scalars[LOGGED_TOWERS]].tolist():
            owner, height = divmod(entry, 32)
            state.piles[owner].append(self.pile_log[slot, logged:logged + height].tolist())
            logged += height
        state.sails = seats[:, SAILS].tolist()
        state.flags = seats[:, FLAGS].tolist()
        state.ten_towers = seats[:, TENS].tolist()
        state.action_up = [bool(up) for up in seats[:, ACTION_UP]]
        size = int(scalars[DECK_LEN])
        state.deck = self.deck[slot, :size].tolist()
        state.deck_known = self.deck_known[slot, :size].tolist()
        state.open = self.pools[slot, OPEN_POOL].tolist()
        state.discards = self.pools[slot, DISCARD_POOL].tolist()
        state.holder = self.holder[slot].tolist()
        state.turns, state.turn_of = int(scalars[TURNS]), int(scalars[TURN_OF])
        state.actions_left, state.phase = int(scalars[ACTIONS_LEFT]), int(scalars[PHASE])
        state.rush_slot, state.give_target = int(scalars[RUSH_SLOT]), int(scalars[GIVE_TARGET])
        state.completed_turn, state.end_seat = int(scalars[COMPLETED]), int(scalars[END_SEAT])
        state.final, state.current_player = bool(scalars[FINAL]), int(scalars[CUR])
        state.known = self.known[slot].tolist()
        state.lacks = self.lacks[slot].tolist()
        return state
