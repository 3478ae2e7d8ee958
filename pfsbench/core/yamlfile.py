# SPDX-License-Identifier: BSD-3-Clause
"""YAML reading with libyaml's parser where PyYAML has it.

Every ``reframe`` run loads the site configuration, which checks the
reference files and, through them, the papers' figures (150 kB of YAML):
PyYAML's pure-Python parser took 2.1 s of a 6 s listing of the suite;
libyaml's (``yaml.CSafeLoader``, in PyPI's PyYAML wheels) reads the same
documents, with the same safe types, in a tenth of it.
"""

import yaml

#: The safe loader: libyaml's where built in, else PyYAML's own.
SafeLoader = getattr(yaml, 'CSafeLoader', yaml.SafeLoader)


def safe_load(stream):
    """``yaml.safe_load(stream)``, with :data:`SafeLoader`."""
    return yaml.load(stream, Loader=SafeLoader)
