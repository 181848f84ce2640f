#!/usr/bin/env python3
"""Packs a cross-check's OUT/actual and OUT/planted into OUT/bundle-N.zip files of at most 15 MiB
each, for machines that return few files (tools/crosscheck/unbundle.py unpacks them). Used by
torch_cuda.py and torch_data.py (--bundle)."""
import os


def bundle(out):
    """Packs OUT/actual and OUT/planted into zip files of at most 15 MiB each."""
    import zipfile
    files = []
    for top in ("actual", "planted"):
        for root, _, names in os.walk(os.path.join(out, top)):
            files += [os.path.join(root, n) for n in sorted(names)]
    part, size, z = 0, 0, None
    for f in files:
        n = os.path.getsize(f)
        if z is None or size + n > 15 * 2**20:
            if z:
                z.close()
            part += 1
            z = zipfile.ZipFile(os.path.join(out, f"bundle-{part}.zip"), "w", zipfile.ZIP_DEFLATED)
            size = 0
        z.write(f, os.path.relpath(f, out))
        size += n
    if z:
        z.close()
    print(f"bundled {len(files)} files into {part} zip files")
