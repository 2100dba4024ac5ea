# noqa: D212, D415
"""
# Skybridge

The rules in full, with pictures: this env's page of the documentation,
`docs/envs/skybridge_v0.md`.

% summary

From a Hungarian summary of *Skybridge* (Adam Ritchey, Gigamic 2006) and the published
game. Seats take turns placing
one piece from their supply on a board of foundations: tall (3-storey) and short (2-storey)
blocks go on the lowest level the colour rule allows, bridges join two equal towers,
roofs close a tower. When nobody can place, towers score their height for their owner and
bridges earn bonuses; the most points wins.

| Creation           | `sky_envs.make("skybridge_v0")`, `pettingzoo.make("aec", "sky_envs/skybridge-v0")`, `skybridge_v0.env()` |
|--------------------|--------------------------------------------------|
| Actions            | Discrete                                         |
| Parallel API       | No                                               |
| Agents             | `agents= ['player_0', 'player_1']` (or 3, 4 seats) |
| Num Agents         | 2, 3 or 4                                        |
| Action Shape       | (1,)                                             |
| Action Values      | Discrete(2 (3B + E)), B foundations, E edges (78 on the default 3x3) |
| Observation Shape  | (rows, cols, 34) ((3, 3, 34) by default)        |
| Observation Values | [0, total storeys in play] (heights and counts are raw; flags 0/1) |
| State Shape        | (rows, cols, 35 P) ((3, 3, 70) by default): see State |

```python
import sky_envs
env = sky_envs.make("skybridge_v0", players=3, variant="classic", render_mode="rgb_array")
# or: import pettingzoo; pettingzoo.make("aec", "sky_envs/skybridge-v0")
# or: from sky_envs import skybridge_v0; skybridge_v0.env()   (raw_env(): illegal moves raise)
```

% reference

### Options (`sky_envs.make("skybridge_v0", **options)`)

| option | default | meaning |
|---|---|---|
| `players` | 2 | 2, 3 or 4 seats. 4: seat i plays colour i. 2: seat 0 plays colours 0 and 2, seat 1 colours 1 and 3. 3: seat i plays colour i plus its share of the neutral colour 3's blocks |
| `rows`, `cols` | 3, 3 | the board of foundations (each 2..64) |
| `variant` | `"seed"` | `"seed"` (the seed text's rules) or `"classic"` (the published game's), see below |
| `tall`, `short`, `bridges`, `roofs` | 4, 4, 1, 2 | pieces of each colour (each 0..1000; `tall + short >= 1`) |
| `neutral_tall`, `neutral_short` | 1, 1 | with 3 seats: the neutral colour's blocks each seat gets (0..1000); `3 x neutral_tall <= tall` and `3 x neutral_short <= short` (they come from colour 3's own pieces) |
| `reward` | `"win"` | `"win"` (+1 / -1 / 0) or `"score"` (points, see Rewards) |
| `max_turns` | all pieces in play | placements before truncation (a draw), 1..1,000,000; the default can never cut a game, as every turn places a piece |

Bad values raise `ValueError` at construction: an unknown option name (the message lists
the valid ones), an unknown variant or reward, a seat count outside 2..4, a non-integer
for an integer option (`2.0`, `True`, `"2"`), a size or count outside its range above, no
blocks at all, more neutral blocks than colour 3 has.

### Rules in brief (both variants)

Height = storeys (tall 3, short 2, bridge 1, roof 0). A tower is *open* until roofed.
* **Blocks** go on an open tower of the lowest height at which the own-colour rule allows
  them. `seed`: if the rule allows them nowhere, on any open tower of the lowest height.
* **Bridges** go on two adjacent open towers of equal height h >= 1 whose tops are not
  bridges; `seed`: h is the lowest level (minimum height over open towers) and the two tops
  differ in colour; `classic`: any level.
* **Roofs** go on any open tower of height >= 1; nothing goes on a roof.
* **Own-colour rule.** `seed`: no piece directly on a piece of its own colour (a bridge: on
  neither end). `classic`: two pieces of one colour never touch: not directly on top and not
  on orthogonally adjacent foundations with overlapping vertical spans [base, base +
  storeys) (a roof [base, base + 1); a bridge's two ends do not touch each other).
* A seat with no legal placement is skipped; the game ends when no seat can place.
* **Scoring.** `seed`: every tower scores its height for the seat of its top piece's colour;
  a bridge still on top of both its towers scores 2 x (hA + hB) instead. `classic`: only
  roofed towers score, their height, for the roof's seat; a seat's bridge joining A and B
  adds the other tower's height when exactly one of them is roofed by that seat, and hA + hB
  more (both count double) when both are. Colour 3 with 3 seats scores for nobody.

### Actions

B = rows x cols foundations, `i = r * cols + c`; E = rows (cols - 1) + (rows - 1) cols
edges: the horizontal ones ((r, c)-(r, c+1)) row-major first, then the vertical ones
((r, c)-(r+1, c)) row-major. S = 3B + E; N = 2S (78 on 3x3).

| action | meaning |
|---|---|
| `slot * S + i` | tall block on foundation i |
| `slot * S + B + i` | short block on foundation i |
| `slot * S + 2B + i` | roof on foundation i |
| `slot * S + 3B + e` | bridge on edge e |

Slot 0 is the seat's first colour; slot 1 its second colour (2 seats) or its neutral
blocks (3 seats); slot 1 is never legal with 4 seats.

### Move notation (`state.action_to_string` / `state.string_to_action`)

Piece letter (`T` tall block, `S` short block, `R` roof, `B` bridge), colour digit (the
colours the board lists per seat; 3 is the neutral colour with 3 seats), then where:
`T0b2` a colour-0 tall block on foundation b2, `B1a1-b1` a colour-1 bridge between a1 and
b1. Foundations are named by column letter and row number, row 1 at the top (the ansi
board is labelled so). Case and spaces do not matter (`t0 B2`).
Play it yourself: `python -m sky_envs.play --env skybridge_v0 --opponent greedy` (see the README's
"Play and watch"); a recorded game: `docs/replays/skybridge_v0.gif`.

### Observation

`{"observation": float32 (rows, cols, 34), "action_mask": int8 (N,)}`, from the observing
seat's point of view. Colours are seat-relative: relative colour 0 is the observer's first
colour, then (2 seats) its second colour, then the next seats' colours in turn order; with
3 seats relative colour 3 is the neutral colour. So with 2 seats seat s sees colours
(s, s+2, 1-s, 3-s); with 3 seats (s, s+1, s+2 mod 3, 3); with 4 seats (s, s+1, s+2, s+3 mod 4).

| channel | meaning |
|---|---|
| 0 | height of the tower (storeys, raw) |
| 1 | 1 if the tower is closed by a roof |
| 2 | 1 if the tower is open and at the lowest level (minimum height over open towers) |
| 3..6 | 1 if the top piece has relative colour 0..3 (all 0 on an empty foundation) |
| 7..9 | 1 if the top piece is a tall block / short block / bridge end (a roof: channel 1) |
| 10..13 | 1 if the top piece is a bridge end whose partner lies n / e / s / w |
| 14..17 | number of bridges of the observer's colours in this tower (any level) whose partner lies n / e / s / w |
| 18..21 | the same for bridges of the other seats' colours |
| 22..25 | storeys of relative colour 0..3 in this tower |
| 26..29 | the observer's remaining supply in slot 0: tall, short, bridges, roofs (constant planes) |
| 30..33 | the same for slot 1 (second colour with 2 seats, neutral blocks with 3, all 0 with 4) |

Values lie in [0, `game.observation_high`] = [0, max(total storeys in play, largest
piece count)]. The action mask is all zero except for the seat to place.

### State

`env.state()` (in `env.state_space`, float32) is the global state for centralised critics
(MAPPO, RLlib's shared value function, TorchRL's `return_state`): the observations of all
P seats concatenated along the last axis (block k is `observe("player_k")["observation"]`),
then P planes, k all ones when `player_k` decides (all zeros once the game is over).
Its bounds are the observation bounds for each block and [0, 1] for the last P.

### Rewards

Zero until the end. `reward="win"`: 2 seats +1 / -1, 0 for a tie; 3-4 seats: every seat
with the highest score +1, every other -1, all 0 if every seat ties. `reward="score"`:
seat s gets `score_s - mean(score of the other seats)` in raw points (unscaled; the rewards
sum to zero; a rough scale is the board's total height). `max_turns` truncates with 0 for all.

### Infos

`infos[agent]` has the same numeric keys at every step from `reset` on (the dict is shared
by all agents and new at each step): `turn` (int, decisions since reset), `phase` (int:
always 0), `scores` (float32[P]: points per seat by the variant's scoring; as of `reset`, then final at the end),
`winners` (int8[P]: 1 for each winner once the game is over, all 0 until then and on a
`max_turns` cut) and `illegal_action` (int: the action that ended the game in `env()`,
else -1). The details in words and lists (`scores`, `colours`: each seat's colour slots, `winners` at the end)
are `env.unwrapped.game_state.info()`, current at any time.

### Position text

One line per foundation `r c:` followed by its pieces bottom to top: a colour digit and
`T` tall, `S` short, `R` roof, or for a bridge end `B` plus the partner's direction `n`,
`e`, `s`, `w` (`2Be` on (0,1) pairs with `2Bw` on (0,2)); an empty foundation has nothing
after the colon. Then `supply <seat> <slot>: T=<n> S=<n> B=<n> R=<n>` per seat and slot in
use, then `to_move: <seat>` (`to_move: -` once the game is over). Example:

```
0 0: 0T 1S
0 1: 2T 3Be
0 2: 1T 3Bw
1 0:
...
supply 0 0: T=3 S=4 B=1 R=2
supply 0 1: T=3 S=4 B=1 R=2
supply 1 0: T=3 S=3 B=1 R=2
supply 1 1: T=4 S=4 B=0 R=2
to_move: 0
```

`env.reset(options={"position": text})` loads one; `env.unwrapped.game_state.to_text()` writes
the current one (exact round trip). A loaded text is checked: every foundation once, each
supply line once, bridge ends that pair up (same colour, facing each other, at the same
height), nothing on a roof, no bridge on a bridge, no bridge or roof on the bare board,
colours and counts within what the game has in play (each supply count at most what its
slot starts with); a bad one raises `ValueError` naming the line and the bound. A seat to move without a legal placement passes to the next seat that has one.

### Decisions where the rules are silent

* The own-colour rule applies to roofs too (in `seed` no roof directly on its own colour; in
  `classic` a roof spans [base, base + 1) for the touching test). "Own colour" is the
  piece's colour, not the seat's other colour (2 seats) nor the neutral colour.
* In `classic` the lowest-level rule is applied to tall and short blocks separately (their
  spans differ, so the allowed towers can differ).
* A bridge whose top was covered on one end scores nothing extra in `seed`: the tower still
  topped by its other end scores its height for the bridge's seat like any tower.
* `classic` bonuses: "roofed by that seat" means a roof of any colour that seat plays; each
  bridge earns its bonus separately.
* A position may hold fewer pieces than the game puts in play (pieces left in the box);
  never more. Supplies are conserved during play: board + supplies never change in total.
* The `max_turns` counter is the number of pieces on the board, so a position text
  determines the whole state.

### Version History

* v0: initial release (sky_envs 0.1.0)
"""

from sky_envs.core.registry import env_constructors

env, raw_env = env_constructors("skybridge_v0")

__all__ = ["env", "raw_env"]
