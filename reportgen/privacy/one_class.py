"""The one-class embedding of METRICS.md section 8: Deep SVDD with the soft-boundary objective.

``fit_one_class(rows, rng)`` trains a network ``Phi`` on rows of the training data's distance space
(``PreparedTable.embedded``) so that they fall inside a small hypersphere around a centre ``c``;
``OneClassEmbedding.transform`` maps any role's rows through it. The alpha-precision, beta-recall
and authenticity of ``reportgen.privacy.alpha_beta`` are computed in this embedded space.

The network and its training, as METRICS.md fixes them: 3 hidden layers of 32 units with ReLU, an
output of 25, no bias terms; the soft-boundary objective of Ruff et al. (2018, "Deep One-Class
Classification") with ``nu = 0.01``,

    ``R^2 + (1 / nu) * mean(max(0, ||Phi(x) - c||^2 - R^2))``,

AdamW with weight decay 1e-2; an 80/20 split of the rows into training and validation, with early
stopping on the validation objective. Choices where METRICS.md is silent (Ruff et al.'s, where
they have one):

- the centre ``c`` is the mean output of the initial network on the training split, coordinates
  closer to 0 than 0.1 moved to +-0.1 (a centre at 0 is trivially reached by zero weights);
- ``R`` is 0 during ``warm_up_epochs`` (the objective is then ``1/nu`` times the mean squared
  distance), then after every epoch the ``1 - nu`` quantile of the training split's distances,
  which minimises the objective over ``R`` for the current weights;
- early stopping: after the warm-up, training stops when the validation objective has not improved
  by more than 1e-4 of its first value after the warm-up for ``patience`` epochs, and the weights
  (and ``R``) of the best epoch are kept. The scale is the first value, not the best so far: an
  objective that falls towards 0 by a constant share per epoch (rows the network maps onto the
  centre, as in a constant table) improves on its best by that share forever, and a relative rule
  ran such tables to ``max_epochs`` (200 epochs; this rule stops a constant table at 40). On adult
  and its 4,000-row demo sample (three seeds each) both rules stop at the same epoch and keep the
  same one, so the numbers are the same. Stopping adult sooner would change them: its objective
  keeps falling about 2% an epoch until an instability near epoch 130-147 ends training, and the
  alpha-precision of a Gaussian-copula generator is 0.05 +- 0.006 (three seeds) after the full run,
  0.13 +- 0.04 after 50 epochs and 0.25 +- 0.06 after 8; larger batches move it alike
  (``benchmarks/bench_alpha_beta.py --epochs``);
- weights are drawn from torch's default (Kaiming-uniform) initialisation with a dedicated
  ``torch.Generator`` seeded from the caller's ``numpy.random.Generator``; batches are shuffled
  with the same generator. No global random state is read or changed.

Threads and determinism: training runs with ``n_threads`` torch threads (default 1: on this
small network the second thread only adds synchronisation; on adult, 32,561 rows on the 2-core
machine, 140 epochs took 6.3 s at 1 thread and 10.6 s at 2, see ``benchmarks/bench_alpha_beta.py``;
and results do not depend on the machine's core count) inside a context that restores torch's
thread count and deterministic-algorithms flag afterwards. The same rows and seed give the same
weights, bit for bit, on the same CPU software. ``device="cuda"`` (or ``"auto"`` with a GPU
present) trains on the GPU: seeded, but its numbers may differ from the CPU's in the last bits,
which the training then amplifies. ``device=None`` is the CPU, also in a report whose ``device``
setting puts its neighbour searches on a GPU: on an H200 the network trained there, in the
section's thread, made the sample-level section slower than on the CPU in its own process (200,000
rows a side: 85.6 s wall against 55.7 s; adult: 12.7 s in the way of the other sections against
none), its small batches bound by kernel launches and the interpreter lock; on the CPU the report's
numbers are also the CPU report's, bit for bit (``benchmarks/bench_gpu_reports.py``).
"""

from __future__ import annotations

import contextlib
import copy
import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
import torch
from pydantic import BaseModel, Field

from reportgen.privacy.neighbours import resolve_device

CENTRE_EPS = 0.1
MIN_IMPROVEMENT = 1e-4  # decrease of the validation objective that counts as progress, relative to
# its first value after the warm-up (see the module docstring)
TRANSFORM_BATCH = 65_536


@dataclass(frozen=True)
class OneClassConfig:
    """How the one-class network is built and trained (METRICS.md section 8 and the module docs)."""

    hidden: tuple[int, ...] = (32, 32, 32)
    output_dim: int = 25
    nu: float = 0.01
    weight_decay: float = 1e-2
    learning_rate: float = 1e-3
    batch_size: int = 512
    max_epochs: int = 200
    warm_up_epochs: int = 5
    patience: int = 10
    validation_share: float = 0.2
    device: str | None = None  # None: the CPU, also in a report whose searches run on a GPU
    n_threads: int = 1

    def torch_device(self) -> torch.device:
        """Where the network trains: ``device`` checked, ``None`` the CPU (see the module docs)."""
        return resolve_device(self.device or "cpu", "the one-class network")


class OneClassTraining(BaseModel):
    """How the one-class network trained: sizes, settings and the loss curves."""

    training_rows: int = Field(description="Rows of the 80% training split.")
    validation_rows: int = Field(description="Rows of the 20% validation split.")
    input_dim: int
    hidden: list[int]
    output_dim: int
    nu: float
    weight_decay: float
    learning_rate: float
    batch_size: int
    max_epochs: int
    warm_up_epochs: int
    patience: int
    epochs: int = Field(description="Epochs run before early stopping (or max_epochs).")
    best_epoch: int = Field(description="Epoch (1-based) whose weights were kept.")
    radius: float = Field(ge=0, description="The soft-boundary radius R of the kept epoch.")
    training_loss: list[float] = Field(description="Objective on the training split after each epoch.")
    validation_loss: list[float] = Field(description="Objective on the validation split after each epoch.")
    device: str


@dataclass
class OneClassEmbedding:
    """A trained one-class network: ``transform`` maps distance-space rows to its output space."""

    network: torch.nn.Sequential
    centre: np.ndarray  # float32 (output_dim,)
    training: OneClassTraining
    device: torch.device = field(default_factory=lambda: torch.device("cpu"))
    n_threads: int = 1

    def transform(self, rows: np.ndarray) -> np.ndarray:
        """``Phi(rows)`` as a float32 array (n, output_dim)."""
        x = np.ascontiguousarray(rows, dtype=np.float32)
        out = np.empty((len(x), len(self.centre)), np.float32)
        with _torch_state(self.device, self.n_threads), torch.no_grad():
            for start in range(0, len(x), TRANSFORM_BATCH):
                part = torch.from_numpy(x[start : start + TRANSFORM_BATCH]).to(self.device)
                out[start : start + len(part)] = self.network(part).cpu().numpy()
        return out


def fit_one_class(
    rows: np.ndarray, rng: np.random.Generator, config: OneClassConfig | None = None
) -> OneClassEmbedding:
    """Train the soft-boundary Deep SVDD network on ``rows`` (n, d) of the training data.

    ``rng`` draws the 80/20 split and the seed of the network's own torch generator. Needs at
    least 2 rows (one on each side of the split).
    """
    config = config or OneClassConfig()
    x_all = np.ascontiguousarray(rows, dtype=np.float32)
    n = len(x_all)
    if n < 2:
        raise ValueError(f"The one-class network needs at least 2 rows; got {n}.")
    order = rng.permutation(n)
    n_val = min(n - 1, max(1, round(config.validation_share * n)))
    val_rows, train_rows = x_all[np.sort(order[:n_val])], x_all[np.sort(order[n_val:])]
    generator = torch.Generator().manual_seed(int(rng.integers(2**62)))
    device = config.torch_device()
    with _torch_state(device, config.n_threads):
        network = _network(x_all.shape[1], config, generator).to(device)
        x_train = torch.from_numpy(train_rows).to(device)
        x_val = torch.from_numpy(val_rows).to(device)
        centre = _initial_centre(network, x_train)
        state = _train(network, centre, x_train, x_val, generator, config)
    training = OneClassTraining(
        training_rows=len(train_rows),
        validation_rows=len(val_rows),
        input_dim=int(x_all.shape[1]),
        hidden=list(config.hidden),
        output_dim=config.output_dim,
        nu=config.nu,
        weight_decay=config.weight_decay,
        learning_rate=config.learning_rate,
        batch_size=state.batch_size,
        max_epochs=config.max_epochs,
        warm_up_epochs=config.warm_up_epochs,
        patience=config.patience,
        epochs=len(state.training_loss),
        best_epoch=state.best_epoch,
        radius=math.sqrt(state.best_r2),
        training_loss=state.training_loss,
        validation_loss=state.validation_loss,
        device=str(device),
    )
    return OneClassEmbedding(network, centre.cpu().numpy(), training, device, config.n_threads)


def _network(input_dim: int, config: OneClassConfig, generator: torch.Generator) -> torch.nn.Sequential:
    """Bias-free linear layers with ReLU between them, Kaiming-uniform weights from ``generator``."""
    sizes = [input_dim, *config.hidden, config.output_dim]
    layers: list[torch.nn.Module] = []
    for i, (fan_in, fan_out) in enumerate(itertools.pairwise(sizes)):
        # built without torch's own initialisation, which would draw from the global generator
        linear = torch.nn.utils.skip_init(torch.nn.Linear, fan_in, fan_out, bias=False)
        with torch.no_grad():  # torch's default initialisation of nn.Linear, from our generator
            torch.nn.init.kaiming_uniform_(linear.weight, a=math.sqrt(5), generator=generator)
        layers.append(linear)
        if i < len(sizes) - 2:
            layers.append(torch.nn.ReLU())
    return torch.nn.Sequential(*layers)


def _initial_centre(network: torch.nn.Sequential, x: torch.Tensor) -> torch.Tensor:
    with torch.no_grad():
        centre = _forward(network, x).mean(dim=0)
    small = centre.abs() < CENTRE_EPS
    centre[small & (centre < 0)] = -CENTRE_EPS
    centre[small & (centre >= 0)] = CENTRE_EPS
    return centre


@dataclass
class _State:
    batch_size: int
    training_loss: list[float] = field(default_factory=list)
    validation_loss: list[float] = field(default_factory=list)
    best_epoch: int = 0
    best_r2: float = 0.0


def _train(
    network: torch.nn.Sequential,
    centre: torch.Tensor,
    x_train: torch.Tensor,
    x_val: torch.Tensor,
    generator: torch.Generator,
    config: OneClassConfig,
) -> _State:
    """Mini-batch AdamW on the soft-boundary objective, early stopping on the validation split."""
    n = len(x_train)
    # at least ~8 steps per epoch on small tables, so that an epoch means some training
    batch = max(1, min(config.batch_size, max(32, math.ceil(n / 8))))
    optimizer = torch.optim.AdamW(  # foreach: the loop's arithmetic, bit for bit, in fewer calls
        network.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay, foreach=True
    )
    state = _State(batch_size=batch)
    r2 = 0.0
    best_loss, best_weights, stale = math.inf, copy.deepcopy(network.state_dict()), 0
    first_loss = math.inf  # the validation objective of the first epoch after the warm-up
    for epoch in range(1, config.max_epochs + 1):
        shuffled = x_train[torch.randperm(n, generator=generator).to(x_train.device)]  # one gather an epoch
        for start in range(0, n, batch):
            dist = _sq_dist(network(shuffled[start : start + batch]), centre)
            loss = _objective(dist, r2, config.nu)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
        with torch.no_grad():
            dist_train = _sq_dist(_forward(network, x_train), centre)
            dist_val = _sq_dist(_forward(network, x_val), centre)
            if epoch >= config.warm_up_epochs:
                r2 = float(torch.quantile(dist_train.double().sqrt(), 1 - config.nu)) ** 2
            train_loss = float(_objective(dist_train, r2, config.nu))
            val_loss = float(_objective(dist_val, r2, config.nu))
        state.training_loss.append(train_loss)
        state.validation_loss.append(val_loss)
        if epoch < config.warm_up_epochs:
            continue
        first_loss = val_loss if math.isinf(first_loss) else first_loss
        if val_loss < best_loss - MIN_IMPROVEMENT * first_loss:
            best_loss, stale = val_loss, 0
            best_weights = copy.deepcopy(network.state_dict())
            state.best_epoch, state.best_r2 = epoch, r2
        else:
            stale += 1
            if stale >= config.patience:
                break
    if state.best_epoch == 0:  # max_epochs within the warm-up: keep the last weights
        state.best_epoch, state.best_r2 = len(state.training_loss), r2
    else:
        network.load_state_dict(best_weights)
    return state


def _forward(network: torch.nn.Sequential, x: torch.Tensor) -> torch.Tensor:
    return torch.cat([network(x[i : i + TRANSFORM_BATCH]) for i in range(0, len(x), TRANSFORM_BATCH)])


def _sq_dist(outputs: torch.Tensor, centre: torch.Tensor) -> torch.Tensor:
    return ((outputs - centre) ** 2).sum(dim=1)


def _objective(sq_dist: torch.Tensor, r2: float, nu: float) -> torch.Tensor:
    return r2 + torch.clamp(sq_dist - r2, min=0).mean() / nu


@contextlib.contextmanager
def _torch_state(device: torch.device, n_threads: int) -> Iterator[None]:
    """Torch's thread count and (on the CPU) deterministic algorithms, restored on exit."""
    previous_threads = torch.get_num_threads()
    previous_deterministic = torch.are_deterministic_algorithms_enabled()
    previous_warn_only = torch.is_deterministic_algorithms_warn_only_enabled()
    on_cpu = device.type == "cpu"
    try:
        if on_cpu:
            torch.set_num_threads(n_threads)
            _use_deterministic_algorithms(True)
        yield
    finally:
        if on_cpu:
            torch.set_num_threads(previous_threads)
            _use_deterministic_algorithms(previous_deterministic, warn_only=previous_warn_only)


def _use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """``torch.use_deterministic_algorithms`` without its import of torch's compiler.

    The public function also sets ``torch._inductor.config.deterministic``, for compiled graphs,
    which nothing here makes; importing ``torch._inductor`` for it took 2.2 CPU s (torch 2.13, the
    2-core machine). A process that trains imports it anyway (the optimizer's ``add_param_group``
    imports ``torch._dynamo``); one that only applies a network trained elsewhere, as a report's
    main process does on large tables, now does not. The flag the network's operations read is the
    same one. Where a torch lacks the private setter, the public function is used.
    """
    setter = getattr(torch._C, "_set_deterministic_algorithms", None)
    if setter is None:
        torch.use_deterministic_algorithms(mode, warn_only=warn_only)
    else:
        setter(mode, warn_only=warn_only)
