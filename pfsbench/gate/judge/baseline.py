# SPDX-License-Identifier: BSD-3-Clause
"""Named baselines: measured samples the gate compares against.

A baseline is one JSON file, ``<runs>/baselines/<name>.json`` next to the
results database (docs/gate-method.md, "Baseline file format")::

    {
      "format_version": 1,
      "kind": "pfsbench-baseline",
      "name": "pre-upgrade",
      "created": "2026-11-22T10:41:25+00:00",
      "pfsbench_version": "0.1.0",
      "database": "/.../runs/results.db",
      "sessions": [{"uuid": ..., "time_start": ..., "extras": {...}, ...}],
      "cases": [
        {"name": "dd_streaming %nodes=1 %streams_per_node=1",
         "system": "local", "partition": "default", "environ": "builtin",
         "params": {"nodes": "1", "streams_per_node": "1"},
         "config": {"num_tasks": 1},
         "provenance": [{"session_index": 0,
                         "tags": {"job_nodelist": "n1", ...}}],
         "perfvars": {"write_bw": {"unit": "MB/s",
                                   "values": [512.1, 498.7, 505.0],
                                   "session_index": [0, 0, 0]}}}
      ]
    }

``session_index`` points into ``sessions``.  Samples measured while
foreign load was seen (:data:`pfsbench.core.fields.CONTENDED`) are left out
and listed in ``contended_samples`` (``case``, ``session``,
``contention``).  Baselines are measured history; references
(config/references/) are a separate thing.
"""

import dataclasses
import datetime
import json
import os
import re
from collections import Counter, defaultdict

from pfsbench import __version__, schemas
from pfsbench.core import fields
from pfsbench.core.errors import ConfigError, MissingData, PfsbenchError
from pfsbench.gate.history.provenance import case_level
from pfsbench.gate.history.results import USABLE_FAIL_PHASES, CaseKey
from pfsbench.gate.statistics.values import (iterations_problem,
                                             time_problem, value_problem)

#: The schema of a baseline file (``pfsbench/schemas/``).
SCHEMA = 'baseline.json'
FORMAT_VERSION = schemas.const(SCHEMA, 'format_version')
KIND = schemas.const(SCHEMA, 'kind')
_NAME_RE = re.compile(r'[A-Za-z0-9][A-Za-z0-9._-]{0,99}')


class BaselineExists(PfsbenchError):
    """Recording over an existing baseline without ``--force``."""


def baseline_dir(db_path):
    """Where baselines live: ``baselines/`` beside the results database."""
    return os.path.join(os.path.dirname(os.path.abspath(db_path)),
                        'baselines')


def check_name(name):
    """Validate a baseline name (letters, digits, ``.``, ``_``, ``-``)."""
    if not _NAME_RE.fullmatch(name or ''):
        raise ConfigError('<command line>', 'baseline', name,
                          'a baseline name is 1-100 letters, digits, '
                          "'.', '_' or '-', starting with a letter or digit")

    return name


def baseline_path(directory, name):
    return os.path.join(directory, check_name(name) + '.json')


def finite(value):
    """Whether a logged performance value is a measurement: a finite
    number (a check may log NaN or infinity: a division by a zero time, a
    tool's ``inf``) within the magnitude the gate computes with
    (:mod:`pfsbench.gate.statistics.values`); ``bool`` is not a number
    here."""
    return not value_problem(value)


def unusable_reason(record, session):
    """Why a record holds no measurement, or ``''``."""
    if session.dry_run:
        return 'a --dry-run session (performance values are None)'

    if record.fail_phase not in USABLE_FAIL_PHASES:
        reason = record.fail_reason.splitlines()[0] if record.fail_reason \
            else 'no reason given'
        return f'failed in {record.fail_phase}: {reason}'

    if record.result in ('abort', 'skip'):
        return {'abort': 'aborted', 'skip': 'skipped'}[record.result]

    if not record.perf:
        return 'no performance variables'

    if any(v is None for v, _ in record.perf.values()):
        return 'performance values are None'

    for var, (value, _) in record.perf.items():
        why = value_problem(value)
        if why:
            return f'{var}: {why}'

    if record.iterations is not None and \
            iterations_problem(record.iterations):
        return ('repetitions/iterations: ' +
                iterations_problem(record.iterations))

    return ''


def contended_sample(record):
    """How a left-out contended record is listed (baseline files, gate
    records)."""
    return {'case': str(record.key), 'session': record.session,
            'contention': record.contention}


def contended_note(samples):
    """``'3 contended samples left out: <contention>'``, or ``''``.

    Args:
        samples: entries made by :func:`contended_sample`.

    Returns:
        one line naming every distinct contention, in order.
    """
    if not samples:
        return ''

    seen = dict.fromkeys(s.get('contention') or 'no detail recorded'
                         for s in samples)
    plural = 's' if len(samples) != 1 else ''
    # Per foreign source the per-client or per-job counters named
    # (pfsbench.load.attribution writes them, fields reads them): who
    # contended how many repeats.
    by_source = Counter(
        name for s in samples
        for name in fields.sources_named(s.get('contention')))
    sources = ('; by foreign source: ' + ', '.join(
        f'{name}: {n}' for name, n in by_source.most_common())
        if by_source else '')
    return (f'{len(samples)} contended sample{plural} left out: '
            f'{"; ".join(seen)}{sources}')


def without_uncontended(cases, contended):
    """The cases of ``contended`` samples that kept no uncontended repeat
    (a baseline would silently not gate them), each with its count and
    contention: ``[(case, n, contention note), ...]``, sorted."""
    lost = defaultdict(list)
    for sample in contended:
        if sample['case'] not in cases:
            lost[sample['case']].append(sample)

    return [(case, len(lost[case]), contended_note(lost[case]))
            for case in sorted(lost)]


@dataclasses.dataclass
class _Samples:
    """What the chosen sessions hold for a baseline: its ``cases`` by
    key, the ``contended`` samples left out, and the nodes and tags
    ``seen`` per (case key, session index)."""

    cases: dict = dataclasses.field(default_factory=dict)
    contended: list = dataclasses.field(default_factory=list)
    seen: defaultdict = dataclasses.field(
        default_factory=lambda: defaultdict(lambda: (set(), set())))

    def add(self, rec, session, si):
        """Take one record of ``session`` (index ``si``) in.

        Raises:
            MissingData: the record holds no usable measurement.
            ConfigError: its case was configured differently before.
        """
        if rec.contended:
            self.contended.append(contended_sample(rec))
            return

        why = unusable_reason(rec, session)
        if why:
            raise MissingData(f'session {session.uuid}: {rec.key}: {why}')

        entry = self._entry(rec, session)
        nodes, tags = self.seen[(rec.key, si)]
        nodes.update(rec.nodelist)
        tags.update(rec.tags)
        for var, (value, unit) in rec.perf.items():
            pv = entry['perfvars'].setdefault(
                var, {'unit': unit, 'values': [], 'session_index': [],
                      'iterations': []}
            )
            if pv['unit'] != unit:
                raise ConfigError(
                    f'session {session.uuid}', f'{rec.key}: {var}', unit,
                    f'unit differs from {pv["unit"]!r} in an earlier '
                    'session'
                )

            pv['values'].append(float(value))
            pv['session_index'].append(si)
            pv['iterations'].append(rec.iterations)

    def _entry(self, rec, session):
        """The case entry of ``rec``, new or the one an earlier session
        configured the same way."""
        entry = self.cases.get(rec.key)
        if entry is None:
            entry = self.cases[rec.key] = {
                **rec.key.as_dict(), 'params': rec.key.params,
                'config': dict(rec.config), 'config_session':
                session.uuid, 'perfvars': {}
            }
        elif entry['config'] != rec.config:
            field, old, new = first_difference(entry['config'], rec.config)
            raise ConfigError(
                f'session {session.uuid}', f'{rec.key}: {field}', new,
                f'differs from {old!r} in session '
                f'{entry["config_session"]}; sessions with different '
                'parameters cannot form one baseline'
            )

        return entry

    def finished_cases(self):
        """The cases as the baseline file holds them: with their
        provenance, without the session that configured them, with
        iteration counts only where every sample knows its own."""
        for (key, idx), (nodes, tags) in sorted(self.seen.items()):
            self.cases[key].setdefault('provenance', []).append(
                {'session_index': idx, 'tags': case_level(nodes, tags)})

        for entry in self.cases.values():
            del entry['config_session']
            for pv in entry['perfvars'].values():
                # Only when every sample knows its tool's iteration count.
                if None in pv['iterations']:
                    del pv['iterations']

        return [self.cases[k] for k in sorted(self.cases)]


def _samples_of(results, sessions, name_filter):
    """The :class:`_Samples` of ``sessions`` (oldest first), cases
    matching ``name_filter`` only.

    Raises:
        MissingData: a session stopped early, or a record is unusable.
        ConfigError: a case was configured differently in two sessions.
    """
    index = {s.uuid: i for i, s in enumerate(sessions)}
    samples = _Samples()
    for session in sessions:
        if session.num_aborted:
            raise MissingData(
                f'session {session.uuid}: stopped early '
                f'({session.num_aborted} aborted case(s)); choose other '
                'sessions'
            )

        records = [r for r in results.by_session(session.uuid)
                   if name_filter is None or name_filter.search(r.key.name)]
        for rec in records:
            samples.add(rec, session, index[session.uuid])

    return samples


def _cases_lost(samples, sessions, allow_missing):
    """The cases whose every repeat was contended (as
    :func:`without_uncontended`), refused unless ``allow_missing``.

    Raises:
        MissingData: no case at all, or (without ``allow_missing``) a
            case with no uncontended repeat.
    """
    chosen = ", ".join(s.uuid for s in sessions)
    if not samples.cases:
        note = contended_note(samples.contended)
        raise MissingData(
            f'no test case selected from session(s) {chosen}' +
            (f' ({note})' if note else '')
        )

    lost = without_uncontended({str(k) for k in samples.cases},
                               samples.contended)
    if lost and not allow_missing:
        raise MissingData(
            f'{len(lost)} case(s) with no uncontended repeat in session(s) '
            f'{chosen}, which the baseline '
            'would not gate: ' + '; '.join(
                f'{case} ({note})' for case, _, note in lost) +
            '; choose other sessions, or record without them with '
            '--allow-missing')

    return lost


def build(results, session_uuids, name, name_filter=None,
          allow_missing=False):
    """Build a baseline from the chosen sessions.

    Args:
        results: a :class:`pfsbench.gate.history.results.Results`.
        session_uuids: uuids of the sessions to take samples from.
        name: the baseline's name.
        name_filter: optional compiled regex; only cases whose name matches
            (``re.search``) are recorded.
        allow_missing: record the baseline without the cases whose every
            repeat was contended (its ``missing_cases`` names them);
            otherwise they refuse it.

    Returns:
        The baseline as a dict (see the module docstring); contended
        samples are left out and listed.

    Raises:
        MissingData: no usable sample, or a chosen session stopped early,
            or a chosen case holds no measurement, or (without
            ``allow_missing``) a case has no uncontended repeat.
        ConfigError: the same case was configured differently in two
            sessions (different ``-S`` variables or task counts).
    """
    check_name(name)
    sessions = [results.sessions[u] for u in session_uuids]
    sessions.sort(key=lambda s: s.time_start)
    samples = _samples_of(results, sessions, name_filter)
    lost = _cases_lost(samples, sessions, allow_missing)
    return {
        'format_version': FORMAT_VERSION,
        'kind': KIND,
        'name': name,
        **written_stamp(),
        'database': results.source,
        'sessions': [s.as_dict() for s in sessions],
        'cases': samples.finished_cases(),
        'contended_samples': samples.contended,
        **({'missing_cases': [case for case, _, _ in lost]} if lost else {}),
    }


def written_stamp():
    """When, in UTC to the second, and by which pfsbench a document (a
    baseline, a gate record) was written: its ``created`` and
    ``pfsbench_version``."""
    return {'created': datetime.datetime.now(
                datetime.timezone.utc).isoformat(timespec='seconds'),
            'pfsbench_version': __version__}


def first_difference(old, new):
    """``(key, old value, new value)`` of the first key, in sorted order,
    where two configuration dicts differ."""
    for key in sorted(set(old) | set(new)):
        if old.get(key) != new.get(key):
            return key, old.get(key), new.get(key)

    return '?', old, new


def save(baseline, directory, force=False):
    """Write a baseline file atomically; return its path."""
    path = baseline_path(directory, baseline['name'])
    if os.path.exists(path) and not force:
        raise BaselineExists(
            f'{path}: baseline {baseline["name"]!r} exists; delete it '
            'first or pass --force'
        )

    os.makedirs(directory, exist_ok=True)
    tmp = path + '.tmp'
    with open(tmp, 'w') as fp:
        json.dump(baseline, fp, indent=1, sort_keys=False)
        fp.write('\n')

    os.replace(tmp, path)
    return path


def load(directory, name):
    """Read and validate a baseline.

    Raises:
        MissingData: no such baseline (the message lists the known ones).
        ConfigError: the file is not a valid baseline (names the field).
    """
    path = baseline_path(directory, name)
    try:
        with open(path) as fp:
            text = fp.read()
        data = json.loads(text)
    except FileNotFoundError:
        raise _not_found(directory, name, path) from None
    except ValueError as err:
        raise ConfigError(path, '<json>', None, f'not JSON: {err}') from None

    validate(data, path, (text.encode(), _checked_mark(directory, name)))
    return data


def _checked_mark(directory, name):
    """The file beside a baseline recording that its bytes passed the
    schema (:func:`pfsbench.schemas.check_once`)."""
    return os.path.join(directory, f'.{check_name(name)}.checked')


def validate(data, path, checked=None):
    """Check a decoded baseline against its schema, and that every
    sample's session index and iteration count line up with its values.

    Args:
        checked: ``(content, mark)``: the file's bytes and the mark that
            spares the schema check of bytes that passed it before
            (:func:`pfsbench.schemas.check_once`); the other checks run
            each time.

    Raises:
        ConfigError: naming the file, the dotted key and the value.
    """
    if checked is None:
        schemas.check(data, SCHEMA, path)
    else:
        schemas.check_once(data, SCHEMA, path, *checked)
    nsess = len(data['sessions'])
    for i, case in enumerate(data['cases']):
        for j, prov in enumerate(case.get('provenance', ())):
            if prov['session_index'] >= nsess:
                raise ConfigError(path, f'cases.{i}.provenance.{j}.'
                                  'session_index', prov['session_index'],
                                  f'expected an index into sessions '
                                  f'(0..{nsess - 1})')

        for var, pv in case['perfvars'].items():
            where = f'cases.{i}.perfvars.{var}'
            nvals = len(pv['values'])
            idx = pv['session_index']
            if len(idx) != nvals or any(j >= nsess for j in idx):
                raise ConfigError(path, f'{where}.session_index', idx,
                                  f'expected {nvals} indexes into sessions '
                                  f'(0..{nsess - 1})')

            its = pv.get('iterations')
            if its is not None and len(its) != nvals:
                raise ConfigError(path, f'{where}.iterations', its,
                                  f'expected {nvals} iteration counts >= 1')

            # Numbers JSON spells but no measurement is (NaN, 1e308,
            # 5e-324, an iteration count of 10**400): refused here, before
            # any arithmetic overflows on them.
            for k, value in enumerate(pv['values']):
                why = value_problem(value)
                if why:
                    raise ConfigError(path, f'{where}.values.{k}',
                                      _Shown(why.split(': ', 1)[0]),
                                      why.split(': ', 1)[1])

            for k, count in enumerate(its or ()):
                why = iterations_problem(count)
                if why:
                    raise ConfigError(path, f'{where}.iterations.{k}',
                                      _Shown(why.split(': ', 1)[0]),
                                      why.split(': ', 1)[1])

        for j, session in enumerate(data['sessions']):
            for field in ('time_start', 'time_end'):
                stamp = session.get(field)
                if stamp is not None and time_problem(stamp):
                    raise ConfigError(path, f'sessions.{j}.{field}',
                                      _Shown(repr(stamp)[:40]),
                                      time_problem(stamp))


class _Shown(str):
    """A value as a message already spells it (no quotes added)."""

    def __repr__(self):
        return str(self)


def case_key(case):
    return CaseKey(case['name'], case['system'], case['partition'],
                   case['environ'])


def list_names(directory):
    """Names of the baselines in ``directory``, sorted."""
    try:
        files = os.listdir(directory)
    except FileNotFoundError:
        return []

    return sorted(f[:-5] for f in files
                  if f.endswith('.json') and _NAME_RE.fullmatch(f[:-5]))


def delete(directory, name):
    """Remove a baseline file; return its path."""
    path = baseline_path(directory, name)
    try:
        os.remove(path)
    except FileNotFoundError:
        raise _not_found(directory, name, path) from None
    try:
        os.remove(_checked_mark(directory, name))
    except FileNotFoundError:
        pass

    return path


def _not_found(directory, name, path):
    known = ', '.join(list_names(directory)) or 'none'
    return MissingData(f'{path}: baseline {name!r} not found (known: '
                       f'{known})')
