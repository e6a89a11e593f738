"""Where a store's local folder (build cache, trial output) is."""

from __future__ import annotations

from rigorbench.store.location import work_dir


def test_a_relative_store_path_gives_an_absolute_folder(tmp_path, monkeypatch):
    # Harnesses run cached executables from other folders (a Go test binary runs in its
    # package's folder): `ab examples/go-demo` failed with "No such file or directory" when
    # the build cache was a relative path.
    monkeypatch.chdir(tmp_path)
    folder = work_dir("project/.rigorbench/results.db")
    assert folder.is_absolute() and folder == tmp_path / "project" / ".rigorbench"
    assert work_dir("postgresql://u@h/db") == tmp_path / ".rigorbench"
