"""A human player behind the :class:`~sky_envs.agents.base.Agent` interface.

The move comes from an ``ask`` callable (a terminal prompt, a scripted list, a web request
queue), so tournaments, the Gymnasium view and the play loop seat humans and agents the
same way:

>>> moves = iter(["e5-d4", "f5-f4"])
>>> human = HumanAgent(lambda state: next(moves))
"""

from __future__ import annotations

from collections.abc import Callable

from sky_envs.agents.base import Agent
from sky_envs.core.state import GameState, action_index


class HumanAgent(Agent):
    """Asks ``ask(state)`` for a move: the game's notation (``"e5-d4"``) or an action index.

    A mistyped or illegal answer is reported through ``tell(message)`` and asked again, up to
    ``max_tries`` times (then the last error is raised, so a script that runs dry cannot
    loop forever).
    """

    name = "human"
    needs_state = True

    def __init__(self, ask: Callable[[GameState], str | int], tell: Callable[[str], None] = print,
                 max_tries: int = 100, seed: int | None = None):
        super().__init__(seed)
        self.ask, self.tell, self.max_tries = ask, tell, max_tries

    def act(self, observation: dict, state: GameState | None = None) -> int:
        state = self._require_state(state)
        for attempt in range(self.max_tries):
            answer = self.ask(state)
            try:
                if isinstance(answer, str):
                    return state.string_to_action(answer)
                return state.check_legal(action_index(answer))
            except ValueError as error:
                if attempt == self.max_tries - 1:
                    raise
                self.tell(str(error))
        raise ValueError("max_tries must be >= 1")
