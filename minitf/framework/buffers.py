"""Buffers that outlive a step: kernels read them, the caller never gets them.

Most arrays of a step are its own: a kernel made them, and they die with
their last consumer. Three kinds are not:

- a variable's buffer: later updates change it in place;
- a Const's value: later steps read it again;
- a fed array: the caller holds it.

The rule: such a buffer is never handed to the caller as a fetch, and no
kernel writes into it. One mechanism keeps both halves. The runtime hands
these buffers to kernels only as read-only NumPy views (`read_only_view`:
the executor for variable reads and Consts, `_Arg` for feeds), and NumPy
carries the flag along: every view of a read-only array (a reshape, a
slice, a transpose, a view of that view) is read-only too. So a kernel
that returns a view of such an input returns a read-only array, which
`_Retval` copies before the caller gets it (`for_the_caller`); and a kernel
that tries to write into one fails (NumPy's ValueError, an
InvalidArgumentError naming the node) instead of changing state behind
everyone's back. A result the step computed is writeable and goes out as
it is, without a copy.

The flag is set on a new view, never on the array itself: the caller's fed
array stays as writeable as it was, and so does a variable's buffer, which
the update kernels change in place (an input declared `Ref(T)` receives the
`Var` itself, not a view of its buffer).

Arrays that are not NumPy's (a GPU's, CuPy's or the test suite's stand-in)
have no such flag and pass unchanged. A fetch of one is copied to the host
by `Device.copy_to_host` anyway, so the caller never shares it either.

TensorFlow keeps the same rule with reference counts: a kernel may reuse an
input's buffer only when nothing else holds it (`Tensor::RefCountIsOne`, in
`OpKernelContext::forward_input`), and a fetched tensor becomes a NumPy
array without a copy only under the same condition (`TF_TensorMaybeMove`,
used by `TF_TensorToPyArray` in `tensorflow/python/lib/core/ndarray_tensor.cc`).
"""

import sys

import numpy as np


def read_only_view(value):
    """`value` as kernels may see a buffer that outlives the step: a read-only view.

    Other values pass as they are: a NumPy scalar cannot be changed, and a
    device array has no flag (its fetch is a copy to the host anyway).
    """
    if not isinstance(value, np.ndarray):
        return value
    view = value.view()
    view.setflags(write=False)
    return view


def for_the_caller(value):
    """`value` as a fetch may hand it to the caller: a copy when it is read-only.

    A read-only array is (a view of) a buffer that outlives the step, or a
    view NumPy made read-only (`np.broadcast_to`); either way the caller
    gets an array of its own.
    """
    if isinstance(value, np.ndarray) and not value.flags.writeable:
        return value.copy()
    return value


def only_reference(args, slot):
    """Whether `args[slot]` is a buffer that nothing but `args` holds, which a kernel may
    write into (buffer forwarding).

    The executor asks it for an input whose tensor no other node of the step
    reads, with `args` the only container of the kernel's inputs. Then one
    reference more than `args`'s own (the one `sys.getrefcount` counts for
    its argument) means somebody else holds the array: the caller (a fed or
    fetched array), a view of it, a resource. A read-only array is a buffer
    that outlives the step (the rule of this module); a view (`base` set)
    shares memory with another array that may live on.
    """
    array = args[slot]
    # References: `args`, `array` here, and getrefcount's argument.
    return (type(array) is np.ndarray and array.base is None and array.flags.writeable
            and sys.getrefcount(array) <= 3)
