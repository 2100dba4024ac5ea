"""Rules engines, one package per game. Nothing here imports PettingZoo or Gymnasium.

Every game folder has the same core files, each opening with a docstring saying what it
holds (``docs/guides/add_your_own_game.md``, "How a game folder is laid out"):

* ``game.py``: the :class:`~sky_envs.core.state.Game`: options, the facts that never change,
  set-up, and the wiring of position texts and pictures into states;
* ``state.py``: the :class:`~sky_envs.core.state.GameState`: the position, legal moves,
  ``apply_unchecked``, the end and the returns;
* ``rules.py``: the rule facts the other modules share (phases, limits, scoring);
* ``observation.py``: the tensor a seat sees, its layout and how it is built;
* ``text.py``: the position text, written (``state_to_text``) and read
  (``read_position(..., new_state)``, building with the state class ``game.py`` hands over);
* ``notation.py``: the move notation (``action_to_string``, ``string_to_action``,
  ``describe_action``);
* ``explain.py``: why an action is illegal, in words (``illegal_reason``);
* ``render.py``: the text board (``render_text``) and the rgb picture (``render_rgb``);
* ``board_view.py``: the board of the play page: the position as a scene to draw
  (``board_scene``, :mod:`sky_envs.core.scene`), where each legal action starts and ends
  (``action_ways``: the things a click picks up and puts down) and the result in words
  (``result_words``);
* ``heuristic.py``, where the game judges positions better than by its score lead;
* ``rules_summary.md``: the rules in short, for the play front ends.

Beside them each game keeps its own tables and kernels (``board.py``, ``pieces.py``,
``layout.py``, ``deck.py``, ``tables.py``, ``kernels.py``, Sky Towers' ``sampler.py``,
Highrise Heist's ``heist.py`` and ``rush.py``). Imports run one way: ``rules.py`` and the
tables at the bottom; the views (observation, text, notation, explain, render, board_view, heuristic)
above them, reading a state through its public attributes without importing ``state.py``;
``state.py`` above the views, its methods handing over to them; ``game.py`` at the top.
"""
