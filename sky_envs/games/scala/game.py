"""The Scala game: options, the published start position, and the wiring of position texts
and pictures into states (documented in ``sky_envs/scala_v0.py``)."""

from __future__ import annotations

from functools import partial

import numpy as np

from sky_envs.core.options import MAX_TURNS, choice_option, integer_option, reject_unknown_options
from sky_envs.core.state import Game
from sky_envs.games.scala.board import COLS, GRID_INDEX, NUM_CELLS, POSSIBLE_ACTIONS, ROWS, START
from sky_envs.games.scala.heuristic import ScalaHeuristic
from sky_envs.games.scala.observation import NUM_CHANNELS, observation_bases
from sky_envs.games.scala.render import render_rgb
from sky_envs.games.scala.rules import SPLIT_RULES
from sky_envs.games.scala.state import ScalaState
from sky_envs.games.scala.text import read_position


class ScalaGame(Game):
    """Validated options of one Scala configuration.

    ``split_rule``: ``"mover_loses"`` (the seed text: a move that leaves no mixed group, or
    two or more biggest mixed groups, loses) or ``"illegal"`` (such moves are illegal, and
    the moved stone's group is the one kept). ``max_turns``: plies before a draw.
    """

    name = "scala"
    heuristic = ScalaHeuristic()

    def __init__(self, split_rule: str = "mover_loses", max_turns: int = 300, **unknown):
        reject_unknown_options("scala_v0", unknown, ("split_rule", "max_turns"))
        self.split_rule = choice_option("split_rule", split_rule, SPLIT_RULES)
        self.max_turns = integer_option("max_turns", max_turns, 1, MAX_TURNS)
        self._options = {"split_rule": split_rule, "max_turns": self.max_turns}
        self.num_players = 2
        self.num_actions = NUM_CELLS * NUM_CELLS
        self.observation_shape = (ROWS, COLS, NUM_CHANNELS)
        self.observation_low, self.observation_high = 0.0, 1.0
        self.action_cells = tuple(int(i) for i in GRID_INDEX)  # action = from * 88 + to
        self.possible_actions = POSSIBLE_ACTIONS   # steps and chains of jumps: 2,420 of the 7,744
        self.observation_base = observation_bases()

    def new_initial_state(self, rng: np.random.Generator) -> ScalaState:
        return ScalaState(self, START[0], START[1], 0, rng)

    def batched_games(self, num_envs: int, keep_final_observation: bool = True):
        from sky_envs.games.scala.batched import ScalaBatch   # the game's compiled engine

        return ScalaBatch(self, num_envs, keep_final_observation)

    def greedy_engine(self):
        """None: on a plain state Scala's heuristic scores every move in one compiled call
        (``ScalaHeuristic.move_values``), about 10% quicker than copying the state into an
        engine's slot first; the engine's kernel plays greedy's moves on a vector env's slots
        (``ScalaBatch.greedy_actions``)."""
        return None

    def state_from_text(self, text: str, rng: np.random.Generator | None = None) -> ScalaState:
        return read_position(text, partial(ScalaState, self, rng=rng))

    def render_rgb(self, state: ScalaState) -> np.ndarray:
        return render_rgb(state)
