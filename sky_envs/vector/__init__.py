"""Batched games: ``num_envs`` games of one env stepped by one call, as numpy arrays.

.. code-block:: python

    import numpy as np
    from sky_envs import vector

    venv = vector.make("sky_scrapers_v0", num_envs=1024, seed=0)
    batch = venv.reset()                 # arrays with leading dimension num_envs
    rng = np.random.default_rng(0)
    for _ in range(100):
        actions = vector.random_actions(batch.action_mask, rng)
        batch = venv.step(actions)       # ended games restart in place

See :class:`VectorEnv` for what a batch holds and how slots are seeded; the oracle tests
(``tests/vector``) hold every engine to the AEC env bit for bit.
"""

from sky_envs.vector.env import MAX_NUM_ENVS, Batch, VectorEnv, make, random_actions

__all__ = ["MAX_NUM_ENVS", "Batch", "VectorEnv", "make", "random_actions"]
