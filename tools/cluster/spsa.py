"""SPSA as fishtest runs it, without the games: the parameters, the gains,
the plan of a batch of game pairs, the update and the state file.

`run.py spsa` plays the games (one `arena` run per pair on the cluster's
workers) and calls these; nothing here needs Dask or an engine.

The formulas are fishtest's (github.com/official-stockfish/fishtest,
`server/fishtest/views.py` `_parse_spsa_params` and `validate_form`, and
`server/fishtest/spsa_handler.py` `_generate_data` and
`update_spsa_data`). With N iterations (game pairs) in all:

    A = int(0.1 * N)        alpha = 0.602        gamma = 0.101
    c = c_end * N**gamma    a_end = r_end * c_end**2    a = a_end * (A + N)**alpha

and at iteration k (from 1), for each parameter:

    c_k = c / k**gamma      a_k = a / (A + k)**alpha      R_k = a_k / c_k**2
    theta+ = clip(theta + c_k * flip)      theta- = clip(theta - c_k * flip)
    theta  = clip(theta + R_k * c_k * (wins - losses of theta+) * flip)

with `flip` a random sign per parameter, `clip` the parameter's [min, max],
and integer parameters rounded (half away from zero) where they are given
to the engine. One difference from fishtest: fishtest draws one flip per
worker request and applies the request's pairs as one result, advancing
`iter` by their number; here every pair is its own iteration, with its own
flips, c_k and R_k (iterations k+1 .. k+B of a batch planned at k). Like
fishtest, a batch is planned with the theta known when it is handed out,
so batches played at the same time share iteration numbers; each result
is applied when it arrives, with the gains it was planned with.
"""

from __future__ import annotations

import csv
import json
import math
import os
import random
import re
from dataclasses import asdict, dataclass
from pathlib import Path

ALPHA = 0.602
GAMMA = 0.101
A_RATIO = 0.1
STATE_VERSION = 1
NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class SpsaError(ValueError):
    """A parameter list or a state file that cannot be used: the message says why."""


@dataclass
class Param:
    """One line of the input: `name, int|float, default, min, max, c_end, r_end`."""

    name: str
    type: str
    start: float
    min: float
    max: float
    c_end: float
    r_end: float


def parse_params(text: str, source: str = "parameters") -> list[Param]:
    """The parameters of fishtest's SPSA input, one a line: `name, int,
    default, min, max, c_end, r_end` (what `chariot params` prints), or
    fishtest's own six fields without the type (taken as `int`). Blank
    lines and `#` comments are skipped."""
    params: list[Param] = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        fields = [f.strip() for f in line.split(",")]
        if len(fields) == 6:
            fields.insert(1, "int")
        where = f"{source}, line {number}"
        if len(fields) != 7:
            raise SpsaError(f"{where}: '{line}' is not 'name, int, default, min, max, c_end, r_end'")
        name, kind = fields[0], fields[1]
        if not NAME.match(name):
            raise SpsaError(f"{where}: '{name}' is not a parameter name")
        if kind not in ("int", "float"):
            raise SpsaError(f"{where}: type '{kind}' (int or float)")
        try:
            start, lo, hi, c_end, r_end = (float(f) for f in fields[2:])
        except ValueError as e:
            raise SpsaError(f"{where}: {e}") from e
        if not lo <= start <= hi:
            raise SpsaError(f"{where}: {name}'s default {fields[2]} is outside [{fields[3]}, {fields[4]}]")
        if c_end <= 0 or r_end < 0:
            raise SpsaError(f"{where}: {name} needs c_end > 0 and r_end >= 0")
        if any(p.name == name for p in params):
            raise SpsaError(f"{where}: {name} is listed twice")
        params.append(Param(name, kind, start, lo, hi, c_end, r_end))
    if not params:
        raise SpsaError(f"{source}: no parameters")
    return params


def select(params: list[Param], only: str | None) -> list[Param]:
    """The parameters named in `only` (comma-separated), in the list's order."""
    if not only:
        return params
    names = [n.strip() for n in only.split(",") if n.strip()]
    known = {p.name for p in params}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise SpsaError(f"--only: no parameter {', '.join(unknown)} (known: {', '.join(sorted(known))})")
    return [p for p in params if p.name in names]


# --------------------------------------------------------------------------
# The state


def new_state(
    params: list[Param],
    iterations: int,
    seed: int,
    settings: dict,
    alpha: float = ALPHA,
    gamma: float = GAMMA,
    a_ratio: float = A_RATIO,
) -> dict:
    """A tune of `iterations` game pairs from the parameters' defaults, with
    fishtest's constants (see the module's text)."""
    if iterations < 1:
        raise SpsaError("--iterations must be at least 1")
    n = iterations
    big_a = int(a_ratio * n)
    rows = []
    for p in params:
        c = p.c_end * n**gamma
        a_end = p.r_end * p.c_end**2
        rows.append({**asdict(p), "c": c, "a_end": a_end, "a": a_end * (big_a + n) ** alpha, "theta": p.start})
    return {
        "version": STATE_VERSION,
        "iterations": n,
        "A": big_a,
        "alpha": alpha,
        "gamma": gamma,
        "seed": seed,
        "iter": 0,
        "next_batch": 0,
        "next_opening": 0,
        "games": 0,
        "wins": 0,
        "draws": 0,
        "losses": 0,
        "params": rows,
        "settings": settings,
        "history": [{"iter": 0, "batch": None, "wdl": [0, 0, 0], "theta": [p.start for p in params]}],
    }


def save_state(path: Path, state: dict) -> None:
    """Writes the state atomically: a reader (or a resumed tune) sees the
    old file or the new one, never half of one."""
    part = path.with_name(f".{path.name}.part")
    with open(part, "w") as f:
        json.dump(state, f, indent=1)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    part.replace(path)


def load_state(path: Path) -> dict:
    try:
        state = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise SpsaError(f"{path}: {e}") from e
    if not isinstance(state, dict) or state.get("version") != STATE_VERSION:
        raise SpsaError(f"{path}: not an SPSA state file of version {STATE_VERSION}")
    return state


# --------------------------------------------------------------------------
# Batches


def clip(row: dict, value: float) -> float:
    return min(max(value, row["min"]), row["max"])


def engine_value(row: dict, value: float) -> int | float:
    """The value given to the engine: clipped, and rounded half away from
    zero for an integer parameter."""
    value = clip(row, value)
    if row["type"] == "int":
        return int(math.copysign(math.floor(abs(value) + 0.5), value))
    return value


def opening_order(seed: int, counts: list[int]) -> list[tuple[int, int]]:
    """Every opening of every suite, as (suite, index), in the tune's own
    shuffled order (seeded, so a resumed tune keeps it); pair q plays the
    opening at q modulo their number."""
    order = [(s, i) for s, n in enumerate(counts) for i in range(n)]
    random.Random(f"openings:{seed}").shuffle(order)
    return order


def plan_batch(state: dict, pairs: int, order: list[tuple[int, int]]) -> dict:
    """The next batch: `pairs` game pairs, iterations k+1 .. k+pairs where
    k is the iterations applied so far, each with its own random signs,
    gains, theta+ and theta- from the current theta, and its opening.
    Takes the batch's number and openings from the state's counters."""
    k, gamma, alpha, big_a = state["iter"], state["gamma"], state["alpha"], state["A"]
    number = state["next_batch"]
    rng = random.Random(f"flips:{state['seed']}:{number}")
    planned = []
    for j in range(pairs):
        i = k + 1 + j
        flips, cs, rs, plus, minus = [], [], [], [], []
        for row in state["params"]:
            c_i = row["c"] / i**gamma
            flip = rng.choice((-1, 1))
            flips.append(flip)
            cs.append(c_i)
            rs.append(row["a"] / (big_a + i) ** alpha / c_i**2)
            plus.append(engine_value(row, row["theta"] + c_i * flip))
            minus.append(engine_value(row, row["theta"] - c_i * flip))
        opening = order[(state["next_opening"] + j) % len(order)]
        planned.append(
            {"iteration": i, "flips": flips, "c": cs, "R": rs, "plus": plus, "minus": minus, "opening": list(opening)}
        )
    state["next_batch"] += 1
    state["next_opening"] += pairs
    return {"number": number, "pairs": planned}


def apply_batch(state: dict, plan: dict, results: list[tuple[int, int, int]]) -> None:
    """Applies a batch's results, (wins, draws, losses) of theta+ per pair,
    pair by pair with the gains and signs it was planned with, and records
    the new theta in the history."""
    if len(results) != len(plan["pairs"]):
        raise SpsaError(f"batch {plan['number']}: {len(results)} results for {len(plan['pairs'])} pairs")
    total = [0, 0, 0]
    for pair, (w, d, losses) in zip(plan["pairs"], results, strict=True):
        r = w - losses
        for idx, row in enumerate(state["params"]):
            row["theta"] = clip(row, row["theta"] + pair["R"][idx] * pair["c"][idx] * r * pair["flips"][idx])
        total = [total[0] + w, total[1] + d, total[2] + losses]
    state["iter"] += len(results)
    state["games"] += sum(total)
    state["wins"] += total[0]
    state["draws"] += total[1]
    state["losses"] += total[2]
    state["history"].append(
        {
            "iter": state["iter"],
            "batch": plan["number"],
            "wdl": total,
            "theta": [row["theta"] for row in state["params"]],
        }
    )


# --------------------------------------------------------------------------
# Output


def summary(state: dict, most: int = 8) -> str:
    """theta in a line: every parameter when few, else the `most` that moved
    furthest from their start (in units of c_end)."""
    rows = state["params"]
    shown = rows
    if len(rows) > most:
        shown = sorted(rows, key=lambda r: -abs(r["theta"] - r["start"]) / r["c_end"])[:most]
    text = ", ".join(f"{r['name']} {r['theta']:.1f} ({r['theta'] - r['start']:+.1f})" for r in shown)
    return text + (f", {len(rows) - most} more in the state file" if len(rows) > most else "")


def final_table(state: dict) -> str:
    """The tuned values beside their starts: the lines to carry into the
    engine's parameter table."""
    width = max(len(r["name"]) for r in state["params"])
    lines = [f"{'parameter':<{width}}  {'start':>9}  {'tuned':>9}  {'engine':>7}  change/c_end"]
    for r in state["params"]:
        lines.append(
            f"{r['name']:<{width}}  {r['start']:>9.2f}  {r['theta']:>9.2f}  {engine_value(r, r['theta']):>7}"
            f"  {(r['theta'] - r['start']) / r['c_end']:+.2f}"
        )
    return "\n".join(lines)


def write_csv(state: dict, path: Path) -> None:
    """The path of every parameter: one row per recorded iteration."""
    with open(path, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["iter", "batch", "wins", "draws", "losses", *(r["name"] for r in state["params"])])
        for h in state["history"]:
            batch = "" if h["batch"] is None else h["batch"]
            out.writerow([h["iter"], batch, *h["wdl"], *(f"{t:.4f}" for t in h["theta"])])


def plot(state: dict, path: Path) -> bool:
    """A PNG of each parameter's path against the iteration, with its start
    and range; False when matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    rows = state["params"]
    cols = min(4, len(rows))
    lines = math.ceil(len(rows) / cols)
    fig, axes = plt.subplots(lines, cols, figsize=(4 * cols, 2.6 * lines), squeeze=False)
    x = [h["iter"] for h in state["history"]]
    for idx, row in enumerate(rows):
        ax = axes[idx // cols][idx % cols]
        ax.plot(x, [h["theta"][idx] for h in state["history"]], linewidth=1)
        ax.axhline(row["start"], color="grey", linestyle=":", linewidth=1)
        ax.set_ylim(row["min"], row["max"])
        ax.set_title(row["name"], fontsize=9)
        ax.set_xlabel("iteration", fontsize=7)
        ax.tick_params(labelsize=7)
    for idx in range(len(rows), lines * cols):
        axes[idx // cols][idx % cols].axis("off")
    fig.suptitle(
        f"SPSA: {state['iter']} of {state['iterations']} iterations, {state['games']} games "
        f"(W {state['wins']} D {state['draws']} L {state['losses']} for theta+)",
        fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True
