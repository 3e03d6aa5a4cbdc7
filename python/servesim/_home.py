"""Where an installed package finds its catalogs.

An installed package (<prefix>/lib/python3.X/dist-packages/servesim) reads the
catalogs installed beside it (<prefix>/share/servesim), as the installed binary
does; the library reads $SERVESIM_HOME, which a user's own setting overrides.
Imported once, by the package, before the compiled module.
"""
import os


def _set_home() -> None:
    installed = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "share", "servesim"))
    if "SERVESIM_HOME" not in os.environ and os.path.isdir(os.path.join(installed, "hardware")):
        os.environ["SERVESIM_HOME"] = installed


_set_home()
