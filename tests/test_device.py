"""The ``device`` setting: where torch runs the exact neighbour searches.

On a machine without CUDA (CI's) a GPU asked for is refused before any work, ``auto`` runs on the
CPU with the CPU's numbers, and the run record says where the work ran. That every search of a
report, the ones in the background thread and in worker threads included, sees the run's device
is checked with a device that is not the default (``cpu:0``) and so is told apart; the one-class
network stays on the CPU whatever the setting.
``benchmarks/bench_gpu.py --reports`` runs the whole reports on a GPU.
"""

from __future__ import annotations

import json

import pytest
import torch

import reportgen as rg
from reportgen import evaluation
from reportgen.cli import main as cli_main
from reportgen.privacy import neighbours
from reportgen.privacy.neighbours import describe_device, knn, resolve_device, searching_on
from reportgen.threads import map_in_threads

pytestmark = pytest.mark.usefixtures("figures_not_drawn")  # reads results and text (tests/drawing.py)

NO_CUDA = not torch.cuda.is_available()


@pytest.fixture
def thirds(people):
    people = people.drop(columns="note")
    return people.iloc[:100], people.iloc[100:200], people.iloc[200:].reset_index(drop=True)


@pytest.mark.skipif(not NO_CUDA, reason="checks the refusal where torch sees no GPU")
def test_a_gpu_asked_for_where_there_is_none_is_refused_before_any_work(tmp_path, thirds, capsys):
    with pytest.raises(rg.InvalidParameterError, match=r"asks for 'cuda', but torch sees no CUDA device"):
        rg.report(*thirds, tmp_path / "r.html", device="cuda")
    with pytest.raises(rg.InvalidParameterError, match=r"must name a torch device .* Got 'gpu'"):
        rg.report(*thirds, tmp_path / "r.html", device="gpu")
    assert list(tmp_path.iterdir()) == []
    out = str(tmp_path / "r.html")
    code = cli_main(["report", "--train=a.csv", "--synth=b.csv", f"--out={out}", "--device", "cuda"])
    assert code == 2
    assert "torch sees no CUDA device here. Use 'cpu', or 'auto'" in capsys.readouterr().err


def test_auto_without_a_gpu_gives_the_cpu_numbers_and_records_where_it_ran(tmp_path, thirds):
    plain = rg.report(*thirds, tmp_path / "cpu.html")
    auto = rg.report(*thirds, tmp_path / "auto.html", device="auto")
    assert plain.run.device == "cpu"
    assert auto.run.settings["device"] == "auto"
    assert auto.run.device == describe_device(resolve_device("auto"))
    if NO_CUDA:
        before = json.loads((tmp_path / "cpu.json").read_text())
        after = json.loads((tmp_path / "auto.json").read_text())
        for record in (before, after):
            del record["run"]["created_at"], record["run"]["settings"]["device"]
        assert before == after


def test_every_search_of_a_report_runs_on_the_runs_device_and_the_network_on_the_cpu(
    tmp_path, thirds, monkeypatch
):
    run_device = torch.device(
        "cpu", 0
    )  # a CPU, but not the default one: where it shows, it came from the run
    monkeypatch.setattr(evaluation, "resolve_device", lambda device, where: run_device)
    searched_on = []
    create = neighbours._Engine.create.__func__

    def recording(cls, device, *args):
        searched_on.append(resolve_device(device))
        return create(cls, device, *args)

    monkeypatch.setattr(neighbours._Engine, "create", classmethod(recording))
    results = rg.report(*thirds, tmp_path / "r.html", targets={"table": "city"})
    assert results.run.device == "cpu:0"
    assert len(searched_on) > 10 and set(searched_on) == {run_device}
    networks = results.sections["alpha_beta"].tables
    assert [t.training.device for t in networks] == ["cpu"] * len(networks)
    assert results.sections["alpha_beta"].status == "ok"


def test_worker_threads_see_the_device_their_caller_set():
    with searching_on(torch.device("cuda", 1)):  # not used here, only read back
        seen = map_in_threads(lambda _: resolve_device(None), range(4), workers=2)
    assert seen == [torch.device("cuda", 1)] * 4
    assert resolve_device(None) == torch.device("cpu")  # outside the block, the CPU again


def test_knn_given_a_device_uses_it_over_the_runs():
    rows = torch.arange(12, dtype=torch.float32).reshape(6, 2).numpy()
    with searching_on(torch.device("cuda", 0)):
        distances, indices = knn(rows, k=1, device="cpu")  # would fail on the GPU here
    assert indices[:, 0].tolist() == [1, 0, 1, 2, 3, 4]
    assert distances[0, 0] == pytest.approx(2**0.5 * 2)
