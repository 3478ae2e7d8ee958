# SPDX-License-Identifier: BSD-3-Clause
"""The identities the history keeps: a test case's :class:`CaseKey` and a
ReFrame :class:`Session`.

They sit apart from :mod:`pfsbench.gate.history.results` (which reads them
out of ReFrame's reports) so that the store's codec
(:mod:`pfsbench.store.codec`), which decodes into them, needs nothing
else of the results reader.
"""

import re
from dataclasses import dataclass, field


@dataclass(frozen=True, order=True)
class CaseKey:
    """Identity of a test case across sessions."""

    name: str
    system: str
    partition: str
    environ: str

    def __post_init__(self):
        # A year of nightlies looks keys up millions of times.
        object.__setattr__(self, '_hash', hash((self.name, self.system,
                                                self.partition,
                                                self.environ)))

    def __hash__(self):
        return self._hash

    def __reduce__(self):
        # Rebuilt, never restored: string hashes differ between processes.
        return CaseKey, (self.name, self.system, self.partition,
                         self.environ)

    def __str__(self):
        return f'{self.name} @{self.system}:{self.partition}+{self.environ}'

    @property
    def check(self):
        """The check class name (the name without its parameters)."""
        return self.name.split(' ', 1)[0]

    @property
    def params(self):
        """The parameters from the name, ``{'nodes': '2', ...}``."""
        return parse_params(self.name)

    def as_dict(self):
        return {'name': self.name, 'system': self.system,
                'partition': self.partition, 'environ': self.environ}


_PARAM_RE = re.compile(r'\s%([^=\s]+)=(\S+)')


def parse_params(name):
    """Parameters of a ReFrame test name, as strings, in order.

    Args:
        name: ``'dd_streaming %nodes=2 %streams_per_node=4'``.

    Returns:
        ``{'nodes': '2', 'streams_per_node': '4'}``.
    """
    return {k: v for k, v in _PARAM_RE.findall(name)
            if not k.startswith('.')}


@dataclass
class Session:
    """One ReFrame session (one ``reframe`` invocation)."""

    uuid: str
    time_start: float
    time_end: float
    reframe_version: str
    data_version: str
    hostname: str
    cmdline: str
    num_cases: int
    num_failures: int
    num_aborted: int
    num_skipped: int
    extras: dict = field(default_factory=dict)
    source: str = ''

    @property
    def dry_run(self):
        return bool(re.search(r'(^|\s)--dry-run(\s|$)', self.cmdline))

    @property
    def setvars(self):
        """Variables set with ``-S``/``--setvar`` on the command line."""
        return parse_setvars(self.cmdline)

    def as_dict(self):
        return {'uuid': self.uuid, 'time_start': self.time_start,
                'time_end': self.time_end,
                'reframe_version': self.reframe_version,
                'hostname': self.hostname, 'cmdline': self.cmdline,
                'num_cases': self.num_cases,
                'num_failures': self.num_failures,
                'num_aborted': self.num_aborted, 'extras': self.extras}


def parse_setvars(cmdline):
    """``-S var=val`` / ``--setvar=var=val`` pairs of a ReFrame cmdline.

    Args:
        cmdline: the session's ``cmdline`` string.

    Returns:
        ``{'var': 'val', ...}`` (later settings win).
    """
    out = {}
    words = cmdline.split()
    for i, word in enumerate(words):
        spec = None
        if word in ('-S', '--setvar') and i + 1 < len(words):
            spec = words[i + 1]
        elif word.startswith('--setvar='):
            spec = word[len('--setvar='):]
        elif word.startswith('-S') and len(word) > 2:
            spec = word[2:]

        if spec and '=' in spec:
            var, val = spec.split('=', 1)
            out[var] = val

    return out
