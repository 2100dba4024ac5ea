"""Pictures of the Scala page (docs/envs/scala_v0.md): positions reached by playing the
recorded game docs/replays/scala_v0.json move by move, and one set up by hand."""

from __future__ import annotations

import sky_envs
from _helpers import replay_states

ENV_ID = "scala_v0"

# Blue to move: f12 jumps over the red stone on f13 into the goal f14
GOAL_WIN = """\
#####.#####
####.X.####
###..OX.###
##..XO...##
#...XOX...#
...OXXO....
...O###....
...X###....
...........
#.........#
##.......##
###.....###
####...####
#####.#####
to_move: O"""


def pictures() -> dict:
    game = sky_envs.make_game(ENV_ID)
    states = replay_states(game)
    goal = game.state_from_text(GOAL_WIN)
    won = goal.clone()
    won.apply(won.string_to_action("f12-f14"))
    return {
        "start": game.render_rgb(states[0]),
        "opening": game.render_rgb(states[1]),         # after Blue's h6-h10 (two jumps)
        "jump_chain_before": game.render_rgb(states[2]),   # Blue to play d6-f12
        "jump_chain_after": game.render_rgb(states[3]),
        "split_before": game.render_rgb(states[9]),    # Red to play e10-d11
        "split_after": game.render_rgb(states[10]),
        "goal_before": game.render_rgb(goal),
        "goal_after": game.render_rgb(won),
        "split_loss_before": game.render_rgb(states[-2]),  # Red's last move empties the board
    }
