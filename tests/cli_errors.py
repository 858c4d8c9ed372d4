"""Running the CLI in-process and checking a refusal: exit status 2 and one `error:` line
holding every given piece (the field, the value, what is allowed), never a traceback."""
from __future__ import annotations

from typer.testing import CliRunner

from ccscope.cli import app


def cli(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def one_line_error(r, *needles):
    assert r.exit_code == 2, r.output
    text = r.output.strip()
    assert text.startswith("error:") and "\n" not in text and "Traceback" not in text, text
    for n in needles:
        assert n in text, text
