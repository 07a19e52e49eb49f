"""A planted bug for any output of any op: one element moved far from its reference value, at the element of
largest magnitude (so that no tolerance, cosine included, can absorb it)."""
import numpy as np

import dsv4check


def corrupt(array):
    """(a corrupted copy, the corrupted index)."""
    bad = array.copy()
    if isinstance(array, dsv4check.CodeArray):
        values = np.abs(np.nan_to_num(array.decode(), nan=0.0, posinf=0.0, neginf=0.0))
        idx = np.unravel_index(int(np.argmax(values)), array.shape)
        flip = 0x4000 if array.itemsize == 2 else 0x40  # the exponent's top bit: a factor of 2^±64 or more
        bad[idx] = np.asarray(array)[idx] ^ flip
    elif np.issubdtype(array.dtype, np.floating):
        mags = np.abs(np.nan_to_num(array.astype(np.float64), nan=0.0, posinf=0.0, neginf=0.0))
        idx = np.unravel_index(int(np.argmax(mags)), array.shape)
        bad[idx] = array[idx] + 1000.0 * (mags.max() + 1.0)
    elif array.dtype == np.uint8:
        idx = np.unravel_index(int(np.argmax(array)), array.shape)
        bad[idx] = array[idx] ^ 0x40
    else:  # indices: one that is in no row's set
        idx = np.unravel_index(int(np.argmax(array)), array.shape)
        bad[idx] = array.max() + 7
    return bad, tuple(int(i) for i in idx)
