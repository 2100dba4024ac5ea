"""The exact solver: brute-force minimax's values on small positions of every
perfect-information game, the same with and without its table, with and without a horizon;
a spent budget reports "unsolved"; hidden information and more than two seats are refused;
the transposition keys are exact; Sky Scrapers' compiled solver agrees with it."""

import numpy as np
import pytest

import sky_envs
from sky_envs.agents import make_agent
from sky_envs.agents.solver import GIVE_UP_AFTER, MoveSolver, Solver, SolverAgent, solver_refusal
from sky_envs.games.sky_scrapers.solver_kernels import CompiledSolver
from tests.agents.brute_force import brute_force_moves, tree_size
from tests.tiny_game import NimGame

SKY_SCRAPERS_SMALL = [dict(board="square", rows=3, cols=3, positioning="random"),
                      dict(board="square", rows=4, cols=4, positioning="random"),
                      dict(board="square", rows=4, cols=4, lines="orthogonal")]
SKYBRIDGE = dict(players=2, variant="seed")


def late_positions(game, count, left, seed, max_tree=None):
    """Positions ``left`` decisions before the end of random games, with at most ``max_tree``
    positions in their game tree where given (brute force must stay quick)."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        state = game.new_initial_state(rng)
        history = [state.clone()]
        while state.current_player >= 0:
            legal = state.legal_actions()
            state.apply_unchecked(int(legal[rng.integers(legal.size)]))
            history.append(state.clone())
        if len(history) > left and history[-1 - left].current_player >= 0:
            position = history[-1 - left]
            if max_tree is None or tree_size(position, max_tree + 1) <= max_tree:
                out.append(position)
    return out


def sky_scrapers_position(options, stacks, seed):
    """A random move-phase position with at most ``stacks`` stacks left, or None."""
    game = sky_envs.make_game("sky_scrapers_v0", **options)
    state = game.new_initial_state(np.random.default_rng(seed))
    rng = np.random.default_rng(seed + 1)
    while state.current_player >= 0 and (state.phase != "move" or (state.heights[:-1] > 0).sum() > stacks):
        legal = state.legal_actions()
        state.apply_unchecked(int(legal[rng.integers(legal.size)]))
    return state if state.current_player >= 0 else None


def small_positions():
    """Positions of every perfect-information two-seat game small enough for brute force."""
    out = []
    for k, options in enumerate(SKY_SCRAPERS_SMALL):
        for seed in range(6):
            state = sky_scrapers_position(options, 9, seed + 10 * k)
            if state is not None and tree_size(state, 3001) <= 3000:
                out.append(("sky_scrapers", state))
    nim = NimGame(heap=9)
    out += [("nim", nim.state_from_text(f"stones: {n}\nto_move: {n % 2}")) for n in (1, 2, 5, 7, 9)]
    out += [("skybridge", s) for s in late_positions(sky_envs.make_game("skybridge_v0", **SKYBRIDGE), 3, 9, 1, 3000)]
    out += [("highrise_heist", s) for s in late_positions(sky_envs.make_game("highrise_heist_v0"), 3, 5, 2, 3000)]
    return out


@pytest.mark.parametrize("name,state", small_positions())
def test_every_move_value_is_brute_force_minimaxs(name, state):
    expected = {action: low for action, (low, high) in brute_force_moves(state).items()}
    for settings in ({}, {"table": False}, {"ordering": "heuristic"}, {"ordering": "history"}, {"ordering": "none"}):
        solution = Solver(**settings).solve_moves(state)
        assert solution.solved and solution.moves == expected, settings
        assert solution.value == max(expected.values()) == Solver(**settings).solve(state).value
        assert solution.best_actions() == [a for a, v in expected.items() if v == solution.value]


@pytest.mark.parametrize("env_id", ["scala_v0", "highrise_heist_v0"])
def test_a_horizon_gives_brute_force_bounds_and_exact_values_where_they_meet(env_id):
    """Scala's games can last 300 plies: near the end the solver proves what it can within a
    horizon. Where brute force's bounds at that horizon meet, the value is exact and the
    solver finds it (deepening or not); elsewhere the move is unsolved."""
    game = sky_envs.make_game(env_id)
    plies = 2 if env_id == "scala_v0" else 3
    for state in late_positions(game, 2, 2, seed=5, max_tree=None if env_id == "scala_v0" else 3000):
        bounds = brute_force_moves(state, plies)
        for deepening in (False, True):
            solution = Solver(max_plies=plies, deepening=deepening).solve_moves(state)
            for action, (low, high) in bounds.items():
                assert low <= high
                assert solution.moves[action] == (low if low == high else None), (action, low, high, deepening)
            assert solution.solved == all(low == high for low, high in bounds.values())


def test_unsolved_bounds_hold_the_true_value():
    """A horizon too short to settle a Sky Scrapers position leaves bounds that contain the
    exact value; a longer one settles it."""
    state = sky_scrapers_position(SKY_SCRAPERS_SMALL[1], 10, seed=3)
    exact = Solver().solve(state)
    for plies in (1, 2, 3, 4):
        bounded = Solver(max_plies=plies, deepening=True).solve(state)
        low, high = bounded.bounds
        assert low <= exact.value <= high
        assert bounded.solved == (low == high)
    assert Solver(max_plies=40).solve(state).value == exact.value


def test_the_table_changes_no_value_on_sky_scrapers_6x6_endgames():
    options = dict(board="random", rows=6, cols=6, positioning="random")
    for seed in range(3):
        state = sky_scrapers_position(options, 12, seed)
        with_table = Solver().solve_moves(state)
        assert with_table.moves == Solver(table=False).solve_moves(state).moves
        shared = Solver()   # a table kept from other positions changes nothing either
        shared.solve_moves(sky_scrapers_position(options, 12, seed + 50))
        assert shared.solve_moves(state).moves == with_table.moves


def test_a_spent_budget_reports_unsolved():
    state = sky_scrapers_position(dict(board="random", rows=6, cols=6, positioning="random"), 18, seed=0)
    for solver in (Solver(max_nodes=200), Solver(max_seconds=1e-6)):
        solution = solver.solve_moves(state)
        assert not solution.solved and solution.value is None
        assert None in solution.moves.values()
        assert solution.bounds[0] <= solution.bounds[1]
        assert solution.best_actions() == []
        assert solver.solve(state).value is None
    assert Solver(max_nodes=200).solve(state).nodes <= 200


@pytest.mark.parametrize("env_id,options,words", [
    ("sky_towers_v0", {}, "hides information"),
    ("golden_rush_v0", {}, "two-seat"),
    ("sky_scrapers_v0", {"players": 4}, "two-seat"),
])
def test_games_without_one_exact_value_are_refused(env_id, options, words):
    game = sky_envs.make_game(env_id, **options)
    state = game.new_initial_state(np.random.default_rng(0))
    assert words in solver_refusal(state)
    with pytest.raises(ValueError, match=words):
        Solver().solve(state)
    with pytest.raises(ValueError, match=words):
        Solver().solve_moves(state)


def test_bad_settings_and_finished_games_are_refused():
    with pytest.raises(ValueError, match="max_nodes"):
        Solver(max_nodes=0)
    with pytest.raises(ValueError, match="deepening"):
        Solver(deepening=True)
    with pytest.raises(ValueError, match="ordering"):
        Solver(ordering="random")
    nim = NimGame()
    finished = nim.state_from_text("stones: 0\nto_move: 0")
    with pytest.raises(ValueError, match="game is over"):
        Solver().solve(finished)
    with pytest.raises(ValueError, match="value_range"):   # a return of -1 is outside (0, 1)
        Solver(value_range=(0.0, 1.0)).solve_moves(nim.state_from_text("stones: 2\nto_move: 0"))


@pytest.mark.parametrize("env_id,options", [("sky_scrapers_v0", dict(board="random", rows=6, cols=6,
                                                                      positioning="random")),
                                             ("scala_v0", {}), ("highrise_heist_v0", {}), ("skybridge_v0", SKYBRIDGE)])
def test_transposition_keys_are_exact(env_id, options):
    """Equal keys exactly where the position texts (and, in Scala, the plies that max_turns
    counts) are equal, over the positions of a few random games."""
    game = sky_envs.make_game(env_id, **options)
    rng = np.random.default_rng(0)
    keys, texts = [], []
    for _ in range(3):
        state = game.new_initial_state(rng)
        while state.current_player >= 0 and len(keys) < 400:
            keys.append(state.transposition_key())
            texts.append((state.to_text(), getattr(state, "plies", None)))
            legal = state.legal_actions()
            state.apply_unchecked(int(legal[rng.integers(legal.size)]))
    assert len(set(keys)) == len(set(texts))
    assert len(set(zip(keys, texts))) == len(set(keys))
    reloaded = game.state_from_text(texts[-1][0])
    if env_id != "scala_v0":   # a loaded Scala position starts counting plies afresh
        assert reloaded.transposition_key() == keys[-1]


def test_sky_scrapers_compiled_solver_agrees_with_the_solver():
    """The compiled fast path (benchmark labels) against the game-agnostic solver, one table
    kept over positions of several boards and colour deals."""
    checked = 0
    for k, options in enumerate(SKY_SCRAPERS_SMALL + [dict(board="random", rows=6, cols=6, positioning="random")]):
        compiled = CompiledSolver(sky_envs.make_game("sky_scrapers_v0", **options))
        for seed in range(8):
            state = sky_scrapers_position(options, 13 if k == 3 else 10, seed + 100 * k)
            if state is None:
                continue
            state = compiled.game.state_from_text(state.to_text())   # the solver's own game object
            assert compiled.solve_moves(state) == Solver().solve_moves(state).moves
            checked += 1
    assert checked >= 25
    compiled.max_nodes = 10
    assert compiled.solve_moves(sky_scrapers_position(options, 18, seed=0)) is None


def test_solver_agent_plays_a_best_move_or_falls_back():
    state = sky_scrapers_position(SKY_SCRAPERS_SMALL[1], 9, seed=4)
    best = set(Solver().solve_moves(state).best_actions())
    agent = make_agent("solver", seed=0)
    assert isinstance(agent, SolverAgent)
    observation = {"observation": state.observation(state.current_player), "action_mask": state.legal_mask()}
    assert agent.act(observation, state) in best and agent.last_solution.solved
    hard = sky_scrapers_position(dict(board="random", rows=6, cols=6, positioning="random"), 20, seed=0)
    starved = make_agent("solver@1000", seed=0)   # a thousand nodes: the alpha-beta fallback
    observation = {"observation": hard.observation(hard.current_player), "action_mask": hard.legal_mask()}
    assert hard.legal_mask()[starved.act(observation, hard)] and not starved.last_solution.solved


def test_the_compiled_solvers_table_serves_every_board_of_a_configuration():
    """One table over many games' boards, never cleared: the same values as a fresh solver."""
    options = dict(board="random", rows=6, cols=6, positioning="random")
    kept = CompiledSolver(sky_envs.make_game("sky_scrapers_v0", **options))
    for seed in range(12):
        state = sky_scrapers_position(options, 12, seed=500 + seed)
        state = kept.game.state_from_text(state.to_text())
        fresh = CompiledSolver(kept.game)
        assert kept.solve_moves(state) == fresh.solve_moves(state)
    assert "move-phase" in kept.refusal(kept.game.new_initial_state(np.random.default_rng(0)))


@pytest.mark.parametrize("env_id, options", [("sky_scrapers_v0", dict(board="random", rows=6, cols=6,
                                                                        positioning="random")),
                                             ("sky_scrapers_v0", SKY_SCRAPERS_SMALL[0]),
                                             ("skybridge_v0", SKYBRIDGE)])
def test_move_solver_gives_the_solvers_values_through_the_compiled_path_where_there_is_one(env_id, options):
    game = sky_envs.make_game(env_id, **options)
    assert (game.exact_solver() is not None) == (env_id == "sky_scrapers_v0")
    solver = MoveSolver(max_nodes=5_000_000)
    states = ([sky_scrapers_position(options, 11, seed) for seed in range(5)] if env_id == "sky_scrapers_v0"
              else late_positions(game, 5, 8, seed=3))
    for state in states:
        expected = Solver().solve_moves(state)
        assert expected.solved
        values = np.array(list(expected.moves.values()))
        value, keep = solver.best_moves(state)
        assert value == values.max() and keep.any() and (values[keep] == value).all()
        if env_id == "skybridge_v0":   # every move solved: every best move kept
            assert np.array_equal(keep, values == value)
    assert len(solver.compiled) == 1   # one solver per configuration, whatever game objects its positions have
    starved = MoveSolver(max_nodes=10)
    assert starved.best_moves(sky_scrapers_position(SKY_SCRAPERS_SMALL[1], 16, seed=1)) is None


def test_the_compiled_solvers_root_solve_gives_the_value_and_moves_that_keep_it():
    """``solve_root`` against every move solved by the generic solver: one winning move where
    the position is won, every drawing move where it is drawn, every move where it is lost."""
    options = dict(board="random", rows=6, cols=6, positioning="random")
    compiled = CompiledSolver(sky_envs.make_game("sky_scrapers_v0", **options))
    seen = set()
    for seed in [*range(0, 40, 2), 147, 303, 333]:   # the last three: drawn, with losing moves beside
        state = sky_scrapers_position(options, 10, seed)
        if state is None:
            continue
        state = compiled.game.state_from_text(state.to_text())
        moves = Solver().solve_moves(state).moves
        values = np.array(list(moves.values()))
        value, kept = compiled.solve_root(state)
        assert value == values.max() and all(moves[action] == value for action in kept)
        kind = {1.0: "win", 0.0: "draw", -1.0: "loss"}[value]
        expected = {"win": 1, "draw": int((values == 0).sum()), "loss": values.size}[kind]
        assert len(kept) == expected and kept == sorted(kept)
        seen.add(kind)
    assert seen == {"win", "draw", "loss"}
    compiled.max_nodes = 10
    assert compiled.solve_root(compiled.game.state_from_text(
        sky_scrapers_position(options, 18, seed=0).to_text())) is None


def test_move_solver_stops_trying_positions_beyond_the_reach_its_budget_showed():
    solver = MoveSolver(max_nodes=2000)
    far = [sky_scrapers_position({}, 30, seed) for seed in range(GIVE_UP_AFTER + 1)]
    for state in far[:GIVE_UP_AFTER]:
        assert solver.best_moves(state) is None   # each call spends its budget and runs out
    (configuration, compiled), = solver.compiled.items()
    assert solver.attempts[configuration] == {30: [GIVE_UP_AFTER, 0]} and solver.reach(configuration) == 30
    compiled.nodes = -1
    farther = sky_scrapers_position({}, 33, seed=9)
    for state in (far[-1], farther):   # as far from the end or farther: answered at once, not tried
        assert solver.best_moves(state) is None and compiled.nodes == -1
    near = sky_scrapers_position({}, 7, seed=3)   # nearer the end: still solved
    values = np.array(list(Solver().solve_moves(near).moves.values()))
    value, keep = solver.best_moves(near)
    assert value == values.max() and keep.any() and (values[keep] == value).all()
    assert solver.attempts[configuration][7] == [1, 1] and solver.reach(configuration) == 30


def test_move_solver_answers_none_where_no_exact_value_exists():
    four = sky_envs.make_game("sky_scrapers_v0", players=4, rows=8, cols=8)
    hidden = sky_envs.make_game("sky_towers_v0")
    solver = MoveSolver(max_nodes=1000)
    for game in (four, hidden):
        assert game.exact_solver() is None
        assert solver.best_moves(game.new_initial_state(np.random.default_rng(0))) is None
    # a set-up position the compiled solver does not take is not handed to the generic one
    strategic = sky_envs.make_game("sky_scrapers_v0", positioning="strategic")
    setup = strategic.new_initial_state(np.random.default_rng(0))
    assert setup.phase == "place" and MoveSolver(max_nodes=10**9).best_moves(setup) is None
    for bad in (0, -5, 1.5, True):
        with pytest.raises(ValueError, match="max_nodes must be a positive integer"):
            MoveSolver(bad)
