"""The one-class network trained in a separate Python process, for work running beside other work.

The training loop (``reportgen.privacy.one_class``) runs at Python's per-step overhead on small
matrices, so it holds the interpreter lock most of the time. In a thread beside the report's other
sections it slows them and itself: on 200,000 rows per side (``benchmarks/bench_large.py``) the
whole report took 191 s with the training in a thread against 184 s in a process of its own (one
pair of runs on the 2-core machine; see ``worth_training_apart``).

``fit_one_class_apart`` sends the rows, the caller's random generator and the configuration to
``python -m reportgen.privacy.one_class_process`` and receives the trained network and the
generator's final state. The weights are the same, bit for bit, as ``fit_one_class`` in this
process gives (the child trains on one CPU thread, as the report always does), and the caller's
generator ends in the same state. The child starts in about 2.5 CPU seconds (torch's import), so
this pays only where the training runs beside other work.

Where the process cannot be started or fails, the network is trained here instead (the same
numbers). The child exits when this process closes its end of the pipe, so it never outlives a
report that stopped.
"""

from __future__ import annotations

import logging
import os
import pickle
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

import numpy as np

from reportgen.privacy.one_class import OneClassConfig, OneClassEmbedding, fit_one_class

APART_MIN_ROWS = 20_000  # see worth_training_apart
_LOG = logging.getLogger(__name__)
_HEADER = 8  # bytes of the payload's length, little-endian, before the payload
_ONE_THREAD = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}


def fit_one_class_apart(
    rows: np.ndarray, rng: np.random.Generator, config: OneClassConfig | None = None
) -> OneClassEmbedding:
    """``fit_one_class(rows, rng, config)``, trained in a separate process (see the module docs)."""
    config = config or OneClassConfig()
    if config.torch_device().type != "cpu":  # a GPU stays in this process
        return fit_one_class(rows, rng, config)
    trained = _trained_in_child(np.ascontiguousarray(rows, dtype=np.float32), rng, config)
    if trained is None:
        return fit_one_class(rows, rng, config)
    embedding, state = trained
    rng.bit_generator.state = state
    return embedding


def worth_training_apart(n_rows: int) -> bool:
    """Whether a network trained beside other work on ``n_rows`` rows is better off in a process.

    In a thread, the training loop's Python steps hold the interpreter lock that the sections
    beside it need. Measured on the 2-core machine, whole reports with utility to PDF, alternating:
    on adult's 32,561 rows the training apart won all four pairs (84.0, 84.8, 88.0, 88.7 s against
    86.4, 87.0, 95.6, 89.5 s in a thread); on 50,000 rows (``benchmarks/bench_large.py``'s caps)
    the whole report took 184 s apart against 191 s. The child's start costs about 2.5 CPU s
    (torch's import), so small tables, whose training takes a few seconds, stay in the thread;
    the crossover between 4,000 rows (the demo) and 32,561 was not measured.
    """
    return n_rows >= APART_MIN_ROWS


def _trained_in_child(
    rows: np.ndarray, rng: np.random.Generator, config: OneClassConfig
) -> tuple[OneClassEmbedding, dict[str, Any]] | None:
    """The child's network and generator state, or None (logged) when it could not deliver them."""
    if not sys.executable:  # an embedded interpreter may not know its own executable
        _LOG.info("no Python executable to start the one-class training process; training here")
        return None
    payload = pickle.dumps((rows, rng, config), protocol=pickle.HIGHEST_PROTOCOL)
    with tempfile.TemporaryFile() as errors:
        try:
            child = subprocess.Popen(
                [sys.executable, "-m", __name__],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=errors,
                env=_child_environment(),
            )
        except OSError as error:
            _LOG.info("the one-class training process could not start (%s); training here", error)
            return None
        assert child.stdin is not None and child.stdout is not None
        with child:  # closes both pipes and waits for the child
            try:
                child.stdin.write(len(payload).to_bytes(_HEADER, "little") + payload)
                child.stdin.flush()
                answer = child.stdout.read()
            except OSError:
                answer = b""
        if child.returncode != 0 or not answer:
            errors.seek(0)
            tail = errors.read()[-2000:].decode(errors="replace")
            _LOG.info(
                "the one-class training process failed (exit %s); training here: %s", child.returncode, tail
            )
            return None
    trained: tuple[OneClassEmbedding, dict[str, Any]] = pickle.loads(answer)
    return trained


def _child_environment() -> dict[str, str]:
    """This environment, with this reportgen first on the path and one thread for native pools."""
    package_root = str(Path(__file__).resolve().parents[2])
    path = os.pathsep.join(p for p in (package_root, os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, **_ONE_THREAD, "PYTHONPATH": path}


def _serve() -> None:
    """The child: read the rows, train, write the network and the generator's state, exit."""
    answer = os.fdopen(os.dup(1), "wb")  # the answer's own copy of stdout ...
    os.dup2(2, 1)  # ... so that anything a library prints goes to stderr, not into the answer
    source = sys.stdin.buffer
    size = int.from_bytes(source.read(_HEADER), "little")
    rows, rng, config = pickle.loads(source.read(size))
    answered = threading.Event()
    threading.Thread(target=_exit_when_parent_closes, args=(source, answered), daemon=True).start()
    embedding = fit_one_class(rows, rng, config)
    answer.write(pickle.dumps((embedding, rng.bit_generator.state), protocol=pickle.HIGHEST_PROTOCOL))
    answer.flush()
    answered.set()
    answer.close()  # the parent reads to the end of the answer, then closes its end of the pipe
    os._exit(0)


def _exit_when_parent_closes(source: Any, answered: threading.Event) -> None:
    """End the child as soon as the parent closes its pipe: a stopped report leaves nothing running."""
    source.read()
    os._exit(0 if answered.is_set() else 1)


if __name__ == "__main__":
    _serve()
