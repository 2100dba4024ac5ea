# noqa: D212, D415
"""
# Scala

The rules in full, with pictures: this env's page of the documentation,
`docs/envs/scala_v0.md`.

% summary

Scala is the 1986 game by José W. Díaz (Skill Games). Two sides race to bring one stone
into the goal they attack by steps and chains of jumps, while after every move the stones
must hold together as one group mixing both colours: a move that splits them loses
stones, or the game.

| Creation           | `sky_envs.make("scala_v0")`, `pettingzoo.make("aec", "sky_envs/scala-v0")`, `scala_v0.env()` |
|--------------------|--------------------------------------------------|
| Actions            | Discrete                                         |
| Parallel API       | No                                               |
| Agents             | `agents= ['player_0', 'player_1']`               |
| Num Agents         | 2                                                |
| Action Shape       | (1,)                                             |
| Action Values      | Discrete(7744) = 88 x 88, `from * 88 + to`       |
| Observation Shape  | (14, 11, 5)                                      |
| Observation Values | [0, 1]                                           |
| State Shape        | (14, 11, 12): see State |

```python
import sky_envs
from sky_envs import scala_v0

env = scala_v0.env(render_mode="ansi")          # or sky_envs.make("scala_v0")
env.reset(seed=0)
for agent in env.agent_iter():
    obs, reward, termination, truncation, info = env.last()
    action = None if termination or truncation else env.action_space(agent).sample(obs["action_mask"])
    env.step(action)
```

% reference

### Board

Columns a..k, rows 1..14: an 88-cell diamond with a 3 x 2 hole (e7..g8) in the middle. Row
14 holds only f14, row 13 e13..g13, ... row 9 a9..k9, rows 8 and 7 a..d and h..k, row 6
a6..k6, ... row 1 only f1. Adjacency is 8-way between cells; nothing is adjacent across the
hole or off the board. Blue `O` (`player_0`, moves first) starts on c7 d7 h7 i7, c6..i6,
e5 f5 g5, attacks **f14** and defends f1; Red `X` (`player_1`) starts on e10 f10 g10,
c9..i9, c8 d8 h8 i8, attacks **f1** and defends f14. 14 stones each.

### Options (`sky_envs.make("scala_v0", **options)`)

| option | default | meaning |
|---|---|---|
| `split_rule` | `"mover_loses"` | what happens when a move splits the stones into groups (below): `"mover_loses"` (the seed text) or `"illegal"` (the published alternative reading) |
| `max_turns` | 300 | plies (single moves) before the game is truncated as a draw, 1..1,000,000; counted from the start or from a loaded position |

Bad values raise `ValueError` at construction (an unknown `split_rule` lists the valid
ones; an unknown option name is an error too, listing the valid options; `max_turns` must
be an integer, not `300.0` or `"300"`).

### Actions

Cells are numbered from row 1 upward, left to right inside a row: f1 = 0, e2 = 1, f2 = 2,
g2 = 3, d3 = 4, ..., e13 = 84, f13 = 85, g13 = 86, f14 = 87. The first cell of each row:

| row | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 | 11 | 12 | 13 | 14 |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
| first cell | f1 = 0 | e2 = 1 | d3 = 4 | c4 = 9 | b5 = 16 | a6 = 25 | a7 = 36 | a8 = 44 | a9 = 52 | b10 = 63 | c11 = 72 | d12 = 79 | e13 = 84 | f14 = 87 |

(rows 7 and 8 skip the hole: a7 = 36 .. d7 = 39, h7 = 40 .. k7 = 43).
Action `from * 88 + to` moves the mover's stone on cell `from` to cell `to`. It is legal when

* `to` is an empty neighbour of `from` (a **step**), or the end of a chain of one or more
  **jumps**: each jump goes over an adjacent stone of either colour to the empty cell
  directly behind it; the direction may change after each jump, nothing is captured, and
  the start cell counts as empty during the chain (a chain may pass through it; it can never
  jump over it, as every landing differs from the start by an even number of rows and
  columns and so is never next to it);
* `to != from` (**decision**: a chain that comes back to its start is not a move);
* neither `to` nor any landing cell of the chain is the goal the mover **defends** (a chain
  may pass through the goal it attacks, but wins only if it ends there);
* with `split_rule="illegal"`: the move does not break the split rule (below).

A move is identified by its two cells only: when several step/jump paths lead to the same
cell they are one action. Only 2,420 of the 7,744 actions can be legal in any position (a
neighbour, or a cell that jumps reach: one an even number of rows and columns away);
`make_game("scala_v0").possible_actions` lists them, and the self-play learner's dense policy
head trains only their rows.

### After a move: the split rule

Groups are 8-connected sets of stones. If the board holds two or more groups after a move:
1. every group of one colour only is removed;
2. if no stone is left, the mover loses;
3. of the remaining (mixed) groups all but the biggest are removed;
4. if two or more groups tie for biggest, the mover loses (the tied groups stay on the
   board, **decision**).

Then, if the moved stone is still on the board and stands on the goal it attacks, the mover
wins (the split is settled first, so a move that loses by rule 2 or 4 loses even if it
reached the goal; a moved stone removed by rule 1 or 3 does not win).

With `split_rule="illegal"` a move that would lose by rule 2 or 4 is illegal, and so
(**decision**, filling a gap of the rules, after the published reading "the stone must
stay connected to its group" and "it is not valid to separate the two colours completely")
is a move after which the moved stone's group holds one colour only; after a legal split
every stone not connected to the moved stone's group is removed (even a bigger mixed group).

A player with no legal move loses (**decision**: the original rules do not say). Reaching `max_turns`
plies ends the game as a draw (truncation); a move that wins or loses on the last ply still
counts, and the "no legal move" test is not made once `max_turns` is reached.

### Move notation (`state.action_to_string` / `state.string_to_action`)

`e5-d4`: the start and end cells of the moving stone, for a step and for a chain of jumps
alike (jumps capture nothing, so two cells name the move; `e5d4` and `e5 d4` read too).
`state.describe_action` says whether it is a step or a jump.
Play it yourself: `python -m sky_envs.play --env scala_v0 --opponent greedy` (see the README's
"Play and watch"); a recorded game: `docs/replays/scala_v0.gif`.

### Observation

`{"observation": float32 (14, 11, 5), "action_mask": int8 (7744,)}`. Index `[i, j]` is the
cell of row `14 - i`, column `"abcdefghijk"[j]`: the same layout as the position text (row 14
on top). There is **no orientation flip**: both seats see the board the same way, and
actions are absolute cell numbers; the goal channels tell which way a seat plays.

| channel | meaning |
|---|---|
| 0 | 1 on the 88 board cells, 0 on the hole and outside the diamond |
| 1 | 1 where the observing seat has a stone |
| 2 | 1 where the opponent has a stone |
| 3 | 1 on the goal the observing seat attacks (f14 for player_0, f1 for player_1) |
| 4 | 1 on the goal the observing seat defends (f1 for player_0, f14 for player_1) |

The action mask is all zero for the seat not to move.

### State

`env.state()` (in `env.state_space`, float32) is the global state for centralised critics
(MAPPO, RLlib's shared value function, TorchRL's `return_state`): the observations of all
2 seats concatenated along the last axis (block k is `observe("player_k")["observation"]`),
then 2 planes, k all ones when `player_k` decides (all zeros once the game is over).
Its bounds are the observation bounds for each block and [0, 1] for the last 2.

### Rewards

+1 to the winner, -1 to the loser at the end, 0 on every other step and on a draw
(`max_turns`).

### Infos

`infos[agent]` has the same numeric keys at every step from `reset` on (the dict is shared
by all agents and new at each step): `turn` (int, decisions since reset), `phase` (int:
always 0), `scores` (float32[2]: stones on the board per seat; as of `reset`, then final at the end),
`winners` (int8[2]: 1 for each winner once the game is over, all 0 until then and on a
`max_turns` cut) and `illegal_action` (int: the action that ended the game in `env()`,
else -1). The details in words and lists (`stones`, `plies`; at the end `end`: `"goal"`, `"split"`, `"no_move"` or `"max_turns"`, and `winners`: a list of seats, empty on a draw)
are `env.unwrapped.game_state.info()`, current at any time.

### Position text

The 14 rows from row 14 down to row 1, 11 characters each, no spaces: `#` no cell, `.` an
empty cell (goals included), `O` Blue, `X` Red; then `to_move: O` or `to_move: X`, e.g. the
start:

```
#####.#####
####...####
###.....###
##.......##
#...XXX...#
..XXXXXXX..
..XX###XX..
..OO###OO..
..OOOOOOO..
#...OOO...#
##.......##
###.....###
####...####
#####.#####
to_move: O
```

`env.reset(options={"position": text})` loads one, `env.unwrapped.game_state.to_text()` writes
the current one (exact round trip). Malformed text (a wrong row count or length, an unknown
character, a stone or `.` on a hole or outside the diamond, `#` on a cell, more than 14
stones of a colour, both sides on their target goals, a missing or bad `to_move`, a bad
`winner` line) raises `ValueError` naming the line. **Decisions** where the rules are silent:

* a loaded position is taken as it stands: its stones may form several groups; the split
  rule applies after the next move. The ply counter of `max_turns` starts at 0.
* a loaded position whose side to move has no legal move is a finished game: that side
  lost (`env.reset` ends it at once, with the rewards).
* a loaded position with a stone on the goal its side attacks is a finished game won by
  that side (only the move that reaches a goal puts a stone there); a stone on the goal its
  own side defends is allowed (it may leave, never re-enter).
* `to_move` always names the side that would move next (in a finished game too). A game
  lost by the split rule (rule 2: an empty board; rule 4: tied groups) cannot be told from
  its board, so its text carries one extra line before `to_move`: `winner: O` or
  `winner: X` (with `to_move` naming that winner, as the loser made the last move); reading
  it back gives the same finished game. It is the only addition to the notation and appears
  in no other position.

### Rendering

`"ansi"`: the board with coordinates a..k and 1..14 (goals `*`), stone counts and whose
turn it is. `"rgb_array"`: a picture of the diamond with coordinates, stones in blue/red
(the last moved stone marked `*`), each goal tinted in the colour of the side attacking it.

### Version History

* v0: initial release (sky_envs 0.1.0)
"""

from sky_envs.core.registry import env_constructors

env, raw_env = env_constructors("scala_v0")

__all__ = ["env", "raw_env"]
