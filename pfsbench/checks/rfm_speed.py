# SPDX-License-Identifier: BSD-3-Clause
"""A faster ReFrame 4.10 deprecation path for listing large catalogues.

ReFrame injects every variable into every new test with deprecation
warnings suppressed, but its ``user_deprecation_warning`` walks the whole
call stack with ``inspect.stack()`` (reading source lines of every frame)
*before* the ``warnings`` filter drops the warning.  The deprecated
``variables`` alias of ``env_vars`` sets it off twice per test: about a
third of ``reframe -l``.  :func:`install` puts a guard in front that returns
at once when ReFrame's own :class:`suppress_deprecations` filter is the
active one, and otherwise calls ReFrame's function unchanged, so every
warning that would be shown still is.
"""

import warnings

from reframe.core import fields, variables
from reframe.core import warnings as rfm_warnings


def _suppressed():
    """Whether ReFrame's ``suppress_deprecations`` filter is in force
    (it puts ``('ignore', None, ReframeDeprecationWarning, None, 0)``
    first)."""
    if not warnings.filters:
        return False

    action, message, category, module, lineno = warnings.filters[0]
    return (action == 'ignore' and message is None and module is None and
            category is rfm_warnings.ReframeDeprecationWarning)


def _guarded(original):
    def user_deprecation_warning(message, from_version='0.0.0'):
        if _suppressed():
            return

        return original(message, from_version)

    user_deprecation_warning.__wrapped__ = original
    return user_deprecation_warning


def install():
    """Guard the two modules that warn while tests are created (once)."""
    for module in (variables, fields):
        current = module.user_deprecation_warning
        if not hasattr(current, '__wrapped__'):
            module.user_deprecation_warning = _guarded(current)
