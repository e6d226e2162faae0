"""The set-up of a fresh clone (lab/install.py): uv follows the index pip is set up with, and pip
takes over, after one line that says why, whenever uv cannot do it; the environment's files are
its own copies, never links to uv's cache."""

import shutil
import sys
import sysconfig
from pathlib import Path

import pytest

from lab import install

# `pip config list` on a machine that reaches packages through a local index beside PyPI.
LISTED = """\
:env:.default-timeout='180'
:env:.disable-pip-version-check='1'
:env:.find-links='/opt/wheels'
global.cert='/etc/ssl/certs/ca-certificates.crt'
global.constraint='/etc/xdg/pip/constraints.txt'
global.extra-index-url='file:///opt/pypi/simple file:///opt/pypi-more/simple'
global.find-links='/srv/old-wheels'
"""


def test_pips_settings_are_ranked_as_pip_ranks_them():
    listed = "global.index-url='https://a/simple'\ninstall.index-url='https://b/simple'\nglobal.index-url='https://c/simple'\n"
    assert install.parsed_settings(listed) == {"index-url": "https://b/simple"}
    assert install.parsed_settings(LISTED)["find-links"] == "/opt/wheels"  # a PIP_ variable beats every file


def test_each_setting_of_pip_becomes_the_same_setting_of_uv():
    options, variables = install.uv_settings(install.parsed_settings(LISTED))
    assert options == [
        "--index-strategy",
        "unsafe-best-match",
        "--find-links",
        "/opt/wheels",
        "--constraint",
        "/etc/xdg/pip/constraints.txt",
        "--extra-index-url",
        "file:///opt/pypi/simple",
        "--extra-index-url",
        "file:///opt/pypi-more/simple",
    ]
    assert variables == {"UV_HTTP_TIMEOUT": "180", "SSL_CERT_FILE": "/etc/ssl/certs/ca-certificates.crt"}
    assert install.uv_settings({"no-cache-dir": "1", "cache-dir": "/srv/pip-cache"}) == (
        ["--index-strategy", "unsafe-best-match"],
        {"UV_NO_CACHE": "1"},
    )
    assert install.uv_settings({"index-url": "https://mirror/simple", "no-index": "true"})[0][2:] == [
        "--index-url",
        "https://mirror/simple",
        "--no-index",
    ]


def test_a_setting_uv_has_no_equivalent_for_sends_the_install_to_pip():
    with pytest.raises(install.CannotUseUv, match="pip's setting no-binary=:all:"):
        install.uv_settings({"index-url": "https://mirror/simple", "no-binary": ":all:"})


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en", "uv could not do it (uv venv: error: no network here): installing with pip instead, which takes longer"),
        (
            "ja",
            "uv では準備できませんでした (uv venv: error: no network here)。代わりに pip でインストールします (時間がかかります)",
        ),
    ],
)
def test_when_uv_fails_pip_sets_up_after_one_line_that_says_why(tmp_path, monkeypatch, capsys, lang, said):
    fake = tmp_path / "bin" / "uv"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'error: no network here' >&2\nexit 2\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}:/usr/bin:/bin")
    monkeypatch.setattr(install, "pip_settings", lambda python: {})
    made = []
    monkeypatch.setattr(install, "with_pip", lambda venv, python: made.append(venv))
    venv = tmp_path / ".venv"
    venv.mkdir()  # what uv left behind is removed before pip starts
    assert install.main([str(venv), "--lang", lang]) == 0
    assert capsys.readouterr().out == said + "\n"
    assert made == [venv] and not venv.exists()


def test_uv_copies_every_file_into_the_environment_instead_of_linking_its_cache(tmp_path, monkeypatch):
    ran = []
    monkeypatch.setattr(install, "_run_uv", lambda what, command, environment: ran.append(command))
    monkeypatch.setattr(install, "pip_settings", lambda python: {})
    monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/uv")
    install.with_uv(tmp_path / ".venv", sys.executable)
    installs = [command for command in ran if command[1:3] == ["pip", "install"]]
    assert len(installs) == 2, ran
    modes = [command[command.index("--link-mode") + 1] if "--link-mode" in command else None for command in installs]
    assert modes == ["copy", "copy"], installs


def test_no_installed_file_of_the_labs_environment_shares_its_inode_with_another_path():
    """The environment the self-test runs in, as `make` set it up. A file linked to uv's cache
    shares its inode with every environment made from that cache: installing one of them moves
    the file's change time, and a class run then reports the lab as changed (the grader's own
    fingerprint, lab/sandbox/integrity.py), while nothing in it was."""
    packages = Path(sysconfig.get_paths()["purelib"])
    shared = [
        path for path in packages.rglob("*") if path.is_file() and not path.is_symlink() and path.stat().st_nlink > 1
    ]
    assert not shared, (
        f"{len(shared)} files linked elsewhere, such as {shared[:3]}: set the environment up again"
        " (make does it when lab/install.py is newer than .venv/.installed)"
    )
