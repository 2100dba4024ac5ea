# noqa: D212, D415
"""
# Sky Towers

From a Japanese rules walkthrough of the card game by Charles Ward (EX1ST GAMES). 2 to 4 seats with hidden hands and a shuffled
deck build towers of cards that sum to exactly 21, claim bonuses and block their
neighbours; the most yellow sails wins.
The rules explained with pictures: the docs page of this env (`docs/envs/sky_towers_v0.md`).
Play it yourself: `python -m sky_envs.play --env sky_towers_v0 --opponent greedy` (see the
guide "Play and watch", docs/guides/play_and_watch.md); a recorded game: `docs/replays/sky_towers_v0.gif`.

<!-- table -->

| Creation           | `sky_envs.make("sky_towers_v0")`, `pettingzoo.make("aec", "sky_envs/sky_towers-v0")`, `from sky_envs import sky_towers_v0; sky_towers_v0.env()` |
|--------------------|--------------------------------------------------|
| Actions            | Discrete                                         |
| Parallel API       | No                                               |
| Agents             | `agents= ['player_0', 'player_1']` (up to `player_3`) |
| Agents             | 2, 3 or 4                                        |
| Action Shape       | (1,)                                             |
| Action Values      | Discrete(99 + 17 T), T = `max_towers` (303 with T = 12) |
| Observation Shape  | (51 + T + n (3 T + 18),): 171 / 225 / 279 for n = 2 / 3 / 4 with T = 12 |
| Observation Values | raw counts in [0, high], `high` per entry (the Box bound, also `env.unwrapped.game.obs_layout.high`); at most 82 with the default deck |
| State Shape        | (n (S + 1),), S the observation size: 344 / 678 / 1120 for n = 2 / 3 / 4 with T = 12: see State |

<!-- reference -->

## Reference

### Options (`sky_envs.make("sky_towers_v0", **options)`)

| option | default | meaning |
|---|---|---|
| `players` | 2 | 2, 3 or 4 seats |
| `first` | `"player_0"` | who starts: `"player_0"` or `"random"` (a seat drawn from the reset seed) |
| `max_towers` | 12 | T, the row slots of each seat (1..64): at most T incomplete towers in a row; it also sizes the action layout |
| `max_turns` | 500 | seat turns (skipped ones included) before truncation, a draw, 1..1,000,000; random games last about 80 |
| `deck` | `None` | the shipped `games/sky_towers/deck.json`; or a path to a JSON file of the same form (a regular file of at most 1048576 bytes), a dict `{"cards": [...], "bonuses": {...}}`, or the list of card entries `{"value": 1..10, "copies": 0..4096, "sails": 0..1000, "flags": 0..1000}` (one per value, missing values have no cards; at most 4096 cards in all) |
| `bonuses` | `None` | bonus name -> sails (0..1000), overriding the deck file's table; names from `big_ben, sky, triple, romance, lucky, real_estate_king, perfect`; a bonus left out is not in play |
| `debug_render` | `False` | renders show every hand and the deck order (normally only the hand of the seat that decides now) |

Default deck (82 cards): value 1..10 with copies 8 10 10 9 8 8 9 3 3 14, one sail on each
1..7, one flag on each 5 and 7; bonus sails Big Ben 5, Sky 3, Triple 4, Romance 3, Lucky 4,
Real-estate King 3, Perfect 2. Bad values raise `ValueError` at construction: an unknown
option name (the message lists the valid ones), a seat count other than 2..4, a
non-integer for an integer option (`2.0`, `True`, `"2"`), an unknown `first`, a deck with
counts outside their ranges, unknown values or keys, a duplicate value, more than 4096 or
fewer than 5 n + 1 cards (the deal plus one card to draw), a deck path that is not a
regular file of at most 1 MiB, an unknown bonus name or sails outside 0..1000.

### Actions

With W = T + 2, STOP = 43 + 17 T (247 when T = 12) and o = 1..3 a seat offset: seat
(i + o) % n for the deciding seat i. Slot p < T is the tower in row slot p (0 = leftmost);
p = T starts a new tower at the left end, p = T + 1 at the right end.

| index (T = 12) | general | meaning |
|---|---|---|
| 0 | 0 | draw the deck's top card (also the "draw" choice of a 6) |
| 1..10 | v | take the open card of value v |
| 11..22 | 11 + t | dismantle your tower in slot t |
| 23..162 | 11 + T + (v-1) W + p | build a v from your hand on your row at p |
| 163..246 | 31 + 11 T + ((v-8) 3 + (o-1)) W + p | build an 8 or 9 on seat o's row at p |
| 247 | STOP | stop: end a final turn early, stop rushing 4s, decline the 2's exchange |
| 248..250 | STOP + o | exchange (2) with seat o |
| 251..260 | STOP + 3 + v | give a card of value v (second half of the exchange) |
| 261 / 262 | STOP + 14 / STOP + 15 | peeked card stays on top / goes to the bottom (3) |
| 263..292 | STOP + 15 + (o-1) 10 + v | ask seat o for value v (6) |
| 293..302 | STOP + 45 + v | discard a card of value v (5, by the discarding seat) |

Only the actions of the pending decision are legal: a main action (draw, take, dismantle,
build; stop only in a final turn), or the decision of the effect being resolved. During a
rush only "build a 4 on the same tower" and STOP are legal. A decision may belong to a seat
other than the one whose turn it is (the 5's discards): `agent_selection` is whoever
decides.

### Move notation (`state.action_to_string` / `state.string_to_action`)

The card and its target. Towers are numbered 0, 1, .. from the left of a row (the board
shows `0:[3 5 =8]`), `L` / `R` is a new tower at the left / right end, seats are `p0`..`p3`:

| notation | action |
|---|---|
| `draw`, `take 7`, `dismantle 2` | draw the top card, take the open 7, dismantle your tower 2 |
| `7>2`, `7>L`, `7>R` | build a 7 on your tower 2, on a new tower at the left / right end |
| `8>p1:2`, `9>p1:R` | build an 8 or 9 on player_1's row |
| `stop` | stop / decline |
| `exchange p1`, `give 5` | exchange with player_1, then give a 5 |
| `keep`, `bottom` | the peeked card stays on top / goes to the bottom |
| `ask p1 7`, `discard 5` | ask player_1 for a 7; discard a 5 |

### Observation

`{"observation": float32 (51 + T + n (3 T + 18),), "action_mask": int8 (99 + 17 T,)}`.
Raw counts, from the observing seat i. Block k describes seat (i + k) % n (k = 0: own
seat); B = 3 T + 18, D = 10 + n B.

| offset | size | field |
|---|---|---|
| 0 | 10 | own hand: number of cards of each value 1..10 |
| 10 + k B | 3 T | seat block: for each row slot t: tower sum, top card value, number of cards (0, 0, 0 without a tower) |
| 10 + k B + 3 T | 1 | sails on the seat's completed towers |
| + 1 | 1 | flags on its completed towers |
| + 2 | 1 | cards in its score pile |
| + 3 | 1 | completed towers |
| + 4 | 1 | completed towers that contain a 10 (Big Ben progress) |
| + 5 | 1 | hand size |
| + 6 | 1 | action card: 1 = dismantle side up |
| + 7 | 7 | bonus cards held: Big Ben, Sky, Triple, Romance, Lucky, Real-estate King, Perfect |
| + 14 | 1 | 1 if it is this seat's turn |
| + 15 | 1 | 1 if this seat decides now |
| + 16 | 1 | 1 if the deck ran out in this seat's turn (the final round ends with it) |
| + 17 | 1 | 1 if this seat is the exchange target in the give phase |
| D | 1 | deck size |
| D + 1 | 10 | open pool: cards of each value |
| D + 11 | 10 | discarded cards (by the 5) of each value |
| D + 21 | 7 | phase one-hot: main, rush, exchange, give, peek, ask, discard (all 0 once over) |
| D + 28 | T | rush: one-hot of the slot being rushed |
| D + 28 + T | 10 | the peeked card (one-hot value), only for the peeking seat while it decides |
| D + 38 + T | 1 | actions left in the current turn |
| D + 39 + T | 1 | 1 in the final round |
| D + 40 + T | 1 | towers the turn seat has completed itself this turn (Real-estate King) |

Never another seat's hand or the deck order. The action mask is all zero for every seat
except the one to decide. `SkyTowersState.sample_consistent(seat, rng)` deals the cards a
seat cannot see (opponents' hands and the deck, minus what it knows: cards it saw enter a
hand, cards it gave or took, peeked cards, values a seat was asked for in vain) into a
full state with the same observation, for determinised search.

### State

`env.state()` (in `env.state_space`, float32) is the global state for centralised critics
(MAPPO, RLlib's shared value function, TorchRL's `return_state`): the observations of all
n seats concatenated along the last axis (block k is `observe("player_k")["observation"]`),
then n entries, entry k 1 when `player_k` decides (all zeros once the game is over).
It is the full-information view: every seat's hand (each block shows its seat's own hand)
and the peeked card; only the deck order, which no seat knows, is left out. Its bounds are the observation bounds for each block and [0, 1] for the last n.

### Rewards

At the end: score = sails on completed towers' cards + sails of held bonus cards. Most
sails wins; tie: most flags on completed towers' cards; still tied: a shared win. Two
seats: +1 / -1, 0 for a shared win. More seats: each winner +1, every other seat -1; all 0
if every seat wins. `max_turns` truncates with 0 for all.

### Infos

`infos[agent]` has the same numeric keys at every step from `reset` on (the dict is shared
by all agents and new at each step): `turn` (int, decisions since reset), `phase` (int:
0 main, 1 rush, 2 exchange, 3 give, 4 peek, 5 ask, 6 discard, 7 over), `scores` (float32[n]: sails per seat, held bonus cards included; as of `reset`, then final at the end),
`winners` (int8[n]: 1 for each winner once the game is over, all 0 until then and on a
`max_turns` cut) and `illegal_action` (int: the action that ended the game in `env()`,
else -1). The details in words and lists (`scores`, `flags`, `bonuses`: name -> holder seat or -1, `turns`, `winners` at the end)
are `env.unwrapped.game_state.info()`, current at any time.

### Turns and rules decided here (where the published rules are silent)

* Set-up: shuffle, pick the first seat (`first="random"`), deal 5 cards one at a time
  from the first seat on. A turn is 2 actions (a final turn up to 3); a seat with no legal
  action is skipped, and a final turn offers STOP only next to another legal action.
* Rows: completed towers leave the row and the others close up (slot indices shift). A row
  holds at most T towers. On an empty row both "left end" and "right end" are legal (same
  result). A 10 may only start a new tower; only a 1 goes on a 1; blocking values come
  from the left neighbour's (i - 1) rightmost and the right neighbour's (i + 1) leftmost
  tower, so with 2 seats the opponent's two outermost towers block, with 4 the opposite
  seat never does. The same restrictions apply to 8/9 built on another seat's row.
* A built card is placed, a completed tower scored and its bonuses claimed, then the
  card's effect resolves. 2: offered only if another seat holds 2+ cards; the card taken is
  uniform at random from `state.rng`; any card may be given back (even the one taken).
  3: only with a non-empty deck. 4: the rush is offered while another 4 fits on that tower.
  5: seats over 5 cards discard one card per decision, in seat order from the seat whose
  turn it is; discards are face up (public). 6: asking any other seat for any value is
  always possible (a vain ask is public); the draw needs a non-empty deck; the 6 has no
  decline. 7: nothing happens with an empty deck.
* The end: the final round starts whenever the deck runs out during a seat's turn (its
  draw, its 6's draw or its 7 opening the last card); that seat finishes its turn, then
  every seat from the next one to it takes a final turn.
* The action card flips back up whenever a tower of the seat is completed, also by another
  seat's 8/9. A tower completed by another seat's 8/9 earns its owner the tower bonuses
  (and Big Ben progress) but nobody gets Real-estate King or Perfect for it.
* Bonuses: Triple counts sets as the sum over values of count // 3 (six equal cards are
  two sets); Lucky is exactly three cards, all 7; Romance is 4+ fours or 4 fives;
  Real-estate King is claimed on the second own completion in a turn; Perfect when an own
  tower is completed with the last card of the hand (a rush's last 4 too). A later
  achiever takes a bonus over; Big Ben stays with the first seat to reach 3 towers with a
  10. The two unnamed bonus cards of the seed are left out.

### Position text

`env.unwrapped.game_state.to_text()` writes the full state (hidden parts included),
`env.reset(options={"position": text})` loads one; round trips are exact. `key: value`
lines, every key required except `known` / `lacks`:

```
players: 2
slots: 12
turns: 3                  completed seat turns (max_turns counts these)
turn_of: 1                the seat whose turn it is
phase: main               main | rush <slot> | exchange | give <target seat> | peek | ask | discard | over
actions: 2                actions left in the turn
end: -                    '-' or the seat in whose turn the deck ran out
final: no                 yes in the final round
completed: 0              towers the turn seat completed itself this turn
action_cards: up down     per seat
bonuses: big_ben=- sky=0 triple=- romance=- lucky=- real_estate_king=- perfect=-
deck: 7 3@1 10 ...        top card first; '@' + the seats that know that card (peeked)
open: 7                   open pool ('-' = empty)
discards: -
hand0: 1 2 5 5 10         every hand, sorted
hand1: 3 4 6 8 9
row0: 3.5.2 10.4          towers left to right, cards bottom.to.top
row1: -
pile0: 10.5.6             completed towers in completion order
pile1: -
known: 0>1=5.5            seat 0 knows seat 1 holds at least 5, 5
lacks: 1>0=6.9            seat 1 knows seat 0 holds no 6 and no 9
```

The discarding seat of the `discard` phase is the first seat from `turn_of` on holding
more than 5 cards. A loaded text must use the env's seat count, T and deck (every card
exactly once), legal towers (sum <= 20, 10 only at the bottom, only 1s above a 1), completed
towers summing to 21, bonus holders whose piles earn them, a phase that fits the position,
`turns` at most `max_turns` (where the game is cut), `completed` at most the towers in the
turn seat's pile, and a seat to move that can act; otherwise `ValueError` naming the line.

### Render modes

`"ansi"` / `"human"`: text; `"rgb_array"`: one band per seat with its score, hand (face
down unless it is the deciding seat, or `debug_render=True`) and row of towers with sums.

### Version History

* v0: initial release (sky_envs 0.1.0)
"""

from sky_envs.core.registry import env_constructors

env, raw_env = env_constructors("sky_towers_v0")

__all__ = ["env", "raw_env"]
