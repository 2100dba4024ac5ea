"""VectorEnv.step's final_observer: where a step ends a game, the final observation is the
named seat's view of the last position (what the single-agent adapters hand their learner
when an opponent ended the game), for every engine a game has."""

import numpy as np
import pytest

import sky_envs
from sky_envs import vector

BUILTIN = list(sky_envs.BUILTIN_ENV_IDS)


@pytest.mark.parametrize("engine", ["auto", "python"])
@pytest.mark.parametrize("env_id", BUILTIN)
def test_the_final_observation_is_the_named_seats_view(env_id, engine):
    venv = vector.make(env_id, 4, seed=7, engine=engine)
    batch = venv.reset()
    rng = np.random.default_rng(0)
    seen_by_another = 0
    for _ in range(3000):
        states = [venv.game_state(i) for i in range(4)]
        actions = vector.random_actions(batch.action_mask, rng)
        movers = batch.current_player.copy()
        # slot 0: the default (the mover); the others: the seat after the mover
        observer = np.where(np.arange(4) == 0, -1, (movers + 1) % venv.num_players)
        batch = venv.step(actions, final_observer=observer)
        for slot in np.flatnonzero(batch.terminated | batch.truncated):
            states[slot].apply(int(actions[slot]))
            seat = int(movers[slot]) if observer[slot] < 0 else int(observer[slot])
            assert batch.final_player[slot] == movers[slot]
            np.testing.assert_array_equal(batch.final_observation[slot], states[slot].observation(seat))
            seen_by_another += int(observer[slot] >= 0)
        if seen_by_another >= 3:
            break
    assert seen_by_another >= 3


def test_a_bad_final_observer_is_refused_and_nothing_moves():
    venv = vector.make("skybridge_v0", 3, seed=0)
    batch = venv.reset()
    before = [venv.game_state(i).to_text() for i in range(3)]
    actions = vector.random_actions(batch.action_mask, np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"final_observer must hold seats 0..1 or -1"):
        venv.step(actions, final_observer=np.array([0, 2, -1]))
    with pytest.raises(ValueError, match=r"final_observer must be an integer array of shape \(3,\)"):
        venv.step(actions, final_observer=np.zeros(3))
    assert [venv.game_state(i).to_text() for i in range(3)] == before
