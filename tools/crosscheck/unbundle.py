#!/usr/bin/env python3
"""Unpack the bundle-N.zip files torch_cuda.py --bundle wrote: python3 unbundle.py DIR OUT
(actual/ and planted/ land under OUT)."""
import glob
import os
import sys
import zipfile

src, out = sys.argv[1:3]
for z in sorted(glob.glob(os.path.join(src, "bundle-*.zip"))):
    zipfile.ZipFile(z).extractall(out)
print(f"unpacked into {out}")
