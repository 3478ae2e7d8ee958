# SPDX-License-Identifier: BSD-3-Clause
"""YAML reading with libyaml's parser where PyYAML has it.

Every ``reframe`` run loads the site configuration, which checks the
reference files and, through them, the papers' figures (150 kB of YAML).
Listing the whole suite (``reframe -l``, 3 runs each) took 6.4-7.2 s with
PyYAML's pure-Python parser and 5.1-6.0 s with libyaml's
(``yaml.CSafeLoader``, in PyPI's PyYAML wheels), which builds the same
safe types.
"""

import yaml

#: The safe loader: libyaml's where built in, else PyYAML's own.
SafeLoader = getattr(yaml, 'CSafeLoader', yaml.SafeLoader)


class NotUtf8(yaml.YAMLError):
    """A YAML file whose bytes are not UTF-8: a ``yaml.YAMLError``, so each
    reader's own message (file, field, why) names it, not a traceback."""


def safe_load(stream):
    """``yaml.safe_load(stream)``, with :data:`SafeLoader`.

    Raises:
        NotUtf8: a text stream hit bytes that are not UTF-8 (either parser
            let ``UnicodeDecodeError`` through).
    """
    try:
        return yaml.load(stream, Loader=SafeLoader)
    except UnicodeDecodeError as err:
        raise NotUtf8(f'not UTF-8: byte 0x{err.object[err.start]:02x} at '
                      f'offset {err.start}') from None
