"""Self-play PPO training, tournaments and ratings for sky_envs games.

``python -m training.train --config configs/sky_scrapers.yaml`` trains;
``python -m training.evaluate --env sky_scrapers_v0 --agents random greedy mcts PATH.pt``
evaluates. See ``training/README.md``.
"""
