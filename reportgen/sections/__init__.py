"""The sections that ship with reportgen, each declared in one module: compute, page, figures, headlines.

A section's module holds its whole declaration (``reportgen.metrics.registry.Section``): the step
that computes its result, the template and figures that show it, the page-1 headlines it offers
with the rule that judges each, the findings that raise a concern, and its methodology.
``reportgen.metrics.builtin`` registers them; plugins declare theirs the same way.
"""
