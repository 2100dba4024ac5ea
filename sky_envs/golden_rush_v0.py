# noqa: D212, D415
"""
# Golden Rush (Highrise Heist, 4 seats)

From the online game «Перехват высотки» and its published Golden Rush engine. Same blocks and
two-phase turn as `highrise_heist_v0` (which shares this env's rules engine), on 9 stands
laid out as a cross: the golden centre and two arm stands per seat.
The rules explained with pictures: the docs page of this env (`docs/envs/golden_rush_v0.md`).
Play it yourself: `python -m sky_envs.play --env golden_rush_v0 --opponent greedy` (see the
guide "Play and watch", docs/guides/play_and_watch.md); a recorded game: `docs/replays/golden_rush_v0.gif`.

<!-- table -->

| Creation           | `sky_envs.make("golden_rush_v0")`, `pettingzoo.make("aec", "sky_envs/golden_rush-v0")`, `from sky_envs import golden_rush_v0; golden_rush_v0.env()` |
|--------------------|--------------------------------------------------|
| Actions            | Discrete                                         |
| Parallel API       | No                                               |
| Agents             | `agents= ['player_0', 'player_1', 'player_2', 'player_3']` |
| Agents             | 4                                                |
| Action Shape       | (1,)                                             |
| Action Values      | Discrete(217)                                    |
| Observation Shape  | (9, 11, 26)                                      |
| Observation Values | [0, 1]                                           |
| State Shape        | (9, 11, 108): see State |

<!-- reference -->

## Reference

### Options (`sky_envs.make("golden_rush_v0", **options)`)

| option | default | meaning |
|---|---|---|
| `mode` | `"ffa"` | `"ffa"` (every seat for itself) or `"teams"` (seats 0+2 against 1+3, with the team bonus; team totals decide) |
| `reward` | `"win"` | `"win"`: +1 / -1 / 0 as below; `"score"`: the scaled score margin, see Rewards |
| `max_turns` | 300 | turns before the game is cut as a draw, 1..1,000,000; a game never lasts more than 99 turns (every turn places at least one block and no block ever leaves), so the default never cuts |

Bad values and unknown options raise `ValueError` at construction.

### Board and rules

Stand 0 is the golden **centre**; seat p owns the arm stands `2p + 1` (near) and `2p + 2`
(far). Seat p plays colour p. A turn is two decisions by seat `turn % 4`: a transfer phase
(a transfer or "no transfer", always legal) and a placement phase (mandatory when a
placement is legal, skipped otherwise). There is no swap and no first-turn limit.

* **Capacity**: a near stand holds 11; a far stand 10 while its seat's near stand is open,
  11 once it is closed; the centre 10 until some seat is eligible, then 11. A transfer
  (any colour) or placement may never exceed the capacity (nothing is trimmed), and any
  of them may close stands, several per turn.
* **Closing**: a stand closes at 11 blocks. An arm stand belongs to its top colour. A seat
  is *eligible* once both its arm stands are closed (whoever owns them); eligible seats
  queue in the order they became eligible. The centre belongs to the first seat in the
  queue, whatever its top colour.
* **Score**: +1 per block of your colour on the board, +5 per closed near stand you own,
  +8 per closed far stand, +15 for the centre. In `teams` mode, when both members of a
  team are eligible, each gets +5.
* **End**: when all 9 stands are closed.

### Actions (N = 217)

| range | meaning |
|---|---|
| `a * 9 + b` (a != b) | transfer the top group of stand a onto stand b (b empty or topped by the group's colour, and within b's capacity) |
| 81 | no transfer |
| `82 + 3 * s + (k - 1)` | place k = 1..3 blocks on stand s |
| `109 + 3 * p + j` | place on two stands s < t, p = index of (s, t) among the 36 pairs in lexicographic order, j = 0: (1, 1), 1: (1, 2), 2: (2, 1) blocks on (s, t) |

### Move notation (`state.action_to_string` / `state.string_to_action`)

Stands are the digits 0..8 that head the board's columns (0 the centre; seat p's near and
far stands 2p+1 and 2p+2, named on the board's `arm` line): `3>7` transfers the top group of stand 3 onto stand 7, `pass` is no
transfer, `+5` / `+55` / `+555` place 1..3 blocks on stand 5 and `+37` / `+377` / `+337`
on two stands (one digit per block).

### Observation

`{"observation": float32 (9, 11, 26), "action_mask": int8 (217,)}`: axis 0 the stand,
axis 1 the level (0 = bottom), axis 2 the channel. Colours and seats are relative:
"relative seat k" is seat `(observer + k) % 4` (k = 0 the observer, k = 2 its teammate in
`teams` mode).

| channel | meaning |
|---|---|
| 0-3 | a block of relative seat k's colour at this level (channel k) |
| 4 | the stand's top group |
| 5 | empty levels below the stand's current capacity (what may still be built there); 0 on closed stands |
| 6 | the centre (whole column) |
| 7 | a near arm stand |
| 8 | a far arm stand |
| 9-12 | an arm stand of relative seat k (channel 9 + k) |
| 13 | the stand is closed |
| 14-17 | closed and owned by relative seat k (channel 14 + k; the centre's owner is the queue head) |
| 18-21 | constant planes, relative seat k's place in the eligibility queue: 1 first, 0.75 second, 0.5 third, 0.25 fourth, 0 not eligible |
| 22 | constant plane: 1 when the observer is the seat to decide now |
| 23 | constant plane: 1 in the placement phase |
| 24 | constant plane: 1 in `teams` mode |
| 25 | constant plane: `min(1, turn / max_turns)` |

### State

`env.state()` (in `env.state_space`, float32) is the global state for centralised critics
(MAPPO, RLlib's shared value function, TorchRL's `return_state`): the observations of all
4 seats concatenated along the last axis (block k is `observe("player_k")["observation"]`),
then 4 planes, k all ones when `player_k` decides (all zeros once the game is over).
Its bounds are the observation bounds for each block and [0, 1] for the last 4.

### Rewards

At the end, with `reward="win"`: `ffa` — every seat with the highest score gets +1, the
others -1, all 0 if all four tie; `teams` — the members of the team with the higher total
get +1, the others -1, all 0 on equal totals. With `reward="score"` each seat gets
`(x - mean) / 100`, where x is its score (`ffa`) or its team's total (`teams`) and mean the
average of x over the four seats: zero-sum, and always within [-1.3, 1.3] (a seat scores
at most 99 + 4*5 + 4*8 + 15 + 5). A `max_turns` cut gives 0 to all.

### Infos

`infos[agent]` has the same numeric keys at every step from `reset` on (the dict is shared
by all agents and new at each step): `turn` (int, decisions since reset), `phase` (int:
0 transfer, 1 placement), `scores` (float32[4]: points per seat, team bonus included; as of `reset`, then final at the end),
`winners` (int8[4]: 1 for each winner once the game is over, all 0 until then and on a
`max_turns` cut) and `illegal_action` (int: the action that ended the game in `env()`,
else -1). The details in words and lists (`scores`, the stand `queue`, `turn`, `phase`, `team_scores` in teams mode, `winners` at the end: a list of seats, [] on a team draw)
are `env.unwrapped.game_state.info()`, current at any time.

### Position text

Nine lines, stand 0 first, each that stand's blocks bottom to top as colour digits `0`-`3`
or `-` when empty; then `to_move: <seat>`, `phase: transfer|place`,
`turn: <turns played>`, `closed_this_turn: 0|1` (kept as in the 2-seat text: 1 when this
turn's transfer closed a stand; it changes no rule here and may be omitted) and
`queue: <eligible seats in order, space separated>` (`queue:` when nobody is eligible).
Loading checks, naming the line: 9 stand lines, only `0-3`/`-`, at most 11 blocks, no
closed far stand beside an open near one, no closed centre without an eligible seat,
`to_move` = `turn % 4`, `turn` at most `max_turns` (where the game is cut), and a queue
holding exactly the eligible seats once each. The
mode is the env's option, not part of the text.

### Decisions where the rules are silent

* Closures take effect after each decision: a transfer that closes a near stand raises
  that seat's far capacity to 11 for the placement of the same turn, and one that makes a
  seat eligible opens the centre to 11 for it (the published engine settles closures only
  at the end of a turn; the two separate decisions of a turn and "a stand with 11
  blocks is closed" of the 2-seat rules page are followed).
* Both stands of a two-stand placement are checked against the capacities before it: it
  cannot close a near stand and fill the far one to 11 at once.
* Seats made eligible by the same decision queue in seat order (the published engine's).
* Placement is mandatory when possible (the published engine lets a seat skip it after a
  transfer; the 2-seat rules page's mandatory placement is followed).

### Version History

* v0: initial release (sky_envs 0.1.0)
"""

from sky_envs.core.registry import env_constructors

env, raw_env = env_constructors("golden_rush_v0")

__all__ = ["env", "raw_env"]
