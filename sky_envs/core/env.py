"""One PettingZoo AEC env for every game that implements the State protocol.

``SkyEnv(game, strict=...)`` is the whole env; there is no wrapper chain:

* ``strict=True`` (what ``raw_env()`` returns) raises :class:`IllegalActionError` on an
  illegal action, naming the action, its meaning and why it is illegal.
* ``strict=False`` (what ``env()`` returns) behaves like PettingZoo's classic games wrapped
  in ``TerminateIllegalWrapper``, ``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper``:
  an illegal action warns and ends the game with -1 for the mover (0 for the others), an
  out-of-range action fails an assertion, and stepping, observing or rendering before
  ``reset`` is an error. Those checks are written inline because the stock wrappers cost
  more per step than a whole game step.

The state does the game logic, including skipping seats without a legal decision, so this
class only maps seats to agent names, keeps PettingZoo's bookkeeping and caches the legal
mask of the current position (it is needed by both ``observe`` and ``step``).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.env import AECIterable

from sky_envs.core.state import Game, GameState, IllegalActionError, action_index

RENDER_MODES = ("human", "ansi", "rgb_array")

#: ``infos[agent]`` in every env, at every step (P = seats)
INFO_KEYS = {
    "turn": "int: decisions taken since reset",
    "phase": "int: the kind of decision pending (documented per env; 0 in games with one kind)",
    "scores": "float32[P]: each seat's score by the game's count, as of reset, then final at the end",
    "winners": "int8[P]: 1 for each winning seat once the game is over, else 0 (all 0 on a max_turns cut)",
    "illegal_action": "int: the illegal action that ended the game (env() only), else -1",
}


class _AgentIterable(AECIterable):
    """``agent_iter()``'s iterable: PettingZoo's, each iteration a generator (resuming one
    costs less than a Python ``__next__`` call, and that is paid at every step)."""

    def __iter__(self):
        env, left = self.env, self.max_iter
        while env.agents and left > 0:
            left -= 1
            yield env.agent_selection


def _frozen(values, dtype) -> np.ndarray:
    """A read-only array: infos share it across agents and steps."""
    array = np.array(values, dtype=dtype)
    array.flags.writeable = False
    return array


class SkyEnv(AECEnv):
    """A PettingZoo ``AECEnv`` over any :class:`~sky_envs.core.state.Game`.

    ``env.unwrapped.game_state`` is the current :class:`GameState`; ``state.to_text()`` writes
    the position in the game's notation, and ``reset(options={"position": text})`` loads
    one. ``state()`` is the global state, in ``state_space`` (for centralised critics).

    ``infos[agent]`` has the same keys, shapes and numeric types from ``reset`` on, so that
    frameworks can preallocate storage for them (see :data:`INFO_KEYS`); every agent gets the
    same dict, a new one at each step (frameworks that keep infos by reference keep what
    they saw). ``scores`` is refreshed at ``reset`` and at the end only (a score count per
    move would cost some games as much as the move); ``env.unwrapped.game_state.info()``
    gives the current position's details in words and lists.
    """

    def __init__(self, game: Game, render_mode: str | None = None, strict: bool = True):
        super().__init__()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(
                f"render_mode={render_mode!r} is not supported: expected None or one of {RENDER_MODES}"
            )
        self.game = game
        self.render_mode = render_mode
        self.strict = strict
        self.metadata = {
            "name": game.env_id,
            "render_modes": list(RENDER_MODES),
            "is_parallelizable": False,
            "render_fps": 2,
        }
        self.possible_agents = [f"player_{i}" for i in range(game.num_players)]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        n = game.num_actions
        obs_box = spaces.Box(
            low=game.observation_low,
            high=game.observation_high,
            shape=game.observation_shape,
            dtype=np.float32,
        )
        self._observation_space = spaces.Dict(
            {"observation": obs_box, "action_mask": spaces.Box(0, 1, shape=(n,), dtype=np.int8)}
        )
        self._action_space = spaces.Discrete(n)
        low, high = game.state_bounds()
        self.state_space = spaces.Box(low=low, high=high, dtype=np.float32)
        self.observation_spaces = {a: self._observation_space for a in self.possible_agents}
        self.action_spaces = {a: self._action_space for a in self.possible_agents}
        self._num_actions = n
        self._no_moves = np.zeros(n, dtype=np.int8)
        self._no_legal = _frozen(self._no_moves, bool)   # the mask once the game is over
        self._rng: np.random.Generator | None = None
        self.game_state: GameState | None = None
        self._mask: np.ndarray | None = None
        self._turn = 0
        self._nobody = _frozen([0] * game.num_players, np.int8)
        # infos' values that change only at reset and at the end; each step copies this
        self._info_base: dict[str, Any] = {}

    # ----------------------------------------------------------------- spaces
    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_space

    # ------------------------------------------------------------------ reset
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None or self._rng is None:
            self._rng = np.random.default_rng(seed)
        unknown = set(options or {}) - {"position"}
        if unknown:  # a warning, not an error: PettingZoo's api_test passes arbitrary options
            warnings.warn(f"ignoring unknown reset option(s) {sorted(unknown)}: the only reset option is 'position'")
        position = (options or {}).get("position")
        if position is None:
            self.game_state = self.game.new_initial_state(self._rng)
        else:
            if not isinstance(position, str):
                raise ValueError(
                    f"options['position'] must be a position text (str), got {type(position).__name__}"
                )
            self.game_state = self.game.state_from_text(position, rng=self._rng)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self._turn = 0
        self._info_base = {"turn": 0, "phase": 0, "scores": _frozen(self.game_state.score_vector(), np.float32),
                           "winners": self._nobody, "illegal_action": -1}
        self.infos = {}
        self._fill_infos()
        self.agent_selection = self.possible_agents[0]  # kept if the position is already over
        self._after_change()
        if self.game_state.is_over():
            self._finish()

    # ------------------------------------------------------------------- step
    def step(self, action: int | None) -> None:
        """Play ``action`` (an int, a numpy integer or a 0-d integer array) for the agent to act.

        Once every agent has taken its dead step the game is over: like PettingZoo's
        ``OrderEnforcingWrapper``, any further step only warns. Non-integer actions raise
        ``IllegalActionError`` (``raw_env``) or fail the action-space assertion (``env``).
        """
        if self.game_state is None:
            raise AssertionError("reset() needs to be called before step.")
        if not self.agents:
            warnings.warn("step() called after all agents are terminated or truncated. Should reset() first.",
                          stacklevel=2)
            return
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        n = self._num_actions
        if type(action) is not int:  # plain ints, the common case, skip these checks
            if self.strict:
                action = action_index(action)
            else:  # AssertOutOfBoundsWrapper: what Discrete(n).contains accepts
                assert self._action_space.contains(action), f"action {action!r} is outside the action space Discrete({n})"
                action = int(action)
        if not 0 <= action < n:
            # env(): AssertOutOfBoundsWrapper's assertion; raw_env(): IllegalActionError
            assert self.strict, f"action {action!r} is outside the action space Discrete({n})"
            self._illegal(agent, action)
            return
        if not self._mask[action]:
            self._illegal(agent, action)
            return
        self._cumulative_rewards[agent] = 0
        state = self.game_state
        state.apply_unchecked(action)
        self._turn += 1
        player = state.current_player
        if player < 0:
            self._mask = self._no_legal
            self._finish()
            self._accumulate_rewards()
            return
        # _after_change's common case, inline: this is the hot path
        self._mask = state.legal_mask()
        self.agent_selection = self.possible_agents[player]
        self._fill_infos()

    def _fill_infos(self) -> None:
        info = self._info_base.copy()   # a new dict per step: frameworks may keep the last one
        info["turn"] = self._turn
        info["phase"] = self.game_state.phase_index()
        infos = self.infos
        for agent in self.agents:
            infos[agent] = info

    def _illegal(self, agent: str, action: int) -> None:
        state = self.game_state
        if 0 <= action < self.game.num_actions:
            why = f"action {action} ({state.describe_action(action)}) is illegal for {agent}: {state.illegal_reason(action)}"
        else:
            why = f"action {action} is out of range: expected 0 <= action < {self.game.num_actions}"
        if self.strict:
            raise IllegalActionError(why)
        warnings.warn(f"Illegal move made, game terminating with current player losing. {why}", stacklevel=3)
        self._cumulative_rewards[agent] = 0
        self.rewards = {a: 0 for a in self.agents}
        self.rewards[agent] = -1
        self.terminations = {a: True for a in self.agents}
        self.truncations = {a: True for a in self.agents}
        self._info_base["illegal_action"] = action
        self._fill_infos()
        self._mask = self._no_legal
        self._accumulate_rewards()

    def _after_change(self) -> None:
        player = self.game_state.current_player
        if player >= 0:
            self._mask = self.game_state.legal_mask()
            self.agent_selection = self.possible_agents[player]
        else:
            self._mask = self._no_legal

    def _finish(self) -> None:
        """Fill rewards, terminations/truncations and infos once the state is over."""
        state = self.game_state
        truncated = not state.is_terminal()
        returns = np.zeros(self.num_agents) if truncated else state.returns()
        self._info_base["scores"] = _frozen(state.score_vector(), np.float32)
        if not truncated:  # a max_turns cut is a draw with no winner, in every game
            winners = np.zeros(self.num_agents, dtype=np.int8)
            winners[state.winners()] = 1
            winners.flags.writeable = False
            self._info_base["winners"] = winners
        self._fill_infos()
        for agent in self.agents:
            self.rewards[agent] = float(returns[self._seat[agent]])
            if truncated:
                self.truncations[agent] = True
            else:
                self.terminations[agent] = True

    # ---------------------------------------------------------------- observe
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if self.game_state is None:
            raise AssertionError("reset() needs to be called before observe.")
        seat = self._seat[agent]
        state = self.game_state
        if seat == state.current_player:
            mask = self._mask.astype(np.int8)   # a new array: callers may edit theirs
        else:
            mask = self._no_moves.copy()
        return {"observation": state.observation(seat), "action_mask": mask}

    def agent_iter(self, max_iter: int = 2**63) -> AECIterable:
        return _AgentIterable(self, max_iter)

    def last(self, observe: bool = True) -> tuple[dict[str, np.ndarray] | None, float, bool, bool, dict[str, Any]]:
        """AECEnv.last, with ``observe`` called directly (one call less per step)."""
        agent = self.agent_selection
        assert agent is not None
        return (self.observe(agent) if observe else None, self._cumulative_rewards[agent],
                self.terminations[agent], self.truncations[agent], self.infos[agent])

    def state(self) -> np.ndarray:
        """The global state (in ``state_space``): every seat's observation and who decides;
        see :meth:`GameState.global_observation`."""
        if self.game_state is None:
            raise AssertionError("reset() needs to be called before state.")
        return self.game_state.global_observation()

    # ----------------------------------------------------------------- render
    def render(self) -> None | np.ndarray | str:
        if self.game_state is None:
            raise AssertionError("reset() needs to be called before render.")
        if self.render_mode is None:
            warnings.warn("You are calling render() without a render_mode; pass render_mode= to env().")
            return None
        if self.render_mode == "rgb_array":
            return self.game.render_rgb(self.game_state)
        text = self.game_state.render_text()
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        pass

    def __repr__(self) -> str:
        return f"<SkyEnv {self.game.env_id} strict={self.strict}>"
