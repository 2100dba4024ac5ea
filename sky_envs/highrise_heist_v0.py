# noqa: D212, D415
"""
# Highrise Heist

From the rules page of the online game «Перехват высотки» (facts it omits from the game's
published engine). Ten stands, stand 0 golden (★). On each turn a seat may
move the top group of one stand onto another, then places 1 to 3 blocks of its colour on
at most 2 stands. A stand with 11 blocks is a finished highrise owned by its top colour;
whoever owns more of them wins, the golden one breaking a 5:5 tie. The 4-seat mode is
`golden_rush_v0`; both share one rules engine (`sky_envs/games/highrise_heist/`).
The rules explained with pictures: the docs page of this env (`docs/envs/highrise_heist_v0.md`).
Play it yourself: `python -m sky_envs.play --env highrise_heist_v0 --opponent greedy` (see the
guide "Play and watch", docs/guides/play_and_watch.md); a recorded game: `docs/replays/highrise_heist_v0.gif`.

<!-- table -->

| Creation           | `sky_envs.make("highrise_heist_v0")`, `pettingzoo.make("aec", "sky_envs/highrise_heist-v0")`, `from sky_envs import highrise_heist_v0; highrise_heist_v0.env()` |
|--------------------|--------------------------------------------------|
| Actions            | Discrete                                         |
| Parallel API       | No                                               |
| Agents             | `agents= ['player_0', 'player_1']`               |
| Agents             | 2                                                |
| Action Shape       | (1,)                                             |
| Action Values      | Discrete(267)                                    |
| Observation Shape  | (10, 11, 14)                                     |
| Observation Values | [0, 1]                                           |
| State Shape        | (10, 11, 30): see State |

<!-- reference -->

## Reference

### Options (`sky_envs.make("highrise_heist_v0", **options)`)

| option | default | meaning |
|---|---|---|
| `max_turns` | 200 | turns (a turn = a transfer decision and a placement decision) before the game is cut as a draw, 1..1,000,000; random play ends within about 80 turns |

A bad value (not an integer in 1..1,000,000) or an unknown option (`mode` and `reward`
belong to `golden_rush_v0`) raises `ValueError` at construction.

### Turn structure

A turn is two consecutive decisions by the same seat, `player_0` on even turns and
`player_1` on odd ones:

1. **transfer phase** — a transfer (`a * 10 + b`), `100` (no transfer), or on turn 1 the
   swap `266`. "No transfer" is always legal, so no seat is ever skipped.
2. **placement phase** — one placement action. It is mandatory when a placement is legal;
   when none is, the phase is skipped and the turn ends.

Turn 0 (`player_0`'s first) has no transfer phase: one placement of exactly 1 block.
On turn 1 `player_1` may swap instead of transferring: every block changes colour (closed
stands too), the turn ends, and `player_0` plays turn 2 normally. Seats keep their colours.

### Actions (N = 267)

| range | meaning |
|---|---|
| `a * 10 + b` (a != b) | transfer the top group of stand a (its maximal same-coloured run at the top, either colour) onto stand b |
| 100 | no transfer |
| `101 + 3 * s + (k - 1)` | place k = 1..3 blocks on stand s |
| `131 + 3 * p + j` | place on two stands s < t, p = index of (s, t) among the 45 pairs in lexicographic order ((0,1)=0, (0,2)=1, ..., (8,9)=44), j = 0: (1, 1), 1: (1, 2), 2: (2, 1) blocks on (s, t) |
| 266 | swap (pie rule), `player_1` on turn 1 only |

`a * 10 + a` is never legal. A transfer is legal when a and b are open, a is not empty,
b is empty or topped by the group's colour, and — if it brings b to 11 or more — the group
is the mover's colour (the excess then leaves from the bottom of b, which closes). A
placement is legal when every stand it uses is open and ends at most at the *cap*: 10, or
11 when at most 2 stands are open and no stand was closed earlier in this turn; a
placement may never close two stands. Blocks beyond 11 are never placed.

### Move notation (`state.action_to_string` / `state.string_to_action`)

Stands are the digits 0..9 (0 = the golden stand), as the board's columns are labelled:

| notation | action |
|---|---|
| `3>7` | transfer the top group of stand 3 onto stand 7 |
| `pass` | no transfer (`-` reads too) |
| `+5`, `+55`, `+555` | place 1, 2 or 3 blocks on stand 5 (one digit per block; the `+` may be left out) |
| `+37`, `+377`, `+337` | place on two stands: 1+1, 1+2, 2+1 blocks |
| `swap` | swap colours (pie rule) |

### Observation

`{"observation": float32 (10, 11, 14), "action_mask": int8 (267,)}`: axis 0 the stand
(0 = golden), axis 1 the level (0 = bottom block), axis 2 the channel, from the observing
seat's point of view (its own colour first):

| channel | meaning |
|---|---|
| 0 | a block of the observer's colour at this level |
| 1 | a block of the opponent's colour at this level |
| 2 | the stand's top group (the blocks a transfer from it would move) |
| 3 | empty levels a placement could fill now: from the height up to the current placement cap (10, or 11 when at most 2 stands are open and nothing closed this turn); 0 on closed stands |
| 4 | the golden stand (whole column of stand 0) |
| 5 | the stand is closed (whole column) |
| 6 | closed and owned by the observer |
| 7 | closed and owned by the opponent |
| 8 | constant plane: 1 when the observer is the seat to decide now |
| 9 | constant plane: 1 in the placement phase, 0 in the transfer phase |
| 10 | constant plane: 1 on turn 0 (the single-block opening) |
| 11 | constant plane: 1 while the swap is available (turn 1, transfer phase) |
| 12 | constant plane: 1 when a stand was closed earlier in this turn (its transfer) |
| 13 | constant plane: `min(1, turn / max_turns)` |

The action mask is all zero for every seat except the one to decide.

### State

`env.state()` (in `env.state_space`, float32) is the global state for centralised critics
(MAPPO, RLlib's shared value function, TorchRL's `return_state`): the observations of all
2 seats concatenated along the last axis (block k is `observe("player_k")["observation"]`),
then 2 planes, k all ones when `player_k` decides (all zeros once the game is over).
Its bounds are the observation bounds for each block and [0, 1] for the last 2.

### Rewards

+1 to the winner and -1 to the loser at the end; a `max_turns` cut gives 0 to both.

### Infos

`infos[agent]` has the same numeric keys at every step from `reset` on (the dict is shared
by all agents and new at each step): `turn` (int, decisions since reset), `phase` (int:
0 transfer, 1 placement), `scores` (float32[2]: closed stands owned per seat; as of `reset`, then final at the end),
`winners` (int8[2]: 1 for each winner once the game is over, all 0 until then and on a
`max_turns` cut) and `illegal_action` (int: the action that ended the game in `env()`,
else -1). The details in words and lists (`scores`, `golden_owner`: a seat or None, `turn`, `phase`, `winners` at the end)
are `env.unwrapped.game_state.info()`, current at any time.

### End

The seat owning more closed stands wins; at 5:5 the owner of the golden stand does. The
game ends as soon as one seat cannot win even by closing every open stand for itself
(golden tie-break included), e.g. 6 closed stands, or 5 including the golden one; that is
checked after every decision, so a transfer that decides the game ends it at once (no
placement follows; the text then shows `phase: place`).

### Position text

Ten lines, stand 0 first, each that stand's blocks bottom to top as `b` (colour 0,
`player_0`) / `r` (colour 1) or `-` when empty; then `to_move: <seat>`,
`phase: transfer|place`, `turn: <turns played>` and `closed_this_turn: 0|1`:

```
bbrrr
-
...            (10 stand lines in all)
to_move: 1
phase: transfer
turn: 1
closed_this_turn: 0
```

`env.reset(options={"position": text})` loads one and `env.unwrapped.game_state.to_text()`
writes the current one (exact round trip). Loading checks, naming the line: 10 stand lines,
only `b`/`r`/`-`, at most 11 blocks per stand, `to_move` = `turn % 2`, `turn` at most
`max_turns` (where the game is cut), a phase that exists
(turn 0 has only the placement phase), `closed_this_turn: 1` only in the placement phase
of a turn >= 1 with a closed stand topped by the mover's colour. `closed_this_turn` may be
omitted (0). A position that is already decided loads as a finished game; one in the
placement phase without a legal placement passes to the next turn.

### Decisions where the rules are silent

* `max_turns` counts turns, the swap included; the cut happens when `turn` reaches it.
* A placement may never go beyond 11 blocks (only transfers trim).
* The published engine lets a seat skip its placement and ignores the golden tie-break
  when ending early; the online game's rules page (mandatory placement, golden
  tie-break included) is followed.

### Version History

* v0: initial release (sky_envs 0.1.0)
"""

from sky_envs.core.registry import env_constructors

env, raw_env = env_constructors("highrise_heist_v0")

__all__ = ["env", "raw_env"]
