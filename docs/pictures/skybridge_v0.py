"""Pictures of the Skybridge page (docs/envs/skybridge_v0.md): positions of the recorded
game docs/replays/skybridge_v0.json (variant "seed", 2 seats), replayed move by move, and a
bridge of the "classic" variant played from a position set up by hand."""

from __future__ import annotations

import sky_envs
from _helpers import replay_states

ENV_ID = "skybridge_v0"

# classic variant: two tall blocks side by side on a1 and b1, the rest of the board empty
CLASSIC_TOWERS = """\
0 0: 0T
0 1: 1T
0 2:
1 0:
1 1:
1 2:
2 0:
2 1:
2 2:
supply 0 0: T=3 S=4 B=1 R=2
supply 0 1: T=4 S=4 B=1 R=2
supply 1 0: T=3 S=4 B=1 R=2
supply 1 1: T=4 S=4 B=1 R=2
to_move: 0"""


def pictures() -> dict:
    game = sky_envs.make_game(ENV_ID)
    states = replay_states(game)
    classic = sky_envs.make_game(ENV_ID, variant="classic")
    bridge = classic.state_from_text(CLASSIC_TOWERS)
    bridge.apply(bridge.string_to_action("B2a1-b1"))
    roofed = bridge.clone()
    for move in ("T1a2", "R0a1"):
        roofed.apply(roofed.string_to_action(move))
    return {
        "start": game.render_rgb(states[0]),
        "first_moves": game.render_rgb(states[3]),       # after T2b2, S3a3, R2a3
        "lowest_level": game.render_rgb(states[6]),      # six pieces placed, level 0 still open
        "bridge_before": game.render_rgb(states[14]),    # player_0 to play B2b1-c1
        "bridge_after": game.render_rgb(states[15]),
        "bridge_covered": game.render_rgb(states[16]),   # after player_1's T1b1
        "final": game.render_rgb(states[-1]),
        "classic_bridge": classic.render_rgb(bridge),
        "classic_roof": classic.render_rgb(roofed),     # after T1a2 and R0a1
    }
