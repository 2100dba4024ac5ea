"""One game between humans and agents: the single path the terminal and the web front ends drive.

>>> session = PlaySession("scala_v0", opponent="greedy", human_seats=[0], seed=1)
>>> session.play("e5-d4")          # the human's move, in the game's notation
>>> session.advance()              # the agents answer until a human must decide again

With no human seat and one agent spec per seat it is a game to watch:

>>> session = PlaySession("scala_v0", opponent=["greedy", "mcts@50"], human_seats=[], seed=1)
>>> session.advance(limit=1)       # one agent move at a time, at the pace of the viewer
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from sky_envs.agents import Agent, make_agent
from sky_envs.agents.human import HumanAgent
from sky_envs.core.registry import canonical_id, make_game
from sky_envs.core.state import GameState

HUMAN = "human"


@dataclass(frozen=True)
class Move:
    """One decision of the game: who (``by``: ``"human"`` or the agent's name) played what."""

    seat: int
    action: int
    text: str
    by: str


def observation_of(state: GameState) -> dict:
    """What the env would give the seat to move: its observation and action mask."""
    seat = state.current_player
    return {"observation": state.observation(seat), "action_mask": state.legal_mask().astype(np.int8)}


class PlaySession:
    """A game of ``env_id`` where ``human_seats`` decide through :meth:`play` and every other
    seat is played by ``opponent``: any :func:`~sky_envs.agents.make_agent` spec or agent, one
    agent for all those seats; or a list of specs, one per seat no human plays, in seat order
    (one agent each, seeded ``seed + seat``), e.g. two agents to watch with no human seat.

    ``position`` starts from a position text instead of a seeded set-up. Agents never move on
    their own: call :meth:`advance` (the front end decides when, e.g. to show each move).
    """

    def __init__(self, env_id: str, options: dict | None = None,
                 opponent: str | Agent | Sequence[str | Agent] = "random",
                 human_seats: Sequence[int] = (0,), seed: int | None = None, position: str | None = None):
        self.env_id = canonical_id(env_id)
        self.options = dict(options or {})
        self.game = make_game(self.env_id, **self.options)
        self.num_players = self.game.num_players
        seats = sorted({int(s) for s in human_seats})
        if any(not 0 <= s < self.num_players for s in seats):
            raise ValueError(f"human seats {list(human_seats)} are not valid: expected seats in 0..{self.num_players - 1}")
        self.human_seats = tuple(seats)
        self.seed = seed
        self._rng = np.random.default_rng(seed)
        agent_seats = [seat for seat in range(self.num_players) if seat not in self.human_seats]
        # humans sit behind the Agent interface too: their agent answers with the move given to play()
        human = HumanAgent(lambda state: self._typed, max_tries=1)
        self.agents: list[Agent] = [human] * self.num_players
        #: who plays each seat, as the front ends name it: "human" or the agent's spec
        self.seat_names = [HUMAN] * self.num_players
        if isinstance(opponent, (list, tuple)):
            if len(opponent) != len(agent_seats):
                raise ValueError(f"{len(opponent)} agent specs {list(opponent)} for {len(agent_seats)} seat(s) "
                                 f"played by agents ({', '.join(f'player_{s}' for s in agent_seats) or 'none'}): "
                                 "give one spec per such seat, in seat order")
            for seat, spec in zip(agent_seats, opponent):
                self.agents[seat] = make_agent(spec, seed=None if seed is None else seed + seat, env_id=self.env_id,
                                               env_options=self.options)
                self.seat_names[seat] = spec if isinstance(spec, str) else self.agents[seat].name
            # hints come from the first agent (a random one when every seat is human)
            self.agent = self.agents[agent_seats[0]] if agent_seats else make_agent("random", seed=seed)
            self.opponent = " / ".join(self.seat_names[seat] for seat in agent_seats)
        else:
            self.agent = make_agent(opponent, seed=seed, env_id=self.env_id, env_options=self.options)
            self.opponent = opponent if isinstance(opponent, str) else self.agent.name
            for seat in agent_seats:
                self.agents[seat], self.seat_names[seat] = self.agent, self.opponent
        self._typed: str | int | None = None
        self.moves: list[Move] = []
        self._before: list[GameState] = []   # the state before each of ``moves``
        if position is None:
            self.state = self.game.new_initial_state(self._rng)
            self.start_text = self.state.to_text()
        else:
            self.load_position(position)

    # ------------------------------------------------------------------ status
    @property
    def is_over(self) -> bool:
        return self.state.current_player < 0

    @property
    def current_seat(self) -> int:
        return self.state.current_player

    @property
    def human_to_move(self) -> bool:
        return self.state.current_player in self.human_seats

    def legal_moves(self) -> list[tuple[int, str]]:
        """Every legal action of the seat to move with its notation, ascending by action."""
        state = self.state
        return [(int(a), state.action_to_string(int(a))) for a in state.legal_actions()]

    @property
    def scores(self) -> list[float]:
        """The final reward per seat (zeros until the game ends, and after a truncation)."""
        if self.state.is_terminal():
            return [float(r) for r in self.state.returns()]
        return [0.0] * self.num_players

    def result(self) -> str | None:
        """A one-line result once the game is over, else ``None``."""
        if not self.is_over:
            return None
        if not self.state.is_terminal():
            return f"draw: the game was cut at its turn limit after {len(self.moves)} moves"
        returns = self.scores
        best = max(returns)
        winners = [f"player_{s}" for s, r in enumerate(returns) if r == best]
        if len(winners) == self.num_players:
            return f"draw after {len(self.moves)} moves"
        return f"{' and '.join(winners)} {'wins' if len(winners) == 1 else 'win'} after {len(self.moves)} moves"

    # ------------------------------------------------------------------ moves
    def play(self, move: str | int) -> Move:
        """The human's move (notation text or an action index). A mistyped move raises
        ``ValueError``, an illegal one ``IllegalActionError``; either leaves the game as it was."""
        if self.is_over:
            raise ValueError(f"the game is over ({self.result()}): no move can be played")
        if not self.human_to_move:
            raise ValueError(f"player_{self.current_seat} is played by {self.opponent}, not by a human: "
                             "call advance() for the agents' moves")
        self._typed = move
        return self._apply(self._decide(), HUMAN)

    def advance(self, limit: int | None = None) -> list[Move]:
        """The agents' moves until a human must decide or the game is over (at most ``limit``
        moves when given, for a front end that shows them one by one)."""
        played = []
        while not self.is_over and not self.human_to_move and (limit is None or len(played) < limit):
            played.append(self._apply(self._decide(), self.agents[self.current_seat].name))
        return played

    def _decide(self) -> int:
        """The decision of the seat to move, from its agent (a human's: the move given to play())."""
        seat = self.current_seat
        state = self.state if seat in self.human_seats else self.state.clone()   # agents may not disturb the game
        return int(self.agents[seat].act(observation_of(state), state))

    @property
    def watching(self) -> bool:
        """True when no human plays: every seat is an agent."""
        return not self.human_seats

    def _apply(self, action: int, by: str) -> Move:
        move = Move(self.current_seat, action, self.state.action_to_string(action), by)
        before = self.state.clone()
        self.state.apply(action)
        self._before.append(before)
        self.moves.append(move)
        return move

    def last_decision(self) -> tuple[GameState, Move] | None:
        """The last move and the state it was played in, or ``None`` before the first move."""
        return (self._before[-1], self.moves[-1]) if self.moves else None

    def undo(self) -> bool:
        """Take back the last human move and the agents' answers to it; False if there is none."""
        for k in range(len(self.moves) - 1, -1, -1):
            if self.moves[k].by == HUMAN:
                self.state = self._before[k]
                del self.moves[k:], self._before[k:]
                return True
        return False

    def hint(self) -> tuple[int, str]:
        """What the opponent agent would play here, as (action, notation)."""
        if self.is_over:
            raise ValueError("the game is over: there is nothing to hint")
        action = int(self.agent.act(observation_of(self.state), self.state.clone()))
        return action, self.state.action_to_string(action)

    # ------------------------------------------------------------------ text
    def position_text(self) -> str:
        return self.state.to_text()

    def load_position(self, text: str) -> None:
        """Continue from a position text (``ValueError`` if it is not one); the move list restarts."""
        state = self.game.state_from_text(text, rng=self._rng)
        self.state, self.start_text = state, state.to_text()
        self.moves, self._before = [], []

    def render_text(self) -> str:
        return self.state.render_text()

    def render_rgb(self) -> np.ndarray:
        return self.game.render_rgb(self.state)
