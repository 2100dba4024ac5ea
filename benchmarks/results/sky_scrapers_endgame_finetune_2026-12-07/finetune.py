"""Experiment: fine-tune the shipped Sky Scrapers network on exactly solved endgame positions
(policy target: uniform over the moves that keep the exact value; value target: the exact value),
mixed half and half with the round-2 self-distillation replay (to keep the rest of its play)."""
import glob, sys, time
import numpy as np, torch
from benchmarks.solved_positions import read_set, load_position
from sky_envs.agents.checkpoint import open_checkpoint, save_checkpoint
from sky_envs.agents.network import forward
from sky_envs.core.registry import make_game

source, out, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
lr = float(sys.argv[4]) if len(sys.argv) > 4 else 1e-4
endgame_share = float(sys.argv[5]) if len(sys.argv) > 5 else 0.5
policy_only = len(sys.argv) > 6 and sys.argv[6] == "policy-only"   # run C: no value loss on the solved positions
torch.manual_seed(0); rng = np.random.default_rng(0); torch.set_num_threads(1)
ck = open_checkpoint(source)
policy, meta = ck.policy, ck.metadata
game = make_game("sky_scrapers_v0", **meta["env_options"])
A, sym = game.num_actions, game.symmetries
_, positions = read_set("/work/runs/endgame/train.jsonl")   # run A; runs B and C: a copy of it at 5,526 positions
E_obs, E_mask, E_tgt, E_val = [], [], [], []
for e in positions:
    s = load_position(game, e)
    names = {s.action_to_string(int(a)): int(a) for a in s.legal_actions()}
    t = np.zeros(A, np.float32)
    best = [names[m] for m, v in e["moves"].items() if v == e["value"]]
    t[best] = 1.0 / len(best)
    E_obs.append(s.observation(s.current_player)); E_mask.append(s.legal_mask()); E_tgt.append(t); E_val.append(e["value"])
E_obs, E_mask, E_tgt, E_val = map(np.array, (E_obs, E_mask, E_tgt, E_val))
R_obs, R_mask, R_tgt, R_val = [], [], [], []
for f in sorted(glob.glob("/work/runs/ss-round2/replay/*.npz")):
    d = np.load(f)
    n = len(d["values"]); off = d["offsets"]
    m = np.zeros((n, A), bool); t = np.zeros((n, A), np.float32)
    rows = np.repeat(np.arange(n), np.diff(off))
    m[rows, d["actions"]] = True; t[rows, d["actions"]] = d["shares"]
    R_obs.append(d["observations"]); R_mask.append(m); R_tgt.append(t); R_val.append(d["values"])
R_obs, R_mask, R_tgt, R_val = map(np.concatenate, (R_obs, R_mask, R_tgt, R_val))
print(f"endgame {len(E_val)} positions, replay {len(R_val)} samples", flush=True)
opt = torch.optim.Adam(policy.parameters(), lr=lr)
policy.set_training_mode(True)
batch = 256; ne = int(batch * endgame_share); started = time.time()
for step in range(steps):
    ie = rng.integers(len(E_val), size=ne); ir = rng.integers(len(R_val), size=batch - ne)
    obs = np.concatenate([E_obs[ie], R_obs[ir]]); mask = np.concatenate([E_mask[ie], R_mask[ir]])
    tgt = np.concatenate([E_tgt[ie], R_tgt[ir]]); val = np.concatenate([E_val[ie], R_val[ir]]).astype(np.float32)
    which = rng.integers(len(sym), size=batch)
    obs, mask, tgt = sym.transform(which, obs, mask, tgt)
    logits, pred = forward(policy, torch.as_tensor(obs))
    logits = logits.masked_fill(~torch.as_tensor(mask), -1e9)
    lp = torch.log_softmax(logits, dim=1); t = torch.as_tensor(tgt)
    pl = -(t * lp).sum(1); vl = (pred - torch.as_tensor(val)) ** 2
    if policy_only:
        vl = torch.cat([torch.zeros_like(vl[:ne]), vl[ne:]])
    loss = (pl + vl).mean()
    opt.zero_grad(); loss.backward(); torch.nn.utils.clip_grad_norm_(policy.parameters(), 5.0); opt.step()
    if step % 200 == 0:
        print(f"step {step}: endgame policy {pl[:ne].mean().item():.3f} value {vl[:ne].mean().item():.3f}; "
              f"replay policy {pl[ne:].mean().item():.3f} value {vl[ne:].mean().item():.3f} ({time.time() - started:.0f} s)", flush=True)
policy.set_training_mode(False)
save_checkpoint(out, policy, meta)
print("wrote", out)
