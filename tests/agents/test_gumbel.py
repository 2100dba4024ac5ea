"""The Gumbel root of PUCTSearch: sequential halving spends the budget as specified, the
improved policy is the paper's formula, exact values find the best move, hidden cards stay
hidden, proven endgames are played exactly, and shipped networks play legal moves with it."""

import math

import numpy as np
import pytest

import sky_envs
from sky_envs.agents import SearchAgent, make_agent, save_checkpoint, split_spec
from sky_envs.agents.checkpoint import policy_metadata, read_checkpoint
from sky_envs.agents.gumbel import completed_q, halving_schedule, improved_policy
from sky_envs.agents.search import PUCTSearch, search_setting_error
from tests import REPO_ROOT
from tests.agents.brute_force import brute_force, exact_value, exact_values
from tests.agents.test_search import OPTIONS, SPEC, evaluator_for, random_positions


def uniform_evaluator(values=None):
    """Uniform priors; the value of a position is ``values(observation)`` (0 without)."""
    def evaluate(observations, masks):
        masks = np.asarray(masks, dtype=np.float64)
        value = np.zeros(len(masks)) if values is None else np.array([values(obs) for obs in observations])
        return masks / masks.sum(axis=1, keepdims=True), value
    return evaluate


def position_with_legal_moves(game, low, high, seed=0):
    rng = np.random.default_rng(seed)
    while True:
        state = game.new_initial_state(rng)
        while state.current_player >= 0:
            if low <= state.legal_actions().size <= high:
                return state
            state.apply(int(rng.choice(state.legal_actions())))


@pytest.mark.parametrize("considered, simulations, schedule", [
    (16, 32, [0] * 16 + [1] * 8 + [2] * 4 + [3] * 4),
    (4, 10, [0] * 4 + [1, 1, 2, 2, 3, 3]),
    (2, 5, [0, 0, 1, 1, 2]),
    (1, 3, [0, 1, 2]),
    (16, 8, [0] * 8),
])
def test_the_halving_schedule(considered, simulations, schedule):
    assert halving_schedule(considered, simulations)[0].tolist() == schedule


@pytest.mark.parametrize("leaves_per_call", [1, 8])
def test_sequential_halving_spends_exactly_the_budget_and_halves(leaves_per_call):
    """16 of the root's actions sampled, 200 simulations over log2(16) = 4 phases: 3 visits
    to each of 16 (48), 6 more to the best 8 (96), 12 more to the best 4 (144), 25 more to
    the best 2 (194), and the 6 left shared by those 2: counts 3, 9, 21 and 49."""
    game = sky_envs.make_game("sky_scrapers_v0")
    state = position_with_legal_moves(game, 40, 10_000)
    values = np.random.default_rng(0).normal(size=game.observation_shape).ravel()
    evaluator = uniform_evaluator(lambda obs: math.tanh(float(obs.ravel() @ values)))
    search = PUCTSearch(evaluator, 200, root="gumbel", leaves_per_call=leaves_per_call, rng=np.random.default_rng(1))
    (actions, visits, _), = search.run([state])
    assert visits.sum() == 200
    assert sorted(visits[visits > 0].tolist()) == [3] * 8 + [9] * 4 + [21] * 2 + [49] * 2


def test_the_improved_policy_is_the_papers_formula():
    """A root whose 3 likeliest actions (no Gumbel noise) are visited once each, their values
    set by the evaluator: the output policy is softmax(logits + sigma(completed Q)) with
    sigma(q) = (50 + max N) * c_scale * (q + 1) / 2 and the unvisited actions completed by
    the mixed value (v + N * sum_visited(p q) / sum_visited(p)) / (1 + N), written out here."""
    game = sky_envs.make_game("skybridge_v0")
    state = position_with_legal_moves(game, 6, 40)
    weights = np.random.default_rng(2).normal(size=game.observation_shape).ravel()

    def evaluate(observations, masks):
        masks = np.asarray(masks, dtype=np.float64)
        prior = masks * (1.0 + np.arange(masks.shape[1]) % 7)
        values = np.tanh(np.asarray(observations, dtype=np.float64).reshape(len(masks), -1) @ weights)
        return prior / prior.sum(axis=1, keepdims=True), values

    c_scale = 0.7
    search = PUCTSearch(evaluate, 3, root="gumbel", gumbel_k=16, gumbel_scale=0.0, c_scale=c_scale)
    result, = search.run([state])
    actions = state.legal_actions()
    prior, root_values = evaluate(state.observation(state.current_player)[None], state.legal_mask()[None])
    prior, v = prior[0][actions], float(root_values[0])
    visited = np.argsort(-prior, kind="stable")[:3]
    assert sorted(np.flatnonzero(result.visits).tolist()) == sorted(visited.tolist())
    q = np.zeros(actions.size)
    for i in visited:
        child = state.clone()
        child.apply(int(actions[i]))
        _, child_value = evaluate(child.observation(child.current_player)[None], child.legal_mask()[None])
        q[i] = child_value[0] if child.current_player == state.current_player else -child_value[0]
    mixed = (v + 3 * (prior[visited] @ q[visited]) / prior[visited].sum()) / 4
    completed = np.where(result.visits > 0, q, mixed)
    expected = np.exp(np.log(prior) + (50 + 1) * c_scale * (completed + 1) / 2)
    expected /= expected.sum()
    assert np.allclose(result.policy, expected, atol=1e-9)
    assert result.value == pytest.approx(float(expected @ completed))
    best = visited[np.argmax(np.log(prior[visited]) + 51 * c_scale * (q[visited] + 1) / 2)]
    assert result.action == actions[best]


def test_completed_q_prefers_proven_values():
    q = completed_q(np.array([0.5, 0.5]), 0.0, np.array([2.0, 1.0]), np.array([1.0, 0.5]), np.array([np.nan, -1.0]))
    assert q.tolist() == [0.5, -1.0]
    assert improved_policy(np.zeros(2), q, np.array([2.0, 1.0]), 1.0)[0] > 0.99


def test_with_a_uniform_prior_and_exact_values_the_root_picks_a_best_move():
    """Sky Scrapers 4x4 endgames valued exactly by brute force: the Gumbel search of a
    uniform prior guided by those values plays a move that keeps the exact result, at 16
    and 32 simulations and whatever its Gumbel noise, in every position where some move
    does not."""
    game = sky_envs.make_game("sky_scrapers_v0", **OPTIONS)
    rng = np.random.default_rng(5)
    checked = 0
    for seed in range(80):
        state = game.new_initial_state(np.random.default_rng(seed))
        while state.current_player >= 0 and checked < 5:
            table = exact_values(state)
            if table is not None and state.legal_actions().size > 2:
                mover, value = state.current_player, table[state.observation(state.current_player).tobytes()]
                good = []
                for action in state.legal_actions().tolist():
                    child = state.clone()
                    child.apply(action)
                    child_value = (child.returns()[mover] if child.current_player < 0 else
                                   table[child.observation(child.current_player).tobytes()]
                                   * (1 if child.current_player == mover else -1))
                    good += [action] if child_value == value else []
                if len(good) < state.legal_actions().size:
                    evaluator = uniform_evaluator(lambda obs: table[obs.tobytes()])
                    for simulations in (16, 32):
                        for noise_seed in range(3):
                            search = PUCTSearch(evaluator, simulations, root="gumbel", rng=np.random.default_rng(noise_seed))
                            assert search.run([state])[0].action in good
                    checked += 1
                break
            state.apply(int(rng.choice(state.legal_actions())))
    assert checked == 5


def test_hidden_cards_are_never_read_by_the_gumbel_root():
    """Sky Towers: the Gumbel search decides (visits, policy, move) alike in every world
    consistent with its seat's view."""
    game, evaluator = evaluator_for("sky_towers_v0", spec={"kind": "mlp", "hidden": [16]})
    state = random_positions(game, 1, 6, seed=4)[0]
    seat = state.current_player
    decisions = set()
    for resample in range(3):
        world = state.sample_consistent(seat, np.random.default_rng(100 + resample))
        result, = PUCTSearch(evaluator, 24, root="gumbel", rng=np.random.default_rng(7)).run([world])
        decisions.add((tuple(result.actions), tuple(result.visits), tuple(np.round(result.policy, 12)), result.action))
    assert len(decisions) == 1


def test_lockstep_gumbel_search_equals_one_search_per_position():
    game, evaluator = evaluator_for("sky_scrapers_v0", OPTIONS)
    states = random_positions(game, 4, 3, seed=1)
    together = PUCTSearch(evaluator, 20, root="gumbel", gumbel_scale=0.0, leaves_per_call=4).run(states)
    for state, result in zip(states, together):
        alone, = PUCTSearch(evaluator, 20, root="gumbel", gumbel_scale=0.0, leaves_per_call=4).run([state])
        assert np.array_equal(result.visits, alone.visits) and result.action == alone.action
        assert np.allclose(result.policy, alone.policy) and result.policy.sum() == pytest.approx(1.0)


def test_four_seats_and_the_solver_with_the_gumbel_root():
    game, evaluator = evaluator_for("golden_rush_v0")
    for result in PUCTSearch(evaluator, 16, root="gumbel").run(random_positions(game, 2, 5, seed=5)):
        assert result.visits.sum() == 16 and result.action in result.actions.tolist()
    game, evaluator = evaluator_for("sky_scrapers_v0", OPTIONS)
    rng = np.random.default_rng(11)
    checked = 0
    for seed in range(40):
        state = game.new_initial_state(np.random.default_rng(seed))
        while state.current_player >= 0 and checked < 6:
            exact = exact_value(state, state.current_player, 400)
            if exact is not None and state.legal_actions().size > 1:
                result, = PUCTSearch(evaluator, 400, root="gumbel", solver=True).run([state])
                child = state.clone()
                child.apply(result.action)
                assert result.value == exact
                assert brute_force(child, state.current_player) == exact
                checked += 1
                break
            state.apply(int(rng.choice(state.legal_actions())))
    assert checked >= 5


@pytest.mark.parametrize("name, value, message", [
    ("root", "uct", "root must be one of puct, gumbel"), ("gumbel_k", 0, "gumbel_k must be a positive integer"),
    ("gumbel_scale", -1.0, "gumbel_scale must be a number >= 0"), ("c_scale", 0, "c_scale must be a positive number"),
])
def test_bad_gumbel_settings_are_refused(name, value, message):
    assert message in search_setting_error(name, value)
    with pytest.raises(ValueError, match=message):
        PUCTSearch(uniform_evaluator(), 8, **{name: value})


def test_dirichlet_noise_belongs_to_the_puct_root():
    with pytest.raises(ValueError, match="the Gumbel root explores by its Gumbel noise"):
        PUCTSearch(uniform_evaluator(), 8, root="gumbel", root_noise=True)


def test_the_gumbel_spec(tmp_path):
    game, evaluator = evaluator_for("sky_scrapers_v0", OPTIONS)
    path = save_checkpoint(tmp_path / "p.pt", evaluator.policy, {**policy_metadata(game, OPTIONS, SPEC),
                                                                  "search": {"root": "gumbel", "gumbel_k": 4}})
    assert split_spec(f"{path}@32+gumbel") == (str(path), "32+gumbel")
    assert split_spec("x.pt@32+fast") == ("x.pt@32+fast", "")
    recorded = make_agent(f"{path}@12", env_id="sky_scrapers_v0", env_options=OPTIONS, seed=0)
    assert recorded.name == "p@12" and recorded.search.root == "gumbel" and recorded.search.gumbel_k == 4
    assert recorded.search.gumbel_scale == 0.0  # an agent plays to win: no Gumbel noise unless recorded
    noisy = make_agent(f"{path}@12", env_id="sky_scrapers_v0", env_options=OPTIONS, seed=0, gumbel_scale=1.0)
    assert noisy.search.gumbel_scale == 1.0 and PUCTSearch(uniform_evaluator(), 4).gumbel_scale == 1.0
    puct = make_agent(f"{path}@12+puct", env_id="sky_scrapers_v0", env_options=OPTIONS, seed=0)
    assert puct.name == "p@12+puct" and puct.search.root == "puct"
    with pytest.raises(ValueError, match="a search root .* is for a checkpoint's search"):
        make_agent("mcts@5+gumbel")


def test_a_checkpoint_records_settings_for_the_gumbel_root(tmp_path):
    """``metadata["search"]["gumbel"]``: settings that replace the recorded ones where the
    search has the Gumbel root (a search of 32 simulations may want other playouts than one
    of 200); PUCT's search keeps the others. A bad one is refused when the file is read."""
    game, evaluator = evaluator_for("sky_scrapers_v0", OPTIONS)
    metadata = policy_metadata(game, OPTIONS, SPEC)
    recorded = {"rollout_weight": 0.5, "rollout_policy": "greedy", "gumbel": {"rollout_weight": 1.0, "gumbel_k": 4}}
    path = save_checkpoint(tmp_path / "p.pt", evaluator.policy, {**metadata, "search": recorded})
    puct = make_agent(f"{path}@12", env_id="sky_scrapers_v0", env_options=OPTIONS).search
    gumbel = make_agent(f"{path}@12+gumbel", env_id="sky_scrapers_v0", env_options=OPTIONS).search
    assert (puct.root, puct.rollout_weight, puct.rollout_policy) == ("puct", 0.5, "greedy")
    assert (gumbel.root, gumbel.rollout_weight, gumbel.gumbel_k, gumbel.rollout_policy) == ("gumbel", 1.0, 4, "greedy")
    assert make_agent(f"{path}@12+gumbel", env_id="sky_scrapers_v0", env_options=OPTIONS,
                      rollout_weight=0.25).search.rollout_weight == 0.25  # arguments over recorded settings
    for bad in ({"gumbel": {"root": "puct"}}, {"gumbel": {"gumbel_k": 0}}, {"gumbel": 3}):
        with pytest.raises(ValueError, match="holds gumbel="):
            save_checkpoint(tmp_path / "bad.pt", evaluator.policy, {**metadata, "search": bad})


def play_decisions(env_id, options, agent, decisions, seed=3):
    """Up to ``decisions`` of seat 0 played by ``agent`` against random players through the
    AEC env, which refuses an illegal move (fewer where the game ends first): how many."""
    others = make_agent("random", seed=1)
    env = sky_envs.make_raw(env_id, **options)
    env.reset(seed=seed)
    played = 0
    for name in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        mine = env.unwrapped.possible_agents.index(name) == 0
        if mine and played == decisions:
            break
        env.step((agent if mine else others).act(observation, env.unwrapped.game_state))
        played += mine
    return played


@pytest.mark.parametrize("env_id", sky_envs.BUILTIN_ENV_IDS)
def test_a_checkpoints_gumbel_search_plays_legal_moves_in_every_env(env_id, tmp_path):
    game = sky_envs.make_game(env_id)
    spec = {"kind": "mlp", "hidden": [16]}
    _, evaluator = evaluator_for(env_id, spec=spec)
    path = save_checkpoint(tmp_path / "tiny.pt", evaluator.policy, policy_metadata(game, {}, spec))
    agent = make_agent(f"{path}@4+gumbel", env_id=env_id, seed=0)
    assert agent.name == "tiny@4+gumbel" and agent.search.root == "gumbel"
    assert play_decisions(env_id, {}, agent, 12) >= 5


SHIPPED = sorted(path.parent.name for path in (REPO_ROOT / "checkpoints").glob("*/policy.pt"))


@pytest.mark.slow
@pytest.mark.parametrize("env_id", SHIPPED)
def test_a_shipped_network_plays_legal_moves_with_the_gumbel_root(env_id):
    """Every shipped network (symmetries, playouts and solver where it records them) with 4
    simulations of the Gumbel root."""
    options = read_checkpoint(REPO_ROOT / "checkpoints" / env_id / "policy.pt")[0]["env_options"]
    agent = make_agent("pretrained@4+gumbel", env_id=env_id, env_options=options, seed=0)
    assert isinstance(agent, SearchAgent) and agent.name == "policy@4+gumbel"
    assert play_decisions(env_id, options, agent, 30) >= 5
