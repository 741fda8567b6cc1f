"""The one-class network trained in a process of its own gives the network trained here."""

import numpy as np
import pytest
import torch

from reportgen.privacy import one_class_process
from reportgen.privacy.one_class import OneClassConfig, fit_one_class
from reportgen.privacy.one_class_process import fit_one_class_apart

CONFIG = OneClassConfig(max_epochs=12)


@pytest.fixture(scope="module")
def rows():
    return np.random.default_rng(7).normal(size=(600, 6)).astype(np.float32)


def assert_same_network(a, b):
    assert a.training == b.training
    np.testing.assert_array_equal(a.centre, b.centre)
    for p, q in zip(a.network.parameters(), b.network.parameters(), strict=True):
        assert torch.equal(p, q)


def test_the_child_trains_the_same_network_and_leaves_the_generator_where_training_here_does(
    rows, monkeypatch
):
    here_rng, apart_rng = np.random.default_rng(3), np.random.default_rng(3)
    here = fit_one_class(rows, here_rng, CONFIG)

    def no_training_here(*args, **kwargs):
        raise AssertionError("the network was trained in this process")

    monkeypatch.setattr(one_class_process, "fit_one_class", no_training_here)  # the child is unaffected
    apart = fit_one_class_apart(rows, apart_rng, CONFIG)
    assert_same_network(here, apart)
    assert apart_rng.bit_generator.state == here_rng.bit_generator.state
    np.testing.assert_array_equal(here.transform(rows), apart.transform(rows))


@pytest.mark.parametrize("executable", ["/nonexistent/python", "", None])
def test_a_child_that_cannot_start_leaves_the_training_to_this_process(rows, monkeypatch, executable):
    monkeypatch.setattr(one_class_process.sys, "executable", executable)
    apart = fit_one_class_apart(rows, np.random.default_rng(3), CONFIG)
    assert_same_network(fit_one_class(rows, np.random.default_rng(3), CONFIG), apart)


def test_a_child_that_fails_leaves_the_training_to_this_process(rows, monkeypatch):
    monkeypatch.setattr(one_class_process, "__name__", "reportgen.no_such_module")  # the child's -m
    apart = fit_one_class_apart(rows, np.random.default_rng(3), CONFIG)
    assert_same_network(fit_one_class(rows, np.random.default_rng(3), CONFIG), apart)
