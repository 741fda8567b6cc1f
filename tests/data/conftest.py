"""A throw-away PostgreSQL server for the ``postgres``-marked tests.

The server runs from the PostgreSQL binaries of this machine (``initdb``, ``pg_ctl``: on the PATH or
in ``/usr/lib/postgresql/*/bin``), in a temporary data folder, listening on 127.0.0.1 only, with
trust authentication for the ``postgres`` superuser. initdb refuses to run as root, so as root the
server runs as the ``postgres`` OS user (through ``runuser``).

Where no server can be started the tests are skipped, unless the environment variable ``CI`` is
set: CI must run them, so there the fixture fails instead (``tests/system.py``, the one guard).
"""

from __future__ import annotations

import itertools
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

import pytest
import sqlalchemy as sa

from ..system import postgres_binaries, require, unavailable

SUPERUSER = "postgres"
_database_numbers = itertools.count()


def _unavailable(reason: str) -> NoReturn:
    """Skip, or fail where ``CI`` is set (CI must run the PostgreSQL tests)."""
    unavailable(f"PostgreSQL tests cannot run: {reason}")


def _as_server_user(args: list[str]) -> list[str]:
    """``args`` run as the ``postgres`` OS user when we are root, else as ourselves."""
    if os.geteuid() != 0:
        return args
    runuser = shutil.which("runuser")
    if runuser is None:
        _unavailable("running as root and 'runuser' (util-linux) is not installed")
    return [runuser, "-u", SUPERUSER, "--", *args]


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _run(args: list[str], what: str) -> None:
    result = subprocess.run(args, capture_output=True, text=True, timeout=120, check=False)
    if result.returncode != 0:
        output = (result.stderr or result.stdout)[-800:]
        _unavailable(f"{what} failed (exit status {result.returncode}): {output}")


def _make_server_folder() -> Path:
    """A temporary folder the server user owns (in /tmp: reachable, and a short socket path)."""
    parent = "/tmp" if os.path.isdir("/tmp") else None
    folder = Path(tempfile.mkdtemp(prefix="reportgen-pg-", dir=parent))
    if os.geteuid() == 0:
        try:
            shutil.chown(folder, user=SUPERUSER, group=None)
        except (LookupError, OSError) as error:
            shutil.rmtree(folder, ignore_errors=True)
            _unavailable(f"running as root, cannot hand a folder to user {SUPERUSER!r}: {error}")
    return folder


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """URL of an empty database on a private PostgreSQL server started for this session."""
    binaries = postgres_binaries()
    if binaries is None:
        _unavailable("initdb/pg_ctl not found on the PATH nor in /usr/lib/postgresql/*/bin")
    initdb, pg_ctl = binaries
    folder = _make_server_folder()
    data = folder / "data"
    try:
        _run(
            _as_server_user(
                [initdb, "-D", str(data), "-U", SUPERUSER, "-A", "trust", "-E", "UTF8", "--no-locale"]
            ),
            "initdb",
        )
        port = _start_server(pg_ctl, folder)
        try:
            yield _create_database(f"postgresql+psycopg://{SUPERUSER}@127.0.0.1:{port}/postgres")
        finally:
            subprocess.run(
                _as_server_user([pg_ctl, "-D", str(data), "-m", "fast", "-w", "stop"]),
                capture_output=True,
                timeout=120,
                check=False,
            )
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _start_server(pg_ctl: str, folder: Path, attempts: int = 3) -> int:
    """Start the server on a free port of 127.0.0.1 (retrying if another process takes it)."""
    log = folder / "server.log"
    for _ in range(attempts):
        port = _free_port()
        options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off"
        result = subprocess.run(
            _as_server_user(
                [pg_ctl, "-D", str(folder / "data"), "-l", str(log), "-w", "-t", "60", "-o", options, "start"]
            ),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        if result.returncode == 0:
            return port
    tail = log.read_text(errors="replace")[-800:] if log.exists() else result.stderr[-800:]
    _unavailable(f"pg_ctl start failed {attempts} times; server log ends with: {tail}")


@pytest.fixture
def fresh_postgres_url(postgres_url: str) -> str:
    """URL of a new, empty database on the session's server (one per test, so tests stay apart)."""
    return _create_database(postgres_url)


@pytest.fixture
def second_postgres_url(postgres_url: str) -> str:
    """Another new, empty database on the session's server (for inputs in two databases)."""
    return _create_database(postgres_url)


def _create_database(server_url: str) -> str:
    """Create a new database on the server of ``server_url`` and return its URL."""
    name = f"reportgen_test_{next(_database_numbers)}"
    engine = sa.create_engine(server_url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    finally:
        engine.dispose()
    return sa.make_url(server_url).set(database=name).render_as_string(hide_password=False)


# -- Spark ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def spark_session():
    """One local Spark session for the whole run (it takes 30-50 s to start), on loopback only.

    ``local[2]``, no web UI, driver host and bind address 127.0.0.1, UTC, 4 shuffle partitions.
    The tests that use it share one xdist group, so one worker starts it. The session also serves
    Spark Connect on a free loopback port (``spark_connect``): a Connect client then starts in a
    second, not in a JVM of its own (pyspark's ``remote("local")`` takes as long as this session).
    """
    try:
        import pyspark
        from pyspark.sql import SparkSession
    except ImportError:
        unavailable('pyspark is not installed (pip install "reportgen[spark]")')
    require("Java")
    builder = (
        SparkSession.builder.master("local[2]")
        .appName("reportgen-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.default.parallelism", "2")
        .config("spark.driver.memory", "1g")
    )
    if list((Path(pyspark.__file__).parent / "jars").glob("spark-connect_*.jar")):
        builder = (
            builder.config("spark.plugins", "org.apache.spark.sql.connect.SparkConnectPlugin")
            .config("spark.connect.grpc.binding.address", "127.0.0.1")
            .config("spark.connect.grpc.binding.port", str(_free_port()))
        )
    try:
        session = builder.getOrCreate()
    except Exception as error:  # a JVM that does not start: say why
        unavailable(f"a local Spark session did not start: {str(error).strip()[:800]}")
    session.sparkContext.setLogLevel("ERROR")
    try:
        yield session
    finally:
        session.stop()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="session")
def spark_connect(spark_session):
    """A Spark Connect client of ``spark_session``'s Connect server (the same JVM, on loopback)."""
    port = spark_session.conf.get("spark.connect.grpc.binding.port", None)
    if port is None:
        unavailable("this pyspark has no Spark Connect server jar (pyspark 4.0 or newer has it)")
    try:
        from pyspark.sql.connect.session import SparkSession as ConnectSession
    except ImportError as error:  # grpcio and the others of pyspark's "connect" extra
        unavailable(f'the Spark Connect client cannot start: {error} (pip install "reportgen[spark]")')
    client = ConnectSession.builder.remote(f"sc://127.0.0.1:{port}").getOrCreate()
    try:
        yield client
    finally:
        client.stop()
