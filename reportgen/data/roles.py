"""The three roles of the data a report compares, by the names its findings and results use.

A leaf, so that every layer (validation, reading in place, the sections) names a role the same way.
It also names the one table of data given as a single DataFrame or file (read by the relational
data and by a single-table schema alike).
"""

TRAIN, TEST, SYNTH = "training", "holdout", "synthetic"
SINGLE_TABLE_NAME = "table"
