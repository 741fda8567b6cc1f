"""End-to-end reports on the shared real datasets, checked against their documented facts."""

import json

import pytest

import reportgen as rg
from reportgen.data.io import load_folder

from .conftest import DATASETS

CORE = ["userprofile", "geoplaces2", "rating_final"]


@pytest.fixture(scope="module")
def restaurant_schema():
    folder = DATASETS / "restaurant_consumer"
    if not folder.exists():
        pytest.skip(f"shared dataset not found at {folder}")
    meta = json.loads((folder / "metadata.json").read_text())
    meta["tables"] = {t: meta["tables"][t] for t in CORE}
    meta["relationships"] = [
        r for r in meta["relationships"] if r["child_table"] in CORE and r["parent_table"] in CORE
    ]
    return rg.Schema.from_dict(meta)


def test_restaurant_hma_duplicate_keys_and_all_missing_column_are_findings(restaurant_schema, tmp_path):
    folder = DATASETS / "restaurant_consumer"
    real = load_folder(folder, restaurant_schema)
    synth = load_folder(folder / "synthetic" / "hma", restaurant_schema)
    train, test = real.split(0.75, seed=0)
    results = rg.report(train, test, synth, tmp_path / "r.html")
    found = {(f.code, f.table, f.column): f for f in results.findings}
    # the dataset's README: HMA wrote 154 duplicate (userID, placeID) pairs; geoplaces2.fax is all missing
    assert (
        "154 of 1,161 synthetic rows"
        in found[("synthetic_duplicate_primary_keys", "rating_final", "userID, placeID")].message
    )
    assert ("all_missing_column", "geoplaces2", "fax") in found
    tables = {t.name: t for t in results.sections["overview"].tables}
    assert tables["rating_final"].keys["synthetic"].duplicate_primary_keys == 154
    # the split is by user (the root with most rows below it): ratings follow their users
    assert tables["userprofile"].rows_train + tables["userprofile"].rows_test == 138
    assert tables["rating_final"].rows_train + tables["rating_final"].rows_test == 1161
    assert tables["geoplaces2"].rows_train == tables["geoplaces2"].rows_test == 130
