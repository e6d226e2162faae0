"""The set-up of a fresh clone (lab/install.py): uv follows the index pip is set up with, and pip
takes over, after one line that says why, whenever uv cannot do it."""

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
