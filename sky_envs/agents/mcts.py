"""Monte Carlo tree search (UCT with random rollouts) over the State protocol.

Each simulation starts from a world sampled from the deciding seat's point of view
(``state.sample_consistent``: the state itself for perfect-information games, a
determinisation for Sky Towers), walks the tree by actions, expands one node, plays the
rest of the game at random (in the game's compiled engine where it has one:
``GameState.playout_returns``) and backs up every seat's return. A node stores the summed
returns of all seats, so the seat to decide at any node picks the child best for itself:
this works for 2 to 4 seats and for turns made of several decisions.
"""

from __future__ import annotations

import math

import numpy as np

from sky_envs.agents.base import Agent
from sky_envs.core.state import GameState


class _Node:
    __slots__ = ("children", "visits", "value")

    def __init__(self, num_players: int):
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.value = np.zeros(num_players)


class MCTSAgent(Agent):
    """UCT search; ``simulations`` per decision, exploration constant ``c``.

    ``max_rollout`` caps a rollout's length (None: play to the end); a capped or truncated
    rollout counts as a draw.
    """

    name = "mcts"
    needs_state = True

    def __init__(self, simulations: int = 200, c: float = 1.4, max_rollout: int | None = None,
                 seed: int | None = None):
        super().__init__(seed)
        if simulations < 1:
            raise ValueError(f"simulations must be >= 1, got {simulations}")
        self.simulations = simulations
        self.c = c
        self.max_rollout = max_rollout

    def act(self, observation: dict, state: GameState | None = None) -> int:
        state = self._require_state(state)
        seat, players = state.current_player, state.num_players
        root = _Node(players)
        rng = self.rng
        for _ in range(self.simulations):
            world = state.sample_consistent(seat, rng)
            node, path = root, [root]
            while world.current_player >= 0:
                legal = world.legal_actions().tolist()
                untried = [a for a in legal if a not in node.children]
                if untried:
                    action = untried[rng.integers(len(untried))]
                    child = node.children[action] = _Node(players)
                    world.apply_unchecked(action)
                    path.append(child)
                    break
                player = world.current_player
                log_n = math.log(node.visits)
                best, best_score = -1, -math.inf
                for a in legal:
                    child = node.children[a]
                    score = child.value[player] / child.visits + self.c * math.sqrt(log_n / child.visits)
                    if score > best_score:
                        best, best_score = a, score
                world.apply_unchecked(best)
                node = node.children[best]
                path.append(node)
            returns = self._rollout(world, rng)
            for visited in path:
                visited.visits += 1
                visited.value += returns
        legal = state.legal_actions().tolist()
        visits = np.array([root.children[a].visits if a in root.children else -1 for a in legal])
        best = np.flatnonzero(visits == visits.max())
        return int(legal[best[rng.integers(best.size)]])

    def _rollout(self, world: GameState, rng: np.random.Generator) -> np.ndarray:
        return world.playout_returns(rng, self.max_rollout, consume=True)
