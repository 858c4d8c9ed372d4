"""The `ccscope` command's entry point: loads the command line inside a handler, so a Ctrl-C
while the libraries load ends with "interrupted" and exit status 130, not a traceback (the
package itself loads lazily, so nothing heavy runs before this handler is in place)."""
from __future__ import annotations

import sys


def main() -> None:
    try:
        from ccscope.cli import main as cli_main
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        sys.exit(130)
    cli_main()
