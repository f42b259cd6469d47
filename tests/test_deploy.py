"""The deployment example (docs/deploy/, docs/scaling.md) holds together: its settings load with
Banco's own configuration, its units run commands and options `banco` has, systemd accepts the
units, Sentinel watches the service REDIS_URL names, and nginx accepts its configuration and
passes requests to the API nodes the units start, which listen on loopback alone."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from configparser import ConfigParser
from pathlib import Path

import click
import pytest

from service.cli.main import main
from service.runtime.config import Config
from service.runtime.redis_url import parse_sentinel

DEPLOY = Path(__file__).resolve().parents[1] / "docs" / "deploy"
UNITS = sorted((DEPLOY / "systemd").glob("*.service"))
INSTALLED = {"/etc/banco/banco.env": "banco.env", "/etc/banco/secrets.env": "secrets.env.example"}


def env_file(path: Path) -> dict[str, str]:
    """KEY=VALUE lines, as systemd's EnvironmentFile= reads these (no quotes are used)."""
    pairs = {}
    for line in path.read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, sep, value = line.partition("=")
            assert sep and key.isidentifier(), f"{path.name}: {line!r}"
            pairs[key] = value
    return pairs


def unit(path: Path) -> ConfigParser:
    parser = ConfigParser(interpolation=None, strict=False)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string(path.read_text())
    return parser


def environment_of(path: Path) -> dict[str, str]:
    """What the unit's process is given: its EnvironmentFile=s, read from their examples."""
    env: dict[str, str] = {}
    for line in path.read_text().splitlines():
        if line.startswith("EnvironmentFile="):
            env |= env_file(DEPLOY / INSTALLED[line.removeprefix("EnvironmentFile=")])
    return env


def test_the_api_nodes_settings_load_with_banco_s_configuration():
    config = Config.from_env(environment_of(DEPLOY / "systemd" / "banco-api@.service"))
    assert config.database_url.startswith("postgresql://")
    # The sentinels in REDIS_URL watch the service their configuration monitors, with a quorum
    # that a majority of them can reach.
    sentinel = parse_sentinel(config.redis_url)
    monitor = next(line.split() for line in (DEPLOY / "redis" / "sentinel.conf").read_text()
                   .splitlines() if line.startswith("sentinel monitor "))
    assert monitor[2] == sentinel.service
    assert len(sentinel.sentinels) // 2 + 1 == int(monitor[5])


def test_the_secret_is_not_in_the_settings_every_process_reads():
    assert "BANCO_OPERATOR_KEY" not in env_file(DEPLOY / "banco.env")
    workers = environment_of(DEPLOY / "systemd" / "banco-worker@.service")
    assert "BANCO_OPERATOR_KEY" not in workers and workers["REDIS_URL"].startswith("redis+sentinel")


@pytest.mark.parametrize("path", UNITS, ids=lambda p: p.name)
def test_each_unit_runs_a_banco_command_with_options_it_has(path):
    [exec_start] = unit(path)["Service"]["ExecStart"].splitlines()
    program, *args = shlex.split(exec_start.replace("%i", "8000"))
    assert program.endswith("/bin/banco")
    # click parses the arguments as `banco` would, without running the command: an unknown
    # command or option, or a bad value, raises here.
    command: click.Command = main
    context = click.Context(main, info_name="banco")
    while isinstance(command, click.Group):
        name, *args = args
        found = command.get_command(context, name)
        assert found is not None, f"{path.name}: banco has no command {name!r}"
        command, context = found, click.Context(found, info_name=name, parent=context)
    # An unknown option, a missing or bad value, an argument too many: a UsageError here.
    leaf = command.make_context(command.name or "", list(args), parent=context.parent)
    assert not leaf.args, f"{path.name}: left over {leaf.args}"
    for line in path.read_text().splitlines():
        if line.startswith("EnvironmentFile="):
            assert line.removeprefix("EnvironmentFile=") in INSTALLED


def test_systemd_accepts_the_units(tmp_path):
    """`systemd-analyze verify` on the units as installed, `banco` being this checkout's."""
    banco = Path(__file__).resolve().parents[1] / ".venv" / "bin" / "banco"
    for path in [*UNITS, *(DEPLOY / "systemd").glob("*.target")]:
        text = path.read_text().replace("/opt/banco/.venv/bin/banco", str(banco))
        name = path.name.replace("@.service", "@8000.service")
        (tmp_path / name).write_text(text.replace("/opt/banco", str(tmp_path)))
    result = subprocess.run(["systemd-analyze", "verify", "--man=no",
                             *sorted(str(p) for p in tmp_path.iterdir())],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


def test_nginx_passes_requests_to_the_api_nodes_which_listen_on_loopback_alone():
    upstream = re.search(r"upstream banco_api \{(.*?)\}", (DEPLOY / "nginx" / "banco.conf").read_text(),
                         re.S)
    assert upstream is not None
    servers = re.findall(r"^\s*server\s+([^;\s]+);", upstream.group(1), re.M)
    target = unit(DEPLOY / "systemd" / "banco.target")["Unit"]["Wants"].split()
    started = [name.removeprefix("banco-api@").removesuffix(".service") for name in target
               if name.startswith("banco-api@")]
    assert servers == [f"127.0.0.1:{port}" for port in started]
    [exec_start] = unit(DEPLOY / "systemd" / "banco-api@.service")["Service"]["ExecStart"].splitlines()
    args = shlex.split(exec_start)
    assert args[args.index("--bind") + 1] == "127.0.0.1:%i"


def test_nginx_accepts_its_configuration(tmp_path):
    """`nginx -t` on the configuration as installed: included in the `http` block of a main
    configuration that keeps its files in `tmp_path`. `./quickstart test` installs nginx."""
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    assert Path(nginx).exists(), "nginx is not installed: ./quickstart test installs it as root"
    paths = " ".join(f"{kind}_temp_path {tmp_path / kind};"
                     for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    (tmp_path / "nginx.conf").write_text(
        f"pid {tmp_path / 'nginx.pid'};\nerror_log {tmp_path / 'error.log'};\nevents {{}}\n"
        f"http {{ access_log off; {paths} include {DEPLOY / 'nginx' / 'banco.conf'}; }}\n")
    result = subprocess.run([nginx, "-t", "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf"),
                             "-e", str(tmp_path / "error.log")],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "test is successful" in result.stderr
