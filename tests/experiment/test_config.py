"""``rigorbench.toml`` loading: values, defaults, and errors that name the file and line."""

from __future__ import annotations

import pytest

from rigorbench.errors import InputError
from rigorbench.experiment.config import load_config

GOOD = """\
[experiment]
project = "bench"
trials = 4
seed = 9
baseline = "old"

[[versions]]
label = "old"
source = "v1"

[[versions]]
label = "new"
source = "HEAD"

[jmh]
forks = 3
iteration_time = "200ms"
include = "Stats"
params = { size = "100,1000" }
timeout = "2m"

[compare]
threshold = "2%"
fail_on = "regression"
"""


def write(tmp_path, text):
    path = tmp_path / "rigorbench.toml"
    path.write_text(text)
    return path


def test_a_full_file(tmp_path):
    config = load_config(write(tmp_path, GOOD))
    plan = config.plan
    assert plan.project == str(tmp_path / "bench")
    assert plan.trials == 4 and plan.seed == 9 and plan.order == "rmit"
    assert [(v.label, v.source) for v in plan.versions] == [("old", "v1"), ("new", "HEAD")]
    assert plan.settings.forks == 3 and plan.settings.iteration_time == "200ms"
    assert plan.settings.include == ("Stats",) and plan.settings.params == (("size", "100,1000"),)
    assert plan.settings.timeout_s == 120
    assert config.baseline == "old" and config.store == tmp_path / ".rigorbench/results.db"
    assert config.compare == {"threshold": "2%", "fail_on": "regression"}


@pytest.mark.parametrize("url", ["postgresql://ci@db.example.org:5432/bench", "postgres://ci:pw@db/bench"])
def test_a_store_on_a_postgresql_server_is_kept_as_its_url(tmp_path, url):
    config = load_config(write(tmp_path, GOOD.replace('baseline = "old"', f'baseline = "old"\nstore = "{url}"')))
    assert config.store == url   # not a path relative to the file


@pytest.mark.parametrize("text, line, words", [
    (GOOD.replace("forks = 3", "forkz = 3"), 16, "unknown key 'forkz'"),
    (GOOD.replace('iteration_time = "200ms"', 'iteration_time = "fast"'), 17, "not a time"),
    (GOOD.replace('baseline = "old"', 'baseline = "older"'), 5, "not one of the version labels"),
    (GOOD.replace("trials = 4", "trials = [4"), 4, "not valid TOML"),
])
def test_errors_name_the_file_and_line(tmp_path, text, line, words):
    path = write(tmp_path, text)
    with pytest.raises(InputError) as raised:
        load_config(path)
    assert raised.value.line == line, str(raised.value)
    assert words in str(raised.value)
    assert str(raised.value).startswith(f"{path}:{line}: ")


def test_one_version_is_not_an_experiment(tmp_path):
    text = GOOD[: GOOD.index("[[versions]]\nlabel = \"new\"")]
    with pytest.raises(InputError, match="at least two"):
        load_config(write(tmp_path, text))


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        load_config(tmp_path / "nope.toml")


def test_compare_table_values_are_checked_like_flags(tmp_path):
    import io

    from rigorbench.cli import main

    (tmp_path / "v1").mkdir()
    (tmp_path / "v2").mkdir()
    path = write(tmp_path, GOOD.replace('project = "bench"', 'project = "."').replace('fail_on = "regression"', 'fail_on = "sometimes"'))
    err = io.StringIO()
    assert main(["run", str(path)], io.StringIO(), err) == 2
    assert "[compare] fail_on: unknown condition 'sometimes'; allowed values are regression, change, missing, never" in err.getvalue()


BUILD = """\
[experiment]
project = "."

[build]
module = "perf"
command = "mvn -B -q -Pbench 'package'"
java_home = "/opt/jdk-17"

[[versions]]
label = "old"
source = "v1.0"
java_home = "/opt/jdk-11"
build_command = ["./old-build.sh", "--fast"]

[[versions]]
label = "new"
source = "HEAD"
jar = "perf/target/*-jmh.jar"
"""


def test_build_table_and_per_version_build_settings(tmp_path):
    config = load_config(write(tmp_path, BUILD))
    old, new = (v.build for v in config.plan.versions)
    assert (old.command, old.module, old.java_home, old.jar) == (("./old-build.sh", "--fast"), "perf", "/opt/jdk-11", None)
    assert (new.command, new.module, new.java_home, new.jar) == (("mvn", "-B", "-q", "-Pbench", "package"), "perf", "/opt/jdk-17", "perf/target/*-jmh.jar")
    assert config.build_cache is True
    assert load_config(write(tmp_path, BUILD.replace('[build]\n', '[build]\ncache = false\n'))).build_cache is False


@pytest.mark.parametrize("change, line, message", [
    (("jar = ", "jarr = "), 18, "[[versions]]: unknown key 'jarr'"),
    (('module = "perf"', "module = 3"), 5, "module must be a string"),
    (("build_command = [\"./old-build.sh\", \"--fast\"]", "build_command = []"), 13, "build_command must be a non-empty string or list of strings"),
    (('command = "mvn -B -q -Pbench \'package\'"', "command = \"mvn 'open\""), 6, "command: No closing quotation"),
    (("[build]\n", "[build]\ncache = 1\n"), 5, "[build] cache must be true or false"),
    (("[build]\n", "[build]\nflags = 1\n"), 5, "[build]: unknown key 'flags'"),
])
def test_bad_build_settings_name_the_line(tmp_path, change, line, message):
    with pytest.raises(InputError) as error:
        load_config(write(tmp_path, BUILD.replace(*change)))
    assert str(error.value).startswith(f"{tmp_path / 'rigorbench.toml'}:{line}: ") and message in str(error.value)


@pytest.mark.parametrize("change, line, message", [
    (("trials = 4", 'trials = "abc"'), 3, "[experiment] trials must be an integer from 1 to 2147483647, not 'abc'"),
    (("trials = 4", "trials = -3"), 3, "[experiment] trials must be an integer from 1 to 2147483647, not -3"),
    (("trials = 4", "trials = true"), 3, "[experiment] trials must be an integer from 1 to 2147483647, not true"),
    (("forks = 3", "forks = { n = 3 }"), 16, "[jmh] forks must be an integer from 1 to 2147483647, not a table"),
    (('params = { size = "100,1000" }', 'params = "x"'), 19,
     '[jmh] params must be a table of parameter values, such as { size = "100,1000" }, not \'x\''),
    (('include = "Stats"', "include = [1, 2]"), 18, "[jmh] include must be a string or a list of strings, not a list"),
    (('threshold = "2%"', "threshold = false"), 23, "[compare] threshold must be a string or a number, not false"),
    (('project = "bench"', "project = { dir = 1 }"), 2, "[experiment] project must be a string, not a table"),
    (('source = "HEAD"', "source = 7"), 13, "[[versions]] source must be a string, not 7"),
    (("trials = 4", "trails = 4"), 3, "[experiment]: unknown key 'trails'; did you mean 'trials'?"),
    (("[jmh]", "[jmhh]"), 15, "unknown table [jmhh]; did you mean 'jmh'?"),
    (("[experiment]\n", "seed = 3\n[experiment]\n"), 1, "'seed' is outside any table; did you mean to put it under [experiment]?"),
    (('order = "rmit"', ""), None, None),
])
def test_every_value_is_type_checked_with_key_and_line(tmp_path, change, line, message):
    text = GOOD.replace(*change, 1)
    if message is None:  # order is absent from GOOD: add a wrong one
        text = text.replace("seed = 9", 'seed = 9\norder = "random"')
        line, message = 5, "[experiment] order must be one of rmit, sequential, not 'random'"
    path = write(tmp_path, text)
    with pytest.raises(InputError) as raised:
        load_config(path)
    assert raised.value.line == line, str(raised.value)
    assert str(raised.value).startswith(f"{path}:{line}: {message}")


def test_a_bad_key_in_the_second_version_names_its_line(tmp_path):
    path = write(tmp_path, GOOD.replace('source = "HEAD"', 'source = "HEAD"\nmodule = ["x"]'))
    with pytest.raises(InputError) as raised:
        load_config(path)
    assert (raised.value.line, raised.value.message) == (14, "[[versions]] module must be a string, not a list")


def test_params_may_be_numbers_or_lists(tmp_path):
    config = load_config(write(tmp_path, GOOD.replace('params = { size = "100,1000" }', 'params = { size = [100, 1000], n = 5 }')))
    assert config.plan.settings.params == (("size", "100,1000"), ("n", "5"))


def test_invalid_toml_is_one_line_with_line_and_column(tmp_path):
    path = write(tmp_path, GOOD.replace("seed = 9", "seed = = 9"))
    with pytest.raises(InputError) as raised:
        load_config(path)
    assert raised.value.line == 4 and "not valid TOML" in raised.value.message and "column" in raised.value.message
    assert "\n" not in str(raised.value)


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="no FIFOs")
def test_a_fifo_as_config_is_refused_without_opening_it(tmp_path):
    import os

    fifo = tmp_path / "rigorbench.toml"
    os.mkfifo(fifo)
    with pytest.raises(InputError) as raised:
        load_config(fifo)
    assert str(raised.value) == f"{fifo}: is a FIFO (named pipe), not a config file"


def test_a_cluster_in_the_file(tmp_path):
    for name in ("ca.pem", "cert.pem", "key.pem"):
        (tmp_path / name).write_text("x")
    text = GOOD.replace('baseline = "old"\n', 'baseline = "old"\ncluster = "tls://10.0.0.5:8786"\ndesign = "instance-based"\n'
                        'instances = 4\ntls_ca_file = "ca.pem"\ntls_cert = "cert.pem"\ntls_key = "key.pem"\n')
    cluster = load_config(write(tmp_path, text)).plan.cluster
    assert (cluster.address.text, cluster.design, cluster.instances, cluster.build_on_workers) == \
        ("tls://10.0.0.5:8786", "instance-based", 4, False)
    assert cluster.tls.ca_file == str(tmp_path / "ca.pem")        # relative to the file
    assert load_config(write(tmp_path, GOOD)).plan.cluster is None


@pytest.mark.parametrize("added, line, message", [
    ('instances = 3\n', 6, "instances goes with cluster"),
    ('cluster = "ftp://x:1"\n', 6, "is not a scheduler address"),
    ('cluster = "local:2"\ntls_cert = "missing.pem"\n', 7, "tls_cert needs tls_ca_file and tls_key"),
    ('cluster = "local:2"\ndesign = "random"\n', 7, "design must be one of trial-based, instance-based"),
    ('design = "duet"\norder = "sequential"\n', 6, 'design = "duet" runs both versions of a trial at once; it does not go with order'),
    ('cluster = "local:2"\ndesign = "duet"\n', 7, "it does not go with cluster"),
    ('futility = "5%"\n', 6, "futility go with until_decided = true"),
    ('until_decided = true\nfutility = "often"\n', 7, "not a number or percentage"),
    ('until_decided = true\nfutility = 10\n', 7, "is not a fraction"),
])
def test_cluster_and_adaptive_errors_name_the_line(tmp_path, added, line, message):
    text = GOOD.replace('baseline = "old"\n', 'baseline = "old"\n' + added)
    with pytest.raises(InputError) as caught:
        load_config(write(tmp_path, text))
    assert str(caught.value).startswith(f"{tmp_path / 'rigorbench.toml'}:{line}: ") and message in str(caught.value)


def test_a_duet_design_in_the_file_runs_on_this_machine(tmp_path):
    plan = load_config(write(tmp_path, GOOD.replace('baseline = "old"\n', 'baseline = "old"\ndesign = "duet"\n'))).plan
    assert plan.order == "duet" and plan.cluster is None


def test_an_adaptive_design_in_the_file_with_its_futility(tmp_path):
    text = GOOD.replace('baseline = "old"\n', 'baseline = "old"\nuntil_decided = true\nmax_trials = 12\nfutility = "5%"\n')
    assert load_config(write(tmp_path, text)).sequential == {"until_decided": True, "max_trials": 12, "futility": 0.05}
    text = GOOD.replace('baseline = "old"\n', 'baseline = "old"\nuntil_decided = true\nfutility = 0.2\n')
    assert load_config(write(tmp_path, text)).sequential["futility"] == 0.2
