"""Where a store's local folder (build cache, trial output) is; how its URL is shown."""

from __future__ import annotations

import io
import sys
from types import SimpleNamespace

import pytest

from rigorbench.cli import main
from rigorbench.experiment.driver import resume_hint
from rigorbench.store.location import masked, scrubbed, without_password, work_dir

DEFAULTS = "postgresql://postgres:postgres@127.0.0.1:1/postgres"   # the PostgreSQL defaults, port 1: refused


def test_a_relative_store_path_gives_an_absolute_folder(tmp_path, monkeypatch):
    # Harnesses run cached executables from other folders (a Go test binary runs in its
    # package's folder): `ab examples/go-demo` failed with "No such file or directory" when
    # the build cache was a relative path.
    monkeypatch.chdir(tmp_path)
    folder = work_dir("project/.rigorbench/results.db")
    assert folder.is_absolute() and folder == tmp_path / "project" / ".rigorbench"
    assert work_dir("postgresql://u@h/db") == tmp_path / ".rigorbench"


def test_the_postgresql_defaults_mask_the_password_field_only(monkeypatch):
    # The password "postgres" is also the user, the database and a word of the URL's scheme
    # and of the extra's name: all of those stay readable.
    monkeypatch.setitem(sys.modules, "psycopg", None)
    out, err = io.StringIO(), io.StringIO()
    assert main(["runs", "--store", DEFAULTS], out, err) == 2
    assert err.getvalue() == ("rigorbench: error: postgresql://postgres:***@127.0.0.1:1/postgres: a PostgreSQL results "
                              "store needs the 'psycopg' package (rigorbench's postgres extra): pip install 'psycopg[binary]>=3.1'\n")


def test_a_refused_connection_with_the_defaults_keeps_the_user_and_database():
    out, err = io.StringIO(), io.StringIO()
    assert main(["runs", "--store", DEFAULTS], out, err) == 2
    line = err.getvalue()
    assert line.startswith("rigorbench: error: postgresql://postgres:***@127.0.0.1:1/postgres: cannot connect: ")
    assert line.count("\n") == 1 and "***ql" not in line and ":postgres@" not in line


def test_scrubbed_masks_the_password_where_it_stands_as_one():
    url = "postgresql://alice:hunter2@h/db?sslmode=require"
    text = f"{url} alice:hunter2@h password=hunter2 password = 'hunter2' hunter2 hunter22"
    assert scrubbed(text, url) == (f"{masked(url)} alice:***@h password=*** password = '***' *** hunter22")
    # rigorbench's own words (not foreign): only the password fields
    assert scrubbed(f"{url}: hunter2", url, foreign=False) == f"{masked(url)}: hunter2"
    # a foreign message naming the user "postgres" says nothing the masked URL does not show
    assert scrubbed('FATAL: password authentication failed for user "postgres"', DEFAULTS).endswith('user "postgres"')
    assert scrubbed("rigorbench[postgres]", "postgresql://alice:postgres@h/db", foreign=False) == "rigorbench[postgres]"


@pytest.mark.parametrize("url, shown", [
    (DEFAULTS, "postgresql://postgres@127.0.0.1:1/postgres"),
    ("postgresql://postgres:***@127.0.0.1:1/postgres", "postgresql://postgres@127.0.0.1:1/postgres"),
    ("postgresql:///db?host=/tmp&password=x", "postgresql:///db?host=/tmp"),
    ("postgresql://u@h/db", "postgresql://u@h/db"),
    ("results.db", "results.db"),
])
def test_without_password_leaves_the_password_field_out(url, shown):
    assert without_password(url) == shown


def test_the_resume_hint_of_a_postgresql_store_is_a_command_that_works():
    store = SimpleNamespace(path=masked(DEFAULTS))
    hint = resume_hint(store, SimpleNamespace(run_id=3, settings={}))
    assert hint.startswith("rigorbench ab --resume 3 --store postgresql://postgres@127.0.0.1:1/postgres (the password in "
                           "PGPASSWORD or ~/.pgpass")
    assert "***" not in hint
    assert resume_hint(SimpleNamespace(path="r.db"), SimpleNamespace(run_id=3, settings={})) == "rigorbench ab --resume 3 --store r.db"
