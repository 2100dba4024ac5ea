"""Adapters to RL frameworks that need more than PettingZoo's API (each an optional extra).

* :mod:`sky_envs.integrations.rllib` (``pip install "sky_envs[rllib]"``): Ray RLlib's
  turn-based ``MultiAgentEnv`` with action masks, an RLModule that is a project network,
  and the export of a trained module to the project's checkpoint format.
"""
