"""The evaluation report: a table on the terminal, JSON and CSV files and a ratings plot."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from .ratings import bradley_terry, wilson_interval
from .tournament import PairResult


def build_report(env_id: str, options: dict, names: list[str], results: list[PairResult], anchor: str) -> dict:
    ratings = bradley_terry(names, [r.as_dict() for r in results], anchor=anchor)
    pairings = []
    for r in results:
        low, high = wilson_interval(r.score, r.games)
        pairings.append({**r.as_dict(), "games": r.games, "score": r.score / r.games if r.games else 0.0,
                         "ci95": [low, high]})
    return {"env_id": env_id, "env_options": options, "anchor": anchor,
            "ratings": dict(sorted(ratings.items(), key=lambda kv: -kv[1])), "pairings": pairings}


def format_table(report: dict) -> str:
    lines = [f"Evaluation on {report['env_id']} (ratings: Bradley-Terry, Elo scale, {report['anchor']} = 0)", ""]
    width = max(len(name) for name in report["ratings"]) + 2
    lines.append(f"{'agent':<{width}}{'rating':>8}")
    for name, rating in report["ratings"].items():
        lines.append(f"{name:<{width}}{rating:>8.0f}")
    lines.append("")
    pair_width = max(len(f"{p['a']} vs {p['b']}") for p in report["pairings"]) + 2
    lines.append(f"{'pairing':<{pair_width}}{'W':>5}{'D':>5}{'L':>5}{'score':>8}{'95% CI':>16}")
    for p in report["pairings"]:
        ci = f"[{p['ci95'][0]:.2f}, {p['ci95'][1]:.2f}]"
        lines.append(f"{p['a'] + ' vs ' + p['b']:<{pair_width}}{p['wins']:>5}{p['draws']:>5}{p['losses']:>5}"
                     f"{p['score']:>8.2f}{ci:>16}")
    return "\n".join(lines)


def write_report(report: dict, directory: str | Path, stem: str = "evaluation") -> list[Path]:
    """``<stem>.json``, ``<stem>.csv`` and ``<stem>.png`` (ratings bar chart) in ``directory``."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    json_path = directory / f"{stem}.json"
    json_path.write_text(json.dumps(report, indent=2))
    csv_path = directory / f"{stem}.csv"
    with csv_path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["a", "b", "wins", "draws", "losses", "games", "score", "ci95_low", "ci95_high",
                         "rating_a", "rating_b"])
        for p in report["pairings"]:
            writer.writerow([p["a"], p["b"], p["wins"], p["draws"], p["losses"], p["games"], f"{p['score']:.4f}",
                             f"{p['ci95'][0]:.4f}", f"{p['ci95'][1]:.4f}",
                             f"{report['ratings'][p['a']]:.1f}", f"{report['ratings'][p['b']]:.1f}"])
    png_path = directory / f"{stem}.png"
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names, values = list(report["ratings"]), list(report["ratings"].values())
    figure, axis = plt.subplots(figsize=(1.2 * len(names) + 2, 3.5))
    axis.bar(names, values, color="#3465a4")
    axis.axhline(0, color="black", linewidth=0.8)
    axis.set_ylabel(f"rating ({report['anchor']} = 0)")
    axis.set_title(f"{report['env_id']}: Bradley-Terry ratings")
    figure.tight_layout()
    figure.savefig(png_path)
    plt.close(figure)
    return [json_path, csv_path, png_path]
