"""Array plumbing: NumPy arrays (host) and device arrays (CuPy, or anything with
__cuda_array_interface__) checked, converted where that is safe, and handed to the extension as
pointers."""
import numpy as np

FLOAT_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def is_device_array(a):
    return hasattr(a, "__cuda_array_interface__")


def _cupy():
    try:
        import cupy
    except ImportError as e:  # a device array from another library, and no CuPy to convert it
        raise ValueError("device arrays need CuPy installed to be converted") from e
    return cupy


def value_dtype(dtype, what):
    """float32 or float64, else ValueError naming `what`."""
    try:
        d = np.dtype(dtype)
    except TypeError as e:
        raise ValueError(f"{what}: {dtype!r} is not a dtype") from e
    if d not in FLOAT_DTYPES:
        raise ValueError(f"{what}: {d} is not supported (float32 or float64)")
    return d


def _check_convertible(dtype, what):
    if np.dtype(dtype).kind not in "biuf":
        raise ValueError(f"{what}: dtype {dtype} cannot be converted to a real float")


def device_pointer(a, what, dtype, n, writable=False):
    """The device address of a contiguous 1-D device array of `n` values of `dtype`."""
    cai = a.__cuda_array_interface__
    if tuple(cai["shape"]) != (n,):
        raise ValueError(f"{what}: expected shape ({n},), got {tuple(cai['shape'])}")
    if np.dtype(cai["typestr"]) != dtype:
        raise ValueError(f"{what}: dtype {np.dtype(cai['typestr'])}, the operator's is {dtype}")
    strides = cai.get("strides")
    if strides is not None and n > 1 and tuple(strides) != (dtype.itemsize,):
        raise ValueError(f"{what}: not contiguous")
    ptr, read_only = cai["data"]
    if writable and read_only:
        raise ValueError(f"{what}: read-only")
    return int(ptr)


def as_input(a, what, dtype, n, device):
    """`a` as a contiguous 1-D array of `n` values of `dtype`, in host memory (device=False:
    NumPy) or device memory (device=True). Converted (a copy) when the dtype or layout differs;
    a (n, 1) column is accepted as a vector."""
    if device:
        if not is_device_array(a):
            raise ValueError(f"{what}: a host array among device arrays (use one kind)")
        cai = a.__cuda_array_interface__
        dt = np.dtype(cai["typestr"])
        shape = tuple(cai["shape"])
        strides = cai.get("strides")
        contiguous = strides is None or len(shape) != 1 or shape[0] <= 1 or \
            tuple(strides) == (dt.itemsize,)
        if dt == dtype and len(shape) == 1 and contiguous:
            return a
        _check_convertible(dt, what)
        cp = _cupy()
        a = cp.ascontiguousarray(cp.asarray(a).astype(dtype, copy=False))
    else:
        if is_device_array(a):
            raise ValueError(f"{what}: a device array among host arrays (use one kind)")
        try:
            a = np.asarray(a)
        except Exception as e:  # ragged lists and the like
            raise ValueError(f"{what}: not an array ({e})") from e
        _check_convertible(a.dtype, what)
        a = np.ascontiguousarray(a, dtype=dtype)
    if a.ndim == 2 and a.shape[1] == 1:
        a = a.reshape(-1)
    if a.shape != (n,):
        raise ValueError(f"{what}: expected shape ({n},), got {tuple(a.shape)}")
    return a


def check_output(out, what, dtype, n, device):
    """`out` as given, when it can receive the result in place; ValueError otherwise."""
    if device != is_device_array(out):
        raise ValueError(f"{what}: must be a {'device' if device else 'NumPy'} array like x")
    if device:
        device_pointer(out, what, dtype, n, writable=True)
        return out
    if not isinstance(out, np.ndarray):
        raise ValueError(f"{what}: must be a NumPy array")
    if out.dtype != dtype:
        raise ValueError(f"{what}: dtype {out.dtype}, the operator's is {dtype}")
    if out.shape != (n,):
        raise ValueError(f"{what}: expected shape ({n},), got {out.shape}")
    if not out.flags.c_contiguous:
        raise ValueError(f"{what}: not contiguous")
    if not out.flags.writeable:
        raise ValueError(f"{what}: read-only")
    return out


def empty(n, dtype, device):
    return _cupy().empty(n, dtype=dtype) if device else np.empty(n, dtype=dtype)


def zeros(n, dtype, device):
    return _cupy().zeros(n, dtype=dtype) if device else np.zeros(n, dtype=dtype)


def copy(a, device):
    return _cupy().array(a, copy=True) if device else np.array(a, copy=True)


def pointer(a):
    return int(a.__cuda_array_interface__["data"][0])


def stream_handle(stream, arrays):
    """The CUDA stream to order with: `stream` (a CuPy Stream, anything with .ptr, or an int
    handle) when given, else CuPy's current stream, else what the first array's interface
    names (1: the legacy default stream; none: the legacy default stream too)."""
    if stream is not None:
        ptr = getattr(stream, "ptr", stream)
        if isinstance(ptr, bool) or not isinstance(ptr, (int, np.integer)) or ptr < 0:
            raise ValueError(f"stream: {stream!r} is not a CUDA stream (a cupy.cuda.Stream or "
                             "a handle as int)")
        return int(ptr)
    try:
        import cupy
        return int(cupy.cuda.get_current_stream().ptr)
    except ImportError:
        pass
    s = arrays[0].__cuda_array_interface__.get("stream")
    return int(s) if s else 0
