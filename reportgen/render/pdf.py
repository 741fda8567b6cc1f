"""HTML -> PDF with WeasyPrint: tagged (PDF/UA-1), with attachments, a report's appendix laid out once.

A report's PDF is two documents laid out apart and joined page by page (``joined``):

- its body (page 1 to the standards part), laid out for every report, numbered 1 to N;
- its appendix (methodology, references, glossary), numbered A-1, A-2, ... on its own. Its text
  reads only the run's settings, seed and holdout, so every report with the same settings shares
  it, and its layout (``laid_out_appendix``, kept for the process, keyed by the HTML itself: a
  different text is laid out anew) costs once: 3.5 of the 7.6 CPU-s that adult's report took to
  lay out, 3.9 of a small report's 6.2.

Joined, they are one document: links from the body into the appendix resolve as before, the PDF's
structure tree (its tags) and outline are built from all pages when it is written, and the table
of contents prints each appendix part's page label (``AppendixLayout.labels``), which the body
cannot count. Both are laid out with one font configuration per process, as one document would be.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from weasyprint import Document

PDF_VARIANT = "pdf/ua-1"  # WeasyPrint's accessible variant: tagged, PDF 1.7, its XMP conformance
PDF_OPTIONS: dict[str, Any] = {"pdf_variant": PDF_VARIANT, "pdf_tags": True}
APPENDIX_PAGE = "A-{}"  # the appendix's page labels, as its footer prints them (report.html.j2)
KEPT_APPENDICES = 2  # layouts kept per process: adult's 17 pages hold 24 MiB

# WeasyPrint's boxes are not made to be painted from two threads at once; a kept appendix's are
# shared by every report of the process, so laying out and writing take turns.
_WEASYPRINT = threading.RLock()


@dataclass(frozen=True)
class AppendixLayout:
    """The appendix laid out, and the page label of each anchor it holds (the page where it starts)."""

    document: Document
    labels: dict[str, str]


def lay_out(html: str) -> Document:
    """The pages of ``html`` as WeasyPrint lays them out for the PDF."""
    from weasyprint import HTML

    with _WEASYPRINT:
        return HTML(string=html).render(font_config=_fonts(), **PDF_OPTIONS)


@lru_cache(maxsize=KEPT_APPENDICES)
def laid_out_appendix(html: str) -> AppendixLayout:
    """The appendix's pages, laid out once per process for each distinct text (``cache_clear``: forget)."""
    document = lay_out(html)
    labels: dict[str, str] = {}
    for number, page in enumerate(document.pages, 1):
        for anchor in page.anchors:
            labels.setdefault(anchor, APPENDIX_PAGE.format(number))
    return AppendixLayout(document, labels)


def joined(body: Document, appendix: AppendixLayout) -> Document:
    """One document: the body's pages, then the appendix's (the body's metadata: title, language)."""
    return body.copy([*body.pages, *appendix.document.pages])


def write_pdf(document: Document, attachments: Sequence[tuple[str, bytes]] = ()) -> bytes:
    """The PDF of laid-out pages: tagged, PDF/UA-1, with ``attachments`` (file name, bytes) embedded.

    Tagged (``pdf_tags``): the PDF holds a structure tree (headings, paragraphs, tables, figures
    with their alt text) that screen readers and text extraction follow, as PDF/UA-1
    (``pdf_variant``) asks, beside the document's language (``<html lang>``) and title
    (``<title>``), which the template sets. The report attaches its JSON, so the evidence travels
    inside the file an approver files.
    """
    from weasyprint import Attachment

    embedded = [
        Attachment(string=content, name=name, description=f"{name}: the results of this report as JSON")
        for name, content in attachments
    ]
    with _WEASYPRINT:
        return document.write_pdf(attachments=embedded, **PDF_OPTIONS)


def html_to_pdf(html: str, attachments: Sequence[tuple[str, bytes]] = ()) -> bytes:
    """The PDF of one HTML document, laid out whole (see ``write_pdf``)."""
    return write_pdf(lay_out(html), attachments)


@lru_cache(maxsize=1)
def _fonts() -> Any:
    """One WeasyPrint font configuration for the process: the body and a kept appendix share it."""
    from weasyprint.text.fonts import FontConfiguration

    return FontConfiguration()
