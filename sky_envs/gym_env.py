"""A single-agent Gymnasium view of any game, for Gymnasium-based RL frameworks.

``gymnasium.make("sky_envs/sky_scrapers-v0", opponent="greedy", seat="random")`` (after
``import sky_envs``) or ``SingleAgentEnv("sky_scrapers_v0", ...)``: the learner plays one
seat, the opponents act inside ``step``, and the reward is the learner's. The observation
is the learner's observation tensor; the legal actions come from ``action_masks()`` (the
method sb3-contrib's ``MaskablePPO`` calls, also through ``SubprocVecEnv``) and
``info["action_mask"]``, and ``env.action_space.sample()`` draws one of them (so
Gymnasium's and SB3's ``check_env`` pass). ``gymnasium.make`` returns the env itself, with
no wrapper to hide ``action_masks()``: it enforces reset-before-step on its own.
"""

from __future__ import annotations

import warnings
import weakref
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from sky_envs.core.options import integer_option
from sky_envs.core.state import GameState, IllegalActionError, action_index

SEATS = ("random",)


def seat_option(seat: int | str, num_players: int, names: tuple[str, ...]) -> int | str:
    """``seat`` checked: one of ``names`` (``"random"``...) or a seat index; ``ValueError`` otherwise."""
    if isinstance(seat, str) and seat in names:
        return seat
    try:
        return integer_option("seat", seat, 0, num_players - 1)
    except ValueError:
        expected = " or ".join(repr(name) for name in names)
        raise ValueError(f"seat={seat!r} is not valid: expected {expected} or a seat index 0..{num_players - 1}") from None


def make_opponents(opponent: Any, env_id: str, options: dict, num_players: int) -> list:
    """One agent per seat other than the learner's, in seat order after it: ``opponent`` is
    an agent spec for all of them (anything ``sky_envs.agents.make_agent`` accepts) or a list
    with one spec per other seat."""
    from sky_envs.agents import make_agent

    specs = list(opponent) if isinstance(opponent, (list, tuple)) else [opponent] * (num_players - 1)
    if len(specs) != num_players - 1:
        raise ValueError(f"opponent needs one spec per other seat ({num_players - 1}), got {len(specs)}")
    return [make_agent(spec, env_id=env_id, env_options=options) for spec in specs]


class LegalActionSpace(spaces.Discrete):
    """``Discrete(num_actions)`` whose ``sample()`` without a mask draws a legal action.

    Environment checkers (Gymnasium's and SB3's ``check_env``) and random-agent loops call
    ``env.action_space.sample()``; here that gives one of the learner's legal actions, so
    they work with ``illegal_action="raise"``. An explicit ``mask`` or ``probability`` is
    honoured as in ``Discrete``. It is still a ``Discrete`` (equal to ``Discrete(n)``) for
    every framework; a pickled copy (a ``SubprocVecEnv``'s) samples like a plain one.
    """

    def __init__(self, n: int, env: SingleAgentEnv, seed: int | None = None):
        super().__init__(n, seed=seed)
        self._env = weakref.ref(env)

    def sample(self, mask=None, probability=None):
        env = self._env() if self._env is not None else None
        if mask is None and probability is None and env is not None:
            legal = env.action_masks()
            if legal.any():
                return super().sample(mask=legal.astype(np.int8))
        return super().sample(mask=mask, probability=probability)

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_env"] = None  # the env stays behind: a weak reference does not pickle
        return state


class SingleAgentEnv(gymnasium.Env):
    """The learner's seat against opponents that act inside ``step``.

    ``opponent``: an agent spec for every other seat (``"random"``, ``"greedy"``, ``"mcts"``,
    an :class:`~sky_envs.agents.Agent`, or anything ``sky_envs.agents.make_agent`` accepts),
    or a list with one spec per other seat. ``seat``: the learner's seat index, or
    ``"random"`` for a new seat each episode. ``illegal_action``: ``"raise"`` (a
    ``ValueError`` naming the action and why) or ``"lose"`` (like PettingZoo's classic
    games: a warning, the episode ends with reward -1), for frameworks that cannot mask.
    A game that ends before the learner's first decision is dealt again.

    ``step`` takes an ``int``, a numpy integer or a 0-d integer array (what SB3's
    ``predict`` returns); anything else (``2.7``, ``"3"``, ``None``, a bool, an array of
    another shape) raises ``ValueError`` whatever ``illegal_action`` says: nothing is truncated.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 2}

    def __init__(self, env_id: str, opponent: Any = "random", seat: int | str = "random",
                 render_mode: str | None = None, illegal_action: str = "raise", **options: Any):
        from sky_envs.core.registry import canonical_id, make_game

        self.env_id = canonical_id(env_id)
        self.game = make_game(self.env_id, **options)
        players = self.game.num_players
        seat = seat_option(seat, players, SEATS)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode={render_mode!r} is not supported: expected None or one of {self.metadata['render_modes']}")
        if illegal_action not in ("raise", "lose"):
            raise ValueError(f"illegal_action={illegal_action!r} is not valid: expected 'raise' or 'lose'")
        self.illegal_action = illegal_action
        self.opponents = make_opponents(opponent, self.env_id, options, players)
        self.seat_option = seat
        self.render_mode = render_mode
        self.observation_space = spaces.Box(self.game.observation_low, self.game.observation_high,
                                            shape=self.game.observation_shape, dtype=np.float32)
        self.action_space = LegalActionSpace(self.game.num_actions, self)
        self.game_state: GameState | None = None
        self.seat = 0

    # ----------------------------------------------------------------- gym API
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        for k, agent in enumerate(self.opponents):  # every episode: pools pick a new member here
            agent.reset(seed=None if seed is None else seed + 1 + k)
        position = (options or {}).get("position")
        while True:
            self.seat = int(self.np_random.integers(self.game.num_players)) if self.seat_option == "random" else int(self.seat_option)
            if position is None:
                self.game_state = self.game.new_initial_state(self.np_random)
            else:
                self.game_state = self.game.state_from_text(position, rng=self.np_random)
            self._play_opponents()
            if self.game_state.current_player == self.seat or position is not None:
                break
        return self._observation(), self._info()

    def step(self, action):
        state = self.game_state
        if state is None:
            raise AssertionError("reset() needs to be called before step (or after an episode ended by an illegal action).")
        if state.current_player != self.seat:
            raise ValueError("the episode is over: call reset()")
        action = action_index(action)  # not an integer: a ValueError, whatever illegal_action says
        try:
            state.apply(action)
        except IllegalActionError as error:
            if self.illegal_action == "raise":
                raise
            warnings.warn(f"Illegal move made, episode ending with the learner losing. {error}", stacklevel=2)
            self.game_state = None
            return np.zeros(self.observation_space.shape, np.float32), -1.0, True, False, {"illegal_action": str(error), "seat": self.seat, "action_mask": np.zeros(self.game.num_actions, dtype=bool)}
        self._play_opponents()
        terminated = state.is_terminal()
        truncated = state.is_truncated()
        reward = float(state.returns()[self.seat]) if terminated else 0.0
        return self._observation(), reward, terminated, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        if self.game_state is None or self.game_state.current_player != self.seat:
            return np.zeros(self.game.num_actions, dtype=bool)
        return self.game_state.legal_mask().copy()

    def render(self):
        if self.render_mode == "rgb_array":
            return self.game.render_rgb(self.game_state)
        if self.render_mode == "ansi":
            return self.game_state.render_text()
        return None

    # ---------------------------------------------------------------- helpers
    def _play_opponents(self) -> None:
        state = self.game_state
        while state.current_player >= 0 and state.current_player != self.seat:
            player = state.current_player
            agent = self.opponents[(player - self.seat - 1) % self.game.num_players]
            observation = {"observation": state.observation(player),
                           "action_mask": state.legal_mask().astype(np.int8)}
            state.apply(agent.act(observation, state))

    def _observation(self) -> np.ndarray:
        return self.game_state.observation(self.seat)

    def _info(self) -> dict:
        info = dict(self.game_state.info())
        info["seat"] = self.seat
        info["action_mask"] = self.action_masks()
        return info
