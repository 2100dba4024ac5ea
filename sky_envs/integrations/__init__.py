"""Adapters to RL frameworks that need more than PettingZoo's API.

* :mod:`sky_envs.integrations.gymnasium_vector`: the single-agent view of many games as a
  Gymnasium ``VectorEnv`` (``gymnasium.make_vec("sky_envs/<name>-v0", num_envs=N,
  vectorization_mode="vector_entry_point", opponent=...)``).
* :mod:`sky_envs.integrations.sb3_vector`: the same view as a Stable-Baselines3 ``VecEnv``
  that sb3-contrib's ``MaskablePPO`` trains on.
* :mod:`sky_envs.integrations.learner_slots` and :mod:`sky_envs.integrations.actors`, what
  both are built on (and the self-play collector too): the learner's seats against
  opponents that decide for all the games waiting on them in one call, over
  :mod:`sky_envs.vector`. They sit here, above :mod:`sky_envs.agents`, because they play
  agents; ``sky_envs.vector`` itself knows only games.
* :mod:`sky_envs.integrations.rllib` (``pip install "sky_envs[rllib]"``, an optional extra):
  Ray RLlib's turn-based ``MultiAgentEnv`` with action masks, an RLModule that is a project
  network, and the export of a trained module to the project's checkpoint format.
"""
