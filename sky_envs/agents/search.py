"""PUCT search guided by a trained network (AlphaZero-style), over the State protocol.

Each simulation walks the tree from the root by ``Q + c * P * sqrt(N) / (1 + n)``, where
``P`` is the network's prior for an action, ``Q`` the mean value of its subtree for the
seat that chooses it and ``n`` its visit count, until it reaches a position the tree has not
seen; the network then gives that position's priors and value (no random rollout). A
finished game backs up its true returns. Where the game names the moves that win at once
(``state.winning_actions()``, perfect information only), a position that has one is valued
as the win it is and its priors go to those moves: the search sees a one-move win, and the
move that allows the opponent one, at the first visit instead of after the network has
learnt to guess it.

``rollout_weight`` λ > 0 mixes the network's value with the result of one playout from the
leaf, ``(1 - λ) v + λ z`` (AlphaGo's mixing; not where the value is a known win): where a
value head is still a poor judge, a playout's unbiased (if noisy) verdict adds what it
misses, at the price of a playout per simulation. ``rollout_policy`` says how the playout
moves (:mod:`~sky_envs.agents.playouts`): ``"random"``, or ``"greedy"`` where the game has
move values. :func:`search_setting_error` says which values these settings may take; a
checkpoint may record the ones its network plays best with (``metadata["search"]``).

``root="gumbel"`` searches as Gumbel AlphaZero instead (:mod:`~sky_envs.agents.gumbel`):
the root samples ``gumbel_k`` actions without replacement by Gumbel-top-k and spreads the
simulations over them by sequential halving, nodes below it choose deterministically by the
improved policy ``softmax(logits + sigma(completed Q))``, and the search ends on the best of
the most visited actions by ``g + logits + sigma(Q)`` (``SearchResult.action``) with the
improved policy as its output policy (``SearchResult.policy``): strong with a few dozen
simulations, where PUCT's visit counts say little, and a policy target that improves on the
network wherever the search looked. ``gumbel_scale`` scales the root's Gumbel noise (0: the
``gumbel_k`` likeliest actions, a deterministic search), ``c_scale`` weighs Q against the
logits. Everything else (seats, turns of several decisions, hidden information, the
solver, playouts) is searched as with the PUCT root.

With ``solver`` (MCTS-Solver, perfect-information games, whose moves have no chance) a
finished game's result is also a proof: a position is proven when one of its moves wins for
its chooser, or when every move is proven and the chooser takes the best. A descent that
reaches a proven position backs up its exact result and goes no deeper, a proven move's
exact value replaces its average, and a search whose root is proven ends early and puts
its count on the moves that achieve the proven result: endgame roots are solved in a few
simulations, so the search spends its time where the result is still open.

With ``exact_nodes`` N > 0 (perfect-information two-seat games) each root is first solved
exactly within N solver nodes (:class:`~sky_envs.agents.solver.MoveSolver`: the game's
compiled solver where it has one): an endgame solver, as game programs use. Where the root's
value is proven and some moves are proven to keep it, the search keeps only those: a proven
win is played at once (no simulations), a draw leaves the simulations to choose among the
moves proven to draw. Where every move keeps the value (a lost position, or one where all
moves draw), the search runs as without it: against an imperfect opponent some moves keep more
chances than others, and only the search tells them apart. The result still covers every
legal action (the pruned ones with no visits), so training targets say that they are not best.

Values are kept per seat, so a node's chooser is whoever decides there: this serves 2 to 4
seats and turns made of several decisions. The network's value is for the seat to decide
at the leaf; its teammates (``game.teams``: Golden Rush's teams mode) get the same value,
and every other seat is assumed to lose what it wins (with more than two sides, the
paranoid reduction). Games with hidden information (Sky Towers) are searched like the MCTS
baseline: every simulation starts from a world resampled from the deciding seat's view
(``state.sample_consistent``), so no hidden card is ever read; a node's actions are those
legal when it was first expanded, narrowed to the ones legal in each sampled world.

:class:`PUCTSearch` searches many positions in lockstep, one batched network call per
round, which is what makes self-play training affordable on a CPU; it needs only an
evaluator (any ``(observations, masks) -> (probabilities, values)``), so it knows nothing of
networks or checkpoints: :class:`~sky_envs.agents.policy.SearchAgent` plays a trained
network with it one position at a time.
"""

from __future__ import annotations

import math

import numpy as np

from sky_envs.agents.gumbel import (completed_q, halving_schedule, improved_policy, interior_choice, logits_of,
                                    root_choice, sigma)
from sky_envs.agents.playouts import PLAYOUTS, playout_error, playouts
from sky_envs.agents.solver import MoveSolver
from sky_envs.core.state import GameState, hides_information


#: the settings of :class:`PUCTSearch` a checkpoint may record under ``metadata["search"]``
#: (the ones its network plays best with, :mod:`~sky_envs.agents.checkpoint`)
SEARCH_SETTINGS = ("c_puct", "rollout_weight", "rollout_policy", "leaves_per_call", "solver", "root", "gumbel_k",
                   "gumbel_scale", "c_scale", "exact_nodes")
#: how the root spends the simulations: PUCT, or Gumbel-top-k with sequential halving
ROOTS = ("puct", "gumbel")


def search_setting_error(name: str, value) -> str | None:
    """Why ``value`` cannot be the search setting ``name`` (one of :data:`SEARCH_SETTINGS`),
    or None where it can: the one check of these values, for :class:`PUCTSearch`'s arguments,
    a checkpoint's ``metadata["search"]`` and training configs. Whether a game has greedy playouts is checked when it is searched
    (:func:`~sky_envs.agents.playouts.playout_error`)."""
    number = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if name == "c_puct":
        return None if number and value > 0 else f"c_puct must be a positive number, got {value!r}"
    if name == "rollout_weight":
        return None if number and 0 <= value <= 1 else f"rollout_weight must be a number in [0, 1], got {value!r}"
    if name == "rollout_policy":
        return None if value in PLAYOUTS else f"rollout_policy must be one of {', '.join(PLAYOUTS)}, got {value!r}"
    if name == "leaves_per_call":
        whole = isinstance(value, (int, np.integer)) and not isinstance(value, bool)
        return None if whole and value >= 1 else f"leaves_per_call must be a positive integer, got {value!r}"
    if name == "solver":
        return None if isinstance(value, bool) else f"solver must be true or false, got {value!r}"
    if name == "root":
        return None if value in ROOTS else f"root must be one of {', '.join(ROOTS)}, got {value!r}"
    if name == "gumbel_k":
        whole = isinstance(value, (int, np.integer)) and not isinstance(value, bool)
        return None if whole and value >= 1 else f"gumbel_k must be a positive integer, got {value!r}"
    if name == "gumbel_scale":
        return None if number and value >= 0 else f"gumbel_scale must be a number >= 0, got {value!r}"
    if name == "c_scale":
        return None if number and value > 0 else f"c_scale must be a positive number, got {value!r}"
    if name == "exact_nodes":
        whole = isinstance(value, (int, np.integer)) and not isinstance(value, bool)
        return None if whole and value >= 0 else f"exact_nodes must be an integer >= 0 (0: off), got {value!r}"
    return f"{name!r} is no search setting: expected one of {', '.join(SEARCH_SETTINGS)}"


def recorded_setting_error(name: str, value) -> str | None:
    """Why ``name: value`` cannot be in a checkpoint's ``metadata["search"]``, or None where it
    can: a search setting, or ``"gumbel"`` mapping settings (no root) that replace the others
    where the search has the Gumbel root (:func:`recorded_settings`)."""
    if name != "gumbel":
        return search_setting_error(name, value)
    if not isinstance(value, dict) or "root" in value or "gumbel" in value:
        return "'gumbel' must map search settings other than root to their values"
    return next((error for key, setting in value.items()
                 if (error := search_setting_error(key, setting)) is not None), None)


def recorded_settings(recorded: dict, root: str | None = None) -> dict:
    """The settings a checkpoint's ``metadata["search"]`` records for a search with ``root``
    (None: the root it records, else PUCT's): its settings, and with the Gumbel root those
    under ``"gumbel"`` over them (a Gumbel search of a few dozen simulations may want other
    playouts or fewer root actions than a PUCT search of hundreds)."""
    settings = {name: value for name, value in recorded.items() if name != "gumbel"}
    if (root or settings.get("root", "puct")) == "gumbel":
        settings.update(recorded.get("gumbel", {}))
    return settings


def seat_values(value: float, player: int, teams: np.ndarray) -> np.ndarray:
    """Every seat's value of a position the network values ``value`` for ``player``: the
    same for the seats of its team (``teams``: each seat's team, ``game.teams``), the
    opposite for every other seat."""
    return np.where(teams == teams[player], value, -value)


class SearchResult(tuple):
    """One position's search. It unpacks as ``(actions, visits, value)``: the legal actions,
    their visit counts and the root value for the seat to decide. ``policy`` is the
    search's policy over ``actions`` (the visit shares; with the Gumbel root the improved
    policy), ``action`` the Gumbel root's choice (None with the PUCT root, whose caller
    picks among the most visited)."""

    def __new__(cls, actions: np.ndarray, visits: np.ndarray, value: float, policy: np.ndarray,
                action: int | None = None):
        result = super().__new__(cls, (actions, visits, value))
        result.policy, result.action = policy, action
        return result

    @property
    def actions(self) -> np.ndarray:
        return self[0]

    @property
    def visits(self) -> np.ndarray:
        return self[1]

    @property
    def value(self) -> float:
        return self[2]


class Node:
    __slots__ = ("player", "actions", "prior", "visits", "value_sum", "children", "value", "state", "returns", "exact",
                 "solved", "logits", "halving")

    def __init__(self, player: int, actions: np.ndarray, prior: np.ndarray, value: float,
                 state: GameState | None = None, returns: np.ndarray | None = None, exact: bool = False):
        self.player = player
        self.exact = exact  # ``value`` is known, not guessed (a one-move win)
        self.state = state  # perfect information: the position, so a descent replays no moves
        self.returns = returns  # a finished game, or one the solver proved: every seat's reward
        self.solved = None  # with the solver: each action's proven value for ``player`` (nan: not proven)
        self.actions = actions
        self.prior = prior
        self.visits = np.zeros(actions.size)
        self.value_sum = np.zeros(actions.size)
        self.children: list[Node | None] = [None] * actions.size
        self.value = value  # the network's value of this position for ``player``: first-play urgency
        self.logits = None  # Gumbel search: the log priors, computed when first needed
        self.halving = None  # a Gumbel root: (Gumbel noise, halving schedule, phase starts)

    def select(self, c_puct: float, allowed: np.ndarray | None) -> int:
        n = self.visits
        q = np.where(n > 0, self.value_sum / np.maximum(n, 1), self.value)
        if self.solved is not None:
            q = np.where(np.isnan(self.solved), q, self.solved)
        score = q + c_puct * self.prior * (math.sqrt(n.sum() + 1) / (1 + n))
        if allowed is not None:
            score = np.where(allowed, score, -np.inf)
        return int(score.argmax())

    # Gumbel search (sky_envs.agents.gumbel)
    def completed_q(self) -> np.ndarray:
        return completed_q(self.prior, self.value, self.visits, self.value_sum, self.solved)

    def log_prior(self) -> np.ndarray:
        if self.logits is None:
            self.logits = logits_of(self.prior)
        return self.logits

    def improved_policy(self, c_scale: float) -> np.ndarray:
        return improved_policy(self.log_prior(), self.completed_q(), self.visits, c_scale)

    def gumbel_score(self, c_scale: float) -> np.ndarray:
        """A Gumbel root's ``g + logits + sigma(completed Q)``."""
        return self.halving[0] + self.log_prior() + sigma(self.completed_q(), self.visits, c_scale)

    def select_improved(self, c_scale: float, allowed: np.ndarray | None) -> int:
        return interior_choice(self.improved_policy(c_scale), self.visits, allowed)

    def select_halving(self, c_scale: float, allowed: np.ndarray | None) -> int:
        _, schedule, _ = self.halving
        considered_visit = schedule[min(int(self.visits.sum()), schedule.size - 1)]
        return root_choice(self.gumbel_score(c_scale), self.visits, considered_visit, allowed)


class PUCTSearch:
    """``simulations`` simulations per position, any number of positions at once.

    ``evaluator(observations, masks) -> (probabilities, values)`` is the network
    (:class:`~sky_envs.agents.policy.NetworkEvaluator`). With ``root_noise`` (self-play
    training with the PUCT root) the root priors are mixed with Dirichlet noise,
    ``noise_fraction`` of it, concentration ``noise_alpha`` spread over the legal actions;
    the Gumbel root (``root="gumbel"``) explores by its Gumbel noise instead.
    """

    def __init__(self, evaluator, simulations: int = 200, c_puct: float = 1.5, rng: np.random.Generator | None = None,
                 root_noise: bool = False, noise_fraction: float = 0.25, noise_alpha: float = 10.0,
                 leaves_per_call: int = 1, rollout_weight: float = 0.0, rollout_policy: str = "random",
                 solver: bool = False, root: str = "puct", gumbel_k: int = 16, gumbel_scale: float = 1.0,
                 c_scale: float = 1.0, exact_nodes: int = 0):
        if not isinstance(simulations, (int, np.integer)) or isinstance(simulations, bool) or simulations < 1:
            raise ValueError(f"simulations must be a positive integer, got {simulations!r}")
        for name, value in (("c_puct", c_puct), ("rollout_weight", rollout_weight), ("rollout_policy", rollout_policy),
                            ("leaves_per_call", leaves_per_call), ("solver", solver), ("root", root),
                            ("gumbel_k", gumbel_k), ("gumbel_scale", gumbel_scale), ("c_scale", c_scale),
                            ("exact_nodes", exact_nodes)):
            if (error := search_setting_error(name, value)) is not None:
                raise ValueError(error)
        if root == "gumbel" and root_noise:
            raise ValueError("root_noise mixes Dirichlet noise into the PUCT root's priors; the Gumbel root explores "
                             "by its Gumbel noise (gumbel_scale): leave root_noise off")
        self.leaves_per_call = int(leaves_per_call)
        self.rollout_weight = float(rollout_weight)
        self.rollout_policy = rollout_policy
        self.solver = solver
        self.root = root
        self.gumbel_k = int(gumbel_k)
        self.gumbel_scale = float(gumbel_scale)
        self.c_scale = float(c_scale)
        self.exact = MoveSolver(int(exact_nodes)) if exact_nodes else None
        self.evaluate = evaluator
        self.simulations = int(simulations)
        self.c_puct = float(c_puct)
        self.rng = rng if rng is not None else np.random.default_rng()
        self.root_noise = root_noise
        self.noise_fraction = noise_fraction
        self.noise_alpha = noise_alpha

    def run(self, states: list[GameState]) -> list[SearchResult]:
        """For each position its :class:`SearchResult`: it unpacks as ``(legal actions,
        visit counts, root value for the seat to decide)``."""
        if any(state.current_player < 0 for state in states):
            raise ValueError("search needs positions with a decision to make: a game here is over")
        if self.rollout_weight and (error := playout_error(self.rollout_policy, states[0].game)) is not None:
            raise ValueError(error)
        hidden = hides_information(states[0])
        if self.solver and hidden:
            raise ValueError(f"the solver proves results of perfect-information games; {states[0].game.name} hides "
                             "information, so a search there has no proven result: leave solver off")
        roots = self._expand(states, keep_states=not hidden)
        legal = [root.actions for root in roots]
        if self.exact is not None and not hidden:
            for state, root in zip(states, roots):
                solved = self.exact.best_moves(state)
                if solved is not None:
                    self._keep_best(root, *solved)
        if self.root_noise:
            for root in roots:
                if root.actions.size > 1:
                    noise = self.rng.dirichlet(np.full(root.actions.size, self.noise_alpha / root.actions.size))
                    root.prior = (1 - self.noise_fraction) * root.prior + self.noise_fraction * noise
        if self.root == "gumbel":
            for root in roots:
                gumbel = (self.rng.gumbel(size=root.actions.size) * self.gumbel_scale if self.gumbel_scale
                          else np.zeros(root.actions.size))
                root.halving = (gumbel, *halving_schedule(min(self.gumbel_k, root.actions.size), self.simulations))
        done = np.zeros(len(roots), dtype=np.int64)
        while True:
            leaves = [0 if root.returns is not None else self._round(root, int(d)) for root, d in zip(roots, done)]
            if not any(leaves):
                break
            self._simulate(states, roots, hidden, leaves)
            done += leaves
        return [self._widened(self._result(root), actions) for root, actions in zip(roots, legal)]

    @staticmethod
    def _keep_best(root: Node, best: float, keep: np.ndarray) -> None:
        """The exact endgame: the root's proven value ``best`` (for its chooser) and the moves
        proven to keep it (``keep``, a mask over the root's actions) narrow ``root`` to those
        moves; a proven win needs no simulation."""
        if keep.all():
            if best < 1.0:
                return   # every move loses (or draws): the search looks for the best practical chances
        else:
            prior = root.prior[keep]
            root.actions = root.actions[keep]
            root.prior = prior / prior.sum() if prior.sum() > 0 else np.full(prior.size, 1.0 / prior.size)
            root.visits, root.value_sum = root.visits[keep], root.value_sum[keep]
            root.children = [None] * root.actions.size
        if best >= 1.0:  # no return beats a win: proven, played without searching
            root.solved = np.full(root.actions.size, best)
            root.returns = np.full(2, -best)
            root.returns[root.player] = best

    @staticmethod
    def _widened(result: SearchResult, actions: np.ndarray) -> SearchResult:
        """``result`` over every legal action ``actions`` (those the exact endgame pruned get
        no visits and no policy)."""
        if result.actions is actions or result.actions.size == actions.size:
            return result
        where = np.searchsorted(actions, result.actions)
        visits, policy = np.zeros(actions.size), np.zeros(actions.size)
        visits[where], policy[where] = result.visits, result.policy
        return SearchResult(actions, visits, result.value, policy, result.action)

    def _round(self, root: Node, done: int) -> int:
        """How many simulations of ``root``'s search the next round runs: ``leaves_per_call``
        at most, and never across a phase of sequential halving (its choice of the actions to
        keep must see every earlier simulation's value, not a virtual loss)."""
        count = min(self.leaves_per_call, self.simulations - done)
        if root.halving is not None:
            count = min([count] + [start - done for start in root.halving[2] if start > done])
        return count

    def _result(self, root: Node) -> SearchResult:
        if root.returns is not None:  # solved: the simulations' count goes to the moves that achieve its value
            value = float(root.returns[root.player])
            best = root.solved == value
            action = None
            if root.halving is not None:  # the likeliest of them by the Gumbel root's sample
                action = int(root.actions[np.where(best, root.halving[0] + root.log_prior(), -np.inf).argmax()])
            return SearchResult(root.actions, np.where(best, max(root.visits.sum(), 1) / best.sum(), 0.0), value,
                                best / best.sum(), action)
        visits = root.visits.copy()
        if root.halving is None:
            return SearchResult(root.actions, visits, float(root.value_sum.sum() / max(visits.sum(), 1)),
                                visits / max(visits.sum(), 1))
        policy = root.improved_policy(self.c_scale)
        score = np.where(visits == visits.max(), root.gumbel_score(self.c_scale), -np.inf)
        return SearchResult(root.actions, visits, float(policy @ root.completed_q()), policy,
                            int(root.actions[score.argmax()]))

    def _expand(self, worlds: list[GameState], keep_states: bool = False) -> list[Node]:
        observations = np.stack([w.observation(w.current_player) for w in worlds])
        masks = np.stack([w.legal_mask() for w in worlds])
        probabilities, values = self.evaluate(observations, masks)
        nodes = []
        for world, p, v, mask in zip(worlds, probabilities, values, masks):
            actions = world.legal_actions()
            wins = world.winning_actions() if keep_states else None
            if wins is not None and wins.size:  # a sure win: exact, whatever the network thinks
                prior = np.zeros(actions.size)
                prior[np.searchsorted(actions, wins)] = 1.0 / wins.size
                v = 1.0
            else:
                prior = p[actions].astype(np.float64)
                total = prior.sum()
                prior = prior / total if total > 0 else np.full(actions.size, 1.0 / actions.size)
            nodes.append(Node(world.current_player, actions, prior, float(v), world if keep_states else None,
                              exact=wins is not None and wins.size > 0))
        return nodes

    def _simulate(self, states: list[GameState], roots: list[Node], hidden: bool, leaves: list[int]) -> None:
        """``leaves[i]`` simulations of position i, all their leaves evaluated in one network call.

        Several leaves of one tree are found with a virtual loss: a path waiting for its
        evaluation counts as visited and lost, so the next descent of the round looks elsewhere.
        """
        pending = []  # (path, world, parent, index, virtual loss) of leaves the network must evaluate
        teams = np.asarray(states[0].game.teams)
        for state, root, count in zip(states, roots, leaves):
            for _ in range(count):
                self._descend(state, root, hidden, pending, virtual_loss=count > 1)
        if not pending:
            return
        evaluated = self._expand([world for _, world, _, _, _ in pending], keep_states=not hidden)
        leaves_found = []
        for (path, world, parent, index, _), leaf in zip(pending, evaluated):
            if parent is not None:
                if parent.children[index] is None:
                    parent.children[index] = leaf
                else:  # two descents of one round reached the same new position
                    leaf = parent.children[index]
            leaves_found.append(leaf)
        # the network's guesses mixed with one game played out from each leaf, all played together
        mixed = [k for k, leaf in enumerate(leaves_found) if not leaf.exact] if self.rollout_weight else []
        results = {}
        if mixed:
            worlds = [pending[k][1] for k in mixed]
            results = dict(zip(mixed, playouts(worlds, self.rollout_policy, self.rng)))
        for k, ((path, world, _, _, virtual_loss), leaf) in enumerate(zip(pending, leaves_found)):
            value = seat_values(leaf.value, leaf.player, teams)
            if k in results:
                value = (1.0 - self.rollout_weight) * value + self.rollout_weight * results[k]
            self._backup(path, value, virtual_loss=virtual_loss)

    def _descend(self, state: GameState, root: Node, hidden: bool, pending: list, virtual_loss: bool) -> None:
        """One walk from the root to a leaf: a finished game is backed up at once, a new
        position is queued in ``pending`` for the network."""
        world = state.sample_consistent(state.current_player, self.rng) if hidden else None
        node, path = root, []
        while True:
            if node.returns is not None:
                self._backup(path, node.returns)
                return
            allowed = world.legal_mask()[node.actions] if hidden else None
            if allowed is not None and not allowed.any():
                pending.append((path, world, None, -1, virtual_loss))  # nothing of the node is legal here: value only
                break
            if node.halving is not None:
                index = node.select_halving(self.c_scale, allowed)
            elif self.root == "gumbel":
                index = node.select_improved(self.c_scale, allowed)
            else:
                index = node.select(self.c_puct, allowed)
            path.append((node, index))
            child = node.children[index]
            if hidden:
                world.apply_unchecked(int(node.actions[index]))
            elif child is None:
                world = node.state.clone()
                world.apply_unchecked(int(node.actions[index]))
            if hidden or child is None:
                if world.current_player < 0:
                    returns = world.returns() if world.is_terminal() else np.zeros(world.num_players)
                    if not hidden:  # the same move always ends the game the same way
                        node.children[index] = Node(-1, np.empty(0, np.int64), np.empty(0), 0.0, returns=returns)
                    self._backup(path, returns)
                    if self.solver:
                        self._prove(path)
                    return
                if child is None:
                    pending.append((path, world, node, index, virtual_loss))
                    break
            node = child
        if virtual_loss:
            for node, index in path:
                node.visits[index] += 1
                node.value_sum[index] -= 1.0

    @staticmethod
    def _prove(path: list[tuple[Node, int]]) -> None:
        """After a descent ended in a finished game: up ``path``, a node is proven (its
        ``returns`` set, so later descents stop there) when one of its moves wins for its
        chooser or every move is proven, the chooser taking the best (MCTS-Solver)."""
        for node, index in reversed(path):
            child = node.children[index]
            if child is None or child.returns is None:
                return
            if node.solved is None:
                node.solved = np.full(node.actions.size, np.nan)
            node.solved[index] = child.returns[node.player]
            if node.solved[index] >= 1.0:  # no return beats a win
                node.returns = child.returns
            elif not np.isnan(node.solved).any():
                node.returns = node.children[int(node.solved.argmax())].returns
            else:
                return

    @staticmethod
    def _backup(path: list[tuple[Node, int]], returns: np.ndarray, virtual_loss: bool = False) -> None:
        """Add one visit of value ``returns`` (per seat) to every edge of ``path``; with
        ``virtual_loss`` the visit was counted already, as a loss, when the path was chosen."""
        for node, index in path:
            if virtual_loss:
                node.value_sum[index] += returns[node.player] + 1.0
            else:
                node.visits[index] += 1
                node.value_sum[index] += returns[node.player]

