# noqa: D212, D415
"""
# Sky Scrapers

The rules in full, with pictures: this env's page of the documentation,
`docs/envs/sky_scrapers_v0.md`.

% summary

An abstract stacking game: a stack of height h moves exactly h cells in a straight
line and must land on another stack; a stack of 4 or more tiles is a *sky scraper*; the
most sky scrapers wins.

| Creation           | `sky_envs.make("sky_scrapers_v0")`, `pettingzoo.make("aec", "sky_envs/sky_scrapers-v0")`, `sky_scrapers_v0.env()` |
|--------------------|--------------------------------------------------|
| Actions            | Discrete                                         |
| Parallel API       | No                                               |
| Agents             | `agents= ['player_0', 'player_1']` (or 4 seats)  |
| Num Agents         | 2 or 4                                           |
| Action Shape       | (1,)                                             |
| Action Values      | Discrete(9B + 2), B = rows * cols (326 on the standard 6x6 board) |
| Observation Shape  | (rows, cols, players + 4) (6, 6, 6 by default)   |
| Observation Values | [0, B]: heights are tile counts (at most the board's cells) |
| State Shape        | (rows, cols, P (P + 5)) ((6, 6, 14) by default): see State |

```python
import sky_envs
env = sky_envs.make("sky_scrapers_v0", board="random", positioning="strategic", render_mode="rgb_array")
# or: import pettingzoo; pettingzoo.make("aec", "sky_envs/sky_scrapers-v0")
# or: from sky_envs import sky_scrapers_v0; sky_scrapers_v0.env()   (raw_env(): illegal moves raise)
```

% reference

### Options (`sky_envs.make("sky_scrapers_v0", **options)`)

| option | default | meaning |
|---|---|---|
| `board` | `"standard"` | `"standard"` (full 6x6, 8x8 with 4 players), `"square"` (full `rows x cols`), `"random"` (a seeded random connected shape inside `rows x cols`, new each reset), or a mask string (rows split by `/` or newlines, `.` cell, `#` no cell; at most 64 rows of 64) |
| `rows`, `cols` | 6 (8 with 4 players) | the bounding box of `"square"` and `"random"` boards, each 1..64 (so B <= 4096 cells) |
| `cells` | `(ceil(B/2), B)` | `(min, max)` cell count of a `"random"` board |
| `lines` | `"all"` | `"all"` (8 directions), `"orthogonal"` (N E S W), `"hex"` (axial hex: N NE E S SW W) |
| `players` | 2 | 2 or 4 |
| `positioning` | `"standard"` | `"standard"` (every cell one tile, colour (r+c)%2, or 2(r%2)+c%2 with 4 players), `"random"` (tiles on random cells, a coin toss picks the first mover; with 2 players the second mover first chooses its colour, with 4 colours are dealt at random), `"strategic"` (seats place their own tiles one by one; the second placer moves first) |
| `first` | `"player_0"` | who places first under strategic positioning: `"player_0"` or `"random"` |
| `tiles_per_player` | `cells // players` | tiles per seat (random and strategic positioning), 1..4096 and within the board |
| `skyscraper_height` | 4 | the height from which a stack is a sky scraper (2..4096) |
| `max_turns` | `2 B + 2` | decisions before truncation (a draw), 1..1,000,000; the default never cuts a game, which lasts at most B placements + B - 1 moves + 1 colour choice |

Bad values raise `ValueError` at construction: unknown option names (the message lists the
valid ones) or values, a non-integer for an integer option (`2.0`, `True`, `"2"`), a size
beyond its bound (checked before anything is built), a board too
small for the tiles (or with fewer cells than players), standard positioning on a board
whose colours come out unequal (or on a random board), a disconnected mask.

### Actions

| range | meaning |
|---|---|
| `i * 8 + d`, `0 <= i < B`, `d` = 0..7 for N, NE, E, SE, S, SW, W, NW | move the stack on cell `i = r * cols + c` (r = 0 is the top row) along direction `d`; its height decides the distance |
| `8B + i` | place a tile on empty cell `i` (strategic positioning) |
| `9B`, `9B + 1` | choose colour a / colour b (random positioning, 2 players) |

A move is legal when the stack is the mover's (its top tile), every cell crossed and the
landing cell are board cells, and the landing cell holds a tile. With `lines="hex"` only
d in {0, 1, 2, 4, 5, 6} are ever legal, with `"orthogonal"` only {0, 2, 4, 6}.

### Move notation (`state.action_to_string` / `state.string_to_action`)

Cells are named by column letter and row number, row 1 at the top (`a1` is the top-left
box cell, `b3` row index 2, column index 1; the ansi board is labelled so):

| notation | action |
|---|---|
| `c3>NE` | move the stack on c3 north-east (directions N NE E SE S SW W NW); `c3-NE` and `c3 ne` read too |
| `+c3` | place a tile on the empty cell c3 (strategic positioning; `c3` alone reads too) |
| `a` / `b` | choose colour a or b (random positioning, 2 players) |

Play it yourself: `python -m sky_envs.play --env sky_scrapers_v0 --opponent greedy` (see the README's
"Play and watch"); a recorded game: `docs/replays/sky_scrapers_v0.gif`.

### Observation

`{"observation": float32 (rows, cols, P + 4), "action_mask": int8 (9B + 2,)}`, from the
observing seat's point of view (P = players):

| channel | meaning |
|---|---|
| 0 | 1 on board cells, 0 on holes and outside the shape |
| 1 .. P | channel 1 + k: the height of every stack owned by the seat k places after the observer (k = 0: own stacks), 0 elsewhere. During the 2-player colour choice no seat has a colour yet: channel 1 + k is colour k (a, b) |
| P + 1 | all 1 during strategic placement |
| P + 2 | all 1 while the colour is being chosen |
| P + 3 | the observer's tiles still to place (constant plane) |

The action mask is all zero for every seat except the one to decide.

### State

`env.state()` (in `env.state_space`, float32) is the global state for centralised critics
(MAPPO, RLlib's shared value function, TorchRL's `return_state`): the observations of all
P seats concatenated along the last axis (block k is `observe("player_k")["observation"]`),
then P planes, k all ones when `player_k` decides (all zeros once the game is over).
Its bounds are the observation bounds for each block and [0, 1] for the last P.

### Rewards

At the end (no seat can move): the seat(s) with the most sky scrapers, ties broken by the
tallest sky scraper, get +1, every other seat -1; if every seat ties (or nobody has a sky
scraper) all get 0. `max_turns` truncates with 0 for all.

### Infos

`infos[agent]` has the same numeric keys at every step from `reset` on (the dict is shared
by all agents and new at each step): `turn` (int, decisions since reset), `phase` (int:
0 moving, 1 strategic placement, 2 colour choice), `scores` (float32[P]: sky scrapers per seat; as of `reset`, then final at the end),
`winners` (int8[P]: 1 for each winner once the game is over, all 0 until then and on a
`max_turns` cut) and `illegal_action` (int: the action that ended the game in `env()`,
else -1). The details in words and lists (`skyscrapers` and `tallest` per seat, `colours`: seat -> colour letter, `phase`, `winners` at the end)
are `env.unwrapped.game_state.info()`, current at any time.

### Turn order

`player_0` moves first (standard positioning). A seat with no legal move is skipped; the
last seat able to move keeps moving; the game ends when no seat can move.

### Position text

One line per row of the bounding box, tokens split by single spaces: `#` no cell, `.` empty
cell, a colour letter and a height (`a1`, `b12`); then `to_move: <seat>` (default 0).
Seat i plays colour i. `env.reset(options={"position": text})` loads one (its box must be
the env's `rows x cols`), `env.unwrapped.game_state.to_text()` writes the current one. To round
trip every state exactly, optional fields may stand before `to_move`, each written only
when it differs from the default: `colours: b a` (seat colours), `phase: choose` (2-player
colour choice), `phase: place` with `tiles_left: 3 3` and `first_mover: 1` (strategic
placement). Numbers are bounded by what a game can reach, since every tile starts on its
own cell and none leaves: a height is at most the box's B cells, and all tiles (on the board
plus `tiles_left`) fit on the board's cells; a text beyond that raises `ValueError` naming
the bound. A loaded position whose seat to move has no move passes the turn to the next
seat that has one. The turn counter of `max_turns` is not part of a position.

### Version History

* v0: initial release (sky_envs 0.1.0)
"""

from sky_envs.core.registry import env_constructors

env, raw_env = env_constructors("sky_scrapers_v0")

__all__ = ["env", "raw_env"]
