"""PUCT search with a network: lockstep batching, wins found, hidden cards never read, agent specs."""

import numpy as np
import pytest
import torch

import sky_envs
from sky_envs.agents import SearchAgent, make_agent, save_checkpoint
from sky_envs.agents.checkpoint import policy_metadata
from sky_envs.agents.network import build_policy
from sky_envs.agents.policy import NetworkEvaluator
from sky_envs.agents.search import PUCTSearch, seat_values
from tests.agents.brute_force import brute_force, exact_value

OPTIONS = {"board": "square", "rows": 4, "cols": 4, "positioning": "random"}
SPEC = {"kind": "resnet", "channels": 8, "blocks": 1, "head_channels": 2, "head_hidden": [8]}


def evaluator_for(env_id, options=None, spec=SPEC, seed=0):
    torch.manual_seed(seed)
    game = sky_envs.make_game(env_id, **(options or {}))
    return game, NetworkEvaluator(build_policy(spec, game.observation_shape, game.num_actions))


def random_positions(game, count, plies, seed):
    rng = np.random.default_rng(seed)
    states = []
    while len(states) < count:
        state = game.new_initial_state(rng)
        for _ in range(plies):
            if state.current_player < 0:
                break
            state.apply(int(rng.choice(state.legal_actions())))
        if state.current_player >= 0:
            states.append(state)
    return states


def test_lockstep_search_equals_one_search_per_position():
    game, evaluator = evaluator_for("sky_scrapers_v0", OPTIONS)
    states = random_positions(game, 5, 3, seed=1)
    together = PUCTSearch(evaluator, 30).run(states)
    for state, (actions, visits, value) in zip(states, together):
        (alone_actions, alone_visits, alone_value), = PUCTSearch(evaluator, 30).run([state])
        assert np.array_equal(actions, alone_actions) and np.array_equal(visits, alone_visits)
        assert value == pytest.approx(alone_value)
        assert visits.sum() == 30 and np.array_equal(actions, state.legal_actions())


def test_search_leaves_the_positions_it_searches_unchanged():
    game, evaluator = evaluator_for("skybridge_v0")
    states = random_positions(game, 3, 4, seed=2)
    texts = [state.to_text() for state in states]
    PUCTSearch(evaluator, 20, root_noise=True, rng=np.random.default_rng(0)).run(states)
    assert [state.to_text() for state in states] == texts


def test_search_finds_a_winning_move_that_the_network_does_not_know():
    """Highrise Heist random games: wherever some (not every) action ends the game with a
    win for the mover, a few hundred simulations of an untrained network choose one."""
    game, evaluator = evaluator_for("highrise_heist_v0")
    rng = np.random.default_rng(3)
    checked = 0
    for seed in range(40):
        state = game.new_initial_state(np.random.default_rng(seed))
        while state.current_player >= 0 and checked < 5:
            mover = state.current_player
            winning = []
            for action in state.legal_actions():
                child = state.clone()
                child.apply(int(action))
                if child.is_terminal() and child.returns()[mover] > 0:
                    winning.append(int(action))
            if winning and len(winning) < state.legal_actions().size:
                (actions, visits, _), = PUCTSearch(evaluator, 200).run([state])
                assert int(actions[visits.argmax()]) in winning
                checked += 1
            state.apply(int(rng.choice(state.legal_actions())))
    assert checked >= 1


def test_search_sees_a_sure_win_and_the_moves_that_allow_one():
    """Scala names its one-move wins (``winning_actions``): an untrained network's search
    takes one with a single simulation, and, to move where the opponent threatens one, does
    not play a move that leaves the threat standing when another move removes it."""
    from sky_envs.games.scala import ScalaGame
    from tests.games.scala.test_rules import pos

    game = ScalaGame()
    _, evaluator = evaluator_for("scala_v0", spec={"kind": "mlp", "hidden": [16]})
    win = game.state_from_text(pos(O="e13 f11 d9", X="f13 f12 e10"))
    (actions, visits, value), = PUCTSearch(evaluator, 1).run([win])
    assert int(actions[visits.argmax()]) in win.winning_actions().tolist() and value == 1.0
    threatened = game.state_from_text(pos(O="e13 d9 c9", X="f13 d10 e12", to_move="X"))
    safe = []
    for action in threatened.legal_actions().tolist():
        child = threatened.clone()
        child.apply(action)
        if child.winner == 1 or (child.current_player == 0 and not child.winning_actions().size):
            safe.append(action)
    assert 0 < len(safe) < threatened.legal_actions().size
    for seed in range(3):
        _, evaluator = evaluator_for("scala_v0", spec={"kind": "mlp", "hidden": [16]}, seed=seed)
        (actions, visits, _), = PUCTSearch(evaluator, 300).run([threatened])
        assert int(actions[visits.argmax()]) in safe


@pytest.mark.parametrize("weight", [-0.1, 1.01, True, "0.5", float("nan")])
def test_a_rollout_weight_outside_zero_to_one_is_refused(weight):
    _, evaluator = evaluator_for("skybridge_v0")
    with pytest.raises(ValueError, match="rollout_weight must be a number in"):
        PUCTSearch(evaluator, 10, rollout_weight=weight)


def test_playouts_make_an_untrained_network_search_strong():
    """An untrained network's value is noise; judged by random playouts instead (λ = 1) the
    same network and budget beat the search on its value alone, seats rotated (0.86 on
    these seeds; λ = 0.5 scores 0.76)."""
    from training.tournament import match

    game, evaluator = evaluator_for("sky_scrapers_v0", OPTIONS)
    plain = SearchAgent(evaluator.policy, simulations=48, seed=0)
    mixed = SearchAgent(evaluator.policy, simulations=48, rollout_weight=1.0, seed=0)
    result = match("sky_scrapers_v0", OPTIONS, ("mixed", mixed), ("plain", plain), games=40, seed=0)
    assert result.score / result.games >= 0.7, result.as_dict()


def test_hidden_cards_are_never_read():
    """Sky Towers: the decision of the search agent does not depend on cards its seat cannot see."""
    game, evaluator = evaluator_for("sky_towers_v0", spec={"kind": "mlp", "hidden": [16]})
    state = random_positions(game, 1, 6, seed=4)[0]
    seat = state.current_player
    decisions = set()
    for resample in range(3):
        world = state.sample_consistent(seat, np.random.default_rng(100 + resample))
        search = PUCTSearch(evaluator, 40, rng=np.random.default_rng(7))
        (actions, visits, _), = search.run([world])
        decisions.add((tuple(actions), tuple(visits)))
    assert len(decisions) == 1


def test_four_seat_games_are_searched():
    game, evaluator = evaluator_for("golden_rush_v0")
    states = random_positions(game, 2, 5, seed=5)
    for actions, visits, value in PUCTSearch(evaluator, 16).run(states):
        assert visits.sum() == 16 and -1 <= value <= 1


def test_search_agent_from_a_checkpoint_spec(tmp_path):
    game, evaluator = evaluator_for("sky_scrapers_v0", OPTIONS)
    path = save_checkpoint(tmp_path / "p.pt", evaluator.policy, policy_metadata(game, OPTIONS, SPEC))
    agent = make_agent(f"{path}@12", env_id="sky_scrapers_v0", env_options=OPTIONS, seed=0)
    assert isinstance(agent, SearchAgent) and agent.name == "p@12" and agent.search.simulations == 12
    assert make_agent(str(path), search=12, env_id="sky_scrapers_v0", env_options=OPTIONS).search.simulations == 12
    assert make_agent("mcts@7").simulations == 7
    env = sky_envs.make("sky_scrapers_v0", **OPTIONS)
    env.reset(seed=0)
    for name in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        action = None if termination or truncation else agent.act(observation, env.unwrapped.game_state)
        env.step(action)
    with pytest.raises(ValueError, match="must be a positive number"):
        make_agent(f"{path}@0")
    with pytest.raises(ValueError, match="only alphabeta and mcts"):
        make_agent("greedy@5")
    with pytest.raises(ValueError, match="simulations must be a positive integer"):
        SearchAgent(evaluator.policy, simulations=0)


def test_the_solver_proves_endgames_as_exhaustive_minimax_values_them():
    """Sky Scrapers endgames small enough to solve by brute force: with the solver the
    search of an untrained network proves each root, reports its exact value, and puts its
    simulations only on moves that achieve it (in most of these positions some moves do not)."""
    game, evaluator = evaluator_for("sky_scrapers_v0", OPTIONS)
    rng = np.random.default_rng(11)
    checked = narrow = 0
    for seed in range(60):
        state = game.new_initial_state(np.random.default_rng(seed))
        while state.current_player >= 0 and checked < 12:
            mover = state.current_player
            exact = exact_value(state, mover, 400)
            if exact is not None and state.legal_actions().size > 1:
                optimal = set()
                for action in state.legal_actions().tolist():
                    child = state.clone()
                    child.apply(action)
                    if brute_force(child, mover) == exact:
                        optimal.add(action)
                (actions, visits, value), = PUCTSearch(evaluator, 400, solver=True).run([state])
                assert value == exact
                assert set(actions[visits > 0].tolist()) <= optimal and visits.sum() > 0
                checked += 1
                narrow += len(optimal) < actions.size
                break
            state.apply(int(rng.choice(state.legal_actions())))
    assert checked >= 10 and narrow >= 5


def test_a_solved_root_ends_its_search_early():
    game, evaluator = evaluator_for("sky_scrapers_v0", OPTIONS)
    calls = []

    def counting(observations, masks):
        calls.append(len(observations))
        return evaluator(observations, masks)

    state = game.new_initial_state(np.random.default_rng(0))
    rng = np.random.default_rng(1)
    while exact_value(state, state.current_player, 50) is None:
        state.apply(int(rng.choice(state.legal_actions())))
    PUCTSearch(counting, 1000, solver=True).run([state])
    assert sum(calls) < 100


@pytest.mark.parametrize("value", [1, "yes", None])
def test_a_solver_setting_that_is_not_a_bool_is_refused(value):
    _, evaluator = evaluator_for("skybridge_v0")
    with pytest.raises(ValueError, match="solver must be true or false"):
        PUCTSearch(evaluator, 10, solver=value)


def test_the_solver_refuses_games_with_hidden_information():
    game, evaluator = evaluator_for("sky_towers_v0", spec={"kind": "mlp", "hidden": [16]})
    with pytest.raises(ValueError, match="sky_towers hides information"):
        PUCTSearch(evaluator, 10, solver=True).run(random_positions(game, 1, 4, seed=0))


def exact_endgames(count, stacks, seed):
    """6x6 Sky Scrapers positions with ``stacks`` stacks left and their moves' exact values."""
    from sky_envs.agents.solver import Solver
    from tests.agents.test_solver import sky_scrapers_position

    out = []
    while len(out) < count:
        state = sky_scrapers_position({}, stacks, seed)
        seed += 2   # the helper draws moves with seed + 1
        if state is not None:
            out.append((state, np.array(list(Solver().solve_moves(state).moves.values()))))
    return out


def test_the_exact_endgame_keeps_the_moves_of_the_best_value_and_reports_every_legal_action():
    positions = exact_endgames(12, 12, seed=30)   # wins, losses, and a draw kept against losing moves
    _, evaluator = evaluator_for("sky_scrapers_v0", {}, spec={"kind": "mlp", "hidden": [16]})
    calls = []

    def counting(observations, masks):
        calls.append(len(observations))
        return evaluator(observations, masks)

    kinds = set()
    for state, values in positions:
        calls.clear()
        result, = PUCTSearch(counting, 50, exact_nodes=1_000_000).run([state])
        assert np.array_equal(result.actions, state.legal_actions())
        best = values == values.max()
        if best.all() and values.max() < 1:   # nothing to keep apart: searched as without it
            alone, = PUCTSearch(evaluator, 50, rng=np.random.default_rng(0)).run([state])
            again, = PUCTSearch(evaluator, 50, rng=np.random.default_rng(0), exact_nodes=1_000_000).run([state])
            assert np.array_equal(alone.visits, again.visits)
            kinds.add("all equal")
            continue
        assert result.visits[~best].sum() == 0 and result.policy[~best].sum() == 0 and result.visits.sum() > 0
        if values.max() >= 1:   # a proven win: played without a simulation
            assert result.value == 1.0 and sum(calls) == 1
            kinds.add("win")
        else:
            assert sum(calls) > 1
            kinds.add("kept value")
    assert kinds == {"win", "kept value", "all equal"}


def test_the_exact_endgame_leaves_positions_it_cannot_solve_to_the_search():
    game, evaluator = evaluator_for("sky_scrapers_v0", {}, spec={"kind": "mlp", "hidden": [16]})
    state = random_positions(game, 1, 8, seed=3)[0]
    alone, = PUCTSearch(evaluator, 40, rng=np.random.default_rng(0)).run([state])
    starved, = PUCTSearch(evaluator, 40, rng=np.random.default_rng(0), exact_nodes=100).run([state])
    assert np.array_equal(alone.visits, starved.visits) and alone.value == starved.value
    hidden, evaluator = evaluator_for("sky_towers_v0", spec={"kind": "mlp", "hidden": [16]})
    result, = PUCTSearch(evaluator, 10, exact_nodes=1000).run(random_positions(hidden, 1, 4, seed=0))
    assert result.visits.sum() == 10


@pytest.mark.parametrize("value", [-1, 1.5, True, "many"])
def test_an_exact_nodes_setting_that_is_not_a_count_is_refused(value):
    _, evaluator = evaluator_for("skybridge_v0")
    with pytest.raises(ValueError, match="exact_nodes must be an integer >= 0"):
        PUCTSearch(evaluator, 10, exact_nodes=value)


def test_a_leaf_value_is_shared_by_the_team_and_opposed_by_the_other_seats():
    every_seat_alone = np.arange(4)
    assert np.array_equal(seat_values(0.5, 2, every_seat_alone), [-0.5, -0.5, 0.5, -0.5])
    assert np.array_equal(seat_values(0.5, 1, np.arange(2)), [-0.5, 0.5])
    teams = np.asarray(sky_envs.make_game("golden_rush_v0", mode="teams").teams)
    assert np.array_equal(seat_values(0.5, 2, teams), [0.5, -0.5, 0.5, -0.5])
    assert np.array_equal(seat_values(-0.25, 3, teams), [0.25, -0.25, 0.25, -0.25])


def test_teams_mode_is_searched():
    game, evaluator = evaluator_for("golden_rush_v0", {"mode": "teams"})
    for actions, visits, value in PUCTSearch(evaluator, 24).run(random_positions(game, 2, 9, seed=5)):
        assert visits.sum() == 24 and -1 <= value <= 1
