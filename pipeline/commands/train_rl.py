"""`evo train-rl`: train a reinforcement-learning Nim agent, save it, report how it plays."""

from __future__ import annotations

from pathlib import Path

from rich.markup import escape

from ..cli import UserError
from ..display import console, print_table
from .match import add_board_options, rules_from_args


def add_parser(sub) -> None:
    p = sub.add_parser(
        "train-rl",
        help="train a Q-learning or Monte Carlo Nim agent",
        description="Train a tabular RL agent on canonical Nim states against an opponent mix, "
        "save it (play it with `evo match rl:PATH expert`) and write its learning curve (Parquet).",
    )
    p.add_argument("--method", choices=("td", "mc"), default="td",
                   help="td: Q-learning, one backup per move; mc: Monte Carlo returns (default td)")
    add_board_options(p)
    p.add_argument("--episodes", type=int, default=200_000, help="training games (default 200000)")
    p.add_argument("--opponents", default="self",
                   help="opponent mix: 'random=0.5,expert=0.3,self=0.2', a JSON object, or one name "
                   "(any registered agent; self = self-play; default self)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--eval-every", type=int, default=None,
                   help="episodes between learning-curve points (default episodes/20; 0: start and end only)")
    p.add_argument("--eval-games", type=int, default=2000, help="games per curve point and opponent (default 2000)")
    p.add_argument("--final-games", type=int, default=10_000, help="games per opponent in the final table (default 10000)")
    p.add_argument("--out", default=None, help="where to save the agent (default runs/rl-METHOD.rlagent)")
    p.add_argument("--curve", default=None, help="learning curve Parquet (default: next to --out, .curve.parquet)")
    h = p.add_argument_group("hyperparameters")
    h.add_argument("--alpha", type=float, default=0.1, help="initial learning rate (default 0.1)")
    h.add_argument("--alpha-min", type=float, default=0.01, help="learning-rate floor (default 0.01)")
    h.add_argument("--epsilon", type=float, default=0.3, help="initial exploration rate (default 0.3)")
    h.add_argument("--epsilon-min", type=float, default=0.01, help="exploration floor (default 0.01)")
    h.add_argument("--gamma", type=float, default=1.0, help="discount per backup step (default 1)")
    h.add_argument("--explore-starts", type=float, default=0.7,
                   help="share of episodes starting from a random position with a random first move (default 0.7)")
    h.add_argument("--shaped", action="store_true", help="seed 004's rewards: ±5 win/loss, ±3 one row left")
    h.add_argument("--initial", type=float, default=0.0, help="value of untried moves (seed 004: -0.5; default 0)")
    h.add_argument("--adaptive", type=float, default=0.0,
                   help="seed 004's adaptive exploration: epsilon += STEP per loss, -= per win (default 0: off)")
    h.add_argument("--batch", type=int, default=256, help="games played in lockstep (default 256)")
    p.set_defaults(handler=run)


def _hyperparameters(args):
    from fitness.nim.rl import Hyperparameters, Rewards

    return Hyperparameters(
        method=args.method, alpha=args.alpha, alpha_min=args.alpha_min, epsilon=args.epsilon,
        epsilon_min=args.epsilon_min, gamma=args.gamma, initial=args.initial,
        rewards=Rewards.shaped() if args.shaped else Rewards(), adaptive=args.adaptive,
        explore_starts=args.explore_starts, batch=args.batch,
    )


class _TrainingProgress:
    """Training progress: a live bar on a terminal; piped (`| tee log`), whole plain lines at
    the curve points (about twenty), like `evo run`, never a line cut at 80 columns."""

    def __init__(self, episodes: int) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        from ..progress import PlainLines

        self.plain = None if console.is_terminal else PlainLines(episodes)
        self.bar = None if self.plain else Progress(
            TextColumn("episodes"), MofNCompleteColumn(), BarColumn(),
            TextColumn("{task.fields[rate]}"), TextColumn("{task.fields[last]}"), TimeRemainingColumn(),
            console=console)
        self.task = None if self.bar is None else self.bar.add_task("train", total=episodes, rate="", last="")

    def __enter__(self) -> "_TrainingProgress":
        if self.bar is not None:
            self.bar.start()
        return self

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.stop()
        else:
            self.plain.flush()

    def __call__(self, done: int, total: int, row: dict | None) -> None:
        fields = {}
        if row is not None:
            fields["rate"] = f"{done / max(row['seconds'], 1e-9):,.0f} episodes/s"
            fields["last"] = (f"vs random {row['win_rate_random']:.1%} · vs expert "
                              f"{row['win_rate_expert']:.1%} · {row['states_known']:,} states")
        if self.bar is not None:
            self.bar.update(self.task, completed=done, **fields)
        elif row is not None:
            self.plain.add(done, f"episodes {done:,}/{total:,}  {fields['rate']}  {fields['last']}  "
                                 f"{row['seconds']:.1f} s")


def run(args) -> int:
    from fitness.nim import agent, play, wilson_interval
    import dataclasses
    import json

    from fitness.nim.rl import parse_mix, save_agent, train, winning_moves, write_curve

    from ..records.rundir import package_versions

    if args.episodes < 1:
        raise UserError(f"--episodes must be >= 1, got {args.episodes}")
    if args.final_games < 1:
        raise UserError(f"--final-games must be >= 1, got {args.final_games}")
    rules = rules_from_args(args)
    hp = _hyperparameters(args)
    mix = parse_mix(args.opponents)
    out = Path(args.out or f"runs/rl-{args.method}.rlagent")
    curve_path = Path(args.curve) if args.curve else out.with_suffix(".curve.parquet")
    eval_every = max(1, args.episodes // 20) if args.eval_every is None else args.eval_every
    opponents = ", ".join(f"{name} {weight:.0%}" for name, weight in mix.items())
    console.print("[bold]train-rl[/bold] " + escape(f"{args.method} · {rules.describe()} · {args.episodes:,} "
                                                    f"episodes · opponents {opponents} · seed {args.seed}"),
                  soft_wrap=True, markup=True)

    with _TrainingProgress(args.episodes) as progress:
        result = train(rules, mix, args.episodes, args.seed, hp, eval_every, args.eval_games, progress=progress)
    save_agent(out, result)
    write_curve(curve_path, result.curve, {
        "evo.method": args.method, "evo.rules": rules.describe(), "evo.seed": str(args.seed),
        "evo.episodes": str(args.episodes), "evo.opponents": json.dumps(mix),
        "evo.hyperparameters": json.dumps(dataclasses.asdict(hp), default=str),
        "evo.versions": json.dumps(package_versions())})
    trained = agent(f"rl:{out}", rules)  # exactly what `evo match rl:PATH` will play
    rows = []
    for i, name in enumerate(("random", "expert")):
        match = play(trained, agent(name, rules), rules, args.final_games, args.seed + 1 + i)
        low, high = wilson_interval(match.wins_a, match.games)
        first = match.wins_a_first / match.games_a_first
        rows.append([name, f"{match.wins_a:,}/{match.games:,}", f"{match.win_rate_a:.2%}",
                     f"{low:.2%} – {high:.2%}", f"{first:.2%}"])
    print_table(f"{out} · trained in {result.seconds:.1f} s", ["opponent", "wins", "win rate", "95% CI",
                "moving first"], rows)
    quality = winning_moves(trained)
    console.print(f"its move keeps the win in {quality.kept:,} of {quality.winning:,} winning positions "
                  f"({quality.rate:.2%}, exact solver)", soft_wrap=True)
    console.print(f"saved {out} · curve {curve_path} · play it: evo match rl:{out} expert", soft_wrap=True)
    return 0
