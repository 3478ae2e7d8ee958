# SPDX-License-Identifier: BSD-3-Clause
"""Print, as one JSON line, the checksummed sources an environment's
install fetches: ``[[spec, what, sha256], ...]``.

Run by Spack itself on a concretized environment (``spack -e ENV python
spack_sources.py``), for ``pfsbench check-spack``, which then looks each
sha256 up in the local mirrors.  It reads the concrete specs from
``spack.lock`` and fetches nothing.  Spack 0.22 to 1.1.
"""

import json

import spack.environment


def _mirrored_digest(fetcher):
    """The sha256 a mirror stores a fetcher's archive under; None for one
    that fetches no checksummed archive, or a local ``file://`` one (a
    recipe's own file, such as compiler-wrapper's cc.sh)."""
    if str(getattr(fetcher, 'url', '') or '').startswith('file://'):
        return None
    return getattr(fetcher, 'digest', None)


def sources():
    env = spack.environment.active_environment()
    found = []
    for spec in env.all_specs():
        if spec.external or not spec.package.has_code:
            continue
        name = spec.format('{name}@{version}')
        digest = _mirrored_digest(spec.package.fetcher)
        if digest:
            found.append([name, 'source', digest])
        for resource in spec.package._get_needed_resources():
            digest = _mirrored_digest(resource.fetcher)
            if digest:
                found.append([name, f'resource {resource.name}', digest])
        for patch in spec.patches:
            # A URL patch is fetched (and mirrored); a file patch ships
            # with the recipe.
            digest = (getattr(patch, 'archive_sha256', None) or
                      getattr(patch, 'sha256', None))
            if getattr(patch, 'url', None) and digest:
                found.append([name, f'patch {patch.url}', digest])
    return found


print(json.dumps(sources()))
