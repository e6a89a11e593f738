"""Reading inputs: only regular files, and never more than the byte limit (also when gzipped)."""

from __future__ import annotations

import gzip
import os

import pytest

from rigorbench.errors import InputError, UserError
from rigorbench.files import MAX_INPUT_BYTES, MAX_INPUT_ENV, max_input_bytes
from rigorbench.formats import read_result_file

GO = "goos: linux\nBenchmarkX-8   100   5 ns/op\nPASS\n"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_is_refused_before_it_is_opened(tmp_path):
    fifo = tmp_path / "results.json"
    os.mkfifo(fifo)  # opening it for reading would block forever: nobody writes
    with pytest.raises(InputError) as info:
        read_result_file(fifo)
    assert str(info.value) == f"{fifo}: is a FIFO (named pipe), not a result file"


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_a_device_is_refused():
    with pytest.raises(InputError, match="is a character device, not a result file"):
        read_result_file("/dev/zero")


def test_a_dangling_symlink_says_so(tmp_path):
    link = tmp_path / "latest.json"
    link.symlink_to(tmp_path / "gone.json")
    with pytest.raises(InputError, match=r"no such file \(a dangling symbolic link\)"):
        read_result_file(link)


def test_a_gzip_bomb_stops_at_the_limit_of_decompressed_bytes(tmp_path, monkeypatch):
    path = tmp_path / "bomb.gz"
    path.write_bytes(gzip.compress(GO.encode() + b"0" * 5_000_000))
    assert path.stat().st_size < 100_000
    monkeypatch.setenv(MAX_INPUT_ENV, "1000000")
    with pytest.raises(InputError) as info:
        read_result_file(path)
    assert str(info.value) == (
        f"{path}: larger than 1000000 bytes when decompressed; set {MAX_INPUT_ENV} to read bigger inputs"
    )


def test_plain_files_have_the_same_limit(tmp_path, monkeypatch):
    path = tmp_path / "bench.txt"
    path.write_text(GO * 100)
    monkeypatch.setenv(MAX_INPUT_ENV, str(len(GO) * 100 - 1))
    with pytest.raises(InputError, match=f"larger than {len(GO) * 100 - 1} bytes; set {MAX_INPUT_ENV}"):
        read_result_file(path)
    monkeypatch.setenv(MAX_INPUT_ENV, str(len(GO) * 100))
    assert read_result_file(path).format == "go"


def test_the_limit_defaults_to_one_gib_and_rejects_nonsense(monkeypatch):
    monkeypatch.delenv(MAX_INPUT_ENV, raising=False)
    assert max_input_bytes() == MAX_INPUT_BYTES == 1 << 30
    for bad in ("-1", "0", "1GB", "9" * 40):
        monkeypatch.setenv(MAX_INPUT_ENV, bad)
        with pytest.raises(UserError, match=f"{MAX_INPUT_ENV}=.* is not a positive number of bytes"):
            max_input_bytes()
