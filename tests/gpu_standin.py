"""The stand-in GPU of the test suite: an array module whose arrays are not NumPy's.

DESIGN.md §5: tests run a "GPU" device whose array module is pluggable.
Here it is `STAND_IN_XP`, which computes with NumPy but hands out
`DeviceArray`s, a type of its own that follows CuPy's rules:

- `xp.asarray(host_value)` (or `xp.array`) copies a host value onto the
  device and `device_array.get()` copies it back: the two calls that
  `Device.copy_to_device` / `Device.copy_to_host` make.
- Every other NumPy name is there too (`xp.reshape`, `xp.add.at`,
  `xp.float32`, ...), returning device arrays, and refusing NumPy arrays as
  arguments: a host array reaching a device function is a missing copy.
- A device array never silently turns into a NumPy array: `np.asarray(d)`
  raises TypeError as CuPy does, NumPy's functions and ufuncs refuse it, and
  an operator mixing it with a NumPy array raises. Only explicit scalar reads
  (`float(d)`, `bool(d)`, `d.item()`, `d.tolist()`) reach the host, as on a
  real card.

So a kernel that computes with `np` instead of `ctx.xp`, or a value that
crosses between host and device without a copy, fails in CI the way it
would on a GPU. The `stand_in_gpu` fixture in `tests/conftest.py` gives new
sessions one `GPU:0` backed by this module.
"""

import operator

import numpy as np

# The NumPy functions that copy a host value onto the device (CuPy's names).
_HOST_TO_DEVICE = frozenset({"asarray", "array", "asanyarray", "ascontiguousarray"})

_PYTHON_SCALARS = (bool, int, float, complex)


def _refuse_host_array(where):
    raise TypeError("%s received a NumPy array: host values must be copied to the stand-in "
                    "GPU with xp.asarray first (a missing host->device copy)" % where)


class DeviceArray:
    """An array living on the stand-in GPU: NumPy data behind a type NumPy does not know."""

    __slots__ = ("_data",)

    # NumPy's ufuncs refuse a device array (np.negative(d) raises TypeError), and
    # NumPy's operators hand it the operation (np.float32(2) * d calls d.__rmul__,
    # which accepts scalars and refuses NumPy arrays), as CuPy's operators do.
    __array_ufunc__ = None

    def __init__(self, data):
        self._data = data

    # --- crossing to the host: only explicitly ----------------------------------------

    def get(self):
        """A copy of this array on the host, as CuPy's `ndarray.get()`."""
        return self._data.copy()

    def __array__(self, dtype=None, copy=None):
        raise TypeError("Implicit conversion to a NumPy array is not allowed. Please use "
                        "`.get()` to construct a NumPy array explicitly.")

    def __array_function__(self, func, types, args, kwargs):
        raise TypeError("NumPy's %s was called on a stand-in GPU array: a kernel that can run "
                        "on a GPU must compute with ctx.xp" % func.__name__)

    def __bool__(self):
        return bool(self._data)

    def __int__(self):
        return int(self._data)

    def __float__(self):
        return float(self._data)

    def __complex__(self):
        return complex(self._data)

    # --- what the array is ----------------------------------------------------------------

    @property
    def shape(self):
        return self._data.shape

    @property
    def dtype(self):
        return self._data.dtype

    @property
    def ndim(self):
        return self._data.ndim

    @property
    def size(self):
        return self._data.size

    def __len__(self):
        return len(self._data)

    def __iter__(self):
        return (_to_device(row) for row in self._data)

    def __repr__(self):
        return "DeviceArray(%r)" % (self._data,)

    def __getattr__(self, name):
        """NumPy's methods and attributes (astype, sum, T, ...), computed on the device."""
        if name.startswith("__") or name == "_data":
            # The array protocols (__array_interface__, __dlpack__, ...) would let
            # NumPy read the data without a copy: a device array has none of them.
            raise AttributeError(name)
        attribute = getattr(self._data, name)
        if callable(attribute):
            return _device_function(attribute, "DeviceArray.%s" % name)
        return _to_device(attribute)

    # --- indexing ---------------------------------------------------------------------------

    def __getitem__(self, key):
        return _to_device(self._data[_index_to_numpy(key)])

    def __setitem__(self, key, value):
        self._data[_index_to_numpy(key)] = _operand_to_numpy(value, "DeviceArray.__setitem__")


def _index_to_numpy(key):
    # As CuPy, index arrays may come from the host (they are copied); device arrays are unwrapped.
    if isinstance(key, DeviceArray):
        return key._data
    if isinstance(key, tuple):
        return tuple(_index_to_numpy(k) for k in key)
    return key


def _device_data(value, where):
    """The NumPy data behind a device array; a host array refused; anything else as it is."""
    if isinstance(value, DeviceArray):
        return value._data
    if isinstance(value, np.ndarray):
        _refuse_host_array(where)
    return value


def _operand_to_numpy(value, where):
    """An operand of a device array's operator: another device array or a scalar, as in CuPy."""
    if not isinstance(value, (DeviceArray, np.ndarray, np.generic) + _PYTHON_SCALARS):
        raise TypeError("%s: unsupported operand type %s" % (where, type(value).__name__))
    return _device_data(value, where)


def _make_operators():
    """Arithmetic, comparison and bitwise operators, plain, reflected and in place."""
    binary = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul",
              "and", "or", "xor", "lshift", "rshift"]
    comparisons = ["lt", "le", "eq", "ne", "gt", "ge"]
    unary = ["neg", "pos", "abs", "invert"]

    def plain(function, name):
        def method(self, other):
            return _to_device(function(self._data, _operand_to_numpy(other, name)))
        return method

    def reflected(function, name):
        def method(self, other):
            return _to_device(function(_operand_to_numpy(other, name), self._data))
        return method

    def in_place(function, name):
        def method(self, other):
            function(self._data, _operand_to_numpy(other, name))
            return self
        return method

    def single(function):
        def method(self):
            return _to_device(function(self._data))
        return method

    for op in binary:
        function = getattr(operator, op + "_" if op in ("and", "or") else op)
        setattr(DeviceArray, "__%s__" % op, plain(function, "__%s__" % op))
        setattr(DeviceArray, "__r%s__" % op, reflected(function, "__r%s__" % op))
        setattr(DeviceArray, "__i%s__" % op,
                in_place(getattr(operator, "i" + op), "__i%s__" % op))
    for op in comparisons:
        setattr(DeviceArray, "__%s__" % op, plain(getattr(operator, op), "__%s__" % op))
    for op in unary:
        setattr(DeviceArray, "__%s__" % op, single(getattr(operator, op)))
    DeviceArray.__hash__ = None


_make_operators()


# --- the array module ----------------------------------------------------------------------

def _to_device(value):
    """NumPy results (arrays, scalars, lists or tuples of them) as device arrays."""
    if isinstance(value, (np.ndarray, np.generic)):
        return DeviceArray(np.asarray(value))
    if isinstance(value, (list, tuple)) and any(
            isinstance(v, (np.ndarray, np.generic)) for v in value):
        if hasattr(value, "_fields"):  # a named tuple, as linalg.slogdet returns
            return type(value)(*(_to_device(v) for v in value))
        return type(value)(_to_device(v) for v in value)
    return value


def _arguments_to_numpy(value, where):
    """Device arrays (also inside lists and tuples) unwrapped; host arrays refused."""
    if isinstance(value, (list, tuple)):
        return type(value)(_arguments_to_numpy(v, where) for v in value)
    return _device_data(value, where)


def _device_function(numpy_function, where):
    def on_device(*args, **kwargs):
        args = _arguments_to_numpy(args, where)
        kwargs = {k: _arguments_to_numpy(v, where) for k, v in kwargs.items()}
        return _to_device(numpy_function(*args, **kwargs))
    on_device.__name__ = getattr(numpy_function, "__name__", where)
    return on_device


def _host_to_device_function(numpy_function):
    """xp.asarray and friends: a host value is copied, a device array taken as it is."""
    def copy_to_device(value, *args, **kwargs):
        if isinstance(value, DeviceArray):
            value = value._data
        else:  # a copy, so that the device never shares memory with the host
            value = np.array(value)
        return _to_device(numpy_function(value, *args, **kwargs))
    copy_to_device.__name__ = numpy_function.__name__
    return copy_to_device


class _DeviceUfunc:
    """A NumPy ufunc on device arrays, with its methods (`xp.add.at`, `xp.maximum.reduce`)."""

    def __init__(self, ufunc, where):
        self._ufunc = ufunc
        self._where = where
        self.__name__ = ufunc.__name__

    def __call__(self, *args, **kwargs):
        return _device_function(self._ufunc, self._where)(*args, **kwargs)

    def __getattr__(self, name):
        attribute = getattr(self._ufunc, name)
        if callable(attribute):  # at, reduce, accumulate, outer, reduceat
            return _device_function(attribute, "%s.%s" % (self._where, name))
        return attribute


class StandInArrayModule:
    """NumPy's namespace with device arrays: the `xp` of the stand-in GPU."""

    __name__ = "stand_in_gpu"
    ndarray = DeviceArray
    DeviceArray = DeviceArray

    def __init__(self, numpy_namespace=np, prefix="xp"):
        self._numpy = numpy_namespace
        self._prefix = prefix

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        attribute = getattr(self._numpy, name)
        where = "%s.%s" % (self._prefix, name)
        if isinstance(attribute, np.ufunc):
            wrapped = _DeviceUfunc(attribute, where)
        elif isinstance(attribute, type(np)):  # xp.linalg, xp.random, ...
            wrapped = StandInArrayModule(attribute, where)
        elif name in _HOST_TO_DEVICE:
            wrapped = _host_to_device_function(attribute)
        elif callable(attribute) and not isinstance(attribute, type):
            wrapped = _device_function(attribute, where)
        else:  # dtypes and scalar types (xp.float32), constants (xp.pi, xp.newaxis)
            wrapped = attribute
        setattr(self, name, wrapped)  # looked up once
        return wrapped

    def __repr__(self):
        return "<stand-in GPU array module>"


STAND_IN_XP = StandInArrayModule()
