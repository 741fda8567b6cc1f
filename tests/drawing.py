"""Reports whose figures are built but not drawn, for tests that read numbers and text, not images.

Drawing each figure to SVG (and the mathtext guard, which only matters for drawn text) is most of a
small report's writing time: about 2.5 of its 3.5 CPU-s on 800 rows. A test that reads the results,
the findings or the page's text does not need it; the figures are still built from their results,
so an error in figure code still fails the test. Tests of figures, of the PDF's layout, or of text
inside a figure draw as the report does.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

import reportgen.render
import reportgen.render.document as document


def skip_drawing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Build figures but leave each image empty (``data:,``) and skip the mathtext guard."""
    monkeypatch.setattr(document, "to_data_uri", lambda figure: "data:,")
    for info in pkgutil.iter_modules(reportgen.render.__path__, "reportgen.render."):
        module = importlib.import_module(info.name)
        if hasattr(module, "no_mathtext"):
            monkeypatch.setattr(module, "no_mathtext", lambda ax: None)


@contextmanager
def drawing_skipped() -> Iterator[None]:
    """``skip_drawing`` for the duration of a block (module-scoped fixtures)."""
    with pytest.MonkeyPatch.context() as patch:
        skip_drawing(patch)
        yield
