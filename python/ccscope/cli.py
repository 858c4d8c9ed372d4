"""Command-line interface (typer): `ccscope run | scenario | plot | demo | fluid | guide | stability`.

Library code never prints; this module does. Errors from the engine or the scenario loader are
shown as one clear line on stderr with exit status 2, never as a traceback.
"""
from __future__ import annotations

import sys

import typer

app = typer.Typer(add_completion=False, no_args_is_help=True, help="ccscope: a laboratory for datacenter congestion control")


def _register_optional_commands() -> None:
    # Fluid-model commands live in their own module (ccscope.fluid_cli) and add themselves here.
    try:
        from ccscope import fluid_cli
    except ImportError:  # pragma: no cover - only while the module is being written
        return
    fluid_cli.register(app)


_register_optional_commands()


def main() -> None:
    app()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
