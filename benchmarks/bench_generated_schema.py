"""A generated star schema at the size where the first round failed: time and peak memory.

Two parents (customers with a 3,000-level ``city`` column, products) and a 100,000-row fact table
(orders) referring to both; the synthetic version is an independent draw of the same process
(orders sampled with a different seed). The whole report is written to PDF with default settings.

Run: python benchmarks/bench_generated_schema.py [n_orders]   (prints seconds and peak RSS)
"""

from __future__ import annotations

import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from reportgen import ForeignKey, PrimaryKey, RelationalData, Schema, Table, report
from reportgen.headlines import headlines

N_CITIES = 3000


def star(
    seed: int, n_orders: int = 100_000, n_customers: int = 20_000, n_products: int = 500
) -> RelationalData:
    rng = np.random.default_rng(seed)
    city_weights = 1 / np.arange(1, N_CITIES + 1)  # Zipf-like: a few big cities, a long tail
    customers = pd.DataFrame(
        {
            "customer_id": np.arange(n_customers),
            "city": rng.choice(
                [f"city_{i:04d}" for i in range(N_CITIES)], n_customers, p=city_weights / city_weights.sum()
            ),
            "age": rng.normal(45, 14, n_customers).round(),
            "segment": rng.choice(["retail", "business", "public"], n_customers, p=[0.7, 0.25, 0.05]),
        }
    )
    products = pd.DataFrame(
        {
            "product_id": np.arange(n_products),
            "category": rng.choice(["food", "tools", "toys", "books", "garden"], n_products),
            "price": rng.lognormal(3, 0.8, n_products).round(2),
        }
    )
    orders = pd.DataFrame(
        {
            "order_id": np.arange(n_orders),
            "customer_id": rng.integers(0, n_customers, n_orders),
            "product_id": rng.integers(0, n_products, n_orders),
            "quantity": rng.poisson(2, n_orders) + 1,
            "channel": rng.choice(["web", "shop", "phone"], n_orders),
            "day": pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 365, n_orders), unit="D"),
        }
    )
    schema = Schema(
        customers=Table(customer_id=PrimaryKey()),
        products=Table(product_id=PrimaryKey()),
        orders=Table(
            order_id=PrimaryKey(),
            customer_id=ForeignKey(parent="customers"),
            product_id=ForeignKey(parent="products"),
        ),
    )
    return RelationalData({"customers": customers, "products": products, "orders": orders}, schema)


def main() -> None:
    n_orders = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    train, test, synth = star(0, n_orders), star(1, n_orders), star(2, n_orders)
    stages: list[tuple[str, float]] = []

    def progress(stage: str, fraction: float) -> None:
        stages.append((stage, time.perf_counter()))

    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        results = report(train, test, synth, Path(folder) / "report.pdf", seed=0, progress=progress)
        total = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{n_orders:,} orders, {N_CITIES:,}-level city: {total:.0f} s, peak RSS {peak:.0f} MiB")
    for (stage, at), (_, after) in zip(stages, [*stages[1:], ("end", start + total)], strict=True):
        if after - at >= 1:
            print(f"   {after - at:6.1f} s  {stage}")
    print(
        "   headlines:",
        {k: None if h.value is None else round(h.value, 1) for k, h in headlines(results).items()},
    )


if __name__ == "__main__":
    main()
