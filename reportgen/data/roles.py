"""The three roles of the data a report compares, by the names its findings and results use.

A leaf, so that every layer (validation, reading in place, the sections) names a role the same way.
"""

TRAIN, TEST, SYNTH = "training", "holdout", "synthetic"
