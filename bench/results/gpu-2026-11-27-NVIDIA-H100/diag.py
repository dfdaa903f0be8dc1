# diag.py CMP_DIR EXPECTED_DIR: for up to 10 differing GPU runs (.result says different), every
# dataset's distance from the host reference: elements differing, first index, max relative error.
import glob, os, sys
import h5py, numpy as np
cmp_dir, expected = sys.argv[1], sys.argv[2]
shown = 0
for result in sorted(glob.glob(os.path.join(cmp_dir, "*.result"))):
    tag, p, dev, outcome, _ = open(result).read().split("\t")
    if outcome != "different" or shown >= 10:
        continue
    shown += 1
    ref, run = os.path.join(expected, f"{tag}-p{p}.h5"), result[:-len(".result")] + ".h5"
    print(f"== {tag} on {p} rank(s), --device {dev}")
    a, b = h5py.File(ref, "r"), h5py.File(run, "r")
    names = []
    a.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
    for n in names:
        if n.startswith("resampling_traffic"):
            continue
        x = a[n][()]
        if n not in b:
            print(f"  {n}: missing"); continue
        y = b[n][()]
        if np.asarray(x).tobytes() == np.asarray(y).tobytes():
            continue
        try:
            xf, yf = np.asarray(x, dtype=float).ravel(), np.asarray(y, dtype=float).ravel()
            d = np.abs(xf - yf)
            rel = d / np.maximum(np.abs(xf), 1e-300)
            first = int(np.argmax(d > 0))
            print(f"  {n}: {int((d > 0).sum())}/{d.size} differ, first at {first} ({xf[first]!r} vs {yf[first]!r}), max rel {rel.max():.3e}")
        except Exception as e:
            print(f"  {n}: differs (not numeric: {e})")
print(f"diag: {shown} differing run(s) shown")
