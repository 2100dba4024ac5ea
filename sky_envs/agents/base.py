"""What an agent is: something that picks a legal action for the seat to decide."""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from sky_envs.core.state import GameState


class Agent(ABC):
    """An agent chooses an action from an observation dict, optionally with the state.

    ``observation`` is what the env gives the deciding seat (``{"observation",
    "action_mask"}``). Search agents (greedy, MCTS) also need ``state``, the game state
    under the env (``env.unwrapped.game_state``); they only use what the deciding seat may
    know: hidden information is resampled through ``state.sample_consistent``.
    """

    name = "agent"
    needs_state = False

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Re-seed the agent's own randomness."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    @abstractmethod
    def act(self, observation: dict, state: GameState | None = None) -> int:
        """A legal action for the seat that ``observation`` belongs to."""

    def _require_state(self, state: GameState | None) -> GameState:
        if state is None:
            raise ValueError(f"the {self.name} agent searches the game: call act(observation, state) "
                             "with state = env.unwrapped.game_state")
        if state.current_player < 0:
            raise ValueError("the game is over: there is no decision to make")
        return state

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> int:
    """A uniformly random index where ``mask`` is true.

    An env's ``action_mask`` is int8, and numpy finds the nonzero entries of a bool array
    several times faster than of an int8 one (a large mask such as Scala's 7,744 entries
    costs more to scan than a game step), hence the cast first.
    """
    legal = np.asarray(mask, dtype=bool).ravel().nonzero()[0]
    if legal.size == 0:
        raise ValueError("the action mask has no legal action: this seat has no decision to make")
    return int(legal[rng.integers(legal.size)])
